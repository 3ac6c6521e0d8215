// Load generation (autocannon over loopback) and single probing requests.
import http from 'node:http';
import autocannon from 'autocannon';
import { procCpuMs, sampleMemory } from './servers.js';

export interface Target {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  connections: number;
  /** Measure for this many seconds… */
  seconds?: number;
  /** …or for this many requests (smoke runs: over in a moment). */
  amount?: number;
  /** Unrecorded load first, so that the JIT and the caches are warm; 0 for none. */
  warmupSeconds: number;
}

export interface Measurement {
  /** Requests per second over the measured phase. */
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  requests: number;
  /** Non-2xx answers, socket errors and timeouts. */
  errors: number;
  seconds: number;
  /** The server's largest RSS sampled during the measured phase, MB. */
  peakRssMb: number | null;
  /** CPU time the server used during the measured phase (user + system), ms; null without /proc. */
  cpuMs: number | null;
  /** Requests per second of each round, when the measurement took several. */
  roundsRps?: number[];
}

async function cannon(
  base: string,
  target: Target,
  connections: number,
  limit: { seconds?: number; amount?: number },
) {
  return autocannon({
    url: `${base}${target.path}`,
    method: target.method,
    headers: target.headers,
    body: target.body,
    connections,
    ...(limit.amount !== undefined ? { amount: limit.amount } : { duration: limit.seconds ?? 1 }),
    timeout: 10,
    // autocannon notices the end of a run on its sampling tick: a short tick ends short runs at once.
    sampleInt: 100,
  });
}

/** Drives one route of one server; memory of process `pid` is sampled meanwhile. */
/** The server's CPU time per request over a measurement, µs; null when unknown. */
export function cpuPerRequestUs(measurement: Measurement): number | null {
  if (measurement.cpuMs === null || measurement.requests === 0) return null;
  return (measurement.cpuMs * 1000) / measurement.requests;
}

export async function measure(
  base: string,
  target: Target,
  options: LoadOptions,
  pid: number,
): Promise<Measurement> {
  if (options.warmupSeconds > 0) {
    await cannon(base, target, options.connections, { seconds: options.warmupSeconds });
  }
  const memory = sampleMemory(pid);
  const cpuBefore = procCpuMs(pid);
  const started = performance.now();
  const result = await cannon(base, target, options.connections, options);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = procCpuMs(pid);
  const { peakMb } = memory.stop();
  return {
    rps: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.non2xx + result.errors + result.timeouts,
    seconds,
    peakRssMb: peakMb,
    cpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
  };
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request (node:http, so that the Host header is ours to set). */
export function send(
  base: string,
  target: Omit<Target, 'body'> & { body?: string | Buffer },
  timeoutMs = 15_000,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${base}${target.path}`,
      { method: target.method, headers: target.headers, timeout: timeoutMs },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`timeout: ${target.method} ${target.path}`)));
    request.on('error', reject);
    request.end(target.body);
  });
}

export interface Probe {
  /** The last answer of the probe (caches warm). */
  last: Answer;
  /** SQL queries of the first request (caches cold) and of the last one, from x-folio-queries. */
  coldQueries: number | null;
  queries: number | null;
}

/** Sends the request `times` times in a row; the first warms the caches. */
export async function probe(base: string, target: Target, times = 5): Promise<Probe> {
  let first: Answer | null = null;
  let last: Answer | null = null;
  for (let k = 0; k < times; k++) {
    last = await send(base, target);
    first ??= last;
  }
  const queries = (answer: Answer | null) => {
    const value = answer?.headers['x-folio-queries'];
    return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : null;
  };
  return { last: last as Answer, coldQueries: queries(first), queries: queries(last) };
}
