// What webhooks cost the answer of a write (issue 38): publishing a post through API v2 with five
// active webhooks that want `post.published` against none. Delivery is asynchronous (a job each, sent
// by the queue), so the answer pays only for the runner's listener: one read of the active webhooks,
// the post's published state, and five job rows. Blocks of creates alternate between "5 webhooks"
// and "none" (the webhooks turned off), so that the load of a shared machine falls on both alike.
// In process, through the app the server runs (Fastify's inject: no socket). No job worker runs:
// the jobs stay queued (their targets would be refused anyway).
// Writes its section of bench/RESULTS.md (between webhooks markers).
// Usage: npx tsx bench/webhooks.ts [--dialects=sqlite,postgres] [--blocks=10] [--per-block=20]
//   PostgreSQL: BENCH_WEBHOOKS_DATABASE_URL (postgres://postgres@127.0.0.1:5432/folio_bench_webhooks),
//   dropped and created anew.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/database.js';
import { INSTALLATION_OPERATOR } from '../src/domain/policy.js';
import { INSTALLED_SETTING } from '../src/domain/system/settings.js';
import { createServices } from '../src/services.js';
import { writeAtomically } from './report.js';
import { dropPostgresDatabase, recreatePostgresDatabase } from './seed.js';

const { values } = parseArgs({
  options: {
    dialects: { type: 'string', default: 'sqlite,postgres' },
    blocks: { type: 'string', default: '10' },
    'per-block': { type: 'string', default: '20' },
    out: { type: 'string', default: path.join(import.meta.dirname, 'RESULTS.md') },
  },
});
const BLOCKS = Number(values.blocks);
const PER_BLOCK = Number(values['per-block']);
const PG_URL =
  process.env.BENCH_WEBHOOKS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/folio_bench_webhooks';
const HOOKS = 5;

interface Stats {
  p50: number;
  p95: number;
  mean: number;
}
const stats = (samples: number[]): Stats => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p95: at(0.95), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
};

interface Row {
  dialect: string;
  none: Stats;
  hooks: Stats;
  noneB2b: Stats;
  hooksB2b: Stats;
  jobs: number;
}

async function run(dialect: 'sqlite' | 'postgres'): Promise<Row> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-webhooks-'));
  const url = dialect === 'sqlite' ? `sqlite:${path.join(dir, 'bench.sqlite')}` : PG_URL;
  if (dialect === 'postgres') await recreatePostgresDatabase(url);
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', APP_URL: 'http://bench.test' });
  const services = createServices({ ...config, redisUrl: null }, { warn: () => undefined });
  try {
    await migrate(services.database);
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await services.settings.set('api_v2_rate_limit', '1000000');
    const site = await services.websites.create({ siteName: 'Bench', domain: 'bench.test' });
    const admin = await services.users.create({
      name: 'Bench',
      email: 'bench@example.test',
      password: 'correct horse battery',
      isAdmin: true,
    });
    const token = await services.users.issueToken(admin.id);
    const ids: number[] = [];
    for (let i = 0; i < HOOKS; i += 1) {
      const hook = await services.webhooks.create(INSTALLATION_OPERATOR, site, {
        url: `https://hooks.example.com/${i}`,
        events: ['post.published', 'post.updated'],
        active: false,
      });
      ids.push(hook.id);
    }
    const app = await buildApp(services, { logger: false });
    await app.ready();
    let n = 0;
    let settle = true;
    const publish = async () => {
      n += 1;
      const started = performance.now();
      const response = await app.inject({
        method: 'POST',
        url: '/api/v2/posts',
        headers: { host: 'bench.test', authorization: `Bearer ${token}` },
        payload: { title: `Bench post ${n}`, content: `<p>Post ${n} of the bench.</p>`, status: 'published' },
      });
      const elapsed = performance.now() - started;
      if (response.statusCode !== 201)
        throw new Error(`create answered ${response.statusCode}: ${response.body}`);
      // The queueing done after the answer is finished before the next create, untimed: the figure is
      // the answer's own time, not the machine's share of the background work (see back to back).
      if (settle) await services.runner.settle();
      return elapsed;
    };
    const setActive = async (active: boolean) => {
      for (const id of ids) await services.webhooks.update(INSTALLATION_OPERATOR, id, { active });
    };
    for (let i = 0; i < 30; i += 1) await publish(); // warm-up
    const none: number[] = [];
    const hooks: number[] = [];
    for (let block = 0; block < BLOCKS; block += 1) {
      for (const withHooks of block % 2 === 0 ? [false, true] : [true, false]) {
        await setActive(withHooks);
        for (let i = 0; i < PER_BLOCK; i += 1) (withHooks ? hooks : none).push(await publish());
      }
    }
    // Back to back: the next create starts while the last one's queueing may still run.
    settle = false;
    const noneB2b: number[] = [];
    const hooksB2b: number[] = [];
    for (let block = 0; block < BLOCKS; block += 1) {
      for (const withHooks of block % 2 === 0 ? [false, true] : [true, false]) {
        await setActive(withHooks);
        for (let i = 0; i < PER_BLOCK; i += 1) (withHooks ? hooksB2b : noneB2b).push(await publish());
        await services.runner.settle();
      }
    }
    const counted = await services.database.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const jobs = Number(counted.n);
    await app.close();
    return {
      dialect,
      none: stats(none),
      hooks: stats(hooks),
      noneB2b: stats(noneB2b),
      hooksB2b: stats(hooksB2b),
      jobs,
    };
  } finally {
    await services.close();
    if (dialect === 'postgres') await dropPostgresDatabase(url);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (value: number) => value.toFixed(2);

function section(rows: Row[], load: string): string {
  const lines = [
    '<!-- webhooks:start -->',
    '## Webhooks (issue 38): publishing a post with 5 webhooks against none',
    '',
    `_Written by \`npx tsx bench/webhooks.ts\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC` +
      ` (${os.cpus().length} CPU cores, load average at the start ${load}; the machine was shared with other` +
      ` work, so absolute times are noisy). POST /api/v2/posts (published) in process (inject), ${BLOCKS} blocks` +
      ` of ${PER_BLOCK} creates per case, alternating; five active webhooks wanting \`post.published\`` +
      ` against the same five turned off. Delivery is asynchronous: the answer pays for queueing a job per` +
      ` webhook, not for sending._`,
    '',
    '| Database | creates | none: p50 / p95 / mean | 5 webhooks: p50 / p95 / mean | added (p50) | ratio (p50) |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows.flatMap((row) =>
      (
        [
          ['one at a time (the answer)', row.none, row.hooks],
          ['back to back', row.noneB2b, row.hooksB2b],
        ] as const
      ).map(
        ([label, none, hooks]) =>
          `| ${row.dialect} | ${label} | ${ms(none.p50)} / ${ms(none.p95)} / ${ms(none.mean)} ms | ` +
          `${ms(hooks.p50)} / ${ms(hooks.p95)} / ${ms(hooks.mean)} ms | ` +
          `${ms(hooks.p50 - none.p50)} ms | ${(hooks.p50 / none.p50).toFixed(2)}× |`,
      ),
    ),
    '',
    `Jobs queued by the 5-webhook creates: ${rows.map((row) => `${row.dialect} ${row.jobs}`).join(', ')}` +
      ` (${HOOKS} × ${2 * BLOCKS * PER_BLOCK} expected).` +
      ' One at a time: the queueing done after the answer finishes, untimed, before the next create.' +
      ' Back to back: it overlaps the next create, which pays for its share of the machine.',
    '',
    'Repeat: `npx tsx bench/webhooks.ts` (`--dialects=sqlite` for one).',
    '<!-- webhooks:end -->',
    '',
  ];
  return lines.join('\n');
}

const load = os
  .loadavg()
  .map((v) => v.toFixed(2))
  .join(' ');
const rows: Row[] = [];
for (const dialect of values.dialects.split(',').filter(Boolean) as Array<'sqlite' | 'postgres'>) {
  rows.push(await run(dialect));
}
const out = section(rows, load);
const existing = fs.existsSync(values.out) ? fs.readFileSync(values.out, 'utf8') : '';
const kept = existing.replace(/<!-- webhooks:start -->[\s\S]*?<!-- webhooks:end -->\n?/, '');
writeAtomically(values.out, `${kept.trimEnd()}\n\n${out}`);
console.log(out);
