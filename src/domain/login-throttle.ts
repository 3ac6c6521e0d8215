// Attempt counters for login, registration and password-reset requests: fixed windows counted per
// key (an account's email, a client address). Two drivers: in process memory (one node), and Redis
// (SET NX EX + INCR, shared by every app node). When Redis is unreachable the Redis driver counts in
// memory, so a node never stops limiting because Redis is down.
import type { Redis } from 'ioredis';
import type { Clock } from './clock.js';

export interface CounterStore {
  /** Adds one to the key's count (starting a window of `windowSeconds` when it has none). */
  hit(key: string, windowSeconds: number): Promise<Count>;
  /** Takes back one hit, if the key's window is still open. */
  undo(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

export interface Count {
  count: number;
  /** Seconds until the window ends (0 when there is no window). */
  retryAfter: number;
}

/** Bounds the memory driver: past this many keys, expired ones are dropped, then the oldest. */
const MAX_MEMORY_KEYS = 100_000;

export class MemoryCounterStore implements CounterStore {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(private readonly clock: Clock) {}

  private live(key: string): { count: number; endsAt: number } | undefined {
    const entry = this.windows.get(key);
    if (entry && entry.endsAt <= this.clock.now().getTime()) {
      this.windows.delete(key);
      return undefined;
    }
    return entry;
  }

  private countOf(entry: { count: number; endsAt: number } | undefined): Count {
    if (!entry) return { count: 0, retryAfter: 0 };
    return { count: entry.count, retryAfter: Math.ceil((entry.endsAt - this.clock.now().getTime()) / 1000) };
  }

  async hit(key: string, windowSeconds: number): Promise<Count> {
    let entry = this.live(key);
    if (!entry) {
      if (this.windows.size >= MAX_MEMORY_KEYS) this.prune();
      entry = { count: 0, endsAt: this.clock.now().getTime() + windowSeconds * 1000 };
      this.windows.set(key, entry);
    }
    entry.count += 1;
    return this.countOf(entry);
  }

  async undo(key: string): Promise<void> {
    const entry = this.live(key);
    if (entry && entry.count > 0) entry.count -= 1;
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  private prune(): void {
    const now = this.clock.now().getTime();
    for (const [key, entry] of this.windows) if (entry.endsAt <= now) this.windows.delete(key);
    // Still full (an attack with many keys): drop the oldest windows (Map keeps insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < MAX_MEMORY_KEYS) break;
      this.windows.delete(key);
    }
  }
}

const UNDO_SCRIPT = `if redis.call('exists', KEYS[1]) == 1 and tonumber(redis.call('get', KEYS[1])) > 0 then
  return redis.call('decr', KEYS[1]) end return 0`;

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly fallback: CounterStore,
    private readonly warn: (message: string) => void,
  ) {}

  private async guarded(work: () => Promise<Count>, degraded: () => Promise<Count>): Promise<Count> {
    try {
      return await work();
    } catch (error) {
      this.warn(`login throttle: Redis unavailable (${(error as Error).message}); counting in memory`);
      return degraded();
    }
  }

  hit(key: string, windowSeconds: number): Promise<Count> {
    return this.guarded(
      async () => {
        // Start a window only when none is open (SET NX EX), then INCR (which keeps the expiry),
        // in one transaction.
        const results = await this.redis
          .multi()
          .set(`rl:${key}`, 0, 'EX', windowSeconds, 'NX')
          .incr(`rl:${key}`)
          .ttl(`rl:${key}`)
          .exec();
        const failed = results?.find(([error]) => error);
        if (!results || failed) throw failed?.[0] ?? new Error('transaction aborted');
        return { count: Number(results[1]?.[1]), retryAfter: Math.max(0, Number(results[2]?.[1])) };
      },
      () => this.fallback.hit(key, windowSeconds),
    );
  }

  async undo(key: string): Promise<void> {
    await this.fallback.undo(key);
    try {
      // DECR only a live window: a DECR of an expired key would make a key without expiry.
      await this.redis.eval(UNDO_SCRIPT, 1, `rl:${key}`);
    } catch (error) {
      this.warn(`login throttle: Redis unavailable (${(error as Error).message})`);
    }
  }

  async reset(key: string): Promise<void> {
    await this.fallback.reset(key);
    try {
      await this.redis.del(`rl:${key}`);
    } catch (error) {
      this.warn(`login throttle: Redis unavailable (${(error as Error).message})`);
    }
  }
}

/** A limit: at most `max` counted attempts per key within `windowSeconds`. */
export interface Limit {
  max: number;
  windowSeconds: number;
}

export interface ThrottleLimits {
  /** Failed logins per account (email), whoever tries. */
  loginPerAccount: Limit;
  /** Failed logins per client address, whatever the account. */
  loginPerAddress: Limit;
  /** Registrations per client address. */
  registerPerAddress: Limit;
  /** Registrations per email (each one mails the address), whether or not it has an account. */
  registerPerEmail: Limit;
  /** Password reset requests per client address, and per email. */
  resetPerAddress: Limit;
  resetPerAccount: Limit;
}

export const DEFAULT_LIMITS: ThrottleLimits = {
  loginPerAccount: { max: 5, windowSeconds: 15 * 60 },
  loginPerAddress: { max: 20, windowSeconds: 15 * 60 },
  registerPerAddress: { max: 10, windowSeconds: 60 * 60 },
  registerPerEmail: { max: 3, windowSeconds: 60 * 60 },
  resetPerAddress: { max: 10, windowSeconds: 60 * 60 },
  resetPerAccount: { max: 3, windowSeconds: 60 * 60 },
};

/** Refused: the number of seconds until the caller may try again. */
export type Verdict = { allowed: true } | { allowed: false; retryAfter: number };

/** Every attempt is counted first (so parallel attempts cannot slip past), then compared. */
function verdict(counts: Count[], limits: Limit[]): Verdict {
  let retryAfter = 0;
  counts.forEach((count, i) => {
    if (count.count > (limits[i] as Limit).max) retryAfter = Math.max(retryAfter, count.retryAfter, 1);
  });
  return retryAfter > 0 ? { allowed: false, retryAfter } : { allowed: true };
}

/**
 * The policies over a counter store. Account keys use the normalized email whether or not an
 * account has it, so a refusal says nothing about which emails exist.
 */
export class LoginThrottle {
  constructor(
    private readonly store: CounterStore,
    readonly limits: ThrottleLimits = DEFAULT_LIMITS,
  ) {}

  private static account(email: string): string {
    return email.trim().toLowerCase().slice(0, 320);
  }

  /** Counts a login attempt, before the password is checked, and says whether it may go on. */
  async loginAttempt(email: string, address: string): Promise<Verdict> {
    const { loginPerAccount, loginPerAddress } = this.limits;
    const counts = await Promise.all([
      this.store.hit(`login:acct:${LoginThrottle.account(email)}`, loginPerAccount.windowSeconds),
      this.store.hit(`login:addr:${address}`, loginPerAddress.windowSeconds),
    ]);
    return verdict(counts, [loginPerAccount, loginPerAddress]);
  }

  /**
   * A successful login clears the account's attempts and takes back its own count from the
   * address (many people behind one address may log in; only failures should add up there).
   */
  async loginSucceeded(email: string, address: string): Promise<void> {
    await Promise.all([
      this.store.reset(`login:acct:${LoginThrottle.account(email)}`),
      this.store.undo(`login:addr:${address}`),
    ]);
  }

  /** Counts a registration attempt and says whether it may go on. */
  async registerAttempt(address: string): Promise<Verdict> {
    const limit = this.limits.registerPerAddress;
    return verdict([await this.store.hit(`register:addr:${address}`, limit.windowSeconds)], [limit]);
  }

  /**
   * Counts a valid registration for an email (normalized, existing or not) and says whether it may
   * mail the address again.
   */
  async registerEmailAttempt(email: string): Promise<Verdict> {
    const limit = this.limits.registerPerEmail;
    return verdict(
      [await this.store.hit(`register:acct:${LoginThrottle.account(email)}`, limit.windowSeconds)],
      [limit],
    );
  }

  /** Counts a password reset request and says whether it may go on. */
  async resetAttempt(email: string, address: string): Promise<Verdict> {
    const { resetPerAddress, resetPerAccount } = this.limits;
    const counts = await Promise.all([
      this.store.hit(`reset:addr:${address}`, resetPerAddress.windowSeconds),
      this.store.hit(`reset:acct:${LoginThrottle.account(email)}`, resetPerAccount.windowSeconds),
    ]);
    return verdict(counts, [resetPerAddress, resetPerAccount]);
  }
}
