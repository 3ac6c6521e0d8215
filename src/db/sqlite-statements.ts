// better-sqlite3 as Kysely's SqliteDialect sees it, with two changes:
// - Prepared statements are kept, keyed by their SQL text, instead of being prepared again for every
//   query (Kysely's driver calls prepare() each time, which compiles the SQL anew).
// - A ROLLBACK when no transaction is open does nothing: SQLite rolls a transaction back by itself
//   on some errors (SQLITE_FULL: the disk is full), and Kysely's ROLLBACK then failed with "cannot
//   rollback - no transaction is active", hiding the error that mattered.
// - JavaScript booleans are bound as 0/1: better-sqlite3 refuses booleans, and SQLite stores flags as
//   integers, so domain code writes `true` on every dialect. (This used to be a Kysely plugin that
//   copied every query's whole operation tree to find them; binding is where the values are anyway.)
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { LRUCache } from 'lru-cache';

/** Distinct SQL texts kept prepared; `IN (…)` lists of every length make a few of each query. */
const MAX_STATEMENTS = 1000;

const toSqlite = (value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

/** The parameters as better-sqlite3 binds them (booleans as 0/1); also used by the long-reads thread. */
export function bindable(parameters: ReadonlyArray<unknown>): ReadonlyArray<unknown> {
  for (const value of parameters) if (typeof value === 'boolean') return parameters.map(toSqlite);
  return parameters;
}

export function sqliteForKysely(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new LRUCache<string, SqliteStatement>({ max: MAX_STATEMENTS });
  return {
    close: () => {
      statements.clear();
      sqlite.close();
    },
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (!statement) {
        const prepared = sqlite.prepare(sql);
        const rollback = /^\s*rollback\s*;?\s*$/i.test(sql);
        statement = {
          reader: prepared.reader,
          all: (parameters) => prepared.all(bindable(parameters)),
          run: (parameters) =>
            rollback && !sqlite.inTransaction
              ? { changes: 0, lastInsertRowid: 0 }
              : prepared.run(bindable(parameters)),
          iterate: (parameters) => prepared.iterate(bindable(parameters)),
        };
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
