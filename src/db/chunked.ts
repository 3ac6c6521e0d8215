// Long deletes in chunks that yield (issue 26 #1): better-sqlite3 runs every statement on the event
// loop, so one DELETE of a million expired rows would stall every request for seconds. Retention
// deletes are idempotent, so each chunk may commit on its own.
import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';
import type { Db } from './database.js';

/** Rows one chunk deletes: milliseconds of work on SQLite. */
export const DELETE_CHUNK_ROWS = 2000;

/** Lets timers, I/O and waiting requests run between two chunks. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Deletes the rows of `table` matching `condition`, at most `chunkRows` per statement, yielding to
 * the event loop between statements; answers how many rows went. `keyColumns` name a key of the
 * table (its primary key), by which each chunk picks its rows.
 */
export async function deleteInChunks(
  db: Db,
  table: string,
  keyColumns: readonly string[],
  condition: RawBuilder<unknown>,
  chunkRows = DELETE_CHUNK_ROWS,
): Promise<number> {
  const keys = sql.join(keyColumns.map((column) => sql.ref(column)));
  let total = 0;
  for (;;) {
    const result = await sql`
      DELETE FROM ${sql.table(table)} WHERE (${keys}) IN (
        SELECT ${keys} FROM ${sql.table(table)} WHERE ${condition} LIMIT ${chunkRows})`.execute(db);
    const deleted = Number(result.numAffectedRows ?? 0n);
    total += deleted;
    if (deleted < chunkRows) return total;
    await yieldToEventLoop();
  }
}

/** Ids one step of a scan covers: a few milliseconds of reading on SQLite. */
export const SCAN_CHUNK_IDS = 5000;

/**
 * A read that no index can serve (text inside contents) in steps over id ranges of `table`: `read`
 * is asked for the rows of ids in [from, to), range after range up to the largest id, with a turn of
 * the event loop between two. One statement over a million posts held the event loop for seconds.
 */
export async function readInIdRanges<T>(
  db: Db,
  table: string,
  read: (from: number, to: number) => Promise<T[]>,
  chunkIds = SCAN_CHUNK_IDS,
): Promise<T[]> {
  const { rows } = await sql<{ last: number | string | null }>`
    SELECT max(id) AS last FROM ${sql.table(table)}`.execute(db);
  const last = Number(rows[0]?.last ?? 0);
  const found: T[] = [];
  for (let from = 0; from <= last; from += chunkIds) {
    if (from > 0) await yieldToEventLoop();
    found.push(...(await read(from, from + chunkIds)));
  }
  return found;
}
