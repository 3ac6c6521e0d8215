// The real package manager of an update: npm, run in the installation directory with a time limit,
// plus the two file-system steps that go with a package (asset publishing, reading its version).
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { CORE_PACKAGE, UpdateStepError } from './updates.js';
import type { PackageManager, StepContext, UpdateLogger } from './updates.js';

export interface NpmPackageManagerOptions {
  /** The installation directory: holds package.json, node_modules/ and the served public/ folder. */
  installDir: string;
  /** Time limit of one npm run; the process (and its children) is killed when it runs out. */
  timeoutMs?: number;
  /** The npm executable (tests point it at a stand-in). */
  command?: string;
  /** Arguments appended to every install (tests add `--offline`). */
  extraArgs?: readonly string[];
  /**
   * What npm installs for a package and a version (already validated): `name@version` by default.
   * Tests map a fixture package to a local tarball here, so that the real npm runs offline.
   */
  source?: (name: string, version: string) => string;
  /** The npm package of the core's releases (FOLIO_RELEASE_PACKAGE); none: its newest is not asked. */
  releasePackage?: string | null;
}

/** Default time limit: well under the 3-minute lock expiry, although the lock is refreshed anyway. */
export const DEFAULT_NPM_TIMEOUT_MS = 150_000;
const KILL_GRACE_MS = 5_000;
/** Asking the registry for the newest version: the dashboard waits at most this long. */
const LATEST_TIMEOUT_MS = 8_000;
const REASON_LIMIT = 300;

/** npm's noise that says nothing about the failure (this machine's npmrc sets an unknown `nodedir`). */
const IGNORED_LINES = [/^npm warn Unknown (?:user|global|project|env) config/i];

export class NpmPackageManager implements PackageManager {
  readonly installDir: string;
  private readonly timeoutMs: number;
  private readonly command: string;
  private readonly extraArgs: readonly string[];
  private readonly source: (name: string, version: string) => string;
  private readonly releasePackage: string | null;

  constructor(options: NpmPackageManagerOptions) {
    this.installDir = path.resolve(options.installDir);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_NPM_TIMEOUT_MS;
    this.command = options.command ?? 'npm';
    this.extraArgs = options.extraArgs ?? [];
    this.source = options.source ?? ((name, version) => `${name}@${version}`);
    this.releasePackage = options.releasePackage ?? null;
  }

  /** The npm package a request names: the core is its release package (never npm's `folio`). */
  private npmName(name: string): string {
    if (name !== CORE_PACKAGE) return name;
    if (this.releasePackage === null) throw new UpdateStepError('the core has no release package');
    return this.releasePackage;
  }

  async install(name: string, version: string, context: StepContext): Promise<void> {
    const spec = this.source(this.npmName(name), version);
    const args = ['install', spec, '--no-audit', '--no-fund', '--no-update-notifier', ...this.extraArgs];
    await runLogged(this.command, args, {
      cwd: this.installDir,
      timeoutMs: this.timeoutMs,
      signal: context.signal,
      log: context.log,
      step: 'npm install',
    });
  }

  async publishAssets(requested: string, context: StepContext): Promise<number> {
    const name = this.npmName(requested);
    const source = path.join(this.installDir, 'node_modules', name, 'public');
    const stat = await fs.stat(source).catch(() => null);
    if (!stat?.isDirectory()) {
      context.log.info({ step: 'assets', package: name }, `update: ${name} has no public assets`);
      return 0;
    }
    const target = path.join(this.installDir, 'public', 'vendor', name);
    const staging = `${target}.tmp-${randomBytes(4).toString('hex')}`;
    try {
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.cp(source, staging, { recursive: true, verbatimSymlinks: true });
      // Replace the old assets as a whole: files the new version dropped must not linger.
      await fs.rm(target, { recursive: true, force: true });
      await fs.rename(staging, target);
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      context.log.error({ step: 'assets', err: error }, 'update: publishing assets failed');
      throw new UpdateStepError(`publishing the assets of ${name} failed (${code})`);
    }
    const files = await countFiles(target);
    context.log.info(
      { step: 'assets', package: name, files, target },
      `update: published ${files} asset file(s) of ${name}`,
    );
    return files;
  }

  /**
   * `npm view <name> version`: the registry's newest version, or null when it does not answer. The
   * core's is its release package's, and not known without one (npm's `folio` is another project).
   */
  latestVersion(name: string): Promise<string | null> {
    const asked = name === CORE_PACKAGE ? this.releasePackage : name;
    if (asked === null) return Promise.resolve(null);
    return new Promise((resolve) => {
      execFile(
        this.command,
        ['view', asked, 'version', '--no-update-notifier'],
        { cwd: this.installDir, timeout: LATEST_TIMEOUT_MS, killSignal: 'SIGKILL' },
        (error, stdout) => {
          const version = String(stdout).trim().split('\n').pop()?.trim() ?? '';
          resolve(error || !/^\d+\.\d+\.\d+\S*$/.test(version) ? null : version);
        },
      );
    });
  }

  async installedVersion(requested: string): Promise<string> {
    const name = this.npmName(requested);
    const file = path.join(this.installDir, 'node_modules', name, 'package.json');
    let manifest: unknown;
    try {
      manifest = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch {
      throw new UpdateStepError(`${name} is not installed after npm install`);
    }
    const version =
      typeof manifest === 'object' && manifest !== null ? (manifest as { version?: unknown }).version : null;
    if (typeof version !== 'string' || version === '') {
      throw new UpdateStepError(`the installed ${name} has no version in its package.json`);
    }
    return version;
  }
}

async function countFiles(dir: string): Promise<number> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}

interface RunOptions {
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  log: UpdateLogger;
  step: string;
}

/**
 * Runs a command, logging every line of its output, and resolves when it exits with 0. A time limit
 * or an abort kills the whole process group (npm starts children), first gently, then for good.
 */
export function runLogged(command: string, args: readonly string[], options: RunOptions): Promise<void> {
  const { log, step } = options;
  const started = Date.now();
  log.info({ step, command, args }, `update: ${step} started`);

  return new Promise<void>((resolve, reject) => {
    if (options.signal.aborted) {
      reject(new UpdateStepError(`${step} was interrupted: ${abortReason(options.signal)}`));
      return;
    }
    const detached = process.platform !== 'win32';
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      detached,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_progress: 'false' },
    });
    const errorLines: string[] = [];
    let stopped: 'timeout' | 'abort' | null = null;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;

    const kill = (signal: NodeJS.Signals) => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        if (detached) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // Already gone.
      }
    };
    const stop = (why: 'timeout' | 'abort') => {
      if (stopped || settled) return;
      stopped = why;
      log.warn(
        { step },
        `update: ${step} ${why === 'timeout' ? 'ran out of time' : 'interrupted'}; killing it`,
      );
      kill('SIGTERM');
      killTimer = setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
      killTimer.unref();
    };
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    timer.unref();
    const onAbort = () => stop('abort');
    options.signal.addEventListener('abort', onAbort, { once: true });

    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      options.signal.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };

    const lines = (stream: 'stdout' | 'stderr') => {
      let pending = '';
      return (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        const parts = pending.split(/\r?\n/);
        pending = parts.pop() ?? '';
        for (const line of parts) emit(stream, line);
      };
    };
    const emit = (stream: 'stdout' | 'stderr', line: string) => {
      if (line.trim() === '') return;
      log.info({ step, stream }, line);
      if (stream === 'stderr' && !IGNORED_LINES.some((pattern) => pattern.test(line))) {
        errorLines.push(line);
        if (errorLines.length > 100) errorLines.shift();
      }
    };
    child.stdout.on('data', lines('stdout'));
    child.stderr.on('data', lines('stderr'));

    child.on('error', (error) => {
      log.error({ step, err: error }, `update: ${step} could not be started`);
      finish(new UpdateStepError(`${step} could not be started (${errorCode(error)})`));
    });
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (stopped === 'timeout') {
        finish(
          new UpdateStepError(`${step} timed out after ${Number((options.timeoutMs / 1000).toFixed(1))}s`),
        );
      } else if (stopped === 'abort') {
        finish(new UpdateStepError(`${step} was interrupted: ${abortReason(options.signal)}`));
      } else if (code === 0) {
        log.info({ step, seconds }, `update: ${step} finished in ${seconds}s`);
        finish(null);
      } else {
        const how = code === null ? `was killed by ${signal ?? 'a signal'}` : `exited with code ${code}`;
        log.error({ step, seconds, code, signal }, `update: ${step} ${how}`);
        finish(new UpdateStepError(limit(`${step} ${how}: ${summarize(errorLines)}`)));
      }
    });
  });
}

/** The gist of npm's error output: `ENOTCACHED: request to … failed: …`. */
export function summarize(lines: readonly string[]): string {
  const errors = lines
    .map((line) => /^npm (?:error|ERR!)\s?(.*)$/.exec(line)?.[1]?.trim())
    .filter((line): line is string => line !== undefined && line !== '');
  if (errors.length > 0) {
    const code = errors.map((line) => /^code (\S+)$/.exec(line)?.[1]).find((value) => value !== undefined);
    const messages = errors.filter(
      (line) => !/^(?:code|errno|syscall|path|dest) /.test(line) && !/^A complete log of this run/.test(line),
    );
    const text = messages.slice(0, 2).join(' ') || 'npm reported an error';
    return redactUrls(code ? `${code}: ${text}` : text);
  }
  const last = lines.findLast((line) => line.trim() !== '');
  return last ? redactUrls(last.trim()) : 'no error output';
}

/** Credentials in URLs (`https://user:secret@host/`) never reach a response. */
function redactUrls(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1[redacted]@');
}

function limit(text: string): string {
  return text.length > REASON_LIMIT ? `${text.slice(0, REASON_LIMIT - 1)}…` : text;
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
}
