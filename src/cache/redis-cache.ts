// The Redis cache driver: entries and tag versions live in Redis, so every app node shares them and
// a tag flush (one INCR per tag) is seen by all nodes at once. When Redis is unreachable the cache
// degrades to "no caching" with a logged warning; users never see a cache error.
import { Redis } from 'ioredis';
import { TaggedCache } from './cache.js';
import type { StoredEntry } from './cache.js';

/** Every entry carries this tag, so clear() is one INCR instead of a scan of the keys. */
const ALL = '__all__';
const WARN_EVERY_MS = 30_000;

export interface RedisCacheOptions {
  url: string;
  /** Prefix of every key; separates installations (and tests) sharing one Redis. */
  prefix?: string;
  warn?: (message: string) => void;
  /** How long one command may take before the cache gives up on it. */
  commandTimeoutMs?: number;
}

export class RedisCache extends TaggedCache {
  private readonly redis: Redis;
  private readonly warn: (message: string) => void;
  private lastWarning = 0;
  /** A flush failed while Redis was away: everything is invalidated once it is back. */
  private flushLost = false;
  /** Resolves when the first connection is ready; commands wait for it (briefly) at start-up only. */
  private readonly firstReady: Promise<void>;

  constructor(options: RedisCacheOptions) {
    super();
    this.warn = options.warn ?? ((message) => console.warn(message));
    this.redis = new Redis(options.url, {
      keyPrefix: options.prefix ?? 'folio:',
      // Fail fast instead of queueing while disconnected; keep reconnecting in the background.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 1000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      lazyConnect: false,
    });
    this.firstReady = new Promise((resolve) => this.redis.once('ready', () => resolve()));
    this.redis.on('error', (error: Error) => this.degraded(`connection: ${error.message}`));
    this.redis.on('ready', () => {
      if (!this.flushLost) return;
      this.redis.incr(`t:${ALL}`).then(
        () => (this.flushLost = false),
        () => undefined,
      );
    });
  }

  private degraded(reason: string): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.warn(`cache: Redis unavailable (${reason}); serving without the cache`);
  }

  /**
   * Whether commands can go to Redis now. Commands are not queued while disconnected (a request
   * must never wait on a cache that is down); only the first connection is waited for, briefly.
   */
  private async available(): Promise<boolean> {
    const ready = () => this.redis.status === 'ready';
    if (ready()) return true;
    if (['wait', 'connecting', 'connect'].includes(this.redis.status)) {
      await Promise.race([this.firstReady, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    }
    if (ready()) return true;
    this.degraded(`status ${this.redis.status}`);
    return false;
  }

  protected override tagsOf(tags: readonly string[]): string[] {
    return [...tags, ALL];
  }

  protected async read(key: string): Promise<StoredEntry | undefined> {
    if (!(await this.available())) return undefined;
    try {
      const raw = await this.redis.get(`c:${key}`);
      return raw === null ? undefined : (JSON.parse(raw) as StoredEntry);
    } catch (error) {
      this.degraded((error as Error).message);
      return undefined;
    }
  }

  protected async write(key: string, entry: StoredEntry, ttlSeconds: number): Promise<void> {
    if (!(await this.available())) return;
    try {
      const raw = JSON.stringify(entry);
      if (ttlSeconds > 0) await this.redis.set(`c:${key}`, raw, 'EX', ttlSeconds);
      else await this.redis.set(`c:${key}`, raw);
    } catch (error) {
      this.degraded((error as Error).message);
    }
  }

  protected async tagVersions(tags: readonly string[]): Promise<number[] | null> {
    if (tags.length === 0) return [];
    if (!(await this.available())) return null;
    try {
      const values = await this.redis.mget(tags.map((tag) => `t:${tag}`));
      return values.map((value) => Number(value ?? 0));
    } catch (error) {
      this.degraded((error as Error).message);
      return null;
    }
  }

  async delete(key: string): Promise<void> {
    if (!(await this.available())) return;
    try {
      await this.redis.del(`c:${key}`);
    } catch (error) {
      this.degraded((error as Error).message);
    }
  }

  async flushTags(tags: readonly string[]): Promise<void> {
    if (tags.length === 0) return;
    if (!(await this.available())) {
      this.flushLost = true;
      return;
    }
    try {
      const pipeline = this.redis.pipeline();
      for (const tag of new Set(tags)) pipeline.incr(`t:${tag}`);
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error);
      if (failed?.[0]) throw failed[0];
    } catch (error) {
      this.flushLost = true;
      this.degraded((error as Error).message);
    }
  }

  async clear(): Promise<void> {
    await this.flushTags([ALL]);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
