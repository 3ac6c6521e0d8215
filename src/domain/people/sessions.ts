// Visitor sessions of the public site. A session id is 32 random bytes; stores keep only its SHA-256,
// so a leaked table (or Redis dump) gives nobody a session. Two stores: the database (default) and
// Redis (when REDIS_URL is set: every app node sees a session at once, and expiry is Redis's own).
// Sessions have a fixed lifetime (setting `session_lifetime`, minutes); logging in always starts a
// new one (rotation), and a password change or reset ends every other session of the user.
import { hash, randomBytes } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import type { Db } from '../../db/database.js';
import type { Clock } from '../clock.js';
import type { SettingsService } from '../system/settings.js';
import type { User, UsersService } from './users.js';
import { toIso } from '../values.js';

export const SESSION_LIFETIME_SETTING = 'session_lifetime';
/** Minutes: one week. */
export const DEFAULT_SESSION_LIFETIME = 7 * 24 * 60;
const MAX_SESSION_LIFETIME = 366 * 24 * 60;

export interface SessionStore {
  create(tokenHash: string, userId: number, now: Date, expiresAt: Date): Promise<void>;
  /** The user of a live (unexpired) session, or null. */
  find(tokenHash: string, now: Date): Promise<number | null>;
  destroy(tokenHash: string): Promise<void>;
  /** Ends every session of the user, but the one given. */
  destroyUser(userId: number, exceptHash?: string): Promise<void>;
}

export class DatabaseSessionStore implements SessionStore {
  constructor(private readonly db: Db) {}

  async create(tokenHash: string, userId: number, now: Date, expiresAt: Date): Promise<void> {
    // Expired rows are dropped as new sessions start: an indexed range delete, no sweeper needed.
    await this.db.deleteFrom('sessions').where('expires_at', '<=', now.toISOString()).execute();
    await this.db
      .insertInto('sessions')
      .values({
        token_hash: tokenHash,
        user_id: userId,
        created_at: now.toISOString(),
        expires_at: expiresAt.toISOString(),
      })
      .execute();
  }

  async find(tokenHash: string, now: Date): Promise<number | null> {
    const row = await this.db
      .selectFrom('sessions')
      .select(['user_id', 'expires_at'])
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    if (!row || toIso(row.expires_at) <= now.toISOString()) return null;
    return row.user_id;
  }

  async destroy(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
  }

  async destroyUser(userId: number, exceptHash?: string): Promise<void> {
    let query = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (exceptHash) query = query.where('token_hash', '!=', exceptHash);
    await query.execute();
  }
}

/** Runs a MULTI and throws the first error of its commands (exec() reports them per command). */
async function run(multi: ChainableCommander): Promise<void> {
  const results = await multi.exec();
  if (!results) throw new Error('Redis transaction aborted');
  const failed = results.find(([error]) => error);
  if (failed?.[0]) throw failed[0];
}

/** `s:<hash>` holds the user id with the session's expiry; `su:<user>` lists a user's hashes. */
export class RedisSessionStore implements SessionStore {
  constructor(private readonly redis: Redis) {}

  async create(tokenHash: string, userId: number, now: Date, expiresAt: Date): Promise<void> {
    const seconds = Math.max(1, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000));
    await run(
      this.redis
        .multi()
        .set(`s:${tokenHash}`, String(userId), 'EX', seconds)
        .sadd(`su:${userId}`, tokenHash)
        // The list outlives any session of the user (lifetimes may differ); stale entries are harmless.
        .expire(`su:${userId}`, MAX_SESSION_LIFETIME * 60),
    );
  }

  async find(tokenHash: string): Promise<number | null> {
    const value = await this.redis.get(`s:${tokenHash}`);
    return value === null || !/^\d+$/.test(value) ? null : Number(value);
  }

  async destroy(tokenHash: string): Promise<void> {
    const userId = await this.redis.get(`s:${tokenHash}`);
    const multi = this.redis.multi().del(`s:${tokenHash}`);
    if (userId !== null) multi.srem(`su:${userId}`, tokenHash);
    await run(multi);
  }

  async destroyUser(userId: number, exceptHash?: string): Promise<void> {
    const hashes = (await this.redis.smembers(`su:${userId}`)).filter((hash) => hash !== exceptHash);
    if (hashes.length === 0) return;
    await run(
      this.redis
        .multi()
        .del(...hashes.map((hash) => `s:${hash}`))
        .srem(`su:${userId}`, ...hashes),
    );
  }
}

export function hashSessionId(id: string): string {
  return hash('sha256', id, 'hex');
}

export interface StartedSession {
  /** The session id, for the cookie; never stored. */
  id: string;
  expiresAt: Date;
  maxAgeSeconds: number;
}

/** The setting holding the installation's secret for signing cookies. */
export const APP_SECRET_SETTING = 'app_secret';

export class SessionService {
  constructor(
    private readonly store: SessionStore,
    private readonly users: UsersService,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
  ) {}

  /**
   * The installation's secret for signing cookies (the session cookie, the visitor id), generated on
   * first use and shared by all nodes through the settings.
   */
  async signingSecret(): Promise<string> {
    return this.settings.setIfAbsent(APP_SECRET_SETTING, randomBytes(32).toString('base64url'));
  }

  /** The lifetime of a new session, in seconds (setting in minutes, 1 minute to a year). */
  async lifetimeSeconds(): Promise<number> {
    const minutes = Number((await this.settings.get(SESSION_LIFETIME_SETTING))?.trim());
    const valid = Number.isInteger(minutes) && minutes >= 1 ? Math.min(minutes, MAX_SESSION_LIFETIME) : 0;
    return (valid || DEFAULT_SESSION_LIFETIME) * 60;
  }

  async start(userId: number): Promise<StartedSession> {
    const id = randomBytes(32).toString('base64url');
    const maxAgeSeconds = await this.lifetimeSeconds();
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + maxAgeSeconds * 1000);
    await this.store.create(hashSessionId(id), userId, now, expiresAt);
    return { id, expiresAt, maxAgeSeconds };
  }

  /** The active user of a live session, or null (unknown, expired, ended, user disabled). */
  async userOf(id: string): Promise<User | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const userId = await this.store.find(hashSessionId(id), this.clock.now());
    if (userId === null) return null;
    const user = await this.users.findById(userId);
    return user?.isActive ? user : null;
  }

  async end(id: string): Promise<void> {
    await this.store.destroy(hashSessionId(id));
  }

  /** Ends every session of the user except `keepId` (after a password change, or all of them). */
  async endAllOf(userId: number, keepId?: string): Promise<void> {
    await this.store.destroyUser(userId, keepId === undefined ? undefined : hashSessionId(keepId));
  }
}
