// AsyncLocalStorage that costs nothing while no scope is open. On Node.js 20 an AsyncLocalStorage, once
// used, turns on the async hooks for the life of the process: every promise made anywhere then pays an
// init hook and every await a before and after hook (a loop of awaits runs 2.6× slower). Folio opens
// scopes only around writes (the ambient transaction, the write scope), yet the first write at start-up
// made every later read pay: 13 % of an API v2 list's CPU (issue 42). A ScopedStorage counts its open
// scopes and disables the storage when the last one ends, which turns the hooks off again once no
// storage in the process is enabled.
//
// A continuation that outlives its scope (work an operation started without waiting for) may then
// find no store, or, once another scope has enabled the storage again, still find its own: the
// stores kept here say whether they are still open (state.open), and callers treat a closed one as none.
import { AsyncLocalStorage } from 'node:async_hooks';

export class ScopedStorage<T> {
  private readonly storage = new AsyncLocalStorage<T>();
  private open = 0;

  /** The store of the scope this code runs in, if one is open. */
  getStore(): T | undefined {
    return this.open === 0 ? undefined : this.storage.getStore();
  }

  /** Runs `work` with `store` as the current store, for `work` and everything it awaits. */
  async run<R>(store: T, work: () => Promise<R>): Promise<R> {
    this.open++;
    try {
      return await this.storage.run(store, work);
    } finally {
      if (--this.open === 0) this.storage.disable();
    }
  }
}
