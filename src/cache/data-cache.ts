// The per-website data cache (website switch `enabled_data_cache`): query results that belong to one
// website, cached under its tag so that a change to that website's content flushes exactly them.
import type { Cache, CacheOptions } from './cache.js';

export interface DataCacheWebsite {
  id: number;
  enabledDataCache: boolean;
}

/** The cache tag of everything cached for one website. */
export const websiteTag = (websiteId: number) => `website:${websiteId}`;

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
