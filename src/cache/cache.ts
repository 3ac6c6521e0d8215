// The cache: values with a time to live and tags, flushed by tag. Tags are versioned: every entry
// remembers the version of each of its tags when it was written (its stamp), and a flush bumps the
// versions, so a flush is one cheap write that every app node sees (on Redis), never a scan of keys.
//
// Every entry also carries the tag ALL_TAG, so clear() is one flush. A process can tell without any
// I/O whether a stamp is still current when it knows the tag versions (always in process; on Redis
// while its mirror of the versions is kept fresh by published flushes): the full-page cache serves
// its hottest pages from process memory on that basis.
import { LRUCache } from 'lru-cache';
import { systemClock } from '../domain/clock.js';
import type { Clock } from '../domain/clock.js';

export interface CacheOptions {
  /** Seconds until the entry expires; 0 or absent: until flushed or evicted. */
  ttlSeconds?: number;
  tags?: readonly string[];
}

/** The version of each tag of an entry when it was written (or of tags about to be used). */
export type TagStamp = Readonly<Record<string, number>>;

export interface Cache {
  /** The cache's time in epoch milliseconds: its clock (injected by tests), for expiries it keeps. */
  now(): number;
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, options?: CacheOptions): Promise<void>;
  /** The cached value, or `compute()` stored under the key. Concurrent callers share one computation. */
  remember<T>(key: string, options: CacheOptions, compute: () => Promise<T>): Promise<T>;
  /** remember(), answering also the stamp and expiry of the entry (stamp null: nothing was kept). */
  rememberStamped<T>(key: string, options: CacheOptions, compute: () => Promise<T>): Promise<Remembered<T>>;
  delete(key: string): Promise<void>;
  /** Invalidates every entry carrying any of these tags. */
  flushTags(tags: readonly string[]): Promise<void>;
  /** Invalidates everything. */
  clear(): Promise<void>;
  close(): Promise<void>;

  /**
   * The current versions of these tags (and of ALL_TAG): take it *before* reading what a value is
   * computed from, and store the value with setStamped(), so that a flush meanwhile wins. Null when
   * the versions cannot be read (the cache is unavailable).
   */
  stamp(tags: readonly string[]): Promise<TagStamp | null>;
  /** Stores a value under a stamp taken earlier. */
  setStamped(key: string, value: unknown, stamp: TagStamp, ttlSeconds?: number): Promise<void>;
  /** A current entry: its value, its stamp and when it expires (epoch ms, 0 for never). */
  getStamped<T>(key: string): Promise<StampedValue<T> | undefined>;
  /**
   * Whether an entry of this stamp is still current, answered without I/O; false whenever this
   * process cannot tell for sure.
   */
  isCurrent(stamp: TagStamp): boolean;
  /**
   * Counts the flushes this process has made or seen. Unchanged between two readings means no flush
   * this process could know of happened in between.
   */
  readonly flushCount: number;
}

export interface StampedValue<T> {
  value: T;
  stamp: TagStamp;
  /** Epoch milliseconds when the entry expires; 0 for never. */
  expires: number;
}

export interface Remembered<T> {
  value: T;
  stamp: TagStamp | null;
  expires: number;
}

/** What an entry holds: the value, the tag versions it was written under, and its expiry. */
export interface StoredEntry {
  value: unknown;
  tags: Record<string, number>;
  /** Epoch milliseconds; 0 or absent for never. */
  expires?: number;
}

/** Carried by every entry: flushing it is clear(). */
export const ALL_TAG = '__all__';

/** When an entry of this time to live, written now, expires (epoch ms; 0 for never). */
export const expiryOf = (ttlSeconds: number, now: number) => (ttlSeconds > 0 ? now + ttlSeconds * 1000 : 0);

/**
 * The shared part of both drivers: remember() with one computation per key at a time, and tag
 * checks. A driver provides raw storage and tag versions.
 */
export abstract class TaggedCache implements Cache {
  private readonly pending = new SingleFlight();
  protected flushes = 0;

  constructor(protected readonly clock: Clock = systemClock) {}

  now(): number {
    return this.clock.now().getTime();
  }

  protected abstract read(key: string): Promise<StoredEntry | undefined>;
  protected abstract write(key: string, entry: StoredEntry, ttlSeconds: number): Promise<void>;
  /** Current versions of the tags, or null when they cannot be read (the cache is unavailable). */
  protected abstract tagVersions(tags: readonly string[]): Promise<number[] | null>;
  /** The version of a tag when this process knows it without I/O, else undefined. */
  protected abstract knownVersion(tag: string): number | undefined;
  abstract delete(key: string): Promise<void>;
  abstract flushTags(tags: readonly string[]): Promise<void>;
  abstract close(): Promise<void>;

  get flushCount(): number {
    return this.flushes;
  }

  async clear(): Promise<void> {
    await this.flushTags([ALL_TAG]);
  }

  async get<T>(key: string): Promise<T | undefined> {
    return (await this.getStamped<T>(key))?.value;
  }

  async getStamped<T>(key: string): Promise<StampedValue<T> | undefined> {
    const entry = await this.read(key);
    if (!entry) return undefined;
    const tags = Object.keys(entry.tags);
    if (tags.length > 0) {
      const current = await this.tagVersions(tags);
      if (!current || tags.some((tag, i) => current[i] !== entry.tags[tag])) return undefined;
    }
    return { value: entry.value as T, stamp: entry.tags, expires: entry.expires ?? 0 };
  }

  isCurrent(stamp: TagStamp): boolean {
    for (const tag in stamp) {
      if (this.knownVersion(tag) !== stamp[tag]) return false;
    }
    return true;
  }

  async stamp(tags: readonly string[]): Promise<TagStamp | null> {
    // Every tag once, in order, ALL_TAG last unless named before (a page stamps ~10 tags per request:
    // no intermediate arrays, sets or entry pairs).
    const all: string[] = [];
    const seen = new Set<string>();
    for (const tag of tags) {
      if (!seen.has(tag)) {
        seen.add(tag);
        all.push(tag);
      }
    }
    if (!seen.has(ALL_TAG)) all.push(ALL_TAG);
    const versions = await this.tagVersions(all);
    if (!versions) return null;
    const stamp: Record<string, number> = {};
    for (let i = 0; i < all.length; i++) stamp[all[i]!] = versions[i] ?? 0;
    return stamp;
  }

  async setStamped(key: string, value: unknown, stamp: TagStamp, ttlSeconds = 0): Promise<void> {
    await this.write(
      key,
      { value, tags: { ...stamp }, expires: expiryOf(ttlSeconds, this.now()) },
      ttlSeconds,
    );
  }

  async set(key: string, value: unknown, options: CacheOptions = {}): Promise<void> {
    const stamp = await this.stamp(options.tags ?? []);
    if (stamp) await this.setStamped(key, value, stamp, options.ttlSeconds ?? 0);
  }

  async remember<T>(key: string, options: CacheOptions, compute: () => Promise<T>): Promise<T> {
    return (await this.rememberStamped(key, options, compute)).value;
  }

  async rememberStamped<T>(
    key: string,
    options: CacheOptions,
    compute: () => Promise<T>,
  ): Promise<Remembered<T>> {
    const cached = await this.getStamped<T>(key);
    if (cached !== undefined && cached.value !== undefined) return cached;
    return this.pending.run(key, this.flushes, async (): Promise<Remembered<T>> => {
      // Tag versions are read before computing: a flush during the computation wins.
      const flushes = this.flushes;
      const ttl = options.ttlSeconds ?? 0;
      const stamp = await this.stamp(options.tags ?? []);
      const value = await compute();
      if (value === undefined || !stamp) return { value, stamp: null, expires: 0 };
      // A flush meanwhile makes the value stale: a newer computation may be storing the fresh one.
      if (this.flushes !== flushes) return { value, stamp: null, expires: 0 };
      await this.setStamped(key, value, stamp, ttl);
      return { value, stamp, expires: expiryOf(ttl, this.now()) };
    });
  }
}

/**
 * One computation per key at a time, for the callers of one generation: a caller that comes after a
 * flush (the flush count moved) never joins a computation begun before it, which may have read the
 * data as it was (read your writes); it starts its own.
 */
export class SingleFlight {
  private readonly running = new Map<string, { generation: number; work: Promise<unknown> }>();

  run<T>(key: string, generation: number, compute: () => Promise<T>): Promise<T> {
    const current = this.running.get(key);
    if (current && current.generation === generation) return current.work as Promise<T>;
    const entry = { generation, work: undefined as unknown as Promise<T> };
    entry.work = compute().finally(() => {
      if (this.running.get(key) === entry) this.running.delete(key);
    });
    this.running.set(key, entry);
    return entry.work;
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

  constructor(maxBytes = 64 * 1024 * 1024, clock: Clock = systemClock) {
    super(clock);
    // Time to live follows the cache's clock (tests advance a manual one instead of sleeping).
    this.entries = new LRUCache<string, StoredEntry>({
      maxSize: maxBytes,
      sizeCalculation: sizeOf,
      perf: { now: () => clock.now().getTime() },
      ttlResolution: 0, // ask the clock every time (a manual clock moves without timers)
    });
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

  protected knownVersion(tag: string): number {
    return this.versions.get(tag) ?? 0;
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async flushTags(tags: readonly string[]): Promise<void> {
    for (const tag of tags) this.versions.set(tag, (this.versions.get(tag) ?? 0) + 1);
    this.flushes++;
  }

  override async clear(): Promise<void> {
    await super.clear();
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
