// Reads under writes, over HTTP against the real server (issue 26's measures): a large seeded
// database, Folio started as in production (compiled, LOG_LEVEL=warn), readers requesting the API
// list, the home page and a post page (data cache on, page cache on, no cache) one after another
// while a writer creates one post a second through API v2. Reports, per route, the p99 and the max
// latency with reads alone and under writes, and the first API list and home page right after each
// write. With --creates=S: creates/s through API v2 for S seconds (4 at a time), then again after a
// manual ANALYZE, to show whether Folio keeps its own statistics.
//
//   npx tsx bench/under-writes.ts --dialect=sqlite --posts=1000000 [--seconds=60] [--reuse=FILE]
//   npx tsx bench/under-writes.ts --dialect=postgres --posts=200000 --creates=20
//   --reuse=FILE (SQLite): seed into FILE once (FILE.json keeps what the seed answered), reuse after.
//   PostgreSQL: BENCH_SCALE_DATABASE_URL (postgres://postgres@127.0.0.1:5432/folio_bench_writes),
//   dropped and recreated. Run `npm run build` first (the server runs from dist/).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services.js';
import { send } from './load.js';
import type { Target } from './load.js';
import { BENCH_HOSTS, dropPostgresDatabase, recreatePostgresDatabase, seed } from './seed.js';
import type { SeedInfo } from './seed.js';
import { startFolio } from './servers.js';
import type { ServerProcess } from './servers.js';

const { values } = parseArgs({
  options: {
    dialect: { type: 'string', default: 'sqlite' },
    posts: { type: 'string', default: '200000' },
    seconds: { type: 'string', default: '60' },
    rate: { type: 'string', default: '1' },
    reuse: { type: 'string' },
    creates: { type: 'string' },
    'no-final-analyze': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const dialect = values.dialect as 'sqlite' | 'postgres';
const POSTS = Number(values.posts);
const SECONDS = Number(values.seconds);
const PG_URL =
  process.env.BENCH_SCALE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/folio_bench_writes';
const load = () =>
  os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Stats {
  n: number;
  p50: number;
  p99: number;
  max: number;
}
function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

async function timedGet(base: string, target: Target): Promise<number> {
  const start = performance.now();
  const answer = await send(base, target);
  const ms = performance.now() - start;
  if (answer.status !== 200) {
    throw new Error(
      `${target.headers.host}${target.path}: HTTP ${answer.status} ${answer.body.toString().slice(0, 200)}`,
    );
  }
  return ms;
}

function readRoutes(info: SeedInfo): Array<{ id: string; target: Target }> {
  const get = (id: string, p: string, host: string) => ({
    id,
    target: { method: 'GET' as const, path: p, headers: { host } },
  });
  const post = `/post/${info.sampleSlug}`;
  return [
    get('API list (data cache)', '/api/v1/posts', BENCH_HOSTS.uncached),
    get('API list (no cache)', '/api/v1/posts', BENCH_HOSTS.nothingCached),
    get('home (data cache)', '/', BENCH_HOSTS.uncached),
    get('home (page cache)', '/', BENCH_HOSTS.cached),
    get('home (no cache)', '/', BENCH_HOSTS.nothingCached),
    get('post page (data cache)', post, BENCH_HOSTS.uncached),
    get('post page (page cache)', post, BENCH_HOSTS.cached),
    get('post page (no cache)', post, BENCH_HOSTS.nothingCached),
  ];
}

/** Readers: `loops` loops, each requesting every route in turn with a short pause, until stopped. */
function readers(base: string, routes: ReturnType<typeof readRoutes>, loops: number, started: number) {
  const samples = new Map<string, number[]>(routes.map((r) => [r.id, []]));
  const slow: Array<{ at: number; route: string; ms: number }> = [];
  let running = true;
  const loop = async (offset: number) => {
    for (let k = offset; running; k++) {
      const route = routes[k % routes.length]!;
      const ms = await timedGet(base, route.target);
      samples.get(route.id)!.push(ms);
      if (ms > 50) slow.push({ at: (performance.now() - started) / 1000, route: route.id, ms });
      await sleep(5);
    }
  };
  const done = Promise.all(Array.from({ length: loops }, (_, k) => loop(k * 3)));
  return {
    async stop() {
      running = false;
      await done;
      return { samples, slow };
    },
  };
}

function createTarget(info: SeedInfo, n: number): Target {
  return {
    method: 'POST',
    path: '/api/v2/posts',
    headers: {
      host: BENCH_HOSTS.uncached,
      authorization: `Bearer ${info.token}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      title: `Under writes ${Date.now()} ${n}`,
      content: '<p>Written while others read.</p>',
      status: 'published',
    }),
  };
}

async function create(base: string, info: SeedInfo, n: number): Promise<number> {
  const start = performance.now();
  writeStarts.push(Date.now());
  const answer = await send(base, createTarget(info, n));
  if (answer.status !== 201)
    throw new Error(`create: HTTP ${answer.status} ${answer.body.toString().slice(0, 300)}`);
  return performance.now() - start;
}

async function prepare(): Promise<{ url: string; info: SeedInfo; cleanup: () => Promise<void> }> {
  if (dialect === 'postgres') {
    // --reuse=FILE: FILE keeps what the seed answered; the database stays for the next run.
    const infoFile = values.reuse ? path.resolve(values.reuse) : null;
    if (infoFile && fs.existsSync(infoFile)) {
      console.log(`postgres: reusing ${PG_URL}`);
      const info = JSON.parse(fs.readFileSync(infoFile, 'utf8')) as SeedInfo;
      return { url: PG_URL, info, cleanup: () => dropPostgresDatabase(PG_URL) };
    }
    await recreatePostgresDatabase(PG_URL);
    console.log(`postgres: seeding ${POSTS} posts… (load ${load()})`);
    const info = await seed(PG_URL, POSTS, { finalAnalyze: !values['no-final-analyze'] });
    if (infoFile) fs.writeFileSync(infoFile, JSON.stringify(info));
    console.log(`postgres: seeded in ${info.seconds.toFixed(0)} s`);
    return { url: PG_URL, info, cleanup: () => dropPostgresDatabase(PG_URL) };
  }
  // A seed of its own in a temporary folder, removed at the end; --reuse keeps FILE instead.
  const dir = values.reuse ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'folio-writes-'));
  const file = dir === null ? path.resolve(values.reuse!) : path.join(dir, 'writes.sqlite');
  const url = `sqlite:${file}`;
  const infoFile = `${file}.json`;
  let info: SeedInfo;
  if (values.reuse && fs.existsSync(infoFile)) {
    info = JSON.parse(fs.readFileSync(infoFile, 'utf8')) as SeedInfo;
    console.log(`sqlite: reusing ${file} (${info.posts} posts seeded)`);
  } else {
    console.log(`sqlite: seeding ${POSTS} posts… (load ${load()})`);
    info = await seed(url, POSTS);
    fs.writeFileSync(infoFile, JSON.stringify(info));
    console.log(`sqlite: seeded in ${info.seconds.toFixed(0)} s`);
  }
  return {
    url,
    info,
    cleanup: async () => {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Creates through the API for `seconds`, `parallel` at a time: creates per second. */
async function createsPerSecond(base: string, info: SeedInfo, seconds: number, parallel = 4) {
  let n = 0;
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (performance.now() < end) await create(base, info, n++);
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

const { url, info, cleanup } = await prepare();
const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-writes-media-'));
const monitorFile = path.join(mediaDir, 'loop.json');
/** When each create was sent (Date.now()), to place the event loop's blocks. */
const writeStarts: number[] = [];
let phasesStarted = Number.POSITIVE_INFINITY;
let folio: ServerProcess | undefined;
const report: Record<string, unknown> = {
  date: new Date().toISOString(),
  dialect,
  posts: info.posts,
  cpus: os.cpus().length,
};
try {
  folio = await startFolio({
    mode: 'dist',
    databaseUrl: url,
    mediaDir,
    queryCounter: false,
    nodeArgs: ['--import', path.join(import.meta.dirname, 'loop-monitor.mjs')],
    env: { LOOP_MONITOR_FILE: monitorFile },
  });
  const routes = readRoutes(info);
  for (const route of routes) for (let k = 0; k < 3; k++) await timedGet(folio.url, route.target);

  if (values.creates) {
    const seconds = Number(values.creates);
    await create(folio.url, info, -1);
    phasesStarted = Date.now();
    report.loadBefore = load();
    report.createsUnanalyzed = await createsPerSecond(folio.url, info, seconds);
    console.log(
      `creates/s as Folio keeps its statistics: ${(report.createsUnanalyzed as number).toFixed(1)} (load ${load()})`,
    );
    // The same again: a second figure with nothing changed tells warm-up from the ANALYZE's effect.
    report.createsUnanalyzedAgain = await createsPerSecond(folio.url, info, seconds);
    console.log(
      `creates/s, the same again: ${(report.createsUnanalyzedAgain as number).toFixed(1)} (load ${load()})`,
    );
    const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', MEDIA_DIR: mediaDir });
    const services = createServices(config, { warn: () => undefined });
    try {
      await sql`analyze`.execute(services.database.db);
    } finally {
      await services.close();
    }
    report.createsAnalyzed = await createsPerSecond(folio.url, info, seconds);
    report.loadAfter = load();
    console.log(
      `creates/s after a manual ANALYZE:          ${(report.createsAnalyzed as number).toFixed(1)} (load ${load()})`,
    );
  } else {
    const started = performance.now();
    phasesStarted = Date.now();
    report.loadBefore = load();
    // Reads alone.
    let readLoop = readers(folio.url, routes, 2, started);
    await sleep((SECONDS * 1000) / 3);
    const alone = await readLoop.stop();
    // Reads while one post a second is created; right after each write, the API list and home page.
    readLoop = readers(folio.url, routes, 2, started);
    const firstList: number[] = [];
    const firstHome: number[] = [];
    const writes: number[] = [];
    const interval = 1000 / Number(values.rate);
    const until = performance.now() + SECONDS * 1000;
    for (let n = 0; performance.now() < until; n++) {
      const tick = performance.now();
      writes.push(await create(folio.url, info, n));
      firstList.push(await timedGet(folio.url, routes[0]!.target));
      firstHome.push(await timedGet(folio.url, routes[2]!.target));
      await sleep(Math.max(0, interval - (performance.now() - tick)));
    }
    const under = await readLoop.stop();
    report.loadAfter = load();
    const table: Record<string, { alone: Stats; underWrites: Stats }> = {};
    for (const route of routes) {
      table[route.id] = {
        alone: stats(alone.samples.get(route.id)!),
        underWrites: stats(under.samples.get(route.id)!),
      };
    }
    report.routes = table;
    report.firstListAfterWrite = stats(firstList);
    report.firstHomeAfterWrite = stats(firstHome);
    report.creates = stats(writes);
    report.slow = [...alone.slow, ...under.slow].slice(0, 40);
    const f = (s: Stats) =>
      `p50 ${s.p50.toFixed(1)} p99 ${s.p99.toFixed(1)} max ${s.max.toFixed(1)} ms (n ${s.n})`;
    for (const [id, row] of Object.entries(table)) {
      console.log(`${id.padEnd(24)} alone ${f(row.alone)} | under writes ${f(row.underWrites)}`);
    }
    console.log(`first API list after a write: ${f(report.firstListAfterWrite as Stats)}`);
    console.log(`first home after a write:     ${f(report.firstHomeAfterWrite as Stats)}`);
    console.log(`create through API v2:        ${f(report.creates as Stats)}`);
    console.log(`slow reads (> 50 ms): ${JSON.stringify(report.slow)}`);
  }
  console.log(`load average: before ${String(report.loadBefore)}, after ${String(report.loadAfter)}`);
  await folio.stop();
  // The server's own event loop: blocks of 25 ms or more, and whether it worked through them.
  const monitor = JSON.parse(fs.readFileSync(monitorFile, 'utf8')) as {
    delayMs: Stats;
    blocks: Array<{ at: number; gapMs: number; cpuMs: number; runQueueMs: number; ioWaitMs: number }>;
  };
  const sinceWrite = (at: number) => {
    const before = writeStarts.filter((start) => start <= at).at(-1);
    return before === undefined ? null : at - before;
  };
  const blocks = monitor.blocks.map((block) => ({ ...block, msAfterWriteSent: sinceWrite(block.at) }));
  // Blocks once the measured phases began (the start's own warm-up left out), and those in which
  // Folio was working (its CPU time most of the gap) rather than waiting for a core or the disk.
  const measured = blocks.filter((block) => block.at >= phasesStarted);
  const working = measured.filter((block) => block.cpuMs >= block.gapMs * 0.6);
  report.eventLoop = {
    delayMs: monitor.delayMs,
    blocks: measured.length,
    maxBlockMs: Math.max(0, ...measured.map((b) => b.gapMs)),
    workingBlocks: working.length,
    maxWorkingBlockMs: Math.max(0, ...working.map((b) => b.gapMs)),
    worst: [...measured].sort((a, b) => b.gapMs - a.gapMs).slice(0, 12),
  };
  console.log(`event loop: ${JSON.stringify(report.eventLoop)}`);
} finally {
  await folio?.stop();
  fs.rmSync(mediaDir, { recursive: true, force: true });
  if (!values.reuse) await cleanup();
  if (values.json) fs.writeFileSync(values.json, JSON.stringify(report, null, 2));
}
