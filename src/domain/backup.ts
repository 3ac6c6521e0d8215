// `folio backup`: a consistent snapshot of the database while the server keeps serving.
// SQLite: the online backup API of better-sqlite3 (pages copied in steps; writers are not blocked,
// and the copy is of one consistent state). PostgreSQL: not yet (issue 39 #5: pg_dump or the export
// format); the command says so instead of writing something incomplete.
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseHandle } from '../db/database.js';

export class BackupUnsupportedError extends Error {}

export interface BackupResult {
  file: string;
  bytes: number;
}

export async function backupDatabase(handle: DatabaseHandle, out: string): Promise<BackupResult> {
  if (handle.dialect !== 'sqlite' || !handle.sqlite) {
    throw new BackupUnsupportedError('backup of a PostgreSQL database is not available yet (use pg_dump)');
  }
  const file = path.resolve(out);
  if (fs.existsSync(file)) throw new BackupUnsupportedError(`${out} already exists; not overwritten`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  fs.rmSync(partial, { force: true });
  try {
    await handle.sqlite.backup(partial);
    fs.renameSync(partial, file);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
  return { file, bytes: fs.statSync(file).size };
}

/**
 * The backup the core update takes first: SQLite into `backups/` next to the database file, named by
 * the time (folio-backup-2026-11-28T02-50-00-000Z.sqlite); null for PostgreSQL and an in-memory
 * database (no backup command for them yet).
 */
export async function backupBeforeUpdate(handle: DatabaseHandle, now: Date): Promise<string | null> {
  if (handle.dialect !== 'sqlite' || !handle.sqlite) return null;
  const main = handle.sqlite.name;
  if (!main || main === ':memory:') return null;
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const target = path.join(path.dirname(main), 'backups', `folio-backup-${stamp}.sqlite`);
  return (await backupDatabase(handle, target)).file;
}
