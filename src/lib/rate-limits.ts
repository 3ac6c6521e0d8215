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

export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly warn: (message: string) => void;
  private lastWarning = 0;

  constructor(private readonly options: RateLimitsOptions = {}) {
    this.warn = options.warn ?? ((message) => console.warn(message));
  }

  /** One limiter per (name, limit): rate-limiter-flexible fixes points and duration per limiter. */
  private limiter(name: string, limit: Limit): RateLimiterAbstract {
    const id = `${name}:${limit.max}:${limit.windowSeconds}`;
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
      return { allowed: false, retryAfter: Math.max(1, Math.ceil(error.msBeforeNext / 1000)) };
    }
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

  /** Forgets the key's window. */
  async reset(name: string, key: string, limit: Limit): Promise<void> {
    await this.noteRedis();
    await this.limiter(name, limit).delete(key);
  }
}
