// The per-website data cache (website switch `enabled_data_cache`): query results that belong to one
// website, cached under its tag so that a change to that website's content flushes exactly them.
import type { Cache, CacheOptions } from './cache.js';

export interface DataCacheWebsite {
  id: number;
  enabledDataCache: boolean;
}

/** The cache tag of everything cached for one website. */
export const websiteTag = (websiteId: number) => `website:${websiteId}`;

export interface Discovered<T> {
  value: T;
  /** Tags known only once the value is computed (a post found by its slug: `post:{id}`). */
  tags: readonly string[];
  /** A shorter time to live than the options' one, known once computed. */
  ttlSeconds?: number;
}

/**
 * Like rememberForWebsite, for a value whose tags are known only once it is computed (null: nothing
 * to keep). The given tags are stamped before computing, the discovered ones after; the value is kept
 * only when no flush happened in between (the discovered tags' versions could postdate the data).
 */
export async function rememberDiscovered<T>(
  cache: Cache,
  website: DataCacheWebsite | null,
  key: string,
  options: CacheOptions,
  compute: () => Promise<Discovered<T> | null>,
): Promise<T | null> {
  if (!website?.enabledDataCache) return (await compute())?.value ?? null;
  const fullKey = `data:${website.id}:${key}`;
  const cached = await cache.getStamped<T>(fullKey);
  if (cached) return cached.value;
  const flushes = cache.flushCount;
  const stamp = await cache.stamp([...(options.tags ?? []), websiteTag(website.id)]);
  const result = await compute();
  if (!result || !stamp || cache.flushCount !== flushes) return result?.value ?? null;
  const discovered = await cache.stamp(result.tags);
  if (discovered && cache.flushCount === flushes) {
    const ttl = Math.min(result.ttlSeconds ?? Infinity, options.ttlSeconds || Infinity);
    await cache.setStamped(
      fullKey,
      result.value,
      { ...stamp, ...discovered },
      Number.isFinite(ttl) ? ttl : 0,
    );
  }
  return result.value;
}

/**
 * `compute()` through the cache when the website has its data cache on; straight through otherwise
 * (no website context, or the switch off).
 */
export async function rememberForWebsite<T>(
  cache: Cache,
  website: DataCacheWebsite | null,
  key: string,
  options: CacheOptions,
  compute: () => Promise<T>,
): Promise<T> {
  if (!website?.enabledDataCache) return compute();
  return cache.remember(
    `data:${website.id}:${key}`,
    { ...options, tags: [...(options.tags ?? []), websiteTag(website.id)] },
    compute,
  );
}
