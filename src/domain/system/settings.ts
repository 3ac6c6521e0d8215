// System settings: a key/value table read through an in-process snapshot. The snapshot is reloaded
// when this process writes a setting or when the change feed says another process (another app node,
// or the CLI) may have, so a change takes effect on the next request everywhere.
import type { ChangeFeed } from '../../db/change-feed.js';
import type { Db } from '../../db/database.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { parseBoolean } from '../values.js';
import { currentWriteScope } from '../write-scope.js';
import type { WriteScope } from '../write-scope.js';

const CHANNEL = 'settings';

/** Set on the first start, once the installation is complete (the site answers from then on). */
export const INSTALLED_SETTING = 'installed_at';

/** Settings as a reader sees them (a face, a helper that only reads); writes go through `systemOps`. */
export type SettingsReads = Pick<SettingsService, 'get' | 'all' | 'current' | 'flag'>;

export class SettingsService {
  private snapshot: ReadonlyMap<string, string> | null = null;
  private snapshotRevision = Number.NaN;
  private loading: Promise<ReadonlyMap<string, string>> | null = null;
  /** Bumped by this process's own writes, so a load that raced with a write is not kept. */
  private generation = 0;
  /** Operations that wrote a setting and have not committed: they read settings afresh. */
  private readonly writtenBy = new WeakSet<WriteScope>();

  constructor(
    private readonly db: Db,
    private readonly feed: ChangeFeed,
    private readonly clock: Clock,
  ) {}

  /** Every setting, from the snapshot when it is still current. */
  async all(): Promise<ReadonlyMap<string, string>> {
    // An operation that changed a setting reads its own uncommitted rows, never the shared snapshot
    // (nor a load another request started outside its transaction).
    const scope = currentWriteScope();
    if (scope && this.writtenBy.has(scope)) return this.read();
    const revision = this.feed.revision(CHANNEL);
    if (this.snapshot && revision === this.snapshotRevision) return this.snapshot;
    this.loading ??= this.load(revision).finally(() => (this.loading = null));
    return this.loading;
  }

  /** The snapshot when it is known to be current without a query (the hot path of cached pages). */
  current(): ReadonlyMap<string, string> | null {
    return this.snapshot && this.feed.revision(CHANNEL) === this.snapshotRevision ? this.snapshot : null;
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.all()).get(key);
  }

  /** A boolean setting (R-G5 forms); `fallback` when it was never set or holds something else. */
  async flag(key: string, fallback: boolean): Promise<boolean> {
    return parseBoolean(await this.get(key)) ?? fallback;
  }

  async set(key: string, value: string): Promise<void> {
    await this.setMany({ [key]: value });
  }

  async setMany(entries: Record<string, string>): Promise<void> {
    const updatedAt = nowIso(this.clock);
    const rows = Object.entries(entries).map(([key, value]) => ({ key, value, updated_at: updatedAt }));
    if (rows.length === 0) return;
    await this.db
      .insertInto('settings')
      .values(rows)
      .onConflict((oc) =>
        oc.column('key').doUpdateSet((eb) => ({
          value: eb.ref('excluded.value'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
    await this.changed();
  }

  /**
   * Stores the value unless the key already has one, and returns the stored value: of two nodes
   * racing to create the same setting (a generated secret), both end up with the one that won.
   */
  async setIfAbsent(key: string, value: string): Promise<string> {
    const existing = await this.get(key);
    if (existing !== undefined) return existing;
    await this.db
      .insertInto('settings')
      .values({ key, value, updated_at: nowIso(this.clock) })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    await this.changed();
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    return row.value;
  }

  async delete(key: string): Promise<void> {
    await this.db.deleteFrom('settings').where('key', '=', key).execute();
    await this.changed();
  }

  private async changed(): Promise<void> {
    const scope = currentWriteScope();
    if (scope && !this.writtenBy.has(scope)) {
      this.writtenBy.add(scope);
      // Until the commit other requests may load the old rows and keep them as the snapshot:
      // invalidate (and tell the other nodes) once more when the write is visible, or undone.
      scope.afterCommit(() => this.changed());
      scope.onRollback(() => this.invalidate());
    }
    this.invalidate();
    await this.feed.publish(CHANNEL);
  }

  private invalidate(): void {
    this.generation++;
    this.snapshot = null;
    this.loading = null;
  }

  private async read(): Promise<ReadonlyMap<string, string>> {
    const rows = await this.db.selectFrom('settings').select(['key', 'value']).execute();
    return new Map(rows.map((row) => [row.key, row.value]));
  }

  private async load(revision: number): Promise<ReadonlyMap<string, string>> {
    const generation = this.generation;
    const snapshot = await this.read();
    if (generation === this.generation) {
      this.snapshot = snapshot;
      this.snapshotRevision = revision;
    }
    return snapshot;
  }
}
