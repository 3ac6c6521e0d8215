// The soak: minutes of mixed traffic against one Folio process, its memory sampled all along, to show
// that it stays flat (no leak, no cache that grows without bound). The mix cycles through the read
// routes of the benchmark over many different posts, and updates a post now and then (which flushes
// the post caches, as real editing does).
import autocannon from 'autocannon';
import type { RequestSpec } from 'autocannon';
import { ROUTES, machineInfo, prepareDatabase } from './harness.js';
import type { Dialect } from './harness.js';
import { probe } from './load.js';
import { BENCH_HOSTS } from './seed.js';
import { sampleMemory, startFolio } from './servers.js';
import type { ServerMode } from './servers.js';

export interface SoakOptions {
  server: ServerMode;
  dialect: Dialect;
  posts: number;
  seconds: number;
  connections: number;
  /** How often memory is sampled. */
  sampleSeconds: number;
  postgresUrl: string;
  redisUrl: string;
  log: (line: string) => void;
}

export interface SoakResults {
  version: 1;
  date: string;
  machine: ReturnType<typeof machineInfo>;
  dialect: Dialect;
  posts: number;
  connections: number;
  seconds: number;
  mix: string[];
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  memory: {
    samples: Array<{ t: number; rssMb: number }>;
    /** Average RSS per interval (minutes from the start, the middle of the interval). */
    perMinute: Array<{ minute: number; rssMb: number }>;
    /** Average over the first interval after warm-up, and over the last one. */
    startMb: number | null;
    endMb: number | null;
    peakMb: number | null;
    /** Least-squares slope of RSS over the second half of the run. */
    slopeMbPerMinute: number;
  };
}

function slope(points: Array<{ t: number; rssMb: number }>): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const meanT = points.reduce((sum, p) => sum + p.t, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.rssMb, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.t - meanT) * (p.rssMb - meanY);
    den += (p.t - meanT) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

export async function runSoak(options: SoakOptions): Promise<SoakResults> {
  options.log(`== soak: ${options.dialect}, ${options.posts} posts, ${options.seconds} s`);
  const database = await prepareDatabase(options, options.dialect, options.posts);
  const { seed } = database;
  const folio = await startFolio({
    mode: options.server,
    databaseUrl: database.url,
    redisUrl: database.redisUrl,
    mediaDir: database.mediaDir,
    queryCounter: false,
  });
  try {
    // Only the routes this build has; each over several posts.
    const available: string[] = [];
    for (const route of ROUTES) {
      const answer = await probe(folio.url, route.target(seed), 2);
      if (answer.last.status === 200) available.push(route.id);
    }
    const requests: RequestSpec[] = [];
    const slugs = seed.slugs.length > 0 ? seed.slugs : [seed.sampleSlug];
    const mix = new Set<string>();
    for (let step = 0; step < 32; step++) {
      const slug = slugs[(step * 5) % slugs.length] as string;
      for (const route of ROUTES.filter((r) => available.includes(r.id))) {
        const target = route.target({ ...seed, sampleSlug: slug });
        if (route.id === 'api-list') target.path += `?page=${1 + (step % 5)}`;
        if (route.id === 'sitemap' && step % 8 !== 0) continue;
        if (route.id === 'api-tags')
          target.body = JSON.stringify({ type: step % 2 ? 'post_tag' : 'post_category' });
        requests.push(target);
        mix.add(route.label);
      }
      if (step % 4 === 0) {
        requests.push({
          method: 'POST',
          path: `/api/v1/posts/update/${slug}`,
          headers: { host: BENCH_HOSTS.uncached, 'content-type': 'application/json' },
          body: JSON.stringify({ api_token: seed.token, excerpt: `Edited during the soak, step ${step}.` }),
        });
        mix.add('API post update (1 in ~25 requests)');
      }
    }

    const memory = sampleMemory(folio.pid, options.sampleSeconds * 1000);
    const result = await autocannon({
      url: folio.url,
      connections: options.connections,
      duration: options.seconds,
      requests,
      timeout: 10,
    });
    const { samples, peakMb } = memory.stop();

    // Averages per interval: a minute, or a tenth of a short run.
    const interval = Math.min(60, Math.max(options.sampleSeconds, options.seconds / 10));
    const perMinute: Array<{ minute: number; rssMb: number }> = [];
    for (let start = 0; start < options.seconds; start += interval) {
      const inside = samples.filter((s) => s.t >= start && s.t < start + interval);
      if (inside.length === 0) continue;
      perMinute.push({
        minute: (start + interval / 2) / 60,
        rssMb: inside.reduce((sum, s) => sum + s.rssMb, 0) / inside.length,
      });
    }
    const afterWarmup = perMinute.length > 1 ? perMinute.slice(1) : perMinute;
    const secondHalf = samples.filter((s) => s.t >= options.seconds / 2);
    const seconds = result.duration > 0 ? result.duration : options.seconds;
    const soak: SoakResults = {
      version: 1,
      date: new Date().toISOString(),
      machine: machineInfo(),
      dialect: options.dialect,
      posts: options.posts,
      connections: options.connections,
      seconds: options.seconds,
      mix: [...mix],
      requests: result.requests.total,
      rps: result.requests.total / seconds,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.non2xx + result.errors + result.timeouts,
      memory: {
        samples,
        perMinute,
        startMb: afterWarmup[0]?.rssMb ?? null,
        endMb: perMinute[perMinute.length - 1]?.rssMb ?? null,
        peakMb,
        slopeMbPerMinute: slope(secondHalf),
      },
    };
    options.log(
      `   ${soak.requests} requests, ${soak.rps.toFixed(0)} req/s, ${soak.errors} failed; RSS ` +
        `${soak.memory.startMb?.toFixed(0)} -> ${soak.memory.endMb?.toFixed(0)} MB (peak ${peakMb?.toFixed(0)}), ` +
        `trend ${soak.memory.slopeMbPerMinute.toFixed(2)} MB/min`,
    );
    return soak;
  } finally {
    await folio.stop();
    await database.drop();
  }
}
