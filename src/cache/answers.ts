// Answers kept in this process for cached reads (the posts API's list pages and posts): the shared
// cache holds a token per key, the answer stays here under it. See LocalAnswers.
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Cache, CacheOptions, TagStamp } from './cache.js';
import { isCopyCurrent } from './near-cache.js';

/**
 * Cached answers kept in this process. The shared cache (Redis on several nodes) holds only a token
 * per key, stamped with the tag versions like any entry, so flushes and expiry work as they do for
 * every entry, on every node. The answer itself stays here under the token it was made for: a request
 * reads the token (small), and uses the local answer only when it was made for that very token. A
 * token this process has no answer for (another node made it, or it was evicted here) gets one made
 * now: made after the token was read, it is at least as new as the token; a flush since then makes
 * the token unreadable, so the answer is never used again.
 *
 * Once a local answer's token has been read back with its stamp (the tag versions it was stored
 * under), the answer is used without asking the shared cache at all while the cache can tell without
 * I/O that the stamp is current (Cache.isCurrent: always in process; on Redis through its mirror of
 * the versions) and the token has not expired.
 */
export class LocalAnswers<T extends object> {
  private readonly entries: LRUCache<string, LocalAnswer<T>>;

  /** `maxBytes`: this process's share of the memory budget for answers (memory-budget.ts). */
  constructor(maxBytes: number) {
    this.entries = new LRUCache({ maxSize: maxBytes, sizeCalculation: (entry) => entry.bytes });
  }

  /**
   * The answer under `key`: `compute()`'s (undefined: none, never kept). `size`: roughly the bytes an
   * answer holds (its text and encoded forms), for the budget.
   */
  async remember(
    cache: Cache,
    key: string,
    options: CacheOptions,
    compute: () => Promise<T | undefined>,
    size: (value: T) => number,
  ): Promise<T | undefined> {
    const entry = (token: string, value: T): LocalAnswer<T> => ({
      token,
      value,
      bytes: Math.max(1, size(value)),
    });
    const known = this.entries.get(key);
    if (known?.stamp && isCopyCurrent(cache, known.stamp, known.expires ?? -1)) return known.value;
    let made: T | undefined;
    const token = await cache.remember<string | undefined>(key, options, async () => {
      made = await compute();
      if (made === undefined) return undefined; // never cached: unknown names cannot fill the cache
      const fresh = randomUUID();
      this.entries.set(key, entry(fresh, made));
      return fresh;
    });
    if (token === undefined) return made;
    let value = made;
    if (value === undefined) {
      const local = this.entries.get(key);
      if (local?.token === token) value = local.value;
      else {
        value = await compute();
        if (value !== undefined) this.entries.set(key, entry(token, value));
      }
    }
    await this.learnStamp(cache, key, token);
    return value;
  }

  /** Reads back the stamp of the token this process holds the answer for (see above). */
  private async learnStamp(cache: Cache, key: string, token: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry || entry.token !== token || entry.stamp) return;
    const stored = await cache.getStamped<string>(key);
    if (stored?.value === token && entry === this.entries.get(key)) {
      entry.stamp = stored.stamp;
      entry.expires = stored.expires;
    }
  }
}

interface LocalAnswer<T> {
  token: string;
  value: T;
  bytes: number;
  /** The tag versions the token was stored under, once read back. */
  stamp?: TagStamp;
  /** Epoch milliseconds when the token expires (0: never), with the stamp. */
  expires?: number;
}
