// Large-site measurements (issue 26 #1, #2): seeds a database with many posts (bench/seed.ts, batch
// inserts: not in CI), then times, in process, through the same services the server uses:
// - the first list after a write: a post created, then page 1 of the API list (its total from the
//   counters) — against the same list counted by count(*) (what every first list after a write paid
//   before the counters), and the public home page's list after a write;
// - the first and the deepest page of the API list (deferred join, the far half read from the end),
//   against the deepest page by a plain ORDER BY … LIMIT … OFFSET (the query before issue 26 #2), and
//   a page after a deep cursor (API v2's keyset).
// Writes a section of bench/RESULTS.md (between scale markers; `npm run bench` keeps it).
//
//   npx tsx bench/scale.ts --posts=200000 [--dialects=sqlite,postgres] [--repeat=15]
//   PostgreSQL: BENCH_SCALE_DATABASE_URL (postgres://postgres@127.0.0.1:5432/folio_bench_scale), dropped
//   and recreated. No Redis: the in-process cache, flushed by every write as in production.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import type { PostListQuery } from '../src/domain/posts/index.js';
import { visibleOnWebsite } from '../src/domain/websites/bindings.js';
import { createServices } from '../src/services.js';
import { writeAtomically } from './report.js';
import { dropPostgresDatabase, recreatePostgresDatabase, seed } from './seed.js';

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: process.env.BENCH_POSTS ?? '200000' },
    dialects: { type: 'string', default: process.env.BENCH_DIALECTS ?? 'sqlite,postgres' },
    repeat: { type: 'string', default: '15' },
    out: { type: 'string', default: path.join(import.meta.dirname, 'RESULTS.md') },
  },
});
const POSTS = Number(values.posts);
const REPEAT = Number(values.repeat);
const PG_URL = process.env.BENCH_SCALE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/folio_bench_scale';

const median = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** The median time of `work` over REPEAT runs, each after `before` (untimed). */
async function measure(work: () => Promise<unknown>, before?: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    await before?.();
    times.push(await timed(work));
  }
  return median(times);
}

interface Row {
  dialect: string;
  seedSeconds: number;
  total: number;
  afterWriteCounted: number;
  afterWriteKept: number;
  homeAfterWrite: number;
  page1: number;
  deepest: number;
  deepestOffsetOnly: number;
  deepestPlain: number;
  cursorDeep: number;
  middle: number;
}

async function run(dialect: 'sqlite' | 'postgres'): Promise<Row> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-scale-'));
  const url = dialect === 'sqlite' ? `sqlite:${path.join(dir, 'scale.sqlite')}` : PG_URL;
  if (dialect === 'postgres') await recreatePostgresDatabase(url);
  try {
    console.log(`${dialect}: seeding ${POSTS} posts…`);
    const info = await seed(url, POSTS);
    console.log(`${dialect}: seeded in ${info.seconds.toFixed(1)} s`);
    const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', MEDIA_DIR: path.join(dir, 'media') });
    const services = createServices(config, { warn: () => undefined });
    try {
      const admin = (await services.users.findByEmail('admin@bench.test'))!;
      const actor = { userId: admin.id, isAdmin: true };
      const websiteId = info.websites[0]!.id;
      const list: PostListQuery = {
        page: 1,
        pageSize: 15,
        sort: 'created_at',
        direction: 'desc',
        websiteId,
        status: 'published',
      };
      let n = 0;
      const write = () =>
        services.posts.create(
          { title: `Scale write ${n++}`, content: '<p>x</p>', websiteIds: [websiteId] },
          actor,
        );
      // An excluded id that names no post: the same list, its total by count(*).
      const afterWriteCounted = await measure(
        () => services.posts.list({ ...list, excludedIds: [0] }),
        write,
      );
      const afterWriteKept = await measure(() => services.posts.list(list), write);
      const homeAfterWrite = await measure(
        () => services.publicPosts.list({ websiteId, locale: 'en', page: 1, pageSize: 10 }),
        write,
      );
      const { total } = await services.posts.list(list);
      const last = Math.ceil(total / list.pageSize);
      const page1 = await measure(() => services.posts.list(list));
      const deepest = await measure(() => services.posts.list({ ...list, page: last }));
      const middle = await measure(() => services.posts.list({ ...list, page: Math.floor(last / 2) }));
      // Without the far-end read (no counter answers a list with excluded ids): the deferred join alone.
      await services.posts.list({ ...list, excludedIds: [0] });
      const deepestOffsetOnly = await measure(() =>
        services.posts.list({ ...list, page: last, excludedIds: [0] }),
      );
      // The page query before issue 26 #2: every column, ORDER BY … LIMIT … OFFSET.
      const { db } = services.database;
      const deepestPlain = await measure(() =>
        db
          .selectFrom('posts')
          .leftJoin('users', 'users.id', 'posts.author_id')
          .select([
            'posts.id',
            'posts.title',
            'posts.slug',
            'posts.excerpt',
            'posts.content',
            'posts.thumbnail',
            'posts.status',
            'posts.published_at',
            'posts.created_at',
            'posts.updated_at',
            'users.name as author_name',
          ])
          .where('posts.deleted_at', 'is', null)
          .where('posts.type', '=', 'post')
          .where('posts.status', '=', 'published')
          .where((eb) => visibleOnWebsite(eb, 'post', eb.ref('posts.id'), websiteId, { perRow: true }))
          .orderBy('posts.created_at', 'desc')
          .orderBy('posts.id', 'desc')
          .limit(list.pageSize)
          .offset((last - 1) * list.pageSize)
          .execute(),
      );
      const near = (await services.posts.list({ ...list, page: last - 1 })).items.at(-1)!;
      const cursorDeep = await measure(() =>
        services.posts.list({ ...list, after: { value: near.createdAt, id: near.id } }),
      );
      return {
        dialect,
        seedSeconds: info.seconds,
        total,
        afterWriteCounted,
        afterWriteKept,
        homeAfterWrite,
        page1,
        deepest,
        deepestOffsetOnly,
        deepestPlain,
        cursorDeep,
        middle,
      };
    } finally {
      await services.close();
    }
  } finally {
    if (dialect === 'postgres') await dropPostgresDatabase(url);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

function section(rows: Row[]): string {
  const lines = [
    '<!-- scale:start -->',
    '## Large sites (issue 26): first list after a write, deepest page',
    '',
    `_Written by \`npx tsx bench/scale.ts --posts=${POSTS}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC` +
      ` (${os.cpus().length} CPU cores, load average at the start ${os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}).` +
      ` In process, through the services the server uses, medians of ${REPEAT} runs; the list is API v1's` +
      ` (website 1, published, newest first, 15 a page). Ratios come from the same run._`,
    '',
    '| Database | Posts | Seeded in | First list after a write: count(*) / counters (ratio) | Home list after a write | Page 1 | Middle page | Deepest page (ratio to page 1) | Deepest, deferred join only | Deepest, plain OFFSET (before) | Page after a deep cursor |',
    '| --- | ---: | ---: | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.dialect} | ${POSTS.toLocaleString('en')} (list: ${row.total.toLocaleString('en')}) | ${row.seedSeconds.toFixed(0)} s | ` +
        `${ms(row.afterWriteCounted)} ms / ${ms(row.afterWriteKept)} ms (**${ratio(row.afterWriteCounted, row.afterWriteKept)}** faster) | ` +
        `${ms(row.homeAfterWrite)} ms | ${ms(row.page1)} ms | ${ms(row.middle)} ms | ${ms(row.deepest)} ms (**${ratio(row.deepest, row.page1)}**) | ` +
        `${ms(row.deepestOffsetOnly)} ms | ${ms(row.deepestPlain)} ms | ${ms(row.cursorDeep)} ms |`,
    ),
    '',
    'Repeat: `npx tsx bench/scale.ts --posts=N` (both databases; `--dialects=sqlite` for one). The middle',
    'page is the worst case of a numbered page (the far half is read from the end); a cursor page costs',
    'what page 1 does at any depth.',
    '<!-- scale:end -->',
    '',
  ];
  return lines.join('\n');
}

const rows: Row[] = [];
for (const dialect of values.dialects.split(',').filter(Boolean) as Array<'sqlite' | 'postgres'>) {
  rows.push(await run(dialect));
  console.log(rows.at(-1));
}
const text = section(rows);
const existing = fs.existsSync(values.out) ? fs.readFileSync(values.out, 'utf8') : '';
const kept = existing.replace(/<!-- scale:start -->[\s\S]*?<!-- scale:end -->\n?/, '');
writeAtomically(values.out, `${kept.trimEnd()}\n\n${text}`);
console.log(text);
