// A process-local copy in front of the shared cache, for small values read on every request (which
// website a host shows). A copy is used without asking the shared cache while the cache can tell
// without I/O that its tags are current (Cache.isCurrent: always in process; on Redis through its
// mirror of the versions) and it has not expired; otherwise the shared cache answers (or computes)
// and the copy is renewed. The values are shared objects: callers must not change them.
import { LRUCache } from 'lru-cache';
import type { Cache, CacheOptions, Remembered } from './cache.js';

export class NearCache<T extends object> {
  private readonly copies: LRUCache<string, Remembered<T>>;

  constructor(
    private readonly cache: Cache,
    max = 10_000,
  ) {
    this.copies = new LRUCache({ max });
  }

  async remember(key: string, options: CacheOptions, compute: () => Promise<T>): Promise<T> {
    const copy = this.copies.get(key);
    if (copy?.stamp && (copy.expires === 0 || copy.expires > Date.now()) && this.cache.isCurrent(copy.stamp))
      return copy.value;
    const remembered = await this.cache.rememberStamped(key, options, compute);
    if (remembered.stamp) this.copies.set(key, remembered);
    else this.copies.delete(key);
    return remembered.value;
  }
}
