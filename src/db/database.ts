// Opens the database named by the config with the right Kysely dialect, and runs migrations.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { Database } from './schema.js';
import * as core from './migrations/0001_core.js';
import * as posts from './migrations/0002_posts.js';
import * as updates from './migrations/0004_updates.js';
import * as publicSite from './migrations/0005_public_site.js';
import * as accounts from './migrations/0006_accounts.js';
import * as community from './migrations/0007_community.js';
import * as pendingRegistrations from './migrations/0008_pending_registrations.js';
import * as memberships from './migrations/0011_memberships.js';
import * as auditLog from './migrations/0012_audit_log.js';
import * as apiKeys from './migrations/0013_api_keys.js';
import * as idempotencyKeys from './migrations/0014_idempotency_keys.js';
import * as emailChanges from './migrations/0015_email_changes.js';
import * as postReviews from './migrations/0016_post_reviews.js';
import * as mediaLibrary from './migrations/0017_media_library.js';
import * as namedMenus from './migrations/0018_named_menus.js';
import * as postCounts from './migrations/0019_post_counts.js';
import * as contentKeys from './migrations/0020_content_keys.js';
import * as invites from './migrations/0021_invites.js';
import * as clickWebsites from './migrations/0022_click_websites.js';
import * as mediaUrl from './migrations/0023_media_url.js';
import * as commentAuthors from './migrations/0024_comment_authors.js';
import * as keyScopes from './migrations/0025_key_scopes.js';
import * as commentWebsites from './migrations/0026_comment_websites.js';
import * as pageSeo from './migrations/0027_page_seo.js';
import * as outbox from './migrations/0028_outbox.js';
import * as jobs from './migrations/0033_jobs.js';
import * as searchIndex from './migrations/0040_search_index.js';
import * as userLocale from './migrations/0045_user_locale.js';
import * as previewLinks from './migrations/0046_preview_links.js';
import * as autosaves from './migrations/0047_autosaves.js';
import * as webhooks from './migrations/0050_webhooks.js';
import * as redirects from './migrations/0055_redirects.js';
import * as transfers from './migrations/0056_transfers.js';
import * as websiteCover from './migrations/0057_website_cover.js';
import * as searchTitle from './migrations/0058_search_title.js';
import * as revisions from './migrations/0030_revisions.js';
import { sqliteForKysely } from './sqlite-statements.js';
import { withAmbientTransactions } from './ambient.js';
import { longReadsOffTheLoop } from './read-thread.js';
import { registerSqliteSearchFunctions } from './search-index.js';
import { lazyModule } from '../lib/lazy-module.js';

export type Dialect = DatabaseConfig['dialect'];
export type Db = Kysely<Database>;

export interface DatabaseHandle {
  /** Every store's handle: joins the ambient transaction of an operation when one is open (ambient.ts). */
  db: Db;
  /** Runs `work` in one transaction that every query through `db` joins (the operation runner's). */
  transact: <T>(work: () => Promise<T>) => Promise<T>;
  /** Whether an ambient transaction is open in this async context. */
  inTransaction: () => boolean;
  dialect: Dialect;
  /**
   * Where reads that no index serves (keyword searches) run: on SQLite a worker thread with its own
   * connection (read-thread.ts), so they never hold the event loop; on PostgreSQL a pool of two
   * connections apart from `db`'s, so they never take every connection.
   */
  longReads: Db;
  /** The raw SQLite connection (for PRAGMA data_version), or null on PostgreSQL. */
  sqlite: SQLite.Database | null;
  /** Options for opening more PostgreSQL connections (the change feed's LISTEN client). */
  pgOptions: pg.ClientConfig | null;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL only: every connection uses this schema (tests isolate themselves this way). */
  pgSchema?: string;
  /** Called with every query (its text and values); the benchmarks count queries with it. */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
}

/** The PostgreSQL driver, loaded when a PostgreSQL database is opened (not on a SQLite site). */
export const pgDriver = lazyModule<typeof pg>('pg', (driver) => {
  // PostgreSQL returns COUNT(*) and other int8 values as strings; our counts fit in a JS number.
  driver.types.setTypeParser(driver.types.builtins.INT8, (value) => Number(value));
});

/**
 * The connection settings of a PostgreSQL URL plus startup options (`-c name=value`). pg lets an
 * `options` parameter of the URL replace the config's own, so one in the URL is moved out and kept
 * first, and ours follow.
 */
export function withStartupOptions(url: string, startup: string[]): pg.ClientConfig {
  const parsed = new URL(url);
  const fromUrl = parsed.searchParams.get('options');
  if (fromUrl === null) return { connectionString: url, options: startup.join(' ') };
  parsed.searchParams.delete('options');
  return { connectionString: parsed.toString(), options: [fromUrl, ...startup].join(' ') };
}

export function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): DatabaseHandle {
  const log = options.onQuery
    ? (event: { query: { sql: string; parameters: readonly unknown[] } }) =>
        options.onQuery?.(event.query.sql, event.query.parameters)
    : undefined;

  if (config.dialect === 'sqlite') {
    if (config.file !== ':memory:') fs.mkdirSync(path.dirname(config.file), { recursive: true });
    const sqlite = new SQLite(config.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
    // The search index's triggers call it (db/search-index.ts).
    registerSqliteSearchFunctions(sqlite);
    const pool = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqliteForKysely(sqlite) }),
      log: log && ((event) => log(event)),
    });
    const { db, transact, inTransaction } = withAmbientTransactions(pool, {
      // An operation's transaction takes SQLite's write lock with its first statement (as BEGIN
      // IMMEDIATE would), waiting up to busy_timeout for another process's write to end. Begun as a
      // reader, it would fail at once with "database is locked" when it comes to write after another
      // process (the CLI, a second server) wrote meanwhile: WAL cannot upgrade a stale snapshot.
      begin: async (trx) => {
        await sql`update folio_migrations set name = name where 0`.execute(trx);
      },
    });
    const longReads =
      config.file === ':memory:'
        ? db
        : longReadsOffTheLoop(sqlite, config.file, { log: log && ((event) => log(event)) });
    const close = async () => {
      if (longReads !== db) await longReads.destroy();
      await pool.destroy();
    };
    return { db, transact, inTransaction, longReads, dialect: 'sqlite', sqlite, pgOptions: null, close };
  }

  // JIT off: Folio's queries are short lookups, and PostgreSQL compiles any query whose estimated cost
  // passes jit_above_cost. The count of posts not yet due (public lists after a write) is estimated
  // above it at 1M posts and ran in 0.1 ms plus 10-45 ms of compiling (issue 26, bench/RESULTS.md).
  const pgOptions = withStartupOptions(config.url, [
    '-c jit=off',
    ...(options.pgSchema ? [`-c search_path=${options.pgSchema}`] : []),
  ]);
  const poolOf = (max: number) => {
    const pool = new (pgDriver().Pool)({
      ...pgOptions,
      max,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
    });
    // A client that loses its server (a restart: 57P01, a failover, a cut connection) emits 'error':
    // on the pool while idle, on the client itself while checked out. Without a listener either would
    // crash the process. The query in flight fails; the pool drops the broken client when it is
    // released and connects a new one for the next query.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    return new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: log && ((event) => log(event)),
    });
  };
  const pool = poolOf(10);
  const { db, transact, inTransaction } = withAmbientTransactions(pool);
  // Long reads (keyword searches) have two connections of their own: ten slow searches at once would
  // otherwise hold every connection of the pool, and every other request would wait behind them.
  const longReads = poolOf(2);
  const close = async () => {
    await longReads.destroy();
    await pool.destroy();
  };
  return { db, transact, inTransaction, longReads, dialect: 'postgres', sqlite: null, pgOptions, close };
}

/**
 * Keeps the query planner's statistics current (issue 26 #3): without them PostgreSQL planned the
 * slug check of a bulk-loaded table as a scan, and SQLite may plan a lookup badly after a large
 * import. SQLite: `PRAGMA optimize` (it analyzes only what changed enough; bounded work at start).
 * PostgreSQL: `ANALYZE` of this schema's tables (sampled: seconds even at millions of rows).
 * Run at start, after migrations, and hourly; `folio db:analyze` runs it by hand after bulk work.
 */
export async function analyzeDatabase(
  handle: DatabaseHandle,
  options: { atStart?: boolean } = {},
): Promise<void> {
  if (handle.sqlite) {
    // 0x10002 at start: look at every table, with an analysis limit so a big one never stalls the start.
    handle.sqlite.pragma(options.atStart ? 'optimize=0x10002' : 'optimize');
    return;
  }
  const tables = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = current_schema()`.execute(handle.db);
  for (const { name } of tables.rows) await sql`analyze ${sql.table(name)}`.execute(handle.db);
}

/** Migrations in the order they apply. A released migration is never edited; add a new one. */
const MIGRATIONS: ReadonlyArray<{
  name: string;
  up: (db: Kysely<unknown>, dialect: Dialect) => Promise<void>;
}> = [
  { name: '0001_core', up: core.up },
  { name: '0002_posts', up: posts.up },
  { name: '0004_updates', up: updates.up },
  { name: '0005_public_site', up: publicSite.up },
  { name: '0006_accounts', up: accounts.up },
  { name: '0007_community', up: community.up },
  { name: '0008_pending_registrations', up: pendingRegistrations.up },
  { name: '0011_memberships', up: memberships.up },
  { name: '0012_audit_log', up: auditLog.up },
  { name: '0013_api_keys', up: apiKeys.up },
  { name: '0014_idempotency_keys', up: idempotencyKeys.up },
  { name: '0015_email_changes', up: emailChanges.up },
  { name: '0016_post_reviews', up: postReviews.up },
  { name: '0017_media_library', up: mediaLibrary.up },
  { name: '0018_named_menus', up: namedMenus.up },
  { name: '0019_post_counts', up: postCounts.up },
  { name: '0020_content_keys', up: contentKeys.up },
  { name: '0021_invites', up: invites.up },
  { name: '0022_click_websites', up: clickWebsites.up },
  { name: '0023_media_url', up: mediaUrl.up },
  { name: '0024_comment_authors', up: commentAuthors.up },
  { name: '0025_key_scopes', up: keyScopes.up },
  { name: '0026_comment_websites', up: commentWebsites.up },
  { name: '0027_page_seo', up: pageSeo.up },
  { name: '0028_outbox', up: outbox.up },
  { name: '0030_revisions', up: revisions.up },
  { name: '0033_jobs', up: jobs.up },
  { name: '0040_search_index', up: searchIndex.up },
  { name: '0045_user_locale', up: userLocale.up },
  { name: '0046_preview_links', up: previewLinks.up },
  { name: '0047_autosaves', up: autosaves.up },
  { name: '0050_webhooks', up: webhooks.up },
  { name: '0055_redirects', up: redirects.up },
  { name: '0056_transfers', up: transfers.up },
  { name: '0057_website_cover', up: websiteCover.up },
  { name: '0058_search_title', up: searchTitle.up },
];

/** An arbitrary constant: the PostgreSQL advisory lock that serializes migrations across processes. */
const MIGRATION_LOCK = 740_213_001;

/**
 * Brings the schema up to date and returns the names of the migrations it applied. Safe to run from
 * several processes at once: one transaction under a lock (an advisory lock on PostgreSQL, the write
 * lock on SQLite) applies what is missing, and the others then find nothing to do.
 */
export async function migrate(
  handle: DatabaseHandle,
  /** `until`: stop after this migration (tests of a migration start from the schema before it). */
  options: { until?: string } = {},
): Promise<string[]> {
  const db = handle.db as unknown as Kysely<{ folio_migrations: { name: string; applied_at: string } }>;
  await db.schema
    .createTable('folio_migrations')
    .ifNotExists()
    .addColumn('name', 'varchar(191)', (col) => col.primaryKey())
    .addColumn('applied_at', 'varchar(40)', (col) => col.notNull())
    .execute()
    .catch(async (error: unknown) => {
      // Two processes creating the table at once on PostgreSQL: the loser may see a duplicate.
      const exists = await db
        .selectFrom('folio_migrations')
        .select('name')
        .limit(1)
        .execute()
        .then(
          () => true,
          () => false,
        );
      if (!exists) throw error;
    });

  return db.transaction().execute(async (trx) => {
    if (handle.dialect === 'postgres') {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    } else {
      // A write as the first statement takes SQLite's write lock now (waiting up to busy_timeout).
      await trx
        .updateTable('folio_migrations')
        .set({ name: sql`name` })
        .where(sql.lit(false))
        .execute();
    }
    const done = new Set(
      (await trx.selectFrom('folio_migrations').select('name').execute()).map((row) => row.name),
    );
    const applied: string[] = [];
    for (const migration of MIGRATIONS) {
      if (!done.has(migration.name)) {
        await migration.up(trx as unknown as Kysely<unknown>, handle.dialect);
        await trx
          .insertInto('folio_migrations')
          .values({ name: migration.name, applied_at: new Date().toISOString() })
          .execute();
        applied.push(migration.name);
      }
      if (migration.name === options.until) break;
    }
    return applied;
  });
}
