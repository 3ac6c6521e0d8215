// The Redis cache driver: entries and tag versions live in Redis, so every app node shares them and
// a tag flush (one INCR per tag) is seen by all nodes at once. When Redis is unreachable the cache
// degrades to "no caching" with a logged warning; users never see a cache error.
//
// Each node also mirrors the tag versions it has used: a flush bumps the versions and publishes the
// new ones in one script (atomic, so every node sees flushes in the order they happened), and every
// node applies what it hears. While the subscription is live, a hit costs one GET instead of a GET
// and an MGET of its tags, and isCurrent() answers from memory. Whenever the subscription drops, the
// mirror is thrown away (flushes may have been missed) and rebuilt from Redis once it is back.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { newRedis } from '../lib/redis-client.js';
import type { Clock } from '../domain/clock.js';
import { ALL_TAG as ALL, TaggedCache } from './cache.js';
import type { StoredEntry } from './cache.js';

const WARN_EVERY_MS = 30_000;
/** A mirror this large is dropped and rebuilt on demand: it only saves round trips. */
const MIRROR_LIMIT = 200_000;

/** INCR every tag key, publish `tag<TAB>version` lines on ARGV[1], answer the new versions. */
const FLUSH_SCRIPT = `
local lines = {}
local versions = {}
for i, key in ipairs(KEYS) do
  local version = redis.call('INCR', key)
  versions[i] = version
  lines[i] = ARGV[i + 1] .. '\\t' .. version
end
redis.call('PUBLISH', ARGV[1], table.concat(lines, '\\n'))
return versions
`;

export interface RedisCacheOptions {
  url: string;
  /** Prefix of every key; separates installations (and tests) sharing one Redis. */
  prefix?: string;
  warn?: (message: string) => void;
  /** How long one command may take before the cache gives up on it. */
  commandTimeoutMs?: number;
  /** For the expiries of process copies (Redis expires its own entries on its own clock). */
  clock?: Clock;
  /** Bytes of entries this process keeps copies of (the data cache's share of the memory budget). */
  copyBytes?: number;
}

/** A random start for the version of ALL, far from any count a flush reaches. */
function randomVersionBase(): number {
  return 1 + (randomBytes(5).readUIntBE(0, 5) % 2 ** 39);
}

type FlushCommand = (keys: string[], argv: string[]) => Promise<number[]>;

export class RedisCache extends TaggedCache {
  private readonly redis: Redis;
  private readonly subscriber: Redis;
  private readonly channel: string;
  private readonly warn: (message: string) => void;
  private lastWarning = 0;
  /** A flush failed while Redis was away: everything is invalidated once it is back. */
  private flushLost = false;
  /** Resolves when the first connection is ready; commands wait for it (briefly) at start-up only. */
  private readonly firstReady: Promise<void>;
  /** Tag versions known to be current while `mirrorLive` (see the top of the file). */
  private readonly mirror = new Map<string, number>();
  private mirrorLive = false;
  /**
   * Resolves once this node first listens to the flushes of all nodes. Starting to listen counts as
   * a flush (whatever was known before may have been missed), so a caller that needs flushCount to
   * stay still (a test of single flights) waits for this first.
   */
  readonly listening: Promise<void>;
  private startedListening: () => void = () => undefined;
  /** Bumped whenever the mirror is dropped: an MGET answered across a drop is not mirrored. */
  private mirrorEpoch = 0;
  private readonly flushScript: FlushCommand;
  /** See RedisCacheOptions.copyBytes. */
  readonly copyBytes: number | undefined;

  constructor(options: RedisCacheOptions) {
    super(options.clock);
    this.copyBytes = options.copyBytes;
    const prefix = options.prefix ?? 'folio:';
    this.channel = `${prefix}flushes`;
    this.warn = options.warn ?? ((message) => console.warn(message));
    this.redis = newRedis(options.url, {
      keyPrefix: prefix,
      // Fail fast instead of queueing while disconnected; keep reconnecting in the background.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 1000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      lazyConnect: false,
    });
    this.redis.defineCommand('folioFlush', { lua: FLUSH_SCRIPT });
    const withScript = this.redis as Redis & {
      folioFlush(numberOfKeys: number, ...args: string[]): Promise<number[]>;
    };
    this.flushScript = (keys, argv) => withScript.folioFlush(keys.length, ...keys, ...argv);
    this.firstReady = new Promise((resolve) => this.redis.once('ready', () => resolve()));
    this.listening = new Promise((resolve) => (this.startedListening = resolve));
    this.redis.on('error', (error: Error) => this.degraded(`connection: ${error.message}`));
    this.redis.on('ready', () => {
      // Versions must never come back (issue 21 #14): a Redis that restarts empty (or evicts the
      // version keys) would count them up from 0 again, and a copy this process stamped before would
      // be taken as current once the counters climb back. Every stamp carries the version of ALL,
      // which starts at a random number whenever Redis has none: a stamp from before can never match.
      this.redis.set(`t:${ALL}`, String(randomVersionBase()), 'NX').catch(() => undefined);
      if (!this.flushLost) return;
      this.flushTags([ALL]).catch(() => undefined);
    });

    this.subscriber = newRedis(options.url, {
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      autoResubscribe: false,
      maxRetriesPerRequest: null,
    });
    this.subscriber.on('error', () => this.dropMirror());
    this.subscriber.on('close', () => this.dropMirror());
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(this.channel).then(
        () => {
          this.dropMirror();
          this.mirrorLive = true;
          this.startedListening();
        },
        () => this.dropMirror(),
      );
    });
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.heard(message);
    });
  }

  private dropMirror(): void {
    this.mirrorLive = false;
    this.mirror.clear();
    this.mirrorEpoch++;
    this.flushes++; // whatever was known may have been flushed meanwhile
  }

  /**
   * A flush published by any node (this one included): versions only ever grow. It counts as a flush
   * only when it tells this node something new: its own flush, mirrored when it was made, came back
   * here and counted twice, and a value computed meanwhile was not kept for nothing.
   */
  private heard(message: string): void {
    if (!this.mirrorLive) return;
    let news = false;
    for (const line of message.split('\n')) {
      const tab = line.lastIndexOf('\t');
      if (tab > 0 && this.mirrorVersion(line.slice(0, tab), Number(line.slice(tab + 1)))) news = true;
    }
    if (news) this.flushes++;
  }

  /** Mirrors a tag's version; true when it is newer than the one known (or none was). */
  private mirrorVersion(tag: string, version: number): boolean {
    if (!Number.isFinite(version)) return false;
    if (this.mirror.size >= MIRROR_LIMIT) this.mirror.clear();
    const known = this.mirror.get(tag);
    if (known !== undefined && version <= known) return false;
    this.mirror.set(tag, version);
    return true;
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

  protected knownVersion(tag: string): number | undefined {
    return this.mirrorLive && this.redis.status === 'ready' ? this.mirror.get(tag) : undefined;
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
    const versions = tags.map((tag) => this.knownVersion(tag));
    const missing = tags.filter((_, i) => versions[i] === undefined);
    if (missing.length === 0) return versions as number[];
    const live = this.mirrorLive;
    const epoch = this.mirrorEpoch;
    try {
      const values = (await this.redis.mget(missing.map((tag) => `t:${tag}`))).map((value) =>
        Number(value ?? 0),
      );
      // Mirrored only when the subscription was live all along: no flush can have been missed.
      const mirrored = live && this.mirrorLive && epoch === this.mirrorEpoch;
      let next = 0;
      return tags.map((tag, i) => {
        const known = versions[i];
        if (known !== undefined) return known;
        const value = values[next++] ?? 0;
        if (mirrored) this.mirrorVersion(tag, value);
        return value;
      });
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
    const unique = [...new Set(tags)];
    if (unique.length === 0) return;
    this.flushes++;
    if (!(await this.available())) {
      this.flushLost = true;
      return;
    }
    try {
      const versions = await this.flushScript(
        unique.map((tag) => `t:${tag}`),
        [this.channel, ...unique],
      );
      // This node sees its own flush at once (its published copy, heard later, changes nothing).
      if (this.mirrorLive) unique.forEach((tag, i) => this.mirrorVersion(tag, Number(versions[i])));
      if (tags.includes(ALL)) this.flushLost = false;
    } catch (error) {
      this.flushLost = true;
      this.dropMirror();
      this.degraded((error as Error).message);
    }
  }

  async close(): Promise<void> {
    this.dropMirror();
    this.redis.disconnect();
    this.subscriber.disconnect();
  }
}
