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
