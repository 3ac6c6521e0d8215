// Update tests without a network: fixture packages packed by the real `npm pack` into tarballs, an
// installation directory of their own, and a package manager that installs those tarballs offline.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { NpmPackageManager } from '../../src/domain/system/npm.js';
import type { NpmPackageManagerOptions } from '../../src/domain/system/npm.js';
import { UpdateStepError } from '../../src/domain/system/updates.js';
import type { PackageManager, StepContext, UpdateLogger } from '../../src/domain/system/updates.js';

const run = promisify(execFile);

export interface FixtureVersion {
  version: string;
  /** Files under the package's public/ folder: relative path -> content. */
  assets?: Record<string, string>;
}

export interface NpmFixture {
  root: string;
  /** The installation directory (package.json of a site, node_modules/, public/). */
  installDir: string;
  /** Tarball of each package and version: `name@version` -> path. */
  tarballs: Map<string, string>;
  /** The real npm, offline, with the fixture packages as the source of their versions. */
  packageManager(options?: Partial<NpmPackageManagerOptions>): NpmPackageManager;
  cleanup(): void;
}

/** Packs each package version with `npm pack`; `latest` of a package is its last listed version. */
export async function createNpmFixture(packages: Record<string, FixtureVersion[]>): Promise<NpmFixture> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-npm-'));
  const installDir = path.join(root, 'site');
  const cache = path.join(root, 'npm-cache');
  fs.mkdirSync(installDir);
  fs.writeFileSync(
    path.join(installDir, 'package.json'),
    JSON.stringify({ name: 'fixture-site', private: true }),
  );
  const tarballs = new Map<string, string>();
  const latest = new Map<string, string>();
  for (const [name, versions] of Object.entries(packages)) {
    for (const { version, assets = {} } of versions) {
      const source = path.join(root, 'src', `${name.replace('/', '__')}-${version}`);
      fs.mkdirSync(source, { recursive: true });
      fs.writeFileSync(path.join(source, 'package.json'), JSON.stringify({ name, version }));
      for (const [file, content] of Object.entries(assets)) {
        fs.mkdirSync(path.dirname(path.join(source, 'public', file)), { recursive: true });
        fs.writeFileSync(path.join(source, 'public', file), content);
      }
      const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', root], { cwd: source });
      const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
      if (!packed) throw new Error(`npm pack printed nothing for ${name}@${version}`);
      tarballs.set(`${name}@${version}`, path.join(root, packed.filename));
      latest.set(name, version);
    }
  }
  const source = (name: string, version: string) => {
    const wanted = version === 'latest' ? latest.get(name) : version;
    return tarballs.get(`${name}@${wanted}`) ?? `${name}@${version}`;
  };
  return {
    root,
    installDir,
    tarballs,
    packageManager: (options = {}) =>
      new NpmPackageManager({
        installDir,
        source,
        // Offline and with a cache of its own: nothing can come from the registry.
        extraArgs: ['--offline', '--cache', cache],
        timeoutMs: 60_000,
        // The fixture's `folio` stands for the core's release package (FOLIO_RELEASE_PACKAGE).
        releasePackage: 'folio',
        ...options,
      }),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * A package manager whose install waits until the test opens the gate (or the run is interrupted):
 * an update that stays in progress as long as a test needs.
 */
export class GatedPackageManager implements PackageManager {
  readonly installs: string[] = [];
  private readonly gates: Array<() => void> = [];
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(private readonly version = '9.8.7') {}

  install(name: string, version: string, context: StepContext): Promise<void> {
    this.installs.push(`${name}@${version}`);
    for (const waiter of this.waiters.filter((w) => this.installs.length >= w.count)) waiter.resolve();
    return new Promise<void>((resolve, reject) => {
      this.gates.push(resolve);
      context.signal.addEventListener('abort', () => reject(new UpdateStepError('interrupted')), {
        once: true,
      });
    });
  }

  /** Resolves once `count` installs have started. */
  started(count = 1): Promise<void> {
    if (this.installs.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Lets every waiting install finish. */
  open(): void {
    for (const gate of this.gates.splice(0)) gate();
  }

  async publishAssets(): Promise<number> {
    return 0;
  }

  async installedVersion(): Promise<string> {
    return this.version;
  }
}

/** A logger that keeps every line, to check that the output of each step is logged. */
export function collectingLogger(): UpdateLogger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (_details: object, message: string) => void lines.push(message);
  return { lines, info: keep, warn: keep, error: keep };
}
