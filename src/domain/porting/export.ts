// `folio export` (issue 39 #1): a website or the whole installation into one Folio archive
// (format.ts). It streams: records are read in pages of CHUNK by their key (keyset pagination, so a
// page costs the same at the end as at the start), each page is written as one JSON lines entry of
// the tar, and media files are piped from the storage into the tar one at a time. Memory stays bounded
// by one page and the stream buffers, whatever the size of the site.
import type { Writable } from 'node:stream';
import type { Pack } from 'tar-stream';
import type { ExpressionBuilder, Expression, Kysely, SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import type { MediaStore } from '../../storage/store.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import { ForbiddenError } from '../errors.js';
import type { Actor, Policy } from '../policy.js';
import { runningVersion } from '../system/updates.js';
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  CHUNK,
  RECORD_KINDS,
  SECRET_SETTING,
  recordEntryName,
} from './format.js';
import type { ArchiveManifest, ArchiveSummary, RecordKind } from './format.js';
import { addEntry, writeTarGz } from './tar.js';

/** The tables seen without their types: the exporter copies rows by column name. */
type Row = Record<string, unknown>;
type LooseDb = Kysely<Record<string, Row>>;
type Eb = ExpressionBuilder<Record<string, Row>, string>;

export interface ExportOptions {
  /** Null: the whole installation. */
  websiteId: number | null;
  /** Users' password hashes and secret settings: only for the installation's operator (the CLI). */
  withSecrets: boolean;
  onProgress?: (progress: ExportProgress) => void;
}

export interface ExportProgress {
  kind: RecordKind | 'media';
  done: number;
}

export interface ExportResult {
  manifest: ArchiveManifest;
  summary: ArchiveSummary;
}

/** Columns read back as 0/1 on SQLite and booleans on PostgreSQL: written as booleans. */
const FLAGS: Partial<Record<RecordKind, readonly string[]>> = {
  users: ['is_admin', 'is_active'],
  websites: ['enabled_page_cache', 'enabled_data_cache'],
  domains: ['is_primary'],
};

/** The key each kind is read in order of (unique; keyset pagination). */
const KEYS: Record<RecordKind, readonly string[]> = {
  users: ['id'],
  settings: ['key'],
  websites: ['id'],
  domains: ['id'],
  memberships: ['id'],
  media: ['id'],
  tags: ['id'],
  posts: ['id'],
  links: ['post_id'],
  pages: ['id'],
  menus: ['id'],
  menu_items: ['id'],
  comments: ['id'],
  redirects: ['id'],
  translations: ['id'],
  revisions: ['id'],
  website_bindings: ['website_id', 'model_type', 'model_id'],
  taggables: ['tag_id', 'taggable_type', 'taggable_id'],
};

/** The model types of `website_bindings`, `translations` and `revisions` and their tables. */
const MODEL_TABLES: Record<string, RecordKind> = {
  post: 'posts',
  page: 'pages',
  tag: 'tags',
  media: 'media',
};

/** Normalizes one row: dates as ISO strings, flags as booleans, secrets left out. */
function clean(kind: RecordKind, row: Row, withSecrets: boolean): Row {
  const out: Row = {};
  for (const [column, value] of Object.entries(row)) {
    if (kind === 'users' && column === 'password_hash' && !withSecrets) continue;
    out[column] = value instanceof Date ? value.toISOString() : value;
  }
  for (const flag of FLAGS[kind] ?? []) {
    if (flag in out && out[flag] !== null) out[flag] = Boolean(out[flag]);
  }
  return out;
}

export class Exporter {
  constructor(
    private readonly deps: {
      db: Db;
      store: MediaStore;
      policy: Policy;
    },
  ) {}

  /** A website's export is its managers' (website.export), the installation's its administrators'. */
  private async authorize(actor: Actor, websiteId: number | null): Promise<void> {
    const allowed =
      websiteId === null
        ? await this.deps.policy.can(actor, 'installation.read', {})
        : await this.deps.policy.can(actor, 'website.export', { websiteId });
    if (!allowed) throw new ForbiddenError('Exporting is for the website\u2019s administrators.');
  }

  /**
   * Writes the archive to `out` (a file stream); the caller removes a partial file on error.
   * A website's managers export it, administrators the installation; secrets (password hashes, secret
   * settings) only with the whole installation, for its administrators and the operator.
   */
  async export(actor: Actor, options: ExportOptions, out: Writable): Promise<ExportResult> {
    const { policy } = this.deps;
    await this.authorize(actor, options.websiteId);
    // Secrets: the operator at the command line, or an administrator exporting the installation.
    if (
      options.withSecrets &&
      !(await policy.can(actor, 'installation.operate', {})) &&
      !(options.websiteId === null && (await policy.can(actor, 'installation.manage', {})))
    ) {
      throw new ForbiddenError(
        'Secrets are exported only with the whole installation, by its administrators.',
      );
    }
    const db = this.deps.db as unknown as LooseDb;
    let domain: string | null = null;
    if (options.websiteId != null) {
      const primary = await db
        .selectFrom('domains')
        .select('domain')
        .where('website_id', '=', options.websiteId)
        .orderBy('is_primary', 'desc')
        .orderBy('id')
        .executeTakeFirst();
      domain = (primary?.domain as string | undefined) ?? null;
    }
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      created_at: new Date().toISOString(),
      folio_version: await runningVersion(),
      scope:
        options.websiteId == null
          ? { kind: 'installation' }
          : { kind: 'website', website_id: options.websiteId, domain },
      with_secrets: options.withSecrets,
    };
    const summary: ArchiveSummary = { counts: {}, media_files: 0, media_bytes: 0, missing_media: [] };

    await writeTarGz(out, async (pack) => {
      await addEntry(pack, 'manifest.json', Buffer.from(JSON.stringify(manifest, null, 2)));
      for (const kind of RECORD_KINDS) {
        summary.counts[kind] = await this.writeKind(pack, db, kind, options);
      }
      await this.writeMedia(pack, db, options, summary);
      await addEntry(pack, 'summary.json', Buffer.from(JSON.stringify(summary, null, 2)));
    });
    return { manifest, summary };
  }

  /** How many records of each kind an export would write (for a progress bar's total). */
  async count(actor: Actor, websiteId: number | null): Promise<Record<RecordKind, number>> {
    await this.authorize(actor, websiteId);
    const db = this.deps.db as unknown as LooseDb;
    const counts = {} as Record<RecordKind, number>;
    for (const kind of RECORD_KINDS) {
      let query = db.selectFrom(kind).select((eb) => eb.fn.countAll().as('n'));
      const filter = websiteId == null ? null : scopeFilter(kind, websiteId);
      if (filter) query = query.where((eb) => filter(eb as Eb));
      const row = await query.executeTakeFirst();
      counts[kind] = Number(row?.n ?? 0);
    }
    return counts;
  }

  private async writeKind(
    pack: Pack,
    db: LooseDb,
    kind: RecordKind,
    options: ExportOptions,
  ): Promise<number> {
    let count = 0;
    let chunk = 0;
    for await (const rows of this.pages(db, kind, options.websiteId, options.withSecrets)) {
      const lines = rows.map((row) => JSON.stringify(clean(kind, row, options.withSecrets))).join('\n');
      chunk += 1;
      await addEntry(pack, recordEntryName(kind, chunk), Buffer.from(`${lines}\n`));
      count += rows.length;
      options.onProgress?.({ kind, done: count });
    }
    return count;
  }

  /** The rows of one kind in the scope, page by page in key order. */
  private async *pages(
    db: LooseDb,
    kind: RecordKind,
    websiteId: number | null,
    withSecrets = false,
  ): AsyncGenerator<Row[]> {
    const keys = KEYS[kind];
    let after: unknown[] | null = null;
    for (;;) {
      let query = db.selectFrom(kind).selectAll(kind);
      const filter = websiteId == null ? null : scopeFilter(kind, websiteId);
      if (filter) query = query.where((eb) => filter(eb as Eb));
      if (after) {
        const last = after;
        query = query.where((eb) =>
          keys.length === 1
            ? eb(eb.ref(`${kind}.${keys[0]}`), '>', last[0] as never)
            : eb(
                eb.refTuple(...(keys.map((key) => `${kind}.${key}`) as [string, string, string])),
                '>',
                eb.tuple(...(last as [never, never, never])),
              ),
        );
      }
      for (const key of keys) query = query.orderBy(`${kind}.${key}`);
      const rows = (await query.limit(CHUNK).execute()) as Row[];
      // Secret settings (SMTP passwords, tokens) only with --with-secrets.
      const kept = rows.filter(
        (row) => kind !== 'settings' || withSecrets || !SECRET_SETTING.test(String(row.key)),
      );
      if (kept.length) yield kept;
      if (rows.length < CHUNK) return;
      const lastRow = rows[rows.length - 1]!;
      after = keys.map((key) => lastRow[key]);
    }
  }

  /** Every file (and variant) of the exported media rows, under `media/<stored path>`. */
  private async writeMedia(pack: Pack, db: LooseDb, options: ExportOptions, summary: ArchiveSummary) {
    const { store } = this.deps;
    for await (const rows of this.pages(db, 'media', options.websiteId)) {
      for (const row of rows) {
        const paths = [String(row.path)];
        if (typeof row.variants === 'string' && row.variants) {
          try {
            for (const variant of JSON.parse(row.variants) as Array<{ path?: unknown }>) {
              if (typeof variant.path === 'string') paths.push(variant.path);
            }
          } catch {
            // unreadable variants: the main file is still exported
          }
        }
        for (const file of paths) {
          const info = await store.stat(file);
          const body = info ? await store.read(file) : null;
          if (!info || !body) {
            summary.missing_media.push(file);
            continue;
          }
          await new Promise<void>((resolve, reject) => {
            const entry = pack.entry(
              { name: `media/${file}`, size: info.size, mtime: info.modifiedAt },
              (error) => (error ? reject(error) : resolve()),
            );
            body.on('error', reject);
            body.pipe(entry);
          });
          summary.media_files += 1;
          summary.media_bytes += info.size;
          options.onProgress?.({ kind: 'media', done: summary.media_files });
        }
      }
    }
  }
}

/** Which rows of a kind belong to a website's export (null: none of its rows, see settings). */
function scopeFilter(kind: RecordKind, websiteId: number): ((eb: Eb) => Expression<SqlBool>) | null {
  const visible = (eb: Eb, model: string, column: string) =>
    visibleOnWebsite(eb as never, model, eb.ref(column) as never, websiteId);
  const visibleModel = (eb: Eb, model: string, idColumn: string) => {
    const table = MODEL_TABLES[model]!;
    return eb.exists(
      eb
        .selectFrom(`${table} as m`)
        .select('m.id')
        .where('m.id', '=', eb.ref(idColumn) as never)
        .where((inner) => visible(inner, model, 'm.id')),
    );
  };
  /** Per model of `models`: the row is about one (type in `typeColumn`, id in `idColumn`) shown here. */
  const aboutVisible = (eb: Eb, models: readonly string[], typeColumn: string, idColumn: string) =>
    models.map((model) => eb.and([eb(typeColumn, '=', model as never), visibleModel(eb, model, idColumn)]));
  switch (kind) {
    case 'settings':
      // The installation's settings are not a website's.
      return (eb) => eb.val(false);
    case 'websites':
      return (eb) => eb('websites.id', '=', websiteId as never);
    case 'domains':
    case 'memberships':
    case 'menus':
    case 'menu_items':
    case 'redirects':
      return (eb) => eb(`${kind}.website_id`, '=', websiteId as never);
    case 'website_bindings':
      return (eb) => eb('website_bindings.website_id', '=', websiteId as never);
    case 'media':
      return (eb) => visible(eb, 'media', 'media.id');
    case 'tags':
      return (eb) => visible(eb, 'tag', 'tags.id');
    case 'posts':
      return (eb) => visible(eb, 'post', 'posts.id');
    case 'pages':
      return (eb) => visible(eb, 'page', 'pages.id');
    case 'links':
      return (eb) => visibleModel(eb, 'post', 'links.post_id');
    case 'comments':
      return (eb) =>
        eb.and([
          visibleModel(eb, 'post', 'comments.post_id'),
          eb.or([eb('comments.website_id', '=', websiteId as never), eb('comments.website_id', 'is', null)]),
        ]);
    case 'revisions':
      return (eb) =>
        eb.or(aboutVisible(eb, ['post', 'page'], 'revisions.resource_type', 'revisions.resource_id'));
    case 'translations':
      return (eb) =>
        eb.or([
          ...aboutVisible(eb, Object.keys(MODEL_TABLES), 'translations.model_type', 'translations.model_id'),
          eb.and([
            eb('translations.model_type', '=', 'website' as never),
            eb('translations.model_id', '=', websiteId as never),
          ]),
          eb.and([
            eb('translations.model_type', '=', 'menu_item' as never),
            eb.exists(
              eb
                .selectFrom('menu_items as mi')
                .select('mi.id')
                .where('mi.id', '=', eb.ref('translations.model_id') as never)
                .where('mi.website_id', '=', websiteId as never),
            ),
          ]),
        ]);
    case 'taggables':
      return (eb) =>
        eb.and([
          visibleModel(eb, 'tag', 'taggables.tag_id'),
          eb.or(aboutVisible(eb, ['post', 'page'], 'taggables.taggable_type', 'taggables.taggable_id')),
        ]);
    case 'users':
      return (eb) =>
        eb.or([
          eb.exists(
            eb
              .selectFrom('memberships as ms')
              .select('ms.id')
              .where('ms.user_id', '=', eb.ref('users.id') as never)
              .where('ms.website_id', '=', websiteId as never),
          ),
          eb.exists(
            eb
              .selectFrom('websites as w')
              .select('w.id')
              .where('w.user_id', '=', eb.ref('users.id') as never)
              .where('w.id', '=', websiteId as never),
          ),
          ...(['post', 'page'] as const).map((model) =>
            eb.exists(
              eb
                .selectFrom(`${MODEL_TABLES[model]!} as a`)
                .select('a.id')
                .where('a.author_id', '=', eb.ref('users.id') as never)
                .where((inner) => visible(inner, model, 'a.id')),
            ),
          ),
          eb.exists(
            eb
              .selectFrom('comments as c')
              .select('c.id')
              .where('c.user_id', '=', eb.ref('users.id') as never)
              .where('c.website_id', '=', websiteId as never),
          ),
        ]);
  }
}
