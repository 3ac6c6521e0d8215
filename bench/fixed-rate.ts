// What a request costs the server at a fixed request rate, for comparing two builds (or a build
// with and without a change) without the noise of a saturated machine: at full speed, autocannon and
// the server fight over the cores and the CPU per request moves with the fight. Here autocannon sends
// a steady rate every build can keep up with, and the server's CPU time (user + system, /proc) per
// answered request is the measure. Builds take turns, several rounds each; the median and the least
// of the rounds are printed (noise only adds CPU: the least is the steadier figure of a build's cost).
// Usage: npx tsx bench/fixed-rate.ts [--rate=3000] [--seconds=8] [--rounds=3] [--posts=2000]
//          [--routes=api-list,api-v2-list] [--log-levels=warn,info] [DIR…]   (each DIR a checkout with dist/ built; default:
//          this one). Each round starts each build once and measures every route on it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ROUTES } from './harness.js';
import type { SeedInfo, seed as seedFunction } from './seed.js';
import { startFolio } from './servers.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    rate: { type: 'string', default: '3000' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    posts: { type: 'string', default: '2000' },
    routes: { type: 'string', default: 'api-list' },
    'log-levels': { type: 'string', default: 'warn' },
  },
});
const dirs = positionals.length > 0 ? positionals.map((dir) => path.resolve(dir)) : [process.cwd()];
const routes = values.routes.split(',').map((id) => {
  const route = ROUTES.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`unknown route ${id}`);
  return route;
});

function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (clock ticks of 1/100 s)
}

interface Build {
  dir: string;
  logLevel: string;
  databaseUrl: string;
  /** What its seed answered (its own token: the builds' databases are seeded apart). */
  seed: SeedInfo;
  /** CPU µs per request, by route id, one per round. */
  samples: Map<string, number[]>;
}

const builds: Build[] = [];
for (const dir of dirs) {
  // Each build seeds with its own code: its migrations are the ones it knows.
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'folio-fixed-')), 'bench.sqlite');
  const { seed } = (await import(path.join(dir, 'bench/seed.ts'))) as { seed: typeof seedFunction };
  const seedInfo = await seed(`sqlite:${file}`, Number(values.posts));
  // --log-levels=warn,info: the same build at each LOG_LEVEL, taking turns like builds.
  for (const logLevel of values['log-levels'].split(',')) {
    builds.push({ dir, logLevel, databaseUrl: `sqlite:${file}`, seed: seedInfo, samples: new Map() });
  }
}

for (let round = 0; round < Number(values.rounds); round++) {
  for (const build of builds) {
    const server = await startFolio({
      mode: 'dist',
      databaseUrl: build.databaseUrl,
      mediaDir: fs.mkdtempSync(path.join(os.tmpdir(), 'folio-fixed-media-')),
      queryCounter: false,
      projectDir: build.dir,
      logLevel: build.logLevel,
    });
    try {
      for (const route of routes) {
        const target = route.target(build.seed);
        const run = (seconds: number, rate?: number) =>
          autocannon({
            url: server.url + target.path,
            method: target.method,
            headers: target.headers,
            connections: 10,
            duration: seconds,
            ...(rate ? { overallRate: rate } : {}),
          });
        await run(2); // warm-up at full speed
        const before = cpuSeconds(server.pid);
        const result = await run(Number(values.seconds), Number(values.rate));
        const used = cpuSeconds(server.pid) - before;
        if (result.non2xx > 0) {
          throw new Error(`${build.dir} ${route.id}: ${result.non2xx} answers were not 2xx`);
        }
        const answered = result.requests.total;
        const perRequest = (used * 1e6) / answered;
        build.samples.set(route.id, [...(build.samples.get(route.id) ?? []), perRequest]);
        console.log(
          `round ${round + 1} ${build.dir} (${build.logLevel}) ${route.id}: ${answered} requests (${result.non2xx} not 2xx), ` +
            `${perRequest.toFixed(1)} CPU µs/request, p99 ${result.latency.p99} ms`,
        );
      }
    } finally {
      await server.stop();
    }
  }
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
for (const build of builds) {
  for (const [id, samples] of build.samples) {
    console.log(
      `${median(samples).toFixed(1).padStart(7)} CPU µs/request (least ${Math.min(...samples).toFixed(1)})  ${id.padEnd(14)} ${build.dir} (LOG_LEVEL=${build.logLevel})`,
    );
  }
}
