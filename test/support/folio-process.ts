// A real `folio start` process for the fault tests (they kill, starve or cut its database under it),
// and plain HTTP to it: no keep-alive, every answer read whole, a cut connection answered as status 0.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';

export interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** One request to the process on `port`, as `localhost` (its first website); never rejects. */
export function request(
  port: number,
  path: string,
  options: { method?: string; json?: unknown } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? (options.json === undefined ? 'GET' : 'POST'),
        headers: { host: `localhost:${port}`, 'content-type': 'application/json' },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
        res.on('error', () => resolve({ status: 0, body, headers: res.headers }));
      },
    );
    req.on('error', (error) => resolve({ status: 0, body: error.message, headers: {} }));
    req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
    req.end(options.json === undefined ? undefined : JSON.stringify(options.json));
  });
}

/** The JSON of an answer, or null when it is not JSON (a cut answer). */
export function jsonOf<T>(answer: Answer): T | null {
  try {
    return JSON.parse(answer.body) as T;
  } catch {
    return null;
  }
}

export interface FolioProcess {
  child: ChildProcess;
  /** Everything it printed so far. */
  output: () => string;
  /** The admin token printed by the first start of a database (undefined on later starts). */
  token: string | undefined;
}

/**
 * Starts `folio start` on `port` with these environment variables (DATABASE_URL at least; no Redis
 * unless given) and resolves once /healthz answers 200, or after 60 s (the caller's assertions then
 * show the output).
 */
export async function startFolio(port: number, env: Record<string, string>): Promise<FolioProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev.ts', 'start'], {
    env: { ...process.env, REDIS_URL: '', LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if ((await request(port, '/healthz')).status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, output: () => output, token: /api_token: (\S+)/.exec(output)?.[1] };
}
