// A process-local copy in front of the shared cache, for values read on every request (which website
// a host shows, a tag tree, the data cache's entries on Redis). A copy is used without asking the
// shared cache while the cache can tell without I/O that its tags are current (Cache.isCurrent: always
// in process; on Redis through its mirror of the versions) and it has not expired; otherwise the
// shared cache answers (or computes) and the copy is renewed. The values are shared objects: callers
// must not change them.
import { LRUCache } from 'lru-cache';
import type { Cache, CacheOptions, Remembered, StampedValue, TagStamp } from './cache.js';

/** Whether a copy of an entry (its stamp, and its expiry in epoch ms, 0 for never) may be used as is. */
export function isCopyCurrent(cache: Cache, stamp: TagStamp, expires: number): boolean {
  return (expires === 0 || expires > cache.now()) && cache.isCurrent(stamp);
}

export interface NearCacheOptions {
  /** How many copies at most (default 10,000)… */
  max?: number;
  /** …or how many bytes, as `sizeOf` counts them. */
  maxBytes?: number;
  sizeOf?: (value: unknown) => number;
}

export class NearCache<T> {
  private readonly copies: LRUCache<string, StampedValue<T>>;

  constructor(
    private readonly cache: Cache,
    options: NearCacheOptions = {},
  ) {
    const { maxBytes, sizeOf } = options;
    this.copies =
      maxBytes !== undefined && sizeOf
        ? new LRUCache({ maxSize: maxBytes, sizeCalculation: (copy) => Math.max(1, sizeOf(copy.value)) })
        : new LRUCache({ max: options.max ?? 10_000 });
  }

  /** The copy of a key while it may be used without asking the shared cache. */
  current(key: string): StampedValue<T> | undefined {
    const copy = this.copies.get(key);
    return copy && isCopyCurrent(this.cache, copy.stamp, copy.expires) ? copy : undefined;
  }

  /** Keeps what the shared cache answered or stored (nothing when it kept nothing: no stamp). */
  keep(key: string, remembered: Remembered<T>): void {
    if (remembered.stamp) this.copies.set(key, remembered as StampedValue<T>);
    else this.copies.delete(key);
  }

  async remember(key: string, options: CacheOptions, compute: () => Promise<T>): Promise<T> {
    const copy = this.current(key);
    if (copy) return copy.value;
    const remembered = await this.cache.rememberStamped(key, options, compute);
    this.keep(key, remembered);
    return remembered.value;
  }
}
