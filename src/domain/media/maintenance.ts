// Housekeeping of the media storage, for the installation's operators (the CLI): find and remove
// orphan files (stored files that no `media` row names, with its variants), and move a whole library
// from one storage driver to another. Both ask the policy (managesInstallation) first. And once, at
// start: the absolute media addresses older versions stored on APP_URL made site-relative (issue 36 #5).
//
// Uploads write their files before the row that names them (media-operations.ts), so a file younger
// than `minAgeMs` is never an orphan: it may belong to an upload still in flight.
import type { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { MediaStore, StoredObject } from '../../storage/store.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { ContentChange, ContentChanges } from '../changes.js';
import type { Clock } from '../clock.js';
import type { OperationRunner } from '../run.js';
import { ForbiddenError, InputError } from '../errors.js';
import { parseVariants } from './files.js';
import { MEDIA_PATH, MediaUrlRelativizer } from './urls.js';
import type { SettingsService } from '../system/settings.js';
import { containsText, likePattern } from '../text/text-match.js';
import type { Actor, Policy } from '../policy.js';

/** Files younger than this are left alone by default (an upload writes files, then its row). */
export const DEFAULT_ORPHAN_AGE_MS = 60 * 60 * 1000;
/** Rows read per query while walking the library. */
const ROWS_PER_QUERY = 500;
/** The APP_URL whose absolute media addresses were last made site-relative (relativizeStoredUrls). */
export const MEDIA_URLS_RELATIVE_SETTING = 'media_urls_relative_for';

export interface RelativizeReport {
  /** Rows rewritten, per table (`posts`, `pages`, `translations`, `media`, `websites`). */
  rows: Record<string, number>;
  /** False when this APP_URL had been done already (nothing was read). */
  ran: boolean;
}

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
      /** Each write runs as one operation (run.ts): its rows, audit row and announced changes together. */
      runner: OperationRunner;
      store: MediaStore;
      policy: Policy;
      changes: ContentChanges;
      clock: Clock;
      audit: AuditLog;
      settings: SettingsService;
    },
  ) {}

  /**
   * Rows written before media addresses were stored site-relative hold absolute URLs built on
   * APP_URL (`http://127.0.0.1:3000/media/…`): wrong on every other host the site answers on, and
   * wrong everywhere once APP_URL changes. Rewrites them to `/media/…` (posts' content and
   * thumbnails, pages, translations, the library's rows, websites' logos and favicons), a batch per
   * transaction, once per APP_URL (the setting remembers it); idempotent, so two nodes starting
   * together do no harm. A system task at start: no actor.
   */
  /** Where the library's files are stored (a directory or a bucket's address), for the CLI's reports. */
  get location(): string {
    return this.deps.store.location;
  }

  async relativizeStoredUrls(appUrl: string): Promise<RelativizeReport> {
    const origin = appUrl.replace(/\/+$/, '');
    const rows: Record<string, number> = {};
    if ((await this.deps.settings.get(MEDIA_URLS_RELATIVE_SETTING)) === origin) return { rows, ran: false };
    const relative = new MediaUrlRelativizer(origin);
    const pattern = likePattern(`${new URL(origin).host}${MEDIA_PATH}`);
    const { db } = this.deps;

    // Each table: the rows whose columns name APP_URL's host and /media/, rewritten a batch at a time,
    // each batch one operation that announces the posts, pages and websites it changed (`changed`
    // answers the change of a row, or null). The tables and columns are this method's own (never a
    // caller's): a loosely typed query.
    const loose = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const rewrite = async (
      table: 'posts' | 'pages' | 'translations' | 'media' | 'websites',
      columns: ReadonlyArray<{ name: string; kind: 'url' | 'html' }>,
      changed?: (id: number, row: Record<string, unknown>) => ContentChange | null,
      alsoRead: readonly string[] = [],
    ) => {
      let after = 0;
      rows[table] = 0;
      for (;;) {
        const found = (await loose
          .selectFrom(table)
          .select(['id', ...alsoRead, ...columns.map((column) => column.name)])
          .where('id', '>', after)
          .where((eb) => eb.or(columns.map((column) => containsText(eb.ref(column.name), pattern))))
          .orderBy('id')
          .limit(ROWS_PER_QUERY)
          .execute()) as Array<Record<string, unknown> & { id: number }>;
        if (found.length === 0) return;
        await this.deps.runner.run(async () => {
          const changes: ContentChange[] = [];
          for (const row of found) {
            const set: Record<string, string | null> = {};
            for (const column of columns) {
              const value = row[column.name] as string | null;
              const next = column.kind === 'url' ? relative.url(value) : relative.html(value);
              if (next !== value) set[column.name] = next;
            }
            if (Object.keys(set).length === 0) continue;
            await loose.updateTable(table).set(set).where('id', '=', row.id).execute();
            rows[table]! += 1;
            const change = changed?.(row.id, row);
            if (change) changes.push(change);
          }
          for (const change of merged(changes)) await this.deps.changes.announce(change);
        });
        if (found.length < ROWS_PER_QUERY) return;
        after = found[found.length - 1]!.id;
      }
    };
    await rewrite(
      'posts',
      [
        { name: 'thumbnail', kind: 'url' },
        { name: 'content', kind: 'html' },
      ],
      (id) => ({ kind: 'media', ids: [], postIds: [id] }),
    );
    await rewrite('pages', [{ name: 'content', kind: 'html' }], (id) => ({
      kind: 'media',
      ids: [],
      pageIds: [id],
    }));
    await rewrite(
      'translations',
      [{ name: 'value', kind: 'html' }],
      (_id, row) => {
        const id = Number(row.model_id);
        if (row.model_type === 'post') return { kind: 'media', ids: [], postIds: [id] };
        if (row.model_type === 'page') return { kind: 'media', ids: [], pageIds: [id] };
        return null;
      },
      ['model_type', 'model_id'],
    );
    if (this.deps.store.servedByApp) await rewrite('media', [{ name: 'url', kind: 'url' }]);
    await rewrite(
      'websites',
      [
        { name: 'site_logo', kind: 'url' },
        { name: 'site_favicon', kind: 'url' },
      ],
      (id) => ({ kind: 'website', id }),
    );
    await this.deps.settings.set(MEDIA_URLS_RELATIVE_SETTING, origin);
    return { rows, ran: true };
  }

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
        // Files are no rows: what is recorded (and told to listeners through the outbox) is the prune.
        await this.recordLibraryWrite(actor, 'media.prune', { deleted: report.deleted });
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
    // Every file is on the target: the rows follow, in steps (one operation per step, announcing its
    // rows), and the audit row after the last.
    const { db } = this.deps;
    for (let index = 0; index < ids.length; index += ROWS_PER_QUERY) {
      const step = ids.slice(index, index + ROWS_PER_QUERY);
      await this.deps.runner.run(async () => {
        const rows = await db.selectFrom('media').select(['id', 'path']).where('id', 'in', step).execute();
        for (const row of rows) {
          await db
            .updateTable('media')
            .set({ disk: target.disk, url: target.url(row.path) })
            .where('id', '=', row.id)
            .where('disk', '=', source.disk)
            .execute();
        }
        await this.deps.changes.announce({ kind: 'media', ids: step });
      });
      report.rows += step.length;
    }
    await this.recordLibraryWrite(actor, 'media.migrate', { to: target.location, rows: report.rows });
    return report;
  }

  /** Records an act on the library as a whole (no one item: resource 0), in an operation of its own. */
  private recordLibraryWrite(actor: Actor, action: 'media.prune' | 'media.migrate', input: unknown) {
    return this.deps.runner.run(() =>
      recordWrite(this.deps.audit, actor, {
        action,
        resourceType: 'media',
        resourceId: 0,
        websiteIds: [],
        input,
      }),
    );
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

/**
 * The changes of one batch as few announcements: the posts and pages whose media addresses changed in
 * one, each website once.
 */
function merged(changes: readonly ContentChange[]): ContentChange[] {
  const postIds = new Set<number>();
  const pageIds = new Set<number>();
  const websites = new Set<number>();
  for (const change of changes) {
    if (change.kind === 'media') {
      for (const id of change.postIds ?? []) postIds.add(id);
      for (const id of change.pageIds ?? []) pageIds.add(id);
    } else if (change.kind === 'website') websites.add(change.id);
  }
  return [
    ...(postIds.size > 0 || pageIds.size > 0
      ? [{ kind: 'media' as const, ids: [], postIds: [...postIds], pageIds: [...pageIds] }]
      : []),
    ...[...websites].map((id) => ({ kind: 'website' as const, id })),
  ];
}

/** A row's files: the original and its variants. */
function filesOf(row: { path: string; variants: string | null }): string[] {
  return [row.path, ...parseVariants(row.variants).map((variant) => variant.path)];
}
