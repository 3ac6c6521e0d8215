// One memory budget for every cache this process keeps (CACHE_MEMORY_MB, default 232 MiB), split in
// fixed shares measured to suit a typical site: the in-process shared cache (when there is no Redis),
// the API's ready answers, ready-to-send pages, copies of Redis entries, and rendered theme fragments.
// Each part is an LRU bounded by its share, so the sum never passes the budget.

export interface MemoryBudget {
  /** The in-process cache (MemoryCache) used when there is no Redis. */
  sharedCache: number;
  /** Ready answers of the API (LocalAnswers). */
  answers: number;
  /** Ready-to-send pages of the page cache. */
  hotPages: number;
  /** Copies of Redis entries read by the data cache (NearCache). */
  copies: number;
  /** Rendered theme fragments. */
  fragments: number;
}

export const DEFAULT_CACHE_MEMORY_MB = 232;

/** Shares of the budget, in parts of the default 232 MiB (64 + 64 + 48 + 32 + 24). */
const SHARES: Record<keyof MemoryBudget, number> = {
  sharedCache: 64,
  answers: 64,
  hotPages: 48,
  copies: 32,
  fragments: 24,
};

export function memoryBudget(totalMb: number = DEFAULT_CACHE_MEMORY_MB): MemoryBudget {
  const parts = Object.values(SHARES).reduce((sum, share) => sum + share, 0);
  const bytes = totalMb * 1024 * 1024;
  const budget = {} as MemoryBudget;
  for (const [part, share] of Object.entries(SHARES) as Array<[keyof MemoryBudget, number]>) {
    budget[part] = Math.max(64 * 1024, Math.floor((bytes * share) / parts));
  }
  return budget;
}
