// Rate limits: fixed-window counters keyed by a caller's identity (an IP hash) and an action. Two
// drivers: in process (one node), and Redis, shared by every app node, so a limit holds for an
// installation and not per node. Generic on purpose: any action (comments, votes, clicks, logins)
// uses the same `hit(key, limit, window)`.
import { Redis } from 'ioredis';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';

export interface RateLimitResult {
  /** Whether this hit is within the limit. */
  allowed: boolean;
  /** Hits left in the current window (0 when refused). */
  remaining: number;
  /** Seconds until the window ends (for `Retry-After`). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  /** Counts one hit for `key`; allowed while the window's count is at most `limit`. */
  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitResult>;
  close(): Promise<void>;
}

function result(count: number, limit: number, msLeft: number): RateLimitResult {
  return {
    allowed: count <= limit,
    remaining: Math.max(0, limit - count),
    retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
  };
}

/** Counters in process memory, bounded: expired windows are dropped first, then the oldest keys. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly clock: Clock = systemClock,
    private readonly maxKeys = 100_000,
  ) {}

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
    const now = this.clock.now().getTime();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      this.windows.delete(key); // re-inserted last: Map order is then the order of window starts
      window = { count: 0, resetAt: now + windowSeconds * 1000 };
      if (this.windows.size >= this.maxKeys) this.prune(now);
      this.windows.set(key, window);
    }
    window.count += 1;
    return result(window.count, limit, window.resetAt - now);
  }

  private prune(now: number): void {
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    // Still full: forget the oldest windows (a few callers get a fresh allowance; memory stays bounded).
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(key);
    }
  }

  async close(): Promise<void> {
    this.windows.clear();
  }
}

// INCR and set the window's expiry on the first hit, atomically (a script runs alone in Redis).
// A key left without an expiry (should not happen) gets one, so no counter lives forever.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

export interface RedisRateLimiterOptions {
  url: string;
  /** Prefix of every key (installations and tests sharing one Redis stay apart). */
  prefix?: string;
  warn?: (message: string) => void;
  /** Used while Redis is unreachable: limits then hold per node instead of not at all. */
  fallback?: RateLimiter;
}

/** Counters in Redis, shared by every app node. */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis & {
    folioRateHit(key: string, windowMs: number): Promise<[number, number]>;
  };
  private readonly fallback: RateLimiter;
  private readonly warn: (message: string) => void;
  private readonly firstReady: Promise<void>;
  private lastWarning = 0;

  constructor(options: RedisRateLimiterOptions) {
    this.warn = options.warn ?? ((message) => console.warn(message));
    this.fallback = options.fallback ?? new MemoryRateLimiter();
    const redis = new Redis(options.url, {
      keyPrefix: options.prefix ?? 'folio:rl:',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 1000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    redis.defineCommand('folioRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    redis.on('error', (error: Error) => this.degraded(error.message));
    this.firstReady = new Promise((resolve) => redis.once('ready', () => resolve()));
    this.redis = redis as typeof this.redis;
  }

  private degraded(reason: string): void {
    const now = Date.now();
    if (now - this.lastWarning < 30_000) return;
    this.lastWarning = now;
    this.warn(`rate limits: Redis unavailable (${reason}); counting per node`);
  }

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitResult> {
    if (this.redis.status !== 'ready' && ['wait', 'connecting', 'connect'].includes(this.redis.status)) {
      await Promise.race([this.firstReady, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    }
    if (this.redis.status !== 'ready') {
      this.degraded(`status ${this.redis.status}`);
      return this.fallback.hit(key, limit, windowSeconds);
    }
    try {
      const [count, ttl] = await this.redis.folioRateHit(key, windowSeconds * 1000);
      return result(Number(count), limit, Number(ttl));
    } catch (error) {
      this.degraded((error as Error).message);
      return this.fallback.hit(key, limit, windowSeconds);
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.fallback.close();
  }
}
