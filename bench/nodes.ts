// Two nodes against one (issue 40, measures): "two nodes on this 2-core machine serve at least as many
// cached pages per second as one". Seeds a PostgreSQL database, starts two built Folio nodes (`dist/`)
// on it, one Redis database and (by default) one local S3-compatible server (s3rver, as the tests
// start it), each node with a media folder of its own, and one round-robin TCP proxy
// (bench/round-robin-proxy.mjs, a process of its own) with two listeners: one handing every connection
// to node A, one to node A and node B in turn. autocannon asks for the post page of the page-cached
// website (route `post-page-cached` of bench/harness.ts) through one listener, then the other, in
// rounds (one, two, one, two, …), so that both setups go through the same proxy and drift shows.
// Node B idles while one node is measured. Each setup: req/s, p50 / p99, each node's CPU time from
// /proc per request the proxy passed it (the proxy counts the request heads it hands each node), the
// proxy's and the load generator's CPU, how busy the machine's cores were, and the ratio two / one.
// Writes its section of bench/RESULTS.md (between nodes markers).
// Usage (run `npm run build` first): npx tsx bench/nodes.ts [--seconds=10] [--rounds=3] [--warmup=2]
//   [--connections=10] [--posts=2000] [--storage=s3|local] [--node-cpus=A/B] [--smoke] [--out=bench/RESULTS.md]
//   --node-cpus pins node A and node B to CPU lists of their own (taskset), for machines of 4 cores or
//   more: `taskset -c 0,1 npx tsx bench/nodes.ts --node-cpus=2/3` keeps the load generator and the proxy
//   on CPUs 0 and 1.
//   PostgreSQL: BENCH_NODES_DATABASE_URL (postgres://postgres@127.0.0.1:5432/folio_bench_nodes), dropped
//   and created anew, dropped at the end. Redis: BENCH_NODES_REDIS_URL (redis://127.0.0.1:6379/11: not
//   the full bench's 15 nor bench/fixed-rate.ts's 14 and 13), whose folio:* keys are deleted before and
//   after, nothing else.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { S3_CREDENTIALS, startLocalS3 } from '../test/support/s3.js';
import type { LocalS3 } from '../test/support/s3.js';
import { ROUTES, machineInfo, prepareDatabase } from './harness.js';
import type { PreparedDatabase } from './harness.js';
import { probe } from './load.js';
import type { Target } from './load.js';
import { sectionStamp, writeSection } from './report.js';
import { procCpuMs, procMemoryMb, startFolio, startRoundRobinProxy } from './servers.js';
import type { RoundRobinProxy, ServerProcess } from './servers.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    posts: { type: 'string', default: '2000' },
    storage: { type: 'string', default: 's3' },
    'node-cpus': { type: 'string' },
    smoke: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(import.meta.dirname, 'RESULTS.md') },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const POSTS = Number(values.posts);
const STORAGE = values.storage;
if (STORAGE !== 's3' && STORAGE !== 'local') throw new Error('--storage is s3 or local');
for (const [name, value] of Object.entries({ SECONDS, ROUNDS, CONNECTIONS, POSTS })) {
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name.toLowerCase()} must be a positive number`);
}
/** `--node-cpus=A/B`: node A's and node B's CPU lists (taskset's), e.g. `2/3` or `2-3/4-5`. */
const PINNED = values['node-cpus']?.split('/');
if (PINNED && (PINNED.length !== 2 || PINNED.some((list) => !/^\d+([,-]\d+)*$/.test(list)))) {
  throw new Error("--node-cpus is two CPU lists, node A's and node B's: --node-cpus=2/3");
}
/** Marked as a smoke run in RESULTS.md: asked for, or too short to mean anything. */
const SMOKE = values.smoke || SECONDS < 5 || ROUNDS < 2;
const PG_URL = process.env.BENCH_NODES_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/folio_bench_nodes';
const REDIS_URL = process.env.BENCH_NODES_REDIS_URL ?? 'redis://127.0.0.1:6379/11';

type Setup = 'one' | 'two';

/** One measured phase of one setup. */
interface Phase {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** CPU ms (user + system) during the phase: node A, node B, the proxy, this process. */
  cpuMs: { a: number; b: number; proxy: number; bench: number };
  /** Requests the proxy passed to node A and to node B during the phase. */
  served: { a: number; b: number };
  /** Share of the machine's CPU time (all cores) that was busy, from /proc/stat; null without it. */
  busy: number | null;
}

/** Busy and total clock ticks of all cores so far (/proc/stat), or null where there is none. */
function machineTicks(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((sum, value) => sum + value, 0);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0); // idle + iowait
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

const cpuOf = (pid: number) => procCpuMs(pid) ?? Number.NaN;
const benchCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

async function load(url: string, target: Target, seconds: number) {
  return autocannon({
    url: `${url}${target.path}`,
    method: target.method,
    headers: target.headers,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    sampleInt: 100,
  });
}

async function measure(
  url: string,
  target: Target,
  nodes: [ServerProcess, ServerProcess],
  proxy: RoundRobinProxy,
): Promise<Phase> {
  const [a, b] = nodes;
  const countsBefore = await proxy.requests();
  const before = { a: cpuOf(a.pid), b: cpuOf(b.pid), proxy: cpuOf(proxy.pid), bench: benchCpuMs() };
  const ticksBefore = machineTicks();
  const started = performance.now();
  const result = await load(url, target, SECONDS / ROUNDS);
  const seconds = (performance.now() - started) / 1000;
  const ticksAfter = machineTicks();
  const after = { a: cpuOf(a.pid), b: cpuOf(b.pid), proxy: cpuOf(proxy.pid), bench: benchCpuMs() };
  const countsAfter = await proxy.requests();
  const servedBy = (node: ServerProcess) =>
    (countsAfter.get(node.url) ?? 0) - (countsBefore.get(node.url) ?? 0);
  return {
    requests: result.requests.total,
    errors: result.non2xx + result.errors + result.timeouts,
    seconds,
    rps: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMs: {
      a: after.a - before.a,
      b: after.b - before.b,
      proxy: after.proxy - before.proxy,
      bench: after.bench - before.bench,
    },
    served: { a: servedBy(a), b: servedBy(b) },
    busy:
      ticksBefore && ticksAfter && ticksAfter.total > ticksBefore.total
        ? (ticksAfter.busy - ticksBefore.busy) / (ticksAfter.total - ticksBefore.total)
        : null,
  };
}

const median = (list: number[]) => {
  const sorted = [...list].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const sum = (list: number[]) => list.reduce((total, value) => total + value, 0);
const int = (value: number) => Math.round(value).toLocaleString('en-US');
/** CPU µs per request, or – where there were none. */
const perRequest = (cpuMs: number, requests: number) =>
  requests > 0 && Number.isFinite(cpuMs) ? int((cpuMs * 1000) / requests) : '–';

function summary(phases: Phase[]) {
  const requests = sum(phases.map((p) => p.requests));
  const seconds = sum(phases.map((p) => p.seconds));
  const cpu = (key: keyof Phase['cpuMs']) => sum(phases.map((p) => p.cpuMs[key]));
  const served = (key: keyof Phase['served']) => sum(phases.map((p) => p.served[key]));
  const busy = phases.map((p) => p.busy).filter((value): value is number => value !== null);
  return {
    requests,
    rps: requests / seconds,
    roundsRps: phases.map((p) => p.rps),
    p50: median(phases.map((p) => p.p50)),
    p99: median(phases.map((p) => p.p99)),
    errors: sum(phases.map((p) => p.errors)),
    cpu: { a: cpu('a'), b: cpu('b'), proxy: cpu('proxy'), bench: cpu('bench') },
    served: { a: served('a'), b: served('b') },
    busy: busy.length ? median(busy) : null,
  };
}

function row(setup: Setup, phases: Phase[]): string {
  const s = summary(phases);
  const folioCpu = s.cpu.a + (setup === 'two' ? s.cpu.b : 0);
  const nodeCell = (cpuMs: number, served: number) =>
    served > 0 ? `${perRequest(cpuMs, served)} (${int(served)} req)` : `idle (${int(cpuMs)} ms CPU)`;
  return [
    '',
    ` ${setup === 'one' ? 'One node (A)' : 'Two nodes (A, B)'} `,
    ` **${int(s.rps)}** (${s.roundsRps.map(int).join(', ')}) `,
    ` ${s.p50} / ${s.p99} `,
    ` ${perRequest(folioCpu, s.requests)} `,
    ` ${nodeCell(s.cpu.a, s.served.a)} `,
    ` ${nodeCell(s.cpu.b, s.served.b)} `,
    ` ${perRequest(s.cpu.proxy, s.requests)} `,
    ` ${perRequest(s.cpu.bench, s.requests)} `,
    ` ${s.busy === null ? '–' : `${Math.round(s.busy * 100)} %`} `,
    ` ${int(s.errors)} `,
    '',
  ].join('|');
}

/** What the ratio says, in words chosen by the figures (nothing is concluded in advance). */
function verdict(ratio: number, busyWithOneNode: number | null): string {
  const said =
    ratio >= 1
      ? `In this run two nodes served at least as many cached pages per second as one (${ratio.toFixed(2)}×).`
      : `In this run two nodes served fewer cached pages per second than one (${ratio.toFixed(2)}×).`;
  if (busyWithOneNode === null) return said;
  const busy = Math.round(busyWithOneNode * 100);
  return (
    `${said} The load generator, the proxy and the nodes share this machine's cores, which were ${busy} % busy ` +
    'with one node' +
    (busy >= 90
      ? ': the cores, not the node, set the pace, so a second node can only share the CPU time the first one ' +
        'had (and adds a process that competes for it); the CPU per request shows what each setup costs.'
      : ': the cores had some room to spare, so a process (a node, or the single-threaded load generator or ' +
        'proxy) rather than the whole machine set the pace; the CPU per request says which.')
  );
}

function section(
  phases: Record<Setup, Phase[]>,
  info: {
    loadAverage: number[];
    cores: number;
    cpuModel: string;
    bytes: number;
    path: string;
    host: string;
    seedSeconds: number;
    peakRssMb: [number | null, number | null];
  },
): string {
  const ratios = phases.one.map((one, k) => (phases.two[k]?.rps ?? 0) / Math.max(1e-9, one.rps));
  const ratio = median(ratios);
  const one = summary(phases.one);
  const two = summary(phases.two);
  const folioPerRequestUs = (s: ReturnType<typeof summary>, both: boolean) =>
    ((s.cpu.a + (both ? s.cpu.b : 0)) * 1000) / Math.max(1, s.requests);
  const oneUs = folioPerRequestUs(one, false);
  const twoUs = folioPerRequestUs(two, true);
  const command =
    `npx tsx bench/nodes.ts --seconds=${SECONDS} --rounds=${ROUNDS} --connections=${CONNECTIONS} ` +
    `--posts=${POSTS} --storage=${STORAGE}${PINNED ? ` --node-cpus=${PINNED.join('/')}` : ''}`;
  const lines = [
    '<!-- nodes:start -->',
    '## Two nodes against one (issue 40): cached pages per second',
    '',
    ...sectionStamp(
      command,
      info,
      SMOKE ? 'a check that the script works, at a scale too small for its figures to mean anything.' : null,
      'PostgreSQL + Redis' +
        `${STORAGE === 's3' ? ' + a local S3 server (s3rver)' : ''}, ${int(POSTS)} posts seeded in ` +
        `${info.seedSeconds.toFixed(0)} s; two built Folio nodes (\`dist/\`, NODE_ENV=production, LOG_LEVEL=warn) on ` +
        'them, behind one round-robin TCP proxy (`bench/round-robin-proxy.mjs`, a process of its own: each ' +
        'connection to the next node). autocannon over loopback, ' +
        `${CONNECTIONS} keep-alive connections, \`GET ${info.path}\` (Host \`${info.host}\`, the full-page cache: ` +
        `${int(info.bytes)} bytes, \`x-folio-cache: hit\` on each node before the rounds), ${WARMUP} s of ` +
        `warm-up through each listener and on node B directly, then ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} of ${(SECONDS / ROUNDS).toFixed(1)} s each, one ` +
        'node then two nodes in every round. Node B is running but idle while one node is measured._',
    ),
    '',
    '| Setup | Req/s (each round) | p50 / p99 ms | Folio CPU µs / request | Node A: CPU µs / request the proxy passed it | Node B: CPU µs / request the proxy passed it | Proxy CPU µs / request | Load generator CPU µs / request | Machine CPU busy (all cores) | Failed |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('one', phases.one),
    row('two', phases.two),
    '',
    `**Two nodes ÷ one: ${ratio.toFixed(2)}** (median of the rounds: ${ratios.map((r) => r.toFixed(2)).join(', ')}). ` +
      `Peak RSS (VmHWM): node A ${info.peakRssMb[0]?.toFixed(0) ?? '–'} MB, node B ${info.peakRssMb[1]?.toFixed(0) ?? '–'} MB.`,
    '',
    verdict(ratio, one.busy),
    '',
    `How bigger machines would show it: the Folio CPU a cached page cost here, ${int(oneUs)} µs with one ` +
      `node and ${int(twoUs)} µs with two, means a node with a core of its own could answer about ` +
      `${int(1e6 / oneUs)} pages per second, and N nodes on N cores (or machines) about N times that until ` +
      'Redis, the proxy or the network is the limit: an estimate from the CPU figures, not a measurement. ' +
      'To measure it, give the load generator and the proxy cores of their own and each node others, on a ' +
      'machine of 4 cores or more: `taskset -c 0,1 npx tsx bench/nodes.ts --node-cpus=2/3` (node A on CPU 2, ' +
      'node B on CPU 3; the proxy inherits the cores of the bench), where two / one near 2 is the scaling.' +
      (PINNED ? ` This run pinned the nodes: node A on CPUs ${PINNED[0]}, node B on CPUs ${PINNED[1]}.` : ''),
    '<!-- nodes:end -->',
  ];
  return lines.join('\n');
}

async function main() {
  const machine = machineInfo();
  console.log(`load average at the start ${machine.loadAverage.join(' ')}`);
  const route = ROUTES.find((candidate) => candidate.id === 'post-page-cached');
  if (!route) throw new Error('route post-page-cached is missing from bench/harness.ts');
  const cleanUps: Array<() => Promise<unknown>> = [];
  try {
    console.log(`seeding ${POSTS} posts into ${PG_URL}`);
    const database: PreparedDatabase = await prepareDatabase(
      { postgresUrl: PG_URL, redisUrl: REDIS_URL },
      'postgres',
      POSTS,
    );
    cleanUps.push(() => database.drop());
    console.log(`seeded in ${database.seed.seconds.toFixed(1)} s`);
    const target = route.target(database.seed);

    let s3: LocalS3 | undefined;
    if (STORAGE === 's3') {
      s3 = await startLocalS3();
      const started = s3;
      cleanUps.push(() => started.close());
    }
    const nodes: ServerProcess[] = [];
    for (const name of ['a', 'b']) {
      const node = await startFolio({
        mode: 'dist',
        databaseUrl: database.url,
        redisUrl: database.redisUrl,
        mediaDir: path.join(path.dirname(database.mediaDir), `media-${name}`),
        queryCounter: false,
        env: s3
          ? {
              STORAGE_URL: s3.storageUrl('bench-nodes'),
              AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
              AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
            }
          : {},
      });
      cleanUps.push(() => node.stop());
      nodes.push(node);
      const cpus = PINNED?.[nodes.length - 1];
      // Every thread of the node (-a); threads it starts later inherit the affinity.
      if (cpus) execFileSync('taskset', ['-a', '-c', '-p', cpus, String(node.pid)], { stdio: 'ignore' });
      console.log(`node ${name.toUpperCase()} pid ${node.pid} at ${node.url}`);
    }
    const [a, b] = nodes as [ServerProcess, ServerProcess];
    const proxy = await startRoundRobinProxy([[a.url], [a.url, b.url]]);
    cleanUps.push(() => proxy.stop());
    const listener: Record<Setup, string> = { one: proxy.urls[0]!, two: proxy.urls[1]! };
    console.log(`proxy pid ${proxy.pid}: one node at ${listener.one}, two nodes at ${listener.two}`);

    // Each node answers the page from the full-page cache before anything is measured.
    let bytes = 0;
    for (const [k, node] of nodes.entries()) {
      const { last } = await probe(node.url, target);
      const cache = last.headers['x-folio-cache'];
      if (last.status !== 200 || cache !== 'hit') {
        throw new Error(
          `node ${k ? 'B' : 'A'}: HTTP ${last.status}, x-folio-cache ${String(cache)} (expected 200, hit)`,
        );
      }
      bytes = last.body.length;
    }

    if (WARMUP > 0) {
      // Node B directly too, so that it is as warm as node A (which the one-node listener warms).
      for (const url of [listener.one, b.url, listener.two]) await load(url, target, WARMUP);
    }
    const phases: Record<Setup, Phase[]> = { one: [], two: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const setup of ['one', 'two'] as const) {
        const phase = await measure(listener[setup], target, [a, b], proxy);
        phases[setup].push(phase);
        console.log(
          `round ${round} ${setup === 'one' ? 'one node ' : 'two nodes'}: ${int(phase.rps)} req/s, ` +
            `p50 ${phase.p50} p99 ${phase.p99} ms, served A ${phase.served.a} B ${phase.served.b}, ` +
            `CPU ms A ${phase.cpuMs.a.toFixed(0)} B ${phase.cpuMs.b.toFixed(0)} proxy ${phase.cpuMs.proxy.toFixed(0)}` +
            `${phase.errors ? `, ${phase.errors} failed` : ''}`,
        );
      }
    }
    const failed = sum([...phases.one, ...phases.two].map((p) => p.errors));
    const peakRssMb: [number | null, number | null] = [
      procMemoryMb(a.pid, 'VmHWM'),
      procMemoryMb(b.pid, 'VmHWM'),
    ];
    const text = section(phases, {
      loadAverage: machine.loadAverage,
      cores: machine.cpus,
      cpuModel: machine.cpuModel,
      bytes,
      path: target.path,
      host: target.headers.host ?? '',
      seedSeconds: database.seed.seconds,
      peakRssMb,
    });
    writeSection(values.out, 'nodes', text);
    console.log(`\n${text}\n\nwritten to ${values.out}`);
    if (failed > 0) process.exitCode = 1;
  } finally {
    for (const cleanUp of cleanUps.reverse()) await cleanUp().catch((error: unknown) => console.error(error));
  }
}

await main();
