// What revisions cost a save (issue 37: at most 1.5× a save without). In process through the services
// the server uses: the same post (about 3 KB of content, two locales, tags) is saved again and again
// through the post update operation (a draft: a published version is kept whatever the limit), by installations with and without revisions (`revisions: false`
// leaves the write hook out), taking turns in rounds so that a noisy machine weighs on both alike.
// With revisions, the post already has `revisions_keep` of them (default 50), so every save also prunes.
// Writes its section of bench/RESULTS.md (between revisions markers).
// Usage: npx tsx bench/revisions.ts [--saves=200] [--rounds=5] [--dialects=sqlite,postgres]
//   PostgreSQL: BENCH_REVISIONS_DATABASE_URL (postgres://postgres@127.0.0.1:5432/folio_bench_revisions),
//   two databases made from it (`_with`, `_without`), dropped and created anew.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/database.js';
import { INSTALLATION_OPERATOR } from '../src/domain/policy.js';
import { DEFAULT_REVISIONS_KEEP } from '../src/domain/revisions/revisions.js';
import { createServices } from '../src/services.js';
import type { Services } from '../src/services.js';
import { writeAtomically } from './report.js';
import { dropPostgresDatabase, recreatePostgresDatabase } from './seed.js';

const { values } = parseArgs({
  options: {
    saves: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '5' },
    dialects: { type: 'string', default: 'sqlite,postgres' },
    out: { type: 'string', default: path.join(import.meta.dirname, 'RESULTS.md') },
  },
});
const SAVES = Number(values.saves);
const ROUNDS = Number(values.rounds);
const PG_URL =
  process.env.BENCH_REVISIONS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/folio_bench_revisions';

const PARAGRAPH =
  '<p>The harbour wakes before the town: nets are mended, engines cough, and the first boats slip ' +
  'past the breakwater while the gulls argue over what the night left behind.</p>';
const content = (n: number) => `${PARAGRAPH.repeat(18)}<p>Edit number ${n}.</p>`;

interface Setup {
  services: Services;
  postId: number;
  cleanup: () => Promise<void>;
}

async function setUp(dialect: 'sqlite' | 'postgres', withRevisions: boolean): Promise<Setup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-revisions-'));
  const url =
    dialect === 'sqlite'
      ? `sqlite:${path.join(dir, 'folio.sqlite')}`
      : PG_URL.replace(/\/([^/]+)$/, `/$1_${withRevisions ? 'with' : 'without'}`);
  if (dialect === 'postgres') await recreatePostgresDatabase(url);
  const services = createServices(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', MEDIA_DIR: dir }), {
    warn: () => undefined,
    revisions: withRevisions,
  });
  await migrate(services.database);
  const site = await services.websites.create({ siteName: 'Bench', domain: 'bench.test' });
  const tags = [];
  for (const name of ['Harbour', 'Boats', 'Morning']) {
    tags.push(
      (await services.tagOps.create(INSTALLATION_OPERATOR, { name, type: 'post_tag', website_ids: [site] }))
        .id,
    );
  }
  const post = await services.postOps.create(INSTALLATION_OPERATOR, {
    title: { en: 'Harbour mornings', fr: 'Matins au port' },
    content: { en: content(0), fr: content(0) },
    excerpt: 'Before the town wakes.',
    status: 'draft',
    tags,
    website_id: site,
  });
  // A history at its limit: every later save also prunes the oldest.
  for (let n = 1; n <= DEFAULT_REVISIONS_KEEP; n++)
    await save({ services, postId: post.id, cleanup: async () => {} }, n);
  return {
    services,
    postId: post.id,
    cleanup: async () => {
      await services.close();
      if (dialect === 'postgres') await dropPostgresDatabase(url);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function save(setup: Setup, n: number) {
  return setup.services.postOps.update(INSTALLATION_OPERATOR, String(setup.postId), {
    title: { en: `Harbour mornings ${n}`, fr: `Matins au port ${n}` },
    content: { en: content(n), fr: content(n) },
  });
}

/** Times of `SAVES` saves, in ms. */
async function round(setup: Setup, start: number): Promise<number[]> {
  const times: number[] = [];
  for (let n = 0; n < SAVES; n++) {
    const begin = process.hrtime.bigint();
    await save(setup, start + n);
    times.push(Number(process.hrtime.bigint() - begin) / 1e6);
  }
  return times;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

interface Row {
  dialect: string;
  without: { p50: number; p99: number; mean: number };
  with: { p50: number; p99: number; mean: number };
  revisions: number;
}

async function run(dialect: 'sqlite' | 'postgres'): Promise<Row> {
  const without = await setUp(dialect, false);
  const withRevisions = await setUp(dialect, true);
  try {
    const times = { without: [] as number[], with: [] as number[] };
    let counter = 1000;
    // Warm-up, then rounds taking turns (which goes first alternates).
    await round(without, (counter += SAVES));
    await round(withRevisions, (counter += SAVES));
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      for (const which of order) {
        times[which].push(...(await round(which === 'with' ? withRevisions : without, (counter += SAVES))));
      }
    }
    const stats = (list: number[]) => {
      const sorted = [...list].sort((a, b) => a - b);
      return {
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        mean: list.reduce((a, b) => a + b, 0) / list.length,
      };
    };
    const revisions = Number(
      (
        await withRevisions.services.database.db
          .selectFrom('revisions')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const row = { dialect, without: stats(times.without), with: stats(times.with), revisions };
    console.log(JSON.stringify(row));
    return row;
  } finally {
    await without.cleanup();
    await withRevisions.cleanup();
  }
}

const ms = (value: number) => value.toFixed(2);

function section(rows: Row[]): string {
  return [
    '<!-- revisions:start -->',
    '## Revisions (issue 37): what a post save costs with them',
    '',
    `_Written by \`npx tsx bench/revisions.ts --saves=${SAVES} --rounds=${ROUNDS}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC` +
      ` (${os.cpus().length} CPU cores, load average at the start ${os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}; **the machine was shared**: other helpers were building and testing meanwhile, so the` +
      ' absolute times are noisy; the ratio, measured in alternating rounds, is the figure to read).' +
      ' In process through `postOps.update`: a draft of about 3 KB in two locales with three tags, saved' +
      ` ${SAVES * ROUNDS} times each way; with revisions, its history is at \`revisions_keep\` (${DEFAULT_REVISIONS_KEEP}),` +
      ' so each save writes a snapshot and prunes the oldest. Goal: at most 1.5×._',
    '',
    '| Database | Without revisions p50 / p99 / mean ms | With revisions p50 / p99 / mean ms | Ratio (mean) | Ratio (p50) | Goal |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...rows.map((row) => {
      const ratio = row.with.mean / row.without.mean;
      return (
        `| ${row.dialect} | ${ms(row.without.p50)} / ${ms(row.without.p99)} / ${ms(row.without.mean)} | ` +
        `${ms(row.with.p50)} / ${ms(row.with.p99)} / ${ms(row.with.mean)} | **${ratio.toFixed(2)}×** | ` +
        `${(row.with.p50 / row.without.p50).toFixed(2)}× | ≤ 1.5× ${ratio <= 1.5 ? '✓' : '✗'} |`
      );
    }),
    '',
    `Revisions kept at the end (with revisions): ${rows.map((row) => `${row.dialect} ${row.revisions}`).join(', ')}.`,
    'A ratio below 1 is the noise of the shared machine: a save with revisions does strictly more work.',
    'Repeat: `npx tsx bench/revisions.ts` (`--dialects=sqlite` for one).',
    '<!-- revisions:end -->',
    '',
  ].join('\n');
}

const rows: Row[] = [];
for (const dialect of values.dialects.split(',').filter(Boolean) as Array<'sqlite' | 'postgres'>) {
  rows.push(await run(dialect));
}
const out = section(rows);
const existing = fs.existsSync(values.out) ? fs.readFileSync(values.out, 'utf8') : '';
const kept = existing.replace(/<!-- revisions:start -->[\s\S]*?<!-- revisions:end -->\n?/, '');
writeAtomically(values.out, `${kept.trimEnd()}\n\n${out}`);
console.log(out);
