// The per-website data cache (website switch `enabled_data_cache`): query results that belong to one
// website, cached under its tag so that a change to that website's content flushes exactly them.
import { MemoryCache, SingleFlight, expiryOf } from './cache.js';
import type { Cache, CacheOptions } from './cache.js';
import { memoryBudget } from './memory-budget.js';
import { NearCache } from './near-cache.js';
import { RedisCache } from './redis-cache.js';

// ---- Copies in this process ----------------------------------------------------------------------
// With a shared cache (Redis), every read of an entry is a round trip and a JSON parse (a sitemap file
// is a megabyte). A data-cache entry is a function of the database, replaced only after a flush of its
// tags or once it expires, so a copy read or written here is used (NearCache) while its stamp is known
// current. The in-process cache needs no copies: its values are shared objects already.

/** Without a budget from the cache (RedisCache.copyBytes), copies keep the default share. */
const DEFAULT_COPIES_MAX_BYTES = memoryBudget().copies;
const copiesByCache = new WeakMap<Cache, NearCache<unknown>>();

/** Roughly the bytes a value holds (its JSON, two bytes a character). */
function sizeOf(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return (text?.length ?? 0) * 2 + 64;
}

function copiesOf(cache: Cache): NearCache<unknown> | undefined {
  if (cache instanceof MemoryCache) return undefined;
  let copies = copiesByCache.get(cache);
  if (!copies) {
    const maxBytes = (cache instanceof RedisCache ? cache.copyBytes : undefined) ?? DEFAULT_COPIES_MAX_BYTES;
    copies = new NearCache(cache, { maxBytes, sizeOf });
    copiesByCache.set(cache, copies);
  }
  return copies;
}

/** Concurrent misses of one entry (per cache) share one computation, within one flush generation. */
const flightsByCache = new WeakMap<Cache, SingleFlight>();

function flightsOf(cache: Cache): SingleFlight {
  let flights = flightsByCache.get(cache);
  if (!flights) flightsByCache.set(cache, (flights = new SingleFlight()));
  return flights;
}

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
  compute: () => Promise<Discovered<T>>,
): Promise<T>;
export async function rememberDiscovered<T>(
  cache: Cache,
  website: DataCacheWebsite | null,
  key: string,
  options: CacheOptions,
  compute: () => Promise<Discovered<T> | null>,
): Promise<T | null>;
export async function rememberDiscovered<T>(
  cache: Cache,
  website: DataCacheWebsite | null,
  key: string,
  options: CacheOptions,
  compute: () => Promise<Discovered<T> | null>,
): Promise<T | null> {
  if (!website?.enabledDataCache) return (await compute())?.value ?? null;
  const fullKey = `data:${website.id}:${key}`;
  const copies = copiesOf(cache);
  const copy = copies?.current(fullKey);
  if (copy) return copy.value as T;
  const cached = await cache.getStamped<T>(fullKey);
  if (cached) {
    copies?.keep(fullKey, cached);
    return cached.value;
  }
  return flightsOf(cache).run(fullKey, cache.flushCount, async () => {
    const flushes = cache.flushCount;
    const stamp = await cache.stamp([...(options.tags ?? []), websiteTag(website.id)]);
    const result = await compute();
    if (!result || !stamp || cache.flushCount !== flushes) return result?.value ?? null;
    const discovered = await cache.stamp(result.tags);
    if (discovered && cache.flushCount === flushes) {
      const ttl = Math.min(result.ttlSeconds ?? Infinity, options.ttlSeconds || Infinity);
      const ttlSeconds = Number.isFinite(ttl) ? ttl : 0;
      const fullStamp = { ...stamp, ...discovered };
      await cache.setStamped(fullKey, result.value, fullStamp, ttlSeconds);
      copies?.keep(fullKey, {
        value: result.value,
        stamp: fullStamp,
        expires: expiryOf(ttlSeconds, cache.now()),
      });
    }
    return result.value;
  });
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
  const fullKey = `data:${website.id}:${key}`;
  const fullOptions = { ...options, tags: [...(options.tags ?? []), websiteTag(website.id)] };
  const copies = copiesOf(cache) as NearCache<T> | undefined;
  return copies
    ? copies.remember(fullKey, fullOptions, compute)
    : cache.remember(fullKey, fullOptions, compute);
}
