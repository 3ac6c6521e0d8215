// The ambient transaction: while an operation runs in a transaction (domain/run.ts), every query made
// through the database handle's `db` joins it, whichever store or service makes it. Stores keep
// writing `this.db.selectFrom(…)`, and the operation runner decides where the transaction begins
// and ends. Without it, a store called inside an operation would open its own connection and (on
// SQLite, whose one connection a transaction holds) wait for the operation's transaction forever.
//
// - `db.transaction().execute(fn)` inside an ambient transaction becomes a savepoint: a store's
//   own unit of work still rolls back alone (a slug clash retried), and on PostgreSQL a failed
//   statement no longer aborts the operation's whole transaction.
// - Work left running after the transaction ends (a mail sent without waiting) falls back to the
//   pool: it never touches a connection that was given back.
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import { ScopedStorage } from '../lib/scoped-storage.js';

interface AmbientState {
  root: object;
  trx: Transaction<never>;
  open: boolean;
  savepoints: number;
}

const ambient = new ScopedStorage<AmbientState>();

export interface AmbientDatabase<DB> {
  /** The handle every store uses: the ambient transaction when one is open, else the pool. */
  db: Kysely<DB>;
  /**
   * Runs `work` in one transaction that every query through `db` joins. Called inside an open
   * transaction of the same database, `work` joins it (one operation calling another).
   */
  transact: <T>(work: () => Promise<T>) => Promise<T>;
  /** Whether an ambient transaction of this database is open here. */
  inTransaction: () => boolean;
}

function openStateOf(root: object): AmbientState | undefined {
  const state = ambient.getStore();
  return state && state.open && state.root === root ? state : undefined;
}

/** A `transaction()` builder that opens a savepoint in the ambient transaction. */
function savepointBuilder(state: AmbientState) {
  const builder = {
    setIsolationLevel: () => builder,
    setAccessMode: () => builder,
    async execute<T>(work: (trx: Transaction<never>) => Promise<T>): Promise<T> {
      const name = `folio_sp_${++state.savepoints}`;
      await sql.raw(`savepoint ${name}`).execute(state.trx);
      try {
        const result: T = await work(state.trx);
        await sql.raw(`release savepoint ${name}`).execute(state.trx);
        return result;
      } catch (error) {
        await sql.raw(`rollback to savepoint ${name}`).execute(state.trx);
        await sql.raw(`release savepoint ${name}`).execute(state.trx);
        throw error;
      }
    },
  };
  return builder;
}

export interface AmbientOptions {
  /** Runs first in every transaction `transact` opens (SQLite: take the write lock at once). */
  begin?: (trx: Transaction<never>) => Promise<void>;
}

export function withAmbientTransactions<DB>(
  root: Kysely<DB>,
  options: AmbientOptions = {},
): AmbientDatabase<DB> {
  // Methods of the pool bound once: the proxy adds one lookup per query, not an allocation.
  const boundToRoot = new Map<PropertyKey, unknown>();
  const db = new Proxy(root, {
    get(target, property) {
      const state = openStateOf(root);
      if (state) {
        if (property === 'transaction') return () => savepointBuilder(state);
        const value = Reflect.get(state.trx, property, state.trx) as unknown;
        return typeof value === 'function' ? (value.bind(state.trx) as unknown) : value;
      }
      let bound = boundToRoot.get(property);
      if (bound === undefined) {
        const value = Reflect.get(target, property, target) as unknown;
        if (typeof value !== 'function') return value;
        bound = value.bind(target);
        boundToRoot.set(property, bound);
      }
      return bound;
    },
  });

  async function transact<T>(work: () => Promise<T>): Promise<T> {
    if (openStateOf(root)) return work();
    return root.transaction().execute(async (trx) => {
      const state: AmbientState = {
        root,
        trx: trx as unknown as Transaction<never>,
        open: true,
        savepoints: 0,
      };
      if (options.begin) await options.begin(state.trx);
      return ambient.run(state, async () => {
        try {
          return await work();
        } finally {
          state.open = false;
        }
      });
    });
  }

  return { db, transact, inTransaction: () => openStateOf(root) !== undefined };
}
