// `npm run bench`: Folio's benchmarks. See "Benchmarks" in the README.
//
//   npm run bench                    full run: SQLite, then PostgreSQL + Redis, then the growth check;
//                                    writes bench/RESULTS.md and bench/results/latest.json
//   npm run bench -- --soak          the soak (npm run bench:soak): bench/SOAK.md, bench/results/soak.json
//   npm run bench:smoke              a few seconds, tiny data, SQLite only, from source (what CI runs)
//
// Options (each also an environment variable):
//   --seconds=N         BENCH_SECONDS          seconds per measurement (10)
//   --warmup=N          BENCH_WARMUP           seconds of unrecorded load before each (2)
//   --connections=N     BENCH_CONNECTIONS      autocannon connections (10)
//   --posts=N           BENCH_POSTS            posts of the main data set (10000)
//   --growth=a,b,c      BENCH_GROWTH           growth check sizes (1000,10000,100000); 0 or "" for none
//   --growth-seconds=N  BENCH_GROWTH_SECONDS   seconds per growth measurement (5)
//   --rounds=N          BENCH_ROUNDS           Folio and bare take turns in N rounds per route (3)
//   --dialects=…        BENCH_DIALECTS         sqlite,postgres
//   --routes=…          BENCH_ROUTES           only these route ids (api-list,api-show,api-list-token,api-show-token,api-v2-list,api-v2-show,api-tags,home,
//                                              post-page,post-page-nothing-cached,
//                                              post-page-cached,sitemap,sitemap-file)
//   --server=dist|tsx   BENCH_SERVER           compiled (default) or from source
//   --cpu-prof=DIR      BENCH_CPU_PROF         write a V8 CPU profile of the measured Folio process
//                       BENCH_FOLIO_NODE_ARGS  extra Node.js flags of the Folio process (--prof, …)
//   --out=DIR           BENCH_OUT              where RESULTS.md / SOAK.md go (bench/)
//   --log-level=L       BENCH_LOG_LEVEL        LOG_LEVEL of the measured Folio (warn)
//   --minutes=N         BENCH_SOAK_MINUTES     soak duration (10)
//   --soak-dialect=…    BENCH_SOAK_DIALECT     sqlite (default) or postgres
//                       BENCH_DATABASE_URL     PostgreSQL database of the bench, dropped and recreated
//                                              (postgres://postgres@127.0.0.1:5432/folio_bench)
//                       BENCH_REDIS_URL        Redis of the bench (redis://127.0.0.1:6379/15)
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { runBenchmarks } from './harness.js';
import type { BenchOptions, BenchResults, Dialect } from './harness.js';
import { writeResults, writeSoak } from './report.js';
import { runSoak } from './soak.js';
import type { SoakResults } from './soak.js';
import { PROJECT_DIR } from './servers.js';
import type { ServerMode } from './servers.js';

export interface CliOptions {
  smoke: boolean;
  soak: boolean;
  outDir: string;
  bench: BenchOptions;
  soakMinutes: number;
  soakDialect: Dialect;
}

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

function number(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name}: "${value}" is not a number`);
  return parsed;
}

export function parseOptions(argv: string[], env: Record<string, string | undefined>): CliOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      smoke: { type: 'boolean', default: false },
      soak: { type: 'boolean', default: false },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      posts: { type: 'string' },
      growth: { type: 'string' },
      'growth-seconds': { type: 'string' },
      rounds: { type: 'string' },
      dialects: { type: 'string' },
      routes: { type: 'string' },
      server: { type: 'string' },
      'cpu-prof': { type: 'string' },
      out: { type: 'string' },
      minutes: { type: 'string' },
      'soak-dialect': { type: 'string' },
      'log-level': { type: 'string' },
    },
  });
  const smoke = values.smoke === true;
  const pick = (key: keyof typeof values, variable: string) => {
    const value = values[key];
    return typeof value === 'string' ? value : env[variable];
  };
  const server = (pick('server', 'BENCH_SERVER') ?? (smoke ? 'tsx' : 'dist')) as ServerMode;
  if (server !== 'dist' && server !== 'tsx')
    throw new Error(`--server: "${String(server)}" is not dist or tsx`);
  const dialects = list(
    pick('dialects', 'BENCH_DIALECTS') ?? (smoke ? 'sqlite' : 'sqlite,postgres'),
  ) as Dialect[];
  for (const dialect of dialects) {
    if (dialect !== 'sqlite' && dialect !== 'postgres')
      throw new Error(`unknown dialect "${String(dialect)}"`);
  }
  const posts = number('posts', pick('posts', 'BENCH_POSTS'), smoke ? 60 : 10_000);
  const growthText = pick('growth', 'BENCH_GROWTH') ?? (smoke ? '20,60' : '1000,10000,100000');
  const growthSizes = list(growthText)
    .map((size) => number('growth', size, 0))
    .filter((size) => size > 0);
  const connections = number('connections', pick('connections', 'BENCH_CONNECTIONS'), smoke ? 4 : 10);
  const seconds = number('seconds', pick('seconds', 'BENCH_SECONDS'), 10);
  const warmup = number('warmup', pick('warmup', 'BENCH_WARMUP'), Math.min(2, seconds / 5));
  const growthSeconds = number(
    'growth-seconds',
    pick('growth-seconds', 'BENCH_GROWTH_SECONDS'),
    Math.min(5, seconds),
  );
  const routes = pick('routes', 'BENCH_ROUTES');
  const cpuProf = pick('cpu-prof', 'BENCH_CPU_PROF');
  const started = performance.now();
  const log = (line: string) =>
    console.log(
      env.BENCH_TIMESTAMPS ? `[${((performance.now() - started) / 1000).toFixed(1)}s] ${line}` : line,
    );
  return {
    smoke,
    soak: values.soak === true,
    outDir: path.resolve(pick('out', 'BENCH_OUT') ?? path.join(PROJECT_DIR, 'bench')),
    soakMinutes: number('minutes', pick('minutes', 'BENCH_SOAK_MINUTES'), smoke ? 0.02 : 10),
    soakDialect: (pick('soak-dialect', 'BENCH_SOAK_DIALECT') ?? 'sqlite') as Dialect,
    bench: {
      mode: smoke ? 'smoke' : 'full',
      server,
      dialects,
      posts,
      growthSizes,
      growthDialects: dialects,
      routes: routes ? list(routes) : undefined,
      load: smoke
        ? { connections, amount: 40, warmupSeconds: 0 }
        : { connections, seconds, warmupSeconds: warmup },
      growthLoad: smoke
        ? { connections, amount: 40, warmupSeconds: 0 }
        : { connections, seconds: growthSeconds, warmupSeconds: Math.min(warmup, growthSeconds / 2) },
      rounds: number('rounds', pick('rounds', 'BENCH_ROUNDS'), smoke ? 1 : 3),
      separateProbeServer: !smoke,
      postgresUrl: env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/folio_bench',
      redisUrl: env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379/15',
      cpuProfDir: cpuProf ? path.resolve(cpuProf) : undefined,
      logLevel: pick('log-level', 'BENCH_LOG_LEVEL'),
      log,
    },
  };
}

/** Runs what the options ask for and writes the reports; answers the results. */
export async function run(options: CliOptions): Promise<{ results?: BenchResults; soak?: SoakResults }> {
  const { bench } = options;
  if (options.soak) {
    const soak = await runSoak({
      server: bench.server,
      dialect: options.soakDialect,
      posts: bench.posts,
      seconds: Math.max(1, Math.round(options.soakMinutes * 60)),
      connections: bench.load.connections,
      sampleSeconds: options.smoke ? 0.25 : 5,
      postgresUrl: bench.postgresUrl,
      redisUrl: bench.redisUrl,
      log: bench.log,
    });
    const written = writeSoak(options.outDir, soak);
    bench.log(`\nwrote ${written.markdown} and ${written.json}`);
    return { soak };
  }
  const results = await runBenchmarks(bench);
  const written = writeResults(options.outDir, results);
  bench.log(`\nwrote ${written.markdown} and ${written.json}`);
  return { results };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const { results } = await run(parseOptions(process.argv.slice(2), process.env));
    process.exitCode = results?.scenarios.some((s) => s.error) ? 1 : 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
