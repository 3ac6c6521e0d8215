// What a request costs the server at a fixed request rate, for comparing two builds (or a build
// with and without a change) without the noise of a saturated machine: at full speed, autocannon and
// the server fight over the cores and the CPU per request moves with the fight. Here autocannon sends
// a steady rate every build can keep up with, and the server's CPU time (user + system, /proc) per
// answered request is the measure. Builds take turns, several rounds each; the median and the least
// of the rounds are printed (noise only adds CPU: the least is the steadier figure of a build's cost).
// Usage: npx tsx bench/fixed-rate.ts [--rate=3000] [--seconds=8] [--rounds=3] [--posts=2000]
//          [--routes=api-list,api-v2-list] [--log-levels=warn,info] [--bare] [--bare-headers] [--cpu-prof=DIR] [--dialect=postgres] [DIR…]   (each DIR a checkout with
//          dist/ built; default: this one). Each round starts each build once and measures every route on it.
// --cpu-prof=DIR: each Folio process writes a CPU profile there (one route and one round: the profile of
// that route at that rate; summarize it with `npx tsx bench/profile.ts FILE`).
// --bare: the bare Fastify server (bench/bare-server.mjs) answering the first build's exact bytes is
// measured too, at the same rate, in every round: the ratio of CPU per request (bare ÷ build) is the
// share of raw Fastify's efficiency a build keeps, free of the fight that moves full-speed ratios.
// --bare-headers (with --bare): the bare server is measured a second time answering with Folio's
// response headers too (security headers, ETag, rate-limit and cache headers, as the first build sent
// them): what the same bytes and headers cost raw Fastify and Node, the share of a gap that is headers.
// `npm run bench:compare -- BASE` (bench/compare.ts) runs this over another commit and this checkout.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ROUTES, clearRedis } from './harness.js';
import { dropPostgresDatabase, recreatePostgresDatabase } from './seed.js';
import type { SeedInfo, seed as seedFunction } from './seed.js';
import { procCpuMs, startBare, startFolio } from './servers.js';
import type { BareRoute } from './servers.js';

export interface FixedRateOptions {
  /** Checkouts with dist/ built. */
  dirs: string[];
  routes: string[];
  logLevels: string[];
  rate: number;
  seconds: number;
  rounds: number;
  posts: number;
  bare: boolean;
  /** With `bare`: also measure the bare server sending Folio's response headers (ids `<route>+headers`). */
  bareHeaders?: boolean;
  /** Each Folio process writes a V8 CPU profile here (`node --cpu-prof`; read with bench/profile.ts). */
  cpuProfDir?: string;
  /**
   * `sqlite` (default), or `postgres`: each build gets a PostgreSQL database of its own (folio_fixed_N
   * on BENCH_DATABASE_URL's server) and a Redis database of its own (14, 13, … on BENCH_REDIS_URL's),
   * dropped and cleared at the end.
   */
  dialect?: 'sqlite' | 'postgres';
}

/** Build `index`'s PostgreSQL and Redis, beside the full bench's own (folio_bench, Redis database 15). */
function postgresFor(index: number): { databaseUrl: string; redisUrl: string } {
  const database = new URL(
    process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/folio_bench',
  );
  database.pathname = `/folio_fixed_${index}`;
  const redis = new URL(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/15');
  redis.pathname = `/${14 - index}`;
  return { databaseUrl: database.toString(), redisUrl: redis.toString() };
}

export interface BuildResult {
  dir: string;
  logLevel: string;
  /** CPU µs per request, by route id, one per round. */
  samples: Map<string, number[]>;
}

export interface FixedRateResults {
  builds: BuildResult[];
  /** With `bare`: the bare server's CPU µs per request answering the same bytes, by route id. */
  bare: Map<string, number[]>;
}

export const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

/** CPU µs per request of the server `pid` answering `url` at the fixed rate, after a warm-up. */
async function measure(
  options: FixedRateOptions,
  pid: number,
  url: string,
  target: { method?: string; headers?: Record<string, string> },
  label: string,
): Promise<number> {
  const run = (seconds: number, rate?: number) =>
    autocannon({
      url,
      method: target.method,
      headers: target.headers,
      connections: 10,
      duration: seconds,
      ...(rate ? { overallRate: rate } : {}),
    });
  await run(2); // warm-up at full speed
  const before = procCpuMs(pid) ?? 0;
  const result = await run(options.seconds, options.rate);
  const usedMs = (procCpuMs(pid) ?? 0) - before;
  if (result.non2xx > 0) throw new Error(`${label}: ${result.non2xx} answers were not 2xx`);
  const answered = result.requests.total;
  const perRequest = (usedMs * 1e3) / answered;
  console.log(
    `${label}: ${answered} requests, ${perRequest.toFixed(1)} CPU µs/request, p99 ${result.latency.p99} ms`,
  );
  return perRequest;
}

/** A build as measured: where its data is, what its seed answered. */
type SeededBuild = BuildResult & { databaseUrl: string; redisUrl?: string; seed: SeedInfo };
type Route = (typeof ROUTES)[number];

export async function runFixedRate(options: FixedRateOptions): Promise<FixedRateResults> {
  const routes = options.routes.map((id) => {
    const route = ROUTES.find((candidate) => candidate.id === id);
    if (!route) throw new Error(`unknown route ${id}`);
    return route;
  });
  const builds: SeededBuild[] = [];
  const cleanUps: Array<() => Promise<void>> = [];
  for (const [index, dir] of options.dirs.entries()) {
    let databaseUrl = `sqlite:${path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'folio-fixed-')), 'bench.sqlite')}`;
    let redisUrl: string | undefined;
    if (options.dialect === 'postgres') {
      ({ databaseUrl, redisUrl } = postgresFor(index));
      await recreatePostgresDatabase(databaseUrl);
      await clearRedis(redisUrl);
      const [database, redis] = [databaseUrl, redisUrl];
      cleanUps.push(async () => {
        await dropPostgresDatabase(database);
        await clearRedis(redis);
      });
    }
    // Each build seeds with its own code: its migrations are the ones it knows.
    const seedModule = pathToFileURL(path.join(dir, 'bench/seed.ts')).href;
    const { seed } = (await import(seedModule)) as { seed: typeof seedFunction };
    const seedInfo = await seed(databaseUrl, options.posts);
    // Several log levels: the same build at each LOG_LEVEL, taking turns like builds.
    for (const logLevel of options.logLevels) {
      builds.push({ dir, logLevel, databaseUrl, redisUrl, seed: seedInfo, samples: new Map() });
    }
  }
  try {
    return await measureBuilds(options, routes, builds);
  } finally {
    for (const cleanUp of cleanUps) await cleanUp();
  }
}

/**
 * Headers --bare-headers does not replay: those Node writes itself (per connection or from the body),
 * and the encoding fetch asked for and undid (the measured requests ask for none).
 */
const NOT_REPLAYED_HEADERS = new Set([
  'content-encoding',
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

async function measureBuilds(
  options: FixedRateOptions,
  routes: Route[],
  builds: SeededBuild[],
): Promise<FixedRateResults> {
  // With `bare`: each route's answer as the first build gave it (the bare server answers the same bytes).
  const bareRoutes = new Map<string, BareRoute>();
  const bareSamples = new Map<string, number[]>();
  for (let round = 0; round < options.rounds; round++) {
    // Builds take turns in one order, then in the other: neither always runs on the warmer machine.
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      const server = await startFolio({
        mode: 'dist',
        databaseUrl: build.databaseUrl,
        redisUrl: build.redisUrl,
        mediaDir: fs.mkdtempSync(path.join(os.tmpdir(), 'folio-fixed-media-')),
        queryCounter: false,
        projectDir: build.dir,
        logLevel: build.logLevel,
        cpuProfDir: options.cpuProfDir,
      });
      try {
        for (const route of routes) {
          const target = route.target(build.seed);
          if (options.bare && !bareRoutes.has(route.id)) {
            const answer = await fetch(server.url + target.path, {
              method: target.method,
              headers: target.headers,
            });
            const bareRoute: BareRoute = {
              method: target.method ?? 'GET',
              contentType: answer.headers.get('content-type') ?? 'application/octet-stream',
              body: Buffer.from(await answer.arrayBuffer()).toString('base64'),
            };
            bareRoutes.set(route.id, bareRoute);
            if (options.bareHeaders) {
              const headers: Record<string, string> = {};
              answer.headers.forEach((value, name) => {
                if (!NOT_REPLAYED_HEADERS.has(name)) headers[name] = value;
              });
              bareRoutes.set(`${route.id}+headers`, { ...bareRoute, headers });
            }
          }
          const perRequest = await measure(
            options,
            server.pid,
            server.url + target.path,
            target,
            `round ${round + 1} ${build.dir} (${build.logLevel}) ${route.id}`,
          );
          build.samples.set(route.id, [...(build.samples.get(route.id) ?? []), perRequest]);
        }
      } finally {
        await server.stop();
      }
    }
    if (options.bare) {
      const ids = [...bareRoutes.keys()];
      const bare = await startBare(
        ids.map((id) => bareRoutes.get(id)!),
        path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'folio-fixed-bare-')), 'routes.json'),
      );
      try {
        for (const [index, id] of ids.entries()) {
          const route = bareRoutes.get(id)!;
          const perRequest = await measure(
            options,
            bare.pid,
            `${bare.url}/r/${index}`,
            { method: route.method },
            `round ${round + 1} bare ${id}`,
          );
          bareSamples.set(id, [...(bareSamples.get(id) ?? []), perRequest]);
        }
      } finally {
        await bare.stop();
      }
    }
  }
  return { builds, bare: bareSamples };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rate: { type: 'string', default: '3000' },
      seconds: { type: 'string', default: '8' },
      rounds: { type: 'string', default: '3' },
      posts: { type: 'string', default: '2000' },
      routes: { type: 'string', default: 'api-list' },
      'log-levels': { type: 'string', default: 'warn' },
      bare: { type: 'boolean', default: false },
      'bare-headers': { type: 'boolean', default: false },
      'cpu-prof': { type: 'string' },
      dialect: { type: 'string', default: 'sqlite' },
    },
  });
  const results = await runFixedRate({
    dirs: positionals.length > 0 ? positionals.map((dir) => path.resolve(dir)) : [process.cwd()],
    routes: values.routes.split(','),
    logLevels: values['log-levels'].split(','),
    rate: Number(values.rate),
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
    posts: Number(values.posts),
    bare: values.bare || values['bare-headers'],
    bareHeaders: values['bare-headers'],
    cpuProfDir: values['cpu-prof'] ? path.resolve(values['cpu-prof']) : undefined,
    dialect: values.dialect === 'postgres' ? 'postgres' : 'sqlite',
  });
  for (const build of results.builds) {
    for (const [id, samples] of build.samples) {
      const bare = results.bare.get(id);
      const withHeaders = results.bare.get(`${id}+headers`);
      const ratio =
        (bare ? `  ratio to bare ${(median(bare) / median(samples)).toFixed(2)}` : '') +
        (withHeaders
          ? `, to bare with its headers ${(median(withHeaders) / median(samples)).toFixed(2)}`
          : '');
      console.log(
        `${median(samples).toFixed(1).padStart(7)} CPU µs/request (least ${Math.min(...samples).toFixed(1)})  ${id.padEnd(14)} ${build.dir} (LOG_LEVEL=${build.logLevel})${ratio}`,
      );
    }
  }
  for (const [id, samples] of results.bare) {
    console.log(
      `${median(samples).toFixed(1).padStart(7)} CPU µs/request (least ${Math.min(...samples).toFixed(1)})  ${id.replace('+headers', '').padEnd(14)} bare Fastify, the same bytes${id.endsWith('+headers') ? ' and headers' : ''}`,
    );
  }
}
