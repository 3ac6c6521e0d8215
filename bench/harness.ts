// The benchmark: for each scenario (a database dialect and a number of posts) it seeds a fresh
// database, starts Folio in a child process, measures every route with autocannon, and measures a bare
// Fastify server answering the same bytes right after, so that each figure is also a ratio that holds
// on a noisy machine. Routes that this build does not have yet are reported as "n/a in this build".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { cpuPerRequestUs, measure, probe } from './load.js';
import type { LoadOptions, Measurement, Target } from './load.js';
import { BENCH_HOSTS, dropPostgresDatabase, recreatePostgresDatabase, seed } from './seed.js';
import type { SeedInfo } from './seed.js';
import { startBare, startFolio } from './servers.js';
import type { BareRoute, ServerMode, ServerProcess } from './servers.js';

export type Dialect = 'sqlite' | 'postgres';

export interface RouteSpec {
  id: string;
  label: string;
  target(seed: SeedInfo): Target;
  /** Another branch builds it: a 404 means "n/a in this build", not a failure. */
  optional?: boolean;
  /** Served from the full-page cache: needs `x-folio-cache: hit` once warm. */
  cached?: boolean;
  /** The ratio to bare Fastify this route should reach (issue 9). */
  goal?: number;
  /** Measured at every size of the growth check. */
  growth?: boolean;
}

const get = (path: string, host: string): Target => ({ method: 'GET', path, headers: { host } });

export const ROUTES: RouteSpec[] = [
  {
    id: 'api-list',
    label: 'API post list (page of 15)',
    target: () => get('/api/v1/posts', BENCH_HOSTS.uncached),
    goal: 0.4,
    growth: true,
  },
  {
    id: 'api-show',
    label: 'API post show',
    target: (seed) => get(`/api/v1/posts/${seed.sampleSlug}`, BENCH_HOSTS.uncached),
    growth: true,
  },
  {
    // The like-for-like baseline of API v2's list: the same list, authenticated the same way.
    id: 'api-list-token',
    label: 'API post list (page of 15, Bearer token)',
    target: (seed) => ({
      method: 'GET',
      path: '/api/v1/posts',
      headers: { host: BENCH_HOSTS.uncached, authorization: `Bearer ${seed.token}` },
    }),
  },
  {
    // The like-for-like baseline of API v2's get (issue 42's ruling: v2 within 15 % of v1 with the key).
    id: 'api-show-token',
    label: 'API post show (Bearer token)',
    target: (seed) => ({
      method: 'GET',
      path: `/api/v1/posts/${seed.sampleSlug}`,
      headers: { host: BENCH_HOSTS.uncached, authorization: `Bearer ${seed.token}` },
    }),
  },
  {
    id: 'api-v2-list',
    label: 'API v2 post list (page of 15, Bearer token)',
    target: (seed) => ({
      method: 'GET',
      path: '/api/v2/posts?per_page=15',
      headers: { host: BENCH_HOSTS.uncached, authorization: `Bearer ${seed.token}` },
    }),
    optional: true,
    goal: 0.4,
  },
  {
    id: 'api-v2-show',
    label: 'API v2 post get (Bearer token)',
    target: (seed) => ({
      method: 'GET',
      path: `/api/v2/posts/${seed.sampleId}`,
      headers: { host: BENCH_HOSTS.uncached, authorization: `Bearer ${seed.token}` },
    }),
    optional: true,
  },
  {
    id: 'api-tags',
    label: 'API tag tree (categories)',
    target: () => ({
      method: 'POST',
      path: '/api/v1/tags',
      headers: { host: BENCH_HOSTS.uncached, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'post_category' }),
    }),
  },
  { id: 'home', label: 'Public home page', target: () => get('/', BENCH_HOSTS.uncached), growth: true },
  {
    id: 'post-page',
    label: 'Public post page, uncached',
    target: (seed) => get(`/post/${seed.sampleSlug}`, BENCH_HOSTS.uncached),
    optional: true,
    goal: 0.4,
    growth: true,
  },
  {
    id: 'post-page-nothing-cached',
    label: 'Public post page, data cache off too',
    target: (seed) => get(`/post/${seed.sampleSlug}`, BENCH_HOSTS.nothingCached),
    optional: true,
  },
  {
    id: 'post-page-cached',
    label: 'Public post page, cached',
    target: (seed) => get(`/post/${seed.sampleSlug}`, BENCH_HOSTS.cached),
    optional: true,
    cached: true,
    goal: 0.8,
  },
  {
    id: 'sitemap',
    label: 'Sitemap of posts (an index past 10,000 URLs)',
    target: () => get('/sitemap/posts', BENCH_HOSTS.uncached),
    optional: true,
    growth: true,
  },
  {
    id: 'sitemap-file',
    label: 'Sitemap of posts, first file',
    target: () => get('/sitemap/posts?page=1', BENCH_HOSTS.uncached),
    optional: true,
    growth: true,
  },
];

export interface RouteResult {
  id: string;
  label: string;
  method: string;
  path: string;
  host: string;
  /** `ok`: measured; `n/a`: not in this build; `error`: something is wrong (see reason). */
  status: 'ok' | 'n/a' | 'error';
  reason?: string;
  httpStatus?: number;
  bytes?: number;
  contentType?: string;
  /** SQL queries of a request once caches are warm, and of the first request (cold). */
  queries?: number | null;
  coldQueries?: number | null;
  /** x-folio-cache of the last probe, when the build has a page cache. */
  cache?: string | null;
  goal?: number;
  folio?: Measurement;
  bare?: Measurement;
  /** folio.rps / bare.rps */
  ratio?: number;
}

export interface ScenarioResult {
  id: string;
  dialect: Dialect;
  cache: 'memory' | 'redis';
  posts: number;
  /** Part of the growth check only (a subset of the routes). */
  growthOnly: boolean;
  seedSeconds?: number;
  /** Peak RSS (VmHWM) of the measured Folio process and of the bare server, MB. */
  folioPeakRssMb?: number | null;
  barePeakRssMb?: number | null;
  routes: RouteResult[];
  error?: string;
}

export interface BenchOptions {
  mode: 'full' | 'smoke';
  server: ServerMode;
  dialects: Dialect[];
  /** Posts of the main scenario. */
  posts: number;
  /** Sizes of the growth check; the main size is reused, not run twice. Empty: no growth check. */
  growthSizes: number[];
  growthDialects: Dialect[];
  /** Only these route ids (default all). */
  routes?: string[];
  load: LoadOptions;
  /** Load phases of the growth check (shorter). */
  growthLoad: LoadOptions;
  /** Folio and bare alternate in this many rounds per route (the measured time is split). */
  rounds: number;
  /** Probe with FOLIO_QUERY_COUNTER=1 in a server of its own, so the load runs without the counter. */
  separateProbeServer: boolean;
  postgresUrl: string;
  redisUrl: string;
  cpuProfDir?: string;
  /** LOG_LEVEL of the measured Folio (warn unless said; info to measure what request logs cost). */
  logLevel?: string;
  log: (line: string) => void;
}

export interface BenchResults {
  version: 1;
  date: string;
  mode: 'full' | 'smoke';
  machine: {
    cpus: number;
    cpuModel: string;
    memoryMb: number;
    platform: string;
    node: string;
    loadAverage: number[];
  };
  settings: {
    server: ServerMode;
    connections: number;
    seconds?: number;
    amount?: number;
    warmupSeconds: number;
    growthSeconds?: number;
    rounds: number;
    posts: number;
    growthSizes: number[];
  };
  scenarios: ScenarioResult[];
  totalSeconds: number;
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    memoryMb: Math.round(os.totalmem() / 1024 / 1024),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}

/** Removes the bench's keys from its Redis database (the default prefix, in a database of its own). */
export async function clearRedis(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', 'folio:*', 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export interface PreparedDatabase {
  url: string;
  redisUrl?: string;
  mediaDir: string;
  seed: SeedInfo;
  drop(): Promise<void>;
}

/** A fresh database of the dialect, seeded with `posts` posts. */
export async function prepareDatabase(
  options: Pick<BenchOptions, 'postgresUrl' | 'redisUrl'>,
  dialect: Dialect,
  posts: number,
): Promise<PreparedDatabase> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-'));
  const mediaDir = path.join(dir, 'media');
  if (dialect === 'sqlite') {
    const url = `sqlite:${path.join(dir, 'bench.sqlite')}`;
    return {
      url,
      mediaDir,
      seed: await seed(url, posts),
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  await recreatePostgresDatabase(options.postgresUrl);
  await clearRedis(options.redisUrl);
  return {
    url: options.postgresUrl,
    redisUrl: options.redisUrl,
    mediaDir,
    seed: await seed(options.postgresUrl, posts),
    async drop() {
      await dropPostgresDatabase(options.postgresUrl);
      await clearRedis(options.redisUrl);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function header(value: string | string[] | undefined): string | null {
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

const cpuText = (measurement: Measurement) => {
  const us = cpuPerRequestUs(measurement);
  return us === null ? '?' : us.toFixed(0);
};

/** Rounds of one server and route as one measurement: total rate, median latencies. */
function combine(rounds: Measurement[]): Measurement {
  const requests = rounds.reduce((sum, m) => sum + m.requests, 0);
  const seconds = rounds.reduce((sum, m) => sum + m.seconds, 0);
  const peaks = rounds.map((m) => m.peakRssMb).filter((value): value is number => value !== null);
  const cpu = rounds.map((m) => m.cpuMs);
  return {
    rps: seconds > 0 ? requests / seconds : 0,
    p50: median(rounds.map((m) => m.p50)),
    p99: median(rounds.map((m) => m.p99)),
    requests,
    errors: rounds.reduce((sum, m) => sum + m.errors, 0),
    seconds,
    peakRssMb: peaks.length ? Math.max(...peaks) : null,
    cpuMs: cpu.every((value) => value !== null) ? cpu.reduce((sum, value) => sum + value, 0) : null,
    roundsRps: rounds.map((m) => Math.round(m.rps)),
  };
}

async function runScenario(
  options: BenchOptions,
  dialect: Dialect,
  posts: number,
  routes: RouteSpec[],
  growthOnly: boolean,
): Promise<ScenarioResult> {
  const id = `${dialect}-${posts}`;
  const result: ScenarioResult = {
    id,
    dialect,
    cache: dialect === 'postgres' ? 'redis' : 'memory',
    posts,
    growthOnly,
    routes: [],
  };
  const load = growthOnly ? options.growthLoad : options.load;
  options.log(`\n== ${id}: seeding ${posts} posts`);
  const database = await prepareDatabase(options, dialect, posts);
  result.seedSeconds = Math.round(database.seed.seconds * 10) / 10;
  options.log(`   seeded in ${result.seedSeconds} s`);
  const servers: ServerProcess[] = [];
  try {
    const folioOptions = {
      mode: options.server,
      databaseUrl: database.url,
      redisUrl: database.redisUrl,
      mediaDir: database.mediaDir,
      logLevel: options.logLevel,
    };
    let folio = await startFolio({
      ...folioOptions,
      queryCounter: true,
      cpuProfDir: options.separateProbeServer ? undefined : options.cpuProfDir,
    });
    servers.push(folio);

    // Probe every route: is it there, what does it answer, how many queries does it make?
    const measured: Array<{ spec: RouteSpec; route: RouteResult; target: Target; body: Buffer }> = [];
    for (const spec of routes) {
      const target = spec.target(database.seed);
      const route: RouteResult = {
        id: spec.id,
        label: spec.label,
        method: target.method,
        path: target.path,
        host: target.headers.host ?? '',
        status: 'ok',
        goal: spec.goal,
      };
      result.routes.push(route);
      const answer = await probe(folio.url, target);
      const last = answer.last;
      route.httpStatus = last.status;
      route.bytes = last.body.length;
      route.contentType = header(last.headers['content-type']) ?? '';
      route.queries = answer.queries;
      route.coldQueries = answer.coldQueries;
      route.cache = header(last.headers['x-folio-cache']);
      if (last.status === 404 && spec.optional) {
        route.status = 'n/a';
        route.reason = 'n/a in this build (404)';
      } else if (last.status !== 200) {
        route.status = 'error';
        route.reason = `HTTP ${last.status}: ${last.body.toString('utf8').slice(0, 200)}`;
      } else if (spec.cached && route.cache === null) {
        route.status = 'n/a';
        route.reason = 'n/a in this build (no x-folio-cache header: no full-page cache)';
      } else if (spec.cached && route.cache !== 'hit') {
        route.status = 'error';
        route.reason = `x-folio-cache: ${route.cache} after ${5} requests (expected hit)`;
      }
      options.log(
        `   probe ${spec.id.padEnd(17)} ${route.status.padEnd(5)} HTTP ${last.status} ${route.bytes} B, ` +
          `${route.queries ?? '?'} queries (cold ${route.coldQueries ?? '?'})${route.cache ? `, cache ${route.cache}` : ''}` +
          (route.reason ? ` — ${route.reason}` : ''),
      );
      if (route.status === 'ok') measured.push({ spec, route, target, body: last.body });
    }

    if (options.separateProbeServer) {
      await folio.stop();
      servers.splice(servers.indexOf(folio), 1);
      folio = await startFolio({ ...folioOptions, queryCounter: false, cpuProfDir: options.cpuProfDir });
      servers.push(folio);
    }

    const bareRoutes: BareRoute[] = measured.map(({ route, target, body }) => ({
      method: target.method,
      contentType: route.contentType ?? 'text/plain',
      body: body.toString('base64'),
    }));
    const bare = await startBare(bareRoutes, path.join(path.dirname(database.mediaDir), 'bare-routes.json'));
    servers.push(bare);

    for (const [index, { route, target }] of measured.entries()) {
      const bareTarget: Target = {
        method: target.method,
        path: `/r/${index}`,
        headers: target.body ? { 'content-type': target.headers['content-type'] ?? 'text/plain' } : {},
        body: target.body,
      };
      // Folio and bare take turns in short rounds, so that both see the same machine: the ratio is
      // the median of the rounds' ratios.
      const rounds = Math.max(1, options.rounds);
      const folioRounds: Measurement[] = [];
      const bareRounds: Measurement[] = [];
      for (let round = 0; round < rounds; round++) {
        const phase: LoadOptions = {
          ...load,
          seconds: load.seconds === undefined ? undefined : load.seconds / rounds,
          warmupSeconds: round === 0 ? load.warmupSeconds : 0,
        };
        folioRounds.push(await measure(folio.url, target, phase, folio.pid));
        bareRounds.push(await measure(bare.url, bareTarget, phase, bare.pid));
      }
      route.folio = combine(folioRounds);
      route.bare = combine(bareRounds);
      route.ratio = median(folioRounds.map((f, k) => f.rps / Math.max(1e-9, bareRounds[k]?.rps ?? 0)));
      if (route.folio.errors > 0) {
        route.status = 'error';
        route.reason = `${route.folio.errors} failed requests under load`;
      }
      options.log(
        `   ${route.id.padEnd(17)} folio ${route.folio.rps.toFixed(0).padStart(6)} req/s ` +
          `p50 ${route.folio.p50} p99 ${route.folio.p99} ms | bare ${route.bare.rps.toFixed(0).padStart(6)} req/s | ` +
          `ratio ${route.ratio.toFixed(2)} | CPU µs/req ${cpuText(route.folio)} / ${cpuText(route.bare)}` +
          `${route.reason ? ` — ${route.reason}` : ''}`,
      );
    }
    result.folioPeakRssMb = (await folio.stop()).peakRssMb;
    result.barePeakRssMb = (await bare.stop()).peakRssMb;
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
    options.log(`   FAILED: ${result.error}`);
  } finally {
    for (const server of servers) await server.stop();
    await database.drop();
  }
  return result;
}

export async function runBenchmarks(options: BenchOptions): Promise<BenchResults> {
  const started = performance.now();
  const selected = ROUTES.filter((route) => !options.routes || options.routes.includes(route.id));
  const scenarios: ScenarioResult[] = [];
  for (const dialect of options.dialects) {
    scenarios.push(await runScenario(options, dialect, options.posts, selected, false));
  }
  const growthRoutes = selected.filter((route) => route.growth);
  if (growthRoutes.length > 0) {
    for (const dialect of options.growthDialects) {
      for (const size of options.growthSizes) {
        if (size === options.posts && options.dialects.includes(dialect)) continue;
        scenarios.push(await runScenario(options, dialect, size, growthRoutes, true));
      }
    }
  }
  return {
    version: 1,
    date: new Date().toISOString(),
    mode: options.mode,
    machine: machineInfo(),
    settings: {
      server: options.server,
      connections: options.load.connections,
      seconds: options.load.seconds,
      amount: options.load.amount,
      warmupSeconds: options.load.warmupSeconds,
      growthSeconds: options.growthLoad.seconds,
      rounds: options.rounds,
      posts: options.posts,
      growthSizes: options.growthSizes,
    },
    scenarios,
    totalSeconds: Math.round((performance.now() - started) / 1000),
  };
}
