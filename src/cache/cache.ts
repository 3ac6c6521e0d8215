// The cache: values with a time to live and tags, flushed by tag. Tags are versioned: every entry
// remembers the version of each of its tags when it was written, and a flush bumps the versions, so
// a flush is one cheap write that every app node sees (on Redis), never a scan of the keys.
import { LRUCache } from 'lru-cache';

export interface CacheOptions {
  /** Seconds until the entry expires; 0 or absent: until flushed or evicted. */
  ttlSeconds?: number;
  tags?: readonly string[];
}

export interface Cache {
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, options?: CacheOptions): Promise<void>;
  /** The cached value, or `compute()` stored under the key. Concurrent callers share one computation. */
  remember<T>(key: string, options: CacheOptions, compute: () => Promise<T>): Promise<T>;
  delete(key: string): Promise<void>;
  /** Invalidates every entry carrying any of these tags. */
  flushTags(tags: readonly string[]): Promise<void>;
  /** Invalidates everything. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

/** What an entry holds: the value and the tag versions it was written under. */
export interface StoredEntry {
  value: unknown;
  tags: Record<string, number>;
}

/**
 * The shared part of both drivers: remember() with one computation per key at a time, and tag
 * checks. A driver provides raw storage and tag versions.
 */
export abstract class TaggedCache implements Cache {
  private readonly pending = new Map<string, Promise<unknown>>();

  protected abstract read(key: string): Promise<StoredEntry | undefined>;
  protected abstract write(key: string, entry: StoredEntry, ttlSeconds: number): Promise<void>;
  /** Current versions of the tags, or null when they cannot be read (the cache is unavailable). */
  protected abstract tagVersions(tags: readonly string[]): Promise<number[] | null>;
  abstract delete(key: string): Promise<void>;
  abstract flushTags(tags: readonly string[]): Promise<void>;
  abstract clear(): Promise<void>;
  abstract close(): Promise<void>;

  /** The tags an entry is stored under: the given ones, plus any the driver always adds. */
  protected tagsOf(tags: readonly string[]): string[] {
    return [...tags];
  }

  async get<T>(key: string): Promise<T | undefined> {
    const entry = await this.read(key);
    if (!entry) return undefined;
    const tags = Object.keys(entry.tags);
    if (tags.length > 0) {
      const current = await this.tagVersions(tags);
      if (!current || tags.some((tag, i) => current[i] !== entry.tags[tag])) return undefined;
    }
    return entry.value as T;
  }

  /** An entry for the value, stamped with the tag versions of now; null when they cannot be read. */
  private async stamp(value: unknown, options: CacheOptions): Promise<StoredEntry | null> {
    const tags = this.tagsOf([...new Set(options.tags ?? [])]);
    const versions = await this.tagVersions(tags);
    if (!versions) return null;
    return { value, tags: Object.fromEntries(tags.map((tag, i) => [tag, versions[i] ?? 0])) };
  }

  async set(key: string, value: unknown, options: CacheOptions = {}): Promise<void> {
    const entry = await this.stamp(value, options);
    if (entry) await this.write(key, entry, options.ttlSeconds ?? 0);
  }

  async remember<T>(key: string, options: CacheOptions, compute: () => Promise<T>): Promise<T> {
    const cached = await this.get<T>(key);
    if (cached !== undefined) return cached;
    const running = this.pending.get(key);
    if (running) return running as Promise<T>;
    const work = (async () => {
      // Tag versions are read before computing: a flush during the computation wins.
      const stamp = await this.stamp(undefined, options);
      const value = await compute();
      if (value !== undefined && stamp) await this.write(key, { ...stamp, value }, options.ttlSeconds ?? 0);
      return value;
    })().finally(() => this.pending.delete(key));
    this.pending.set(key, work);
    return work;
  }
}

/** Rough size of a value in bytes, for the memory bound. */
function sizeOf(entry: StoredEntry): number {
  const { value } = entry;
  if (typeof value === 'string') return value.length * 2 + 64;
  if (Buffer.isBuffer(value)) return value.length + 64;
  try {
    return JSON.stringify(value).length * 2 + 64;
  } catch {
    return 1024;
  }
}

/** In-process cache, bounded by bytes (the default when no REDIS_URL is set). */
export class MemoryCache extends TaggedCache {
  private readonly entries: LRUCache<string, StoredEntry>;
  private readonly versions = new Map<string, number>();

  constructor(maxBytes = 64 * 1024 * 1024) {
    super();
    this.entries = new LRUCache<string, StoredEntry>({ maxSize: maxBytes, sizeCalculation: sizeOf });
  }

  protected async read(key: string): Promise<StoredEntry | undefined> {
    return this.entries.get(key);
  }

  protected async write(key: string, entry: StoredEntry, ttlSeconds: number): Promise<void> {
    this.entries.set(key, entry, ttlSeconds > 0 ? { ttl: ttlSeconds * 1000 } : {});
  }

  protected async tagVersions(tags: readonly string[]): Promise<number[]> {
    return tags.map((tag) => this.versions.get(tag) ?? 0);
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async flushTags(tags: readonly string[]): Promise<void> {
    for (const tag of tags) this.versions.set(tag, (this.versions.get(tag) ?? 0) + 1);
  }

  async clear(): Promise<void> {
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
