// `folio backup` and `folio restore` (issue 39 #5): a consistent snapshot of the database while the
// server keeps serving, and putting one back.
//   SQLite: the online backup API of better-sqlite3 (pages copied in steps; writers are not blocked,
//           and the copy is of one consistent state).
//   PostgreSQL: `pg_dump --format=custom` of Folio's schema when pg_dump is installed (one snapshot
//           transaction); without it, the backup is a Folio archive with secrets (docs/export-format.md).
// Backups before a core update go into a `backups/` folder and the oldest beyond `backup_keep`
// (setting, default 10) are removed.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../../db/database.js';

const run = promisify(execFile);

export class BackupUnsupportedError extends Error {}

export interface BackupResult {
  file: string;
  bytes: number;
  /** `sqlite` (a database file), `pg_dump` (custom format) or `archive` (a Folio archive). */
  kind: 'sqlite' | 'pg_dump' | 'archive';
}

/** How to write a Folio archive (the export) when pg_dump is missing. */
export type ArchiveWriter = (file: string) => Promise<void>;

export const BACKUP_KEEP_SETTING = 'backup_keep';
export const DEFAULT_BACKUP_KEEP = 10;

/** The PostgreSQL schema Folio's tables are in (`public`, or a test's own). */
export async function currentSchema(handle: DatabaseHandle): Promise<string> {
  const result = await sql<{ name: string }>`select current_schema() as name`.execute(handle.db);
  return result.rows[0]!.name;
}

/** Is `command` on the PATH (and runnable)? */
async function has(command: string): Promise<boolean> {
  try {
    await run(command, ['--version'], { timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** The connection URL for libpq tools: the URL without Folio's own `options` (search_path). */
function libpqUrl(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('options');
  return parsed.toString();
}

export async function backupDatabase(
  handle: DatabaseHandle,
  out: string,
  options: { databaseUrl?: string; archive?: ArchiveWriter; pgDump?: string } = {},
): Promise<BackupResult> {
  const file = path.resolve(out);
  if (fs.existsSync(file)) throw new BackupUnsupportedError(`${out} already exists; not overwritten`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  fs.rmSync(partial, { force: true });
  let kind: BackupResult['kind'];
  try {
    if (handle.dialect === 'sqlite' && handle.sqlite) {
      await handle.sqlite.backup(partial);
      kind = 'sqlite';
    } else if (handle.dialect === 'postgres') {
      const pgDump = options.pgDump ?? 'pg_dump';
      if (options.databaseUrl && (await has(pgDump))) {
        const schema = await currentSchema(handle);
        await run(
          pgDump,
          [
            '--format=custom',
            '--no-owner',
            `--schema=${schema}`,
            `--file=${partial}`,
            `--dbname=${libpqUrl(options.databaseUrl)}`,
          ],
          { timeout: 6 * 3_600_000, maxBuffer: 16 * 1024 * 1024 },
        );
        kind = 'pg_dump';
      } else if (options.archive) {
        await options.archive(partial);
        kind = 'archive';
      } else {
        throw new BackupUnsupportedError('pg_dump is not installed and no export is at hand');
      }
    } else {
      throw new BackupUnsupportedError(`no backup for a ${handle.dialect} database`);
    }
    fs.renameSync(partial, file);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
  return { file, bytes: fs.statSync(file).size, kind };
}

/** Removes the oldest `folio-backup-*` files of `dir` beyond the newest `keep`. Answers those removed. */
export function rotateBackups(dir: string, keep: number): string[] {
  if (!fs.existsSync(dir)) return [];
  const backups = fs
    .readdirSync(dir)
    .filter((name) => name.startsWith('folio-backup-') && !name.endsWith('.partial'))
    .sort(); // the names carry the ISO time: the order of the names is the order of the backups
  const removed = backups.slice(0, Math.max(0, backups.length - Math.max(1, keep)));
  for (const name of removed) fs.rmSync(path.join(dir, name), { force: true });
  return removed;
}

/**
 * The backup the core update takes first: into `backups/` next to the SQLite database file, or under
 * `dataDir` for PostgreSQL, named by the time (folio-backup-2026-11-28T02-50-00-000Z.sqlite), then the
 * oldest beyond `keep` removed. Null for an in-memory database.
 */
export async function backupBeforeUpdate(
  handle: DatabaseHandle,
  now: Date,
  options: { databaseUrl?: string; archive?: ArchiveWriter; dataDir?: string; keep?: number } = {},
): Promise<string | null> {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  let dir: string;
  let extension: string;
  if (handle.dialect === 'sqlite' && handle.sqlite) {
    const main = handle.sqlite.name;
    if (!main || main === ':memory:') return null;
    dir = path.join(path.dirname(main), 'backups');
    extension = 'sqlite';
  } else if (handle.dialect === 'postgres') {
    dir = path.join(options.dataDir ?? 'data', 'backups');
    extension = (await has('pg_dump')) && options.databaseUrl ? 'pgdump' : 'tar.gz';
  } else {
    return null;
  }
  // Two backups in one millisecond (two updates one after the other, a test's fixed clock) get two names.
  let file = path.join(dir, `folio-backup-${stamp}.${extension}`);
  for (let n = 2; fs.existsSync(file); n++) file = path.join(dir, `folio-backup-${stamp}-${n}.${extension}`);
  const result = await backupDatabase(handle, file, options);
  rotateBackups(dir, options.keep ?? DEFAULT_BACKUP_KEEP);
  return result.file;
}

/** What a backup file is, from its first bytes. */
export function backupKind(file: string): BackupResult['kind'] | null {
  const head = Buffer.alloc(16);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, 16, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.subarray(0, 16).toString('latin1') === 'SQLite format 3\u0000') return 'sqlite';
  if (head.subarray(0, 5).toString('latin1') === 'PGDMP') return 'pg_dump';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'archive';
  return null;
}

/** Has the database any content (a user, a website or a post)? A restore over it needs --force. */
export async function databaseHasContent(handle: DatabaseHandle): Promise<boolean> {
  for (const table of ['users', 'websites', 'posts'] as const) {
    const row = await handle.db.selectFrom(table).select('id').limit(1).executeTakeFirst();
    if (row) return true;
  }
  return false;
}

/** Copies a SQLite backup over the database file `target` (no process may have it open). */
export async function restoreSqlite(backup: string, target: string): Promise<void> {
  const source = new SQLite(backup, { readonly: true, fileMustExist: true });
  try {
    const check = source.pragma('integrity_check', { simple: true });
    if (check !== 'ok')
      throw new BackupUnsupportedError(`${backup} is damaged (integrity check: ${String(check)})`);
    for (const suffix of ['-wal', '-shm']) fs.rmSync(`${target}${suffix}`, { force: true });
    await source.backup(target);
  } finally {
    source.close();
  }
}

/** SQL dropping Folio's objects of a schema, but not the schema or the extensions living in it. */
function dropObjectsSql(schema: string): string {
  const extensionOwned = (oid: string) =>
    `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = ${oid} AND d.deptype = 'e')`;
  return `DO $folio$ DECLARE r record; BEGIN
  FOR r IN SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = '${schema}' AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('e', 'i', 'a')) LOOP
    EXECUTE format('DROP %s IF EXISTS %I.%I CASCADE',
      CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,
      '${schema}', r.relname);
  END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS sig FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = '${schema}' AND ${extensionOwned('p.oid')} LOOP
    EXECUTE format('DROP FUNCTION IF EXISTS %s CASCADE', r.sig);
  END LOOP;
END $folio$`;
}

/**
 * Restores a pg_dump backup into the database of `databaseUrl`, in one transaction: Folio's tables,
 * sequences and functions in `schema` are dropped and made again from the backup (the schema itself
 * and extensions such as pg_trgm stay). pg_restore writes the SQL, psql runs it between BEGIN and
 * COMMIT, so a failure leaves the database as it was.
 */
export async function restorePgDump(backup: string, databaseUrl: string, schema: string): Promise<void> {
  if (!(await has('pg_restore')) || !(await has('psql'))) {
    throw new BackupUnsupportedError('pg_restore and psql are needed to restore a pg_dump backup');
  }
  if (!/^[a-z_][a-z0-9_]*$/i.test(schema))
    throw new BackupUnsupportedError(`unexpected schema name ${schema}`);
  const script = `${backup}.restore.sql`;
  const list = `${backup}.restore.list`;
  try {
    // The backup's table of contents without its schema and extensions (they stay as they are here).
    const { stdout } = await run('pg_restore', ['--list', backup], { maxBuffer: 64 * 1024 * 1024 });
    const kept = stdout
      .split('\n')
      .filter((line) => !/ (SCHEMA|EXTENSION) /.test(line) && !/COMMENT - (SCHEMA|EXTENSION)/.test(line));
    fs.writeFileSync(list, kept.join('\n'));
    await run('pg_restore', ['--no-owner', `--use-list=${list}`, `--file=${script}`, backup], {
      timeout: 6 * 3_600_000,
    });
    await run(
      'psql',
      [
        '--single-transaction',
        '--quiet',
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        dropObjectsSql(schema),
        '-f',
        script,
        `--dbname=${libpqUrl(databaseUrl)}`,
      ],
      { timeout: 6 * 3_600_000, maxBuffer: 64 * 1024 * 1024 },
    );
  } finally {
    fs.rmSync(script, { force: true });
    fs.rmSync(list, { force: true });
  }
}
