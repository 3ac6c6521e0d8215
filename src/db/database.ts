// Opens the database named by the config with the right Kysely dialect, and runs migrations.
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { Migration, MigrationProvider, MigrationResultSet } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { Database } from './schema.js';
import * as core from './migrations/0001_core.js';
import { SqliteBooleanPlugin } from './sqlite-booleans.js';

export type Dialect = DatabaseConfig['dialect'];
export type Db = Kysely<Database>;

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** The raw SQLite connection (for PRAGMA data_version), or null on PostgreSQL. */
  sqlite: SQLite.Database | null;
  /** Options for opening more PostgreSQL connections (the change feed's LISTEN client). */
  pgOptions: pg.ClientConfig | null;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL only: every connection uses this schema (tests isolate themselves this way). */
  pgSchema?: string;
  /** Called with the text of every query; the benchmarks count queries with it. */
  onQuery?: (sql: string) => void;
}

// PostgreSQL returns COUNT(*) and other int8 values as strings; our counts fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): DatabaseHandle {
  const log = options.onQuery ? (event: { query: { sql: string } }) => options.onQuery?.(event.query.sql) : undefined;

  if (config.dialect === 'sqlite') {
    if (config.file !== ':memory:') fs.mkdirSync(path.dirname(config.file), { recursive: true });
    const sqlite = new SQLite(config.file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('synchronous = NORMAL');
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqlite }),
      plugins: [new SqliteBooleanPlugin()],
      log: log && ((event) => log(event)),
    });
    return { db, dialect: 'sqlite', sqlite, pgOptions: null, close: () => db.destroy() };
  }

  const pgOptions: pg.ClientConfig = {
    connectionString: config.url,
    ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
  };
  const pool = new pg.Pool({ ...pgOptions, max: 10, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 5_000 });
  // An idle client that loses its server emits 'error' on the pool; without a listener that would
  // crash the process. The next query reconnects.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: log && ((event) => log(event)) });
  return { db, dialect: 'postgres', sqlite: null, pgOptions, close: () => db.destroy() };
}

class CoreMigrations implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}

  getMigrations(): Promise<Record<string, Migration>> {
    const { dialect } = this;
    return Promise.resolve({
      '0001_core': { up: (db) => core.up(db, dialect), down: (db) => core.down(db) },
    });
  }
}

/** Brings the schema up to date. Safe to run from several processes at once (Kysely takes a lock). */
export async function migrate(handle: DatabaseHandle): Promise<MigrationResultSet> {
  // Kysely looks for its own tables in every schema it can see; pin them to ours, so that two
  // installations (or two test files) in one PostgreSQL database never mistake each other's.
  const migrationTableSchema =
    handle.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db: handle.db,
    provider: new CoreMigrations(handle.dialect),
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error(String(result.error));
  return result;
}
