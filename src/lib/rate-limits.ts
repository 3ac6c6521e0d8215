// Every rate limit of Folio (comments, votes, clicks, logins, registrations, resets) counts through
// this one module, over rate-limiter-flexible: fixed windows per key, in Redis when the installation
// has one (shared by every app node) with an in-memory insurance limiter that keeps limiting per
// node while Redis is unreachable, or in process memory alone.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

/** At most `max` hits per key within a window of `windowSeconds`. */
export interface Limit {
  max: number;
  windowSeconds: number;
}

/** A hit's answer: allowed (with the hits left), or refused with the seconds until the window ends. */
export type Verdict = { allowed: true; remaining: number } | { allowed: false; retryAfter: number };

export interface RateLimitsOptions {
  /** Counts shared by every node; without it, counts live in this process. */
  redis?: Redis | null;
  /** Prefix of every key (installations and tests sharing one Redis stay apart). */
  prefix?: string;
  warn?: (message: string) => void;
}

/**
 * The longest a mark may be kept: the in-memory store expires a key with a timer, and Node fires a
 * timer of more than 2^31 - 1 ms (24.8 days) at once (a longer mark would be forgotten immediately).
 */
const MAX_REMEMBER_SECONDS = 24 * 24 * 60 * 60;
const rememberable = (seconds: number) => Math.min(Math.max(1, Math.round(seconds)), MAX_REMEMBER_SECONDS);

/** A limit's identity: rate-limiter-flexible fixes points and duration per limiter. */
const limitId = (name: string, limit: Limit) => `${name}:${limit.max}:${limit.windowSeconds}`;

/** A refusal, told to come back when the window ends in `ms` (at least a second). */
const refused = (ms: number): Verdict => ({ allowed: false, retryAfter: Math.max(1, Math.ceil(ms / 1000)) });

/** One key's count under a batched limit (hitBatched), as this node sees it. */
interface BatchedCount {
  /** Hits counted here, not yet added to the shared count. */
  pending: number;
  /** The shared count at the last sync (this node's synced hits in it). */
  shared: number;
  /** When the window ends (ms, by Date.now()). */
  endsAt: number;
  syncedAt: number;
  syncing: boolean;
}

/** A batched count adds its hits to the shared count at least this often while they come. */
export const BATCH_SYNC_MS = 250;
/** Keys a batched limit follows per node; the least recent are dropped (they sync at their next hit). */
const MAX_BATCHED_KEYS = 10_000;

export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly batched = new Map<string, Map<string, BatchedCount>>();
  private readonly warn: (message: string) => void;
  private lastWarning = 0;

  constructor(private readonly options: RateLimitsOptions = {}) {
    this.warn = options.warn ?? ((message) => console.warn(message));
  }

  /** One limiter per (name, limit): rate-limiter-flexible fixes points and duration per limiter. */
  private limiter(name: string, limit: Limit): RateLimiterAbstract {
    const id = limitId(name, limit);
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const shape = {
        points: limit.max,
        duration: limit.windowSeconds,
        keyPrefix: `${this.options.prefix ?? 'folio:rl:'}${name}`,
      };
      const memory = new RateLimiterMemory(shape);
      limiter = this.options.redis
        ? new RateLimiterRedis({
            ...shape,
            storeClient: this.options.redis,
            // Not connected: count in memory at once instead of queueing the request.
            rejectIfRedisNotReady: true,
            insuranceLimiter: memory,
          })
        : memory;
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Waits (up to a second) for a connection still being made, so the first requests after a start
   * count in Redis; then says once in a while that counts are per node while Redis is not answering.
   */
  private async noteRedis(): Promise<void> {
    const redis = this.options.redis;
    if (!redis || !this.redisNotReady()) return;
    if (['connecting', 'connect'].includes(redis.status)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, 1000).unref();
        redis.once('ready', done);
      });
      if ((redis.status as string) === 'ready') return; // changed while waiting
    }
    const now = Date.now();
    if (now - this.lastWarning < 30_000) return;
    this.lastWarning = now;
    this.warn(`rate limits: Redis unavailable (status ${redis.status}); counting per node`);
  }

  /** A Redis is configured and not ready: counting must wait for it, or fall back (noteRedis). */
  private redisNotReady(): boolean {
    return !!this.options.redis && this.options.redis.status !== 'ready';
  }

  /** Counts one hit for `key` under the named limit, and says whether it is within the limit. */
  async hit(name: string, key: string, limit: Limit): Promise<Verdict> {
    // Checked here first: an API v2 request hits a limit each time, and the call costs a promise.
    if (this.redisNotReady()) await this.noteRedis();
    try {
      const res = await this.limiter(name, limit).consume(key, 1);
      return { allowed: true, remaining: res.remainingPoints };
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return refused(error.msBeforeNext);
    }
  }

  /**
   * `hit` for a limit that every request of a kind hits (API v2's per key): each node counts hits in
   * memory and adds them to the shared count (Redis, or the in-memory limiter without one) in batches,
   * at least every BATCH_SYNC_MS and every twentieth of the limit, instead of a store round trip per
   * request. One node limits exactly; several may together let through what the others counted in
   * their last quarter second beyond the limit. A key's first hit of a window, and every hit of a
   * limit under 40, syncs at once (exact). The answer is a promise only when a sync is due: the
   * other hits are answered at once, without a promise (the per-request cost API v2 pays).
   */
  hitBatched(name: string, key: string, limit: Limit): Verdict | Promise<Verdict> {
    const id = limitId(name, limit);
    let counts = this.batched.get(id);
    if (!counts) this.batched.set(id, (counts = new Map<string, BatchedCount>()));
    const now = Date.now();
    let count = counts.get(key);
    if (!count || now >= count.endsAt) {
      // A new window, as far as this node knows: the shared count says where it stands.
      count = {
        pending: 0,
        shared: 0,
        endsAt: now + limit.windowSeconds * 1000,
        syncedAt: now,
        syncing: false,
      };
      counts.delete(key);
      counts.set(key, count);
      if (counts.size > MAX_BATCHED_KEYS) counts.delete(counts.keys().next().value!);
      return this.syncBatched(count, name, key, limit, 1);
    }
    if (count.shared + count.pending >= limit.max) {
      // Refused here: the hits still pending go to the shared count now, for the other nodes to see.
      if (count.pending > 0 && !count.syncing) {
        const points = count.pending;
        count.pending = 0;
        return this.syncBatched(count, name, key, limit, points).then(() => refused(count.endsAt - now));
      }
      return refused(count.endsAt - now);
    }
    count.pending++;
    const batch = Math.max(1, Math.floor(limit.max / 20));
    if (!count.syncing && (count.pending >= batch || now - count.syncedAt >= BATCH_SYNC_MS)) {
      const points = count.pending;
      count.pending = 0;
      return this.syncBatched(count, name, key, limit, points);
    }
    return { allowed: true, remaining: limit.max - count.shared - count.pending };
  }

  /** Adds `points` of `count` to the shared count and takes its answer as the count's new state. */
  private async syncBatched(
    count: BatchedCount,
    name: string,
    key: string,
    limit: Limit,
    points: number,
  ): Promise<Verdict> {
    count.syncing = true;
    let answer: RateLimiterRes;
    try {
      if (this.redisNotReady()) await this.noteRedis();
      answer = await this.limiter(name, limit).consume(key, points);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) {
        count.pending += points; // not counted anywhere: kept for the next sync
        throw error;
      }
      answer = error;
    } finally {
      count.syncing = false;
    }
    const now = Date.now();
    // Hits counted here while the sync was on its way stay pending, for the next one.
    count.shared = answer.consumedPoints;
    count.endsAt = now + answer.msBeforeNext;
    count.syncedAt = now;
    if (answer.consumedPoints > limit.max) {
      return refused(answer.msBeforeNext);
    }
    return { allowed: true, remaining: Math.max(0, limit.max - count.shared - count.pending) };
  }

  /** Takes back one hit, if the key's window is still open with hits in it. */
  async undo(name: string, key: string, limit: Limit): Promise<void> {
    await this.noteRedis();
    const limiter = this.limiter(name, limit);
    const current = await limiter.get(key);
    if (current && current.consumedPoints > 0) await limiter.reward(key, 1);
  }

  /**
   * Notes `key` under `name` for `seconds` (a mark in the same store as the counts: shared over
   * Redis, in memory otherwise), e.g. an address the account has logged in from.
   */
  async remember(name: string, key: string, seconds: number): Promise<void> {
    await this.noteRedis();
    const kept = rememberable(seconds);
    await this.limiter(name, { max: 1, windowSeconds: kept }).set(key, 1, kept);
  }

  /** Whether `key` was noted under `name` (with the same `seconds`) and has not expired. */
  async remembers(name: string, key: string, seconds: number): Promise<boolean> {
    await this.noteRedis();
    const mark = await this.limiter(name, { max: 1, windowSeconds: rememberable(seconds) }).get(key);
    return !!mark && mark.consumedPoints > 0;
  }

  /** Forgets the key's window (on this node's batched count too; other nodes' catch up at their next sync). */
  async reset(name: string, key: string, limit: Limit): Promise<void> {
    await this.noteRedis();
    this.batched.get(limitId(name, limit))?.delete(key);
    await this.limiter(name, limit).delete(key);
  }
}
