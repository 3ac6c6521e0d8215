// Core and package updates (spec 3.2, 4.6; R-U1..R-U3). One update runs at a time per item (`core`
// for the core package, the package name otherwise), on every app node together: the lock is a row of
// `update_state` taken with ONE conditional write, so of two simultaneous triggers exactly one wins.
// A lock older than 3 minutes belongs to a stalled run and is taken over; a live run refreshes its
// lock so that it never looks stalled. The lock is released when the run ends, whatever the outcome,
// and by releaseAll() when the process stops.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Cache } from '../../cache/cache.js';
import type { Db } from '../../db/database.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { recordWrite } from './audit.js';
import type { AuditLog } from './audit.js';
import type { Actor } from '../policy.js';
import type { SettingsService } from './settings.js';
import { flag } from '../values.js';

/** The core's npm package, and the item its lock and progress go by. */
export const CORE_PACKAGE = 'folio';
export const CORE_ITEM = 'core';
/** Spec section 8: a lock older than this belongs to a stalled run. */
export const LOCK_EXPIRY_MS = 3 * 60 * 1000;
/** How often a running update refreshes its lock timestamp. */
export const DEFAULT_HEARTBEAT_MS = 60 * 1000;
/** The setting that turns updates off (spec 4.6 rule 1). */
export const DISABLE_SETTING = 'disable_core_update';

/** Where the steps of an update write their output: a pino logger fits (request.log). */
export interface UpdateLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export const silentLogger: UpdateLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export interface StepContext {
  log: UpdateLogger;
  /** Aborted when the process stops mid-run; a step that can be interrupted should stop. */
  signal: AbortSignal;
}

/** What an update does with the package itself. The real one is NpmPackageManager (npm.ts). */
export interface PackageManager {
  /** Installs `version` (a semver version or a dist-tag such as `latest`) of the package. */
  install(name: string, version: string, context: StepContext): Promise<void>;
  /** Copies the installed package's public assets into the served folder; returns the file count. */
  publishAssets(name: string, context: StepContext): Promise<number>;
  /** The version now installed, read from the installed package's package.json (R-U2). */
  installedVersion(name: string): Promise<string>;
  /** The newest published version of the package (null: unknown); absent: never asked. */
  latestVersion?(name: string): Promise<string | null>;
}

/** The running Folio's version: its own package.json (two folders up from src/domain and dist/domain). */
export async function runningVersion(): Promise<string> {
  try {
    const manifest = JSON.parse(
      await readFile(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Whether version `a` is newer than `b` (semver's order of the release part; a pre-release is older). */
export function isNewer(a: string, b: string): boolean {
  const parts = (version: string) => {
    const [release = '', pre] = version.split('+')[0]!.split(/-(.*)/s);
    return { numbers: release.split('.').map((part) => Number(part) || 0), pre };
  };
  const x = parts(a);
  const y = parts(b);
  for (let index = 0; index < 3; index++) {
    const difference = (x.numbers[index] ?? 0) - (y.numbers[index] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  if (x.pre === undefined) return y.pre !== undefined;
  return y.pre !== undefined && x.pre > y.pre;
}

/** How long the registry's answer about the newest version is kept (a failure: shorter). */
const LATEST_TTL_MS = 6 * 60 * 60 * 1000;
const LATEST_FAILURE_TTL_MS = 10 * 60 * 1000;

/** A failure whose message is safe to show in `Update failed: <reason>`. */
export class UpdateStepError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UpdateStepError';
  }
}

export type TriggerResult =
  | { outcome: 'updated'; version: string }
  | { outcome: 'disabled' }
  | { outcome: 'invalid' }
  | { outcome: 'busy' }
  | { outcome: 'failed'; reason: string };

export interface UpdateRequest {
  packageName: string;
  version: string;
}

export interface UpdateLock {
  item: string;
  owner: string;
  lockedAt: string;
}

// npm's rules for new package names: lower case, URL-safe, at most 214 characters, optionally scoped.
// The first character may not be `.`, `_` or `-` (a leading `-` would also read as an npm option).
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const RESERVED_NAMES = new Set(['node_modules', 'favicon.ico']);
// semver.org's regular expression for a version.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
// A dist-tag: starts with a letter, and may not look like a version range (`v1`).
const DIST_TAG = /^(?!v\d)[A-Za-z][A-Za-z0-9._-]*$/;

export function isValidPackageName(name: string): boolean {
  return name.length <= 214 && PACKAGE_NAME.test(name) && !RESERVED_NAMES.has(name);
}

export function isValidVersion(version: string): boolean {
  return version.length <= 100 && (SEMVER.test(version) || DIST_TAG.test(version));
}

/** The lock and progress item of a package (R-U3): `core` for the core, the package name otherwise. */
export function itemFor(packageName: string): string {
  return packageName === CORE_PACKAGE ? CORE_ITEM : packageName;
}

/**
 * The trigger's input as the API receives it: `package` (required, an npm package name) and
 * `version` (optional: a version or a dist-tag; absent, null or empty means `latest`). Null when invalid.
 */
export function parseUpdateRequest(input: { package?: unknown; version?: unknown }): UpdateRequest | null {
  if (typeof input.package !== 'string') return null;
  const packageName = input.package.trim();
  if (packageName === '' || !isValidPackageName(packageName)) return null;
  let version = 'latest';
  if (typeof input.version === 'string' && input.version.trim() !== '') version = input.version.trim();
  else if (input.version !== undefined && input.version !== null && input.version !== '') return null;
  if (!isValidVersion(version)) return null;
  return { packageName, version };
}

export interface UpdateServiceOptions {
  db: Db;
  clock: Clock;
  cache: Cache;
  settings: SettingsService;
  packageManager: PackageManager;
  /** Brings the database schema up to date; returns the names of the migrations applied. */
  migrate: () => Promise<string[]>;
  heartbeatMs?: number;
  /** Every run is recorded (who asked, what, and whether it installed). */
  audit?: AuditLog;
  /**
   * The npm package of the core's releases (FOLIO_RELEASE_PACKAGE, checked at start). Without it the
   * core is not updated through the trigger: npm's `folio` is another project.
   */
  releasePackage?: string | null;
  /**
   * Takes a backup of the database before the core is installed (issue 36 #1, issue 39 #5); returns
   * where it is, or null when this database has no backup command yet (PostgreSQL). A failure stops
   * the update before npm runs.
   */
  backup?: () => Promise<string | null>;
}

/**
 * Packages other than the core that the trigger may install (themes, plugins): a comma-separated list
 * of npm names an administrator allowed. Anything else is refused before npm runs.
 */
export const ALLOWED_PACKAGES_SETTING = 'update_allowed_packages';

interface ActiveRun {
  lock: UpdateLock;
  controller: AbortController;
}

export class UpdateService {
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly cache: Cache;
  private readonly settings: SettingsService;
  private readonly migrate: () => Promise<string[]>;
  private readonly heartbeatMs: number;
  private readonly audit?: AuditLog;
  private readonly releasePackage: string | null;
  private readonly backup?: () => Promise<string | null>;
  readonly packageManager: PackageManager;
  private readonly active = new Map<string, ActiveRun>();
  /** Runs on this node go one after the other: npm must not run twice at once in one directory. */
  private queue: Promise<unknown> = Promise.resolve();
  private stopping = false;
  private latest: { value: string | null; until: number; pending?: Promise<string | null> } | null = null;

  constructor(options: UpdateServiceOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.cache = options.cache;
    this.settings = options.settings;
    this.packageManager = options.packageManager;
    this.migrate = options.migrate;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.audit = options.audit;
    this.releasePackage = options.releasePackage ?? null;
    this.backup = options.backup;
  }

  /**
   * Why the trigger refuses to install a package (null: it may): the core only from its release
   * package, anything else only when an administrator allowed it by name (issue 36 #1).
   */
  private async refusal(packageName: string): Promise<string | null> {
    if (packageName === CORE_PACKAGE) {
      return this.releasePackage
        ? null
        : 'the core has no release package (set FOLIO_RELEASE_PACKAGE to the npm package of its releases)';
    }
    const allowed = ((await this.settings.get(ALLOWED_PACKAGES_SETTING)) ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '');
    return allowed.includes(packageName)
      ? null
      : `${packageName} is not a package an administrator allowed (setting ${ALLOWED_PACKAGES_SETTING})`;
  }

  /**
   * The update trigger, checks in the order of R-U1 (the caller has checked the token and the
   * admin role): updates disabled -> invalid request -> lock busy -> run.
   */
  async trigger(
    input: { package?: unknown; version?: unknown },
    log: UpdateLogger = silentLogger,
    actor?: Actor,
  ): Promise<TriggerResult> {
    const result = await this.triggerRun(input, log);
    if (actor && (result.outcome === 'updated' || result.outcome === 'failed')) {
      await recordWrite(this.audit, actor, {
        action: result.outcome === 'updated' ? 'update.install' : 'update.fail',
        resourceType: 'update',
        resourceId: typeof input.package === 'string' ? input.package.slice(0, 64) : 'core',
        websiteIds: [],
        input,
      });
    }
    return result;
  }

  /**
   * The running version, the newest the registry offers and whether it is newer. Not asked while
   * core updates are disabled; the registry's answer is kept for hours (one dashboard per node and
   * six hours asks it rarely).
   */
  async availability(): Promise<{
    version: string;
    latestVersion: string | null;
    updateAvailable: boolean | null;
  }> {
    const version = await runningVersion();
    const disabled = await this.settings.flag(DISABLE_SETTING, false);
    const latestVersion = disabled ? null : await this.newest();
    return {
      version,
      latestVersion,
      updateAvailable:
        latestVersion === null || version === 'unknown' ? null : isNewer(latestVersion, version),
    };
  }

  private async newest(): Promise<string | null> {
    const ask = this.packageManager.latestVersion?.bind(this.packageManager);
    if (!ask) return null;
    const now = this.clock.now().getTime();
    if (this.latest && (this.latest.until > now || this.latest.pending)) {
      return this.latest.pending ?? this.latest.value;
    }
    const pending = ask(CORE_PACKAGE).catch(() => null);
    this.latest = { value: null, until: 0, pending };
    const value = await pending;
    this.latest = { value, until: now + (value === null ? LATEST_FAILURE_TTL_MS : LATEST_TTL_MS) };
    return value;
  }

  private async triggerRun(
    input: { package?: unknown; version?: unknown },
    log: UpdateLogger,
  ): Promise<TriggerResult> {
    if (await this.settings.flag(DISABLE_SETTING, false)) return { outcome: 'disabled' };
    const request = parseUpdateRequest(input);
    if (!request) return { outcome: 'invalid' };
    // The release package named as itself is the core.
    if (request.packageName === this.releasePackage) request.packageName = CORE_PACKAGE;
    const refused = await this.refusal(request.packageName);
    if (refused) {
      log.warn({ package: request.packageName }, `update: refused, ${refused}`);
      return { outcome: 'failed', reason: refused };
    }
    if (this.stopping) return { outcome: 'failed', reason: 'the server is stopping' };

    const lock = await this.acquire(itemFor(request.packageName));
    if (!lock) {
      log.info({ item: itemFor(request.packageName) }, 'update: rejected, another update is in progress');
      return { outcome: 'busy' };
    }
    const controller = new AbortController();
    this.active.set(lock.owner, { lock, controller });
    const heartbeat = setInterval(() => {
      this.refresh(lock).then(
        (held) => {
          if (!held) log.warn({ item: lock.item }, 'update: the lock was taken over by another run');
        },
        (error: unknown) => log.warn({ item: lock.item, err: error }, 'update: refreshing the lock failed'),
      );
    }, this.heartbeatMs);
    heartbeat.unref();

    let installed: string | undefined;
    try {
      const run = this.queue.then(() => this.run(request, { log, signal: controller.signal }));
      this.queue = run.catch(() => undefined);
      installed = await run;
      return { outcome: 'updated', version: installed };
    } catch (error) {
      if (error instanceof UpdateStepError) {
        log.error({ item: lock.item, reason: error.message }, 'update: failed');
        return { outcome: 'failed', reason: error.message };
      }
      log.error({ item: lock.item, err: error }, 'update: failed with an unexpected error');
      return { outcome: 'failed', reason: 'internal error (see the log)' };
    } finally {
      clearInterval(heartbeat);
      this.active.delete(lock.owner);
      await this.release(lock, installed).catch((error: unknown) =>
        log.error({ item: lock.item, err: error }, 'update: releasing the lock failed'),
      );
    }
  }

  /** True once releaseAll() ran: the process is stopping. */
  get isStopping(): boolean {
    return this.stopping;
  }

  /** Progress of an item (R-U3): 1 while its lock is held, 0 otherwise. */
  async progress(itemId: string): Promise<0 | 1> {
    const row = await this.db
      .selectFrom('update_state')
      .select('updating')
      .where('item', '=', itemFor(itemId))
      .executeTakeFirst();
    return row && flag(row.updating) ? 1 : 0;
  }

  /**
   * Takes the lock of an item with one atomic conditional write: insert the row, or take it over
   * when it is idle or its lock is older than 3 minutes. Null when another run holds it.
   */
  async acquire(item: string): Promise<UpdateLock | null> {
    const now = this.clock.now();
    const lockedAt = now.toISOString();
    const staleBefore = new Date(now.getTime() - LOCK_EXPIRY_MS).toISOString();
    const owner = randomBytes(16).toString('hex');
    const row = await this.db
      .insertInto('update_state')
      .values({ item, updating: true, locked_at: lockedAt, lock_owner: owner, updated_at: lockedAt })
      .onConflict((oc) =>
        oc
          .column('item')
          .doUpdateSet({ updating: true, locked_at: lockedAt, lock_owner: owner, updated_at: lockedAt })
          .where((eb) =>
            eb.or([
              eb('update_state.updating', '=', false),
              eb('update_state.locked_at', 'is', null),
              eb('update_state.locked_at', '<', staleBefore),
            ]),
          ),
      )
      .returning('lock_owner')
      .executeTakeFirst();
    return row?.lock_owner === owner ? { item, owner, lockedAt } : null;
  }

  /** Refreshes a held lock's timestamp; false when the lock is no longer this run's. */
  async refresh(lock: UpdateLock): Promise<boolean> {
    const now = nowIso(this.clock);
    const result = await this.db
      .updateTable('update_state')
      .set({ locked_at: now, updated_at: now })
      .where('item', '=', lock.item)
      .where('lock_owner', '=', lock.owner)
      .executeTakeFirst();
    if (result.numUpdatedRows > 0n) lock.lockedAt = now;
    return result.numUpdatedRows > 0n;
  }

  /** Releases a lock if it is still this run's (a run that took over a stalled one keeps its lock). */
  async release(lock: UpdateLock, version?: string): Promise<boolean> {
    const now = nowIso(this.clock);
    const result = await this.db
      .updateTable('update_state')
      .set({
        updating: false,
        locked_at: null,
        lock_owner: null,
        updated_at: now,
        ...(version === undefined ? {} : { version }),
      })
      .where('item', '=', lock.item)
      .where('lock_owner', '=', lock.owner)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /**
   * The process is stopping: interrupts the runs of this process and releases their locks now, so
   * that no other node has to wait 3 minutes. Later triggers on this process fail. Returns the
   * number of runs interrupted.
   */
  async releaseAll(): Promise<number> {
    this.stopping = true;
    const runs = [...this.active.values()];
    for (const run of runs) run.controller.abort(new Error('the server is stopping'));
    // The runs release their locks too as they end; whichever comes first does it.
    for (const run of runs) await this.release(run.lock);
    return runs.length;
  }

  /** The steps of an update (spec 4.6 rule 4). Throws UpdateStepError with a reason to show. */
  private async run(request: UpdateRequest, context: StepContext): Promise<string> {
    const { packageName, version } = request;
    const { log, signal } = context;
    const item = itemFor(packageName);
    const interrupted = () => {
      if (signal.aborted) throw new UpdateStepError('the update was interrupted: the server is stopping');
    };
    log.info({ item, package: packageName, version }, `update: updating ${packageName} to ${version}`);

    if (packageName === CORE_PACKAGE && this.backup) {
      let where: string | null;
      try {
        where = await this.backup();
      } catch (error) {
        log.error({ step: 'backup', err: error }, 'update: the backup before the update failed');
        throw new UpdateStepError('the backup before the update failed (see the log); nothing was installed');
      }
      log.info(
        { step: 'backup', file: where },
        where
          ? `update: database backed up to ${where}`
          : 'update: no backup (not available for this database)',
      );
      interrupted();
    }

    await this.packageManager.install(packageName, version, context);
    interrupted();

    log.info({ step: 'migrate' }, 'update: running database migrations');
    try {
      const applied = await this.migrate();
      log.info(
        { step: 'migrate', applied },
        applied.length ? `update: applied ${applied.join(', ')}` : 'update: database already up to date',
      );
    } catch (error) {
      log.error({ step: 'migrate', err: error }, 'update: database migrations failed');
      throw new UpdateStepError('database migrations failed (see the log)');
    }
    interrupted();

    await this.packageManager.publishAssets(packageName, context);

    try {
      await this.cache.clear();
      log.info({ step: 'cache' }, 'update: cache cleared');
    } catch (error) {
      log.error({ step: 'cache', err: error }, 'update: clearing the cache failed');
      throw new UpdateStepError('clearing the cache failed (see the log)');
    }

    const installed = await this.packageManager.installedVersion(packageName);
    log.info(
      { item, package: packageName, version: installed },
      `update: ${packageName} is now ${installed}`,
    );
    return installed;
  }
}
