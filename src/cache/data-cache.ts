// The per-website data cache (website switch `enabled_data_cache`): query results that belong to one
// website, cached under its tag so that a change to that website's content flushes exactly them.
import { LRUCache } from 'lru-cache';
import { MemoryCache } from './cache.js';
import type { Cache, CacheOptions, StampedValue } from './cache.js';

// ---- Copies in this process ----------------------------------------------------------------------
// With a shared cache (Redis), every read of an entry is a round trip and a JSON parse (a sitemap file
// is a megabyte). A data-cache entry is a function of the database, replaced only after a flush of its
// tags or once it expires, so a copy read or written here may be used without asking the shared cache
// while the cache can tell without I/O that its stamp is current (Cache.isCurrent: the version mirror)
// and it has not expired. Values are shared objects, as the in-process cache's already are: callers
// must not change them. The in-process cache needs no copies.

const COPIES_MAX_BYTES = 32 * 1024 * 1024;
const copiesByCache = new WeakMap<Cache, LRUCache<string, StampedValue<unknown>>>();

function copiesOf(cache: Cache): LRUCache<string, StampedValue<unknown>> | undefined {
  if (cache instanceof MemoryCache) return undefined;
  let copies = copiesByCache.get(cache);
  if (!copies) {
    copies = new LRUCache({
      maxSize: COPIES_MAX_BYTES,
      sizeCalculation: (copy) => sizeOf(copy.value),
    });
    copiesByCache.set(cache, copies);
  }
  return copies;
}

/** Roughly the bytes a value holds (its JSON, two bytes a character). */
function sizeOf(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return Math.max(1, (text?.length ?? 0) * 2 + 64);
}

function nearCopy<T>(cache: Cache, key: string): StampedValue<T> | undefined {
  const copy = copiesOf(cache)?.get(key);
  if (!copy) return undefined;
  if ((copy.expires !== 0 && copy.expires <= Date.now()) || !cache.isCurrent(copy.stamp)) return undefined;
  return copy as StampedValue<T>;
}

function keepCopy(cache: Cache, key: string, copy: StampedValue<unknown>): void {
  copiesOf(cache)?.set(key, copy);
}

/** An entry of the shared cache, from this process's copy when that is known current. */
async function readShared<T>(cache: Cache, key: string): Promise<StampedValue<T> | undefined> {
  const near = nearCopy<T>(cache, key);
  if (near) return near;
  const shared = await cache.getStamped<T>(key);
  if (shared) keepCopy(cache, key, shared);
  return shared;
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
  compute: () => Promise<Discovered<T> | null>,
): Promise<T | null> {
  if (!website?.enabledDataCache) return (await compute())?.value ?? null;
  const fullKey = `data:${website.id}:${key}`;
  const cached = await readShared<T>(cache, fullKey);
  if (cached) return cached.value;
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
    const expires = ttlSeconds > 0 ? Date.now() + ttlSeconds * 1000 : 0;
    keepCopy(cache, fullKey, { value: result.value, stamp: fullStamp, expires });
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
  const fullKey = `data:${website.id}:${key}`;
  const near = nearCopy<T>(cache, fullKey);
  if (near) return near.value;
  const remembered = await cache.rememberStamped(
    fullKey,
    { ...options, tags: [...(options.tags ?? []), websiteTag(website.id)] },
    compute,
  );
  if (remembered.stamp) keepCopy(cache, fullKey, remembered as StampedValue<unknown>);
  return remembered.value;
}
