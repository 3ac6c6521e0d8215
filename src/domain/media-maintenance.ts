// Housekeeping of the media storage, for the installation's operators (the CLI): find and remove
// orphan files (stored files that no `media` row names, with its variants), and move a whole library
// from one storage driver to another. Both ask the policy (managesInstallation) first.
//
// Uploads write their files before the row that names them (media-operations.ts), so a file younger
// than `minAgeMs` is never an orphan: it may belong to an upload still in flight.
import type { Readable } from 'node:stream';
import type { Db } from '../db/database.js';
import type { MediaStore, StoredObject } from '../storage/store.js';
import { recordWrite } from './audit.js';
import type { AuditLog } from './audit.js';
import type { ContentChanges } from './changes.js';
import type { Clock } from './clock.js';
import { ForbiddenError, InputError } from './errors.js';
import { parseVariants } from './media.js';
import type { Actor, Policy } from './policy.js';

/** Files younger than this are left alone by default (an upload writes files, then its row). */
export const DEFAULT_ORPHAN_AGE_MS = 60 * 60 * 1000;
/** Rows read per query while walking the library. */
const ROWS_PER_QUERY = 500;

export interface PruneReport {
  /** Files the storage holds (temporary files excepted). */
  scanned: number;
  /** Orphans, sorted by path. */
  orphans: StoredObject[];
  /** Their bytes together. */
  bytes: number;
  /** Orphans left because they are younger than the age asked. */
  tooRecent: number;
  /** Files deleted (0 on a dry run). */
  deleted: number;
}

export interface MigrateProgress {
  done: number;
  total: number;
  bytes: number;
  path: string;
  /** copied, already there (same size), or missing from the source. */
  outcome: 'copied' | 'present' | 'missing';
}

export interface MigrateReport {
  files: number;
  copied: number;
  present: number;
  missing: string[];
  bytes: number;
  /** `media` rows moved to the new driver. */
  rows: number;
}

export class MediaMaintenance {
  constructor(
    private readonly deps: {
      db: Db;
      store: MediaStore;
      policy: Policy;
      changes: ContentChanges;
      clock: Clock;
      audit: AuditLog;
    },
  ) {}

  /**
   * Stored files no `media` row names (any row, of any driver: paths are content hashes, the same on
   * every driver). A dry run unless `apply`; files younger than `minAgeMs` are counted, never deleted.
   */
  async prune(actor: Actor, options: { apply: boolean; minAgeMs?: number }): Promise<PruneReport> {
    await this.requireOperator(actor);
    const minAgeMs = options.minAgeMs ?? DEFAULT_ORPHAN_AGE_MS;
    const named = new Set<string>();
    for await (const row of this.rows()) for (const path of filesOf(row)) named.add(path);
    const cutoff = this.deps.clock.now().getTime() - minAgeMs;
    const report: PruneReport = { scanned: 0, orphans: [], bytes: 0, tooRecent: 0, deleted: 0 };
    for await (const file of this.deps.store.list()) {
      report.scanned += 1;
      if (named.has(file.path)) continue;
      if (file.modifiedAt.getTime() > cutoff) {
        report.tooRecent += 1;
        continue;
      }
      report.orphans.push(file);
      report.bytes += file.size;
    }
    report.orphans.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (options.apply) {
      // Read again just before deleting: a row written since the listing keeps its file.
      const stillNamed = new Set<string>();
      for await (const row of this.rows()) for (const path of filesOf(row)) stillNamed.add(path);
      for (const file of report.orphans) {
        if (stillNamed.has(file.path)) continue;
        await this.deps.store.delete(file.path);
        report.deleted += 1;
      }
      if (report.deleted > 0) {
        await recordWrite(this.deps.audit, actor, {
          action: 'media.prune',
          resourceType: 'media',
          resourceId: 0,
          websiteIds: [],
          input: { deleted: report.deleted },
        });
      }
    }
    return report;
  }

  /**
   * Copies every file of the rows on this driver (originals and variants) to `target`, then moves
   * the rows to it (their `disk` and `url`). A file already on the target with the same size is not
   * sent again, so an interrupted run can simply be run again. The source keeps its files.
   */
  async migrate(
    actor: Actor,
    target: MediaStore,
    options: { onProgress?: (progress: MigrateProgress) => void } = {},
  ): Promise<MigrateReport> {
    await this.requireOperator(actor);
    const source = this.deps.store;
    if (target.disk === source.disk && target.location === source.location) {
      throw new InputError('to', `the media library is already stored at ${source.location}`);
    }
    const ids: number[] = [];
    const paths = new Set<string>();
    for await (const row of this.rows(source.disk)) {
      ids.push(row.id);
      for (const path of filesOf(row)) paths.add(path);
    }
    const report: MigrateReport = {
      files: paths.size,
      copied: 0,
      present: 0,
      missing: [],
      bytes: 0,
      rows: 0,
    };
    let done = 0;
    for (const path of [...paths].sort()) {
      const outcome = await this.copy(source, target, path);
      done += 1;
      if (outcome.outcome === 'missing') report.missing.push(path);
      else if (outcome.outcome === 'present') report.present += 1;
      else {
        report.copied += 1;
        report.bytes += outcome.size;
      }
      options.onProgress?.({ done, total: paths.size, bytes: report.bytes, path, outcome: outcome.outcome });
    }
    // Every file is on the target: the rows follow, in steps (one transaction per step).
    for (let index = 0; index < ids.length; index += ROWS_PER_QUERY) {
      const step = ids.slice(index, index + ROWS_PER_QUERY);
      await this.deps.db.transaction().execute(async (trx) => {
        const rows = await trx.selectFrom('media').select(['id', 'path']).where('id', 'in', step).execute();
        for (const row of rows) {
          await trx
            .updateTable('media')
            .set({ disk: target.disk, url: target.url(row.path) })
            .where('id', '=', row.id)
            .where('disk', '=', source.disk)
            .execute();
        }
      });
      report.rows += step.length;
      await this.deps.changes.announce({ kind: 'media', ids: step });
    }
    await recordWrite(this.deps.audit, actor, {
      action: 'media.migrate',
      resourceType: 'media',
      resourceId: 0,
      websiteIds: [],
      input: { to: target.location, rows: report.rows },
    });
    return report;
  }

  private async copy(
    source: MediaStore,
    target: MediaStore,
    path: string,
  ): Promise<{ outcome: MigrateProgress['outcome']; size: number }> {
    const info = await source.stat(path);
    if (!info) return { outcome: 'missing', size: 0 };
    const there = await target.stat(path);
    if (there && there.size === info.size) return { outcome: 'present', size: info.size };
    const body: Readable | null = await source.read(path);
    if (!body) return { outcome: 'missing', size: 0 };
    await target.put(path, body, info.contentType);
    return { outcome: 'copied', size: info.size };
  }

  /** The `media` rows (of one driver, when given), in id order, a step at a time. */
  private async *rows(disk?: string): AsyncGenerator<{ id: number; path: string; variants: string | null }> {
    let after = 0;
    for (;;) {
      let query = this.deps.db
        .selectFrom('media')
        .select(['id', 'path', 'variants'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(ROWS_PER_QUERY);
      if (disk !== undefined) query = query.where('disk', '=', disk);
      const rows = await query.execute();
      for (const row of rows) yield row;
      if (rows.length < ROWS_PER_QUERY) return;
      after = rows[rows.length - 1]!.id;
    }
  }

  private async requireOperator(actor: Actor): Promise<void> {
    if (!(await this.deps.policy.can(actor, 'installation.manage', {}))) throw new ForbiddenError();
  }
}

/** A row's files: the original and its variants. */
function filesOf(row: { path: string; variants: string | null }): string[] {
  return [row.path, ...parseVariants(row.variants).map((variant) => variant.path)];
}
