// What a request costs the server at a fixed request rate, for comparing two builds (or a build
// with and without a change) without the noise of a saturated machine: at full speed, autocannon and
// the server fight over the cores and the CPU per request moves with the fight. Here autocannon sends
// a steady rate every build can keep up with, and the server's CPU time (user + system, /proc) per
// answered request is the measure. Builds take turns, several rounds each; the median and the least
// of the rounds are printed (noise only adds CPU: the least is the steadier figure of a build's cost).
// Usage: npx tsx bench/fixed-rate.ts [--rate=3000] [--seconds=8] [--rounds=3] [--posts=2000]
//          [--routes=api-list,api-v2-list] [--log-levels=warn,info] [--bare] [DIR…]   (each DIR a checkout with
//          dist/ built; default: this one). Each round starts each build once and measures every route on it.
// --bare: the bare Fastify server (bench/bare-server.mjs) answering the first build's exact bytes is
// measured too, at the same rate, in every round: the ratio of CPU per request (bare ÷ build) is the
// share of raw Fastify's efficiency a build keeps, free of the fight that moves full-speed ratios.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { ROUTES } from './harness.js';
import type { SeedInfo, seed as seedFunction } from './seed.js';
import { startBare, startFolio } from './servers.js';
import type { BareRoute } from './servers.js';

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

/** CPU µs per request of the server `pid` answering `path` at the fixed rate, after a warm-up. */
async function measure(
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
  const before = cpuSeconds(pid);
  const result = await run(Number(values.seconds), Number(values.rate));
  const used = cpuSeconds(pid) - before;
  if (result.non2xx > 0) throw new Error(`${label}: ${result.non2xx} answers were not 2xx`);
  const answered = result.requests.total;
  const perRequest = (used * 1e6) / answered;
  console.log(
    `${label}: ${answered} requests (${result.non2xx} not 2xx), ` +
      `${perRequest.toFixed(1)} CPU µs/request, p99 ${result.latency.p99} ms`,
  );
  return perRequest;
}

/** With --bare: each route's answer as the first build gave it (the bare server answers the same bytes). */
const bareRoutes = new Map<string, BareRoute>();
const bareSamples = new Map<string, number[]>();

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
        if (values.bare && !bareRoutes.has(route.id)) {
          const answer = await fetch(server.url + target.path, {
            method: target.method,
            headers: target.headers,
          });
          bareRoutes.set(route.id, {
            method: target.method ?? 'GET',
            contentType: answer.headers.get('content-type') ?? 'application/octet-stream',
            body: Buffer.from(await answer.arrayBuffer()).toString('base64'),
          });
        }
        const perRequest = await measure(
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
  if (values.bare) {
    const ids = [...bareRoutes.keys()];
    const bare = await startBare(
      ids.map((id) => bareRoutes.get(id)!),
      path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'folio-fixed-bare-')), 'routes.json'),
    );
    try {
      for (const [index, id] of ids.entries()) {
        const route = bareRoutes.get(id)!;
        const perRequest = await measure(
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
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
for (const build of builds) {
  for (const [id, samples] of build.samples) {
    const bare = bareSamples.get(id);
    const ratio = bare ? `  ratio to bare ${(median(bare) / median(samples)).toFixed(2)}` : '';
    console.log(
      `${median(samples).toFixed(1).padStart(7)} CPU µs/request (least ${Math.min(...samples).toFixed(1)})  ${id.padEnd(14)} ${build.dir} (LOG_LEVEL=${build.logLevel})${ratio}`,
    );
  }
}
for (const [id, samples] of bareSamples) {
  console.log(
    `${median(samples).toFixed(1).padStart(7)} CPU µs/request (least ${Math.min(...samples).toFixed(1)})  ${id.padEnd(14)} bare Fastify, the same bytes`,
  );
}
