// The processes a benchmark measures: Folio (compiled, NODE_ENV=production, or through tsx for the
// smoke run) and the bare Fastify baseline, each in a child process of its own so that its memory is
// measured apart from the load generator. Memory comes from /proc/<pid>/status (Linux): VmRSS sampled
// while a measurement runs, VmHWM (the kernel's peak RSS) when the process stops.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_DIR = fileURLToPath(new URL('..', import.meta.url));

/** `dist`: `node bin/folio.js serve` (run `npm run build` first); `tsx`: from source, for smoke runs. */
export type ServerMode = 'dist' | 'tsx';

export interface ServerProcess {
  name: string;
  pid: number;
  /** http://127.0.0.1:<port> */
  url: string;
  /** The last lines the process wrote, for error messages. */
  output(): string;
  /** Stops the process (SIGTERM, then SIGKILL after 15 s); answers its peak RSS in MB, when known. */
  stop(): Promise<{ peakRssMb: number | null }>;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** One field of /proc/<pid>/status in MB (VmRSS, VmHWM), or null where there is no /proc. */
export function procMemoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

let clockTicks: number | undefined;

/**
 * CPU time a process has used so far (user + system, from /proc/<pid>/stat), ms; null where there is
 * no /proc. The kernel counts in clock ticks (usually 10 ms): read it around seconds of load.
 */
export function procCpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (clockTicks === undefined) {
      try {
        clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
      } catch {
        clockTicks = 100;
      }
    }
    return Number.isFinite(ticks) ? (ticks * 1000) / clockTicks : null;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; answers the samples. */
export function sampleMemory(pid: number, everyMs = 250) {
  const samples: Array<{ t: number; rssMb: number }> = [];
  const started = performance.now();
  const take = () => {
    const rssMb = procMemoryMb(pid, 'VmRSS');
    if (rssMb !== null) samples.push({ t: (performance.now() - started) / 1000, rssMb });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return {
        samples,
        peakMb: samples.length ? Math.max(...samples.map((s) => s.rssMb)) : null,
      };
    },
  };
}

function track(child: ChildProcess) {
  const lines: string[] = [];
  // BENCH_SERVER_LOG=FILE: every line the servers write goes to FILE too (e.g. with --trace-gc).
  const logFile = process.env.BENCH_SERVER_LOG;
  const keep = (chunk: Buffer) => {
    if (logFile) fs.appendFileSync(logFile, chunk);
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 40) lines.splice(0, lines.length - 40);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let stopped = false;
  return {
    output: () => lines.join('\n'),
    exited,
    stop: async (): Promise<{ peakRssMb: number | null }> => {
      const peakRssMb = child.pid ? procMemoryMb(child.pid, 'VmHWM') : null;
      if (!stopped && child.exitCode === null) {
        stopped = true;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      return { peakRssMb };
    },
  };
}

async function waitFor(url: string, timeoutMs: number, exited: Promise<unknown>, output: () => string) {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone) throw new Error(`server exited before it was ready:\n${output()}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server not ready after ${timeoutMs} ms:\n${output()}`);
}

export interface FolioOptions {
  mode: ServerMode;
  databaseUrl: string;
  redisUrl?: string;
  mediaDir: string;
  /** FOLIO_QUERY_COUNTER=1: responses carry x-folio-queries (it costs a little: probes only). */
  queryCounter: boolean;
  /** Write a V8 CPU profile (--cpu-prof) into this directory when the server stops. */
  cpuProfDir?: string;
  /** More Node.js flags and environment variables of the process (bench/loop-monitor.mjs). */
  nodeArgs?: string[];
  env?: Record<string, string>;
  /** LOG_LEVEL (warn unless said). */
  logLevel?: string;
  /** The checkout whose build runs (default: this one); bench/fixed-rate.ts compares two. */
  projectDir?: string;
}

export async function startFolio(options: FolioOptions): Promise<ServerProcess> {
  const port = await freePort();
  const nodeArgs = options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [];
  nodeArgs.push(...(process.env.BENCH_FOLIO_NODE_ARGS ?? '').split(' ').filter(Boolean));
  nodeArgs.push(...(options.nodeArgs ?? []));
  const projectDir = options.projectDir ?? PROJECT_DIR;
  const entry =
    options.mode === 'dist'
      ? [path.join(projectDir, 'bin/folio.js'), 'serve']
      : ['--import', 'tsx', path.join(projectDir, 'src/dev.ts'), 'serve'];
  if (options.mode === 'dist' && !fs.existsSync(path.join(projectDir, 'dist/cli.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm run bench does)');
  }
  const child = spawn(process.execPath, [...nodeArgs, ...entry], {
    cwd: projectDir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'production',
      DATABASE_URL: options.databaseUrl,
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
      HOST: '127.0.0.1',
      PORT: String(port),
      APP_URL: 'http://site1.test',
      MEDIA_DIR: options.mediaDir,
      LOG_LEVEL: options.logLevel ?? 'warn',
      ...(options.queryCounter ? { FOLIO_QUERY_COUNTER: '1' } : {}),
      // BENCH_MALLOC_ARENA_MAX=N: glibc's arenas for every measured Folio (docs/operations.md, "Memory").
      ...(process.env.BENCH_MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.BENCH_MALLOC_ARENA_MAX } : {}),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tracked = track(child);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}/healthz`, 60_000, tracked.exited, tracked.output);
  } catch (error) {
    await tracked.stop();
    throw error;
  }
  return { name: 'folio', pid: child.pid as number, url, output: tracked.output, stop: tracked.stop };
}

/** One response of the bare server: what it answers at `/r/<index>`. */
export interface BareRoute {
  method: 'GET' | 'POST';
  contentType: string;
  /** The body, base64. */
  body: string;
  /** Other response headers to send as they are (a Folio answer's own: `--bare-headers`). */
  headers?: Record<string, string>;
}

/** Starts bench/bare-server.mjs answering each route's body; route i is at `/r/i`. */
export async function startBare(routes: BareRoute[], specFile: string): Promise<ServerProcess> {
  fs.writeFileSync(specFile, JSON.stringify(routes));
  const child = spawn(process.execPath, [path.join(PROJECT_DIR, 'bench/bare-server.mjs'), specFile], {
    cwd: PROJECT_DIR,
    env: { PATH: process.env.PATH, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tracked = track(child);
  const port = await new Promise<number>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /listening (\d+)/.exec(text);
      if (match) {
        child.stdout?.off('data', onData);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    void tracked.exited.then(() => reject(new Error(`bare server exited:\n${tracked.output()}`)));
  });
  return {
    name: 'bare',
    pid: child.pid as number,
    url: `http://127.0.0.1:${port}`,
    output: tracked.output,
    stop: tracked.stop,
  };
}

/** bench/round-robin-proxy.mjs in a process of its own: one listener per group of upstream URLs. */
export interface RoundRobinProxy extends ServerProcess {
  /** http://127.0.0.1:<port> of each listener, in the order of the groups. */
  urls: string[];
  /** Requests passed to each upstream URL so far (bodiless requests: the ends of their heads). */
  requests(): Promise<Map<string, number>>;
}

/** Starts the round-robin TCP proxy; listener k hands its connections to the servers of `groups[k]` in turn. */
export async function startRoundRobinProxy(groups: string[][]): Promise<RoundRobinProxy> {
  const portOf = (url: string) => new URL(url).port;
  const child = spawn(
    process.execPath,
    [
      path.join(PROJECT_DIR, 'bench/round-robin-proxy.mjs'),
      ...groups.map((urls) => urls.map(portOf).join(',')),
    ],
    { cwd: PROJECT_DIR, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  const tracked = track(child);
  const ports = await new Promise<number[]>((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /listening ([\d ]+)\n/.exec(text);
      if (match) {
        child.stdout?.off('data', onData);
        resolve(match[1]!.trim().split(' ').map(Number));
      }
    };
    child.stdout?.on('data', onData);
    void tracked.exited.then(() => reject(new Error(`proxy exited:\n${tracked.output()}`)));
  });
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  const upstreams = [...new Set(groups.flat())];
  const requests = () =>
    new Promise<Map<string, number>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the proxy did not answer its request count')), 5000);
      child.once('message', (message: { requests: Record<string, number> }) => {
        clearTimeout(timer);
        resolve(new Map(upstreams.map((url) => [url, message.requests[portOf(url)] ?? 0])));
      });
      child.send('requests');
    });
  return {
    name: 'proxy',
    requests,
    pid: child.pid as number,
    url: urls[0]!,
    urls,
    output: tracked.output,
    stop: tracked.stop,
  };
}
