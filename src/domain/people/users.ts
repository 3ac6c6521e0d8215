// Users, their argon2 password hashes, and their API token. A user has at most one token; only its
// SHA-256 is stored, so a token is shown once, when issued, and looked up by its hash.
import { hash, randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { UsersTable } from '../../db/schema.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import type { CredentialCache } from './credential-cache.js';
import { InputError } from '../errors.js';
import { isStorableId } from '../ids.js';
import { flag, toIso } from '../values.js';

export interface User {
  id: number;
  name: string;
  email: string;
  username: string | null;
  isAdmin: boolean;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  /** The language the person chose for the panel and their mails (`zh_TW`), or null. */
  locale: string | null;
}

export interface NewUser {
  name: string;
  email: string;
  password: string;
  username?: string | null;
  isAdmin?: boolean;
}

export const MIN_PASSWORD_LENGTH = 8;

/**
 * The password hash of an account an import brought without a password (a WordPress or Ghost
 * author): no password verifies against it; the owner chooses one through the link they are sent.
 */
export const IMPORTED_WITHOUT_PASSWORD = '!imported: no password set (reset it to sign in)';
const TOKEN_PREFIX = 'folio_';
// A real hash of a random password: verifying against it makes an unknown email cost as much as a
// known one, so response times do not reveal which emails exist. Made on first use.
let dummyHash: Promise<string> | undefined;
const getDummyHash = () => (dummyHash ??= argon2Hash(randomBytes(16).toString('hex')));

/**
 * Cache tag of cached answers that show a user's name or email (the API's post answers show their
 * author's); flushed whenever a user's name or email changes.
 */
export const USERS_CACHE_TAG = 'users';

/** Every API request hashes its token: the one-shot hash() costs a third of createHash()'s object. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    username: row.username,
    isAdmin: flag(row.is_admin),
    isActive: flag(row.is_active),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    locale: row.locale ?? null,
  };
}

export class UsersService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Token -> user, remembered for seconds and forgotten on every change (absent: none). */
    readonly credentials?: CredentialCache,
  ) {}

  private readonly disabledListeners: Array<(userId: number) => Promise<void>> = [];

  /**
   * Runs after an account is disabled (services.ts: the session store ends its sessions, issue 34
   * #13, so that enabling it again does not bring back sessions started before).
   */
  whenDisabled(listener: (userId: number) => Promise<void>): void {
    this.disabledListeners.push(listener);
  }

  /**
   * Tells every process that users, tokens or keys changed: what they remember of credentials is
   * forgotten. Every write of those tables calls it (here, AccountsService, ApiKeysService).
   */
  async credentialsChanged(): Promise<void> {
    await this.credentials?.changed();
  }

  async create(input: NewUser): Promise<User> {
    const email = normalizeEmail(input.email);
    const name = input.name.trim();
    if (name === '') throw new InputError('name', 'The name field is required.');
    if (!/^[^\s@]+@[^\s@]+$/.test(email))
      throw new InputError('email', 'The email must be a valid email address.');
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      throw new InputError('password', `The password must be at least ${MIN_PASSWORD_LENGTH} characters.`);
    }
    if (await this.findByEmail(email)) throw new InputError('email', 'The email has already been taken.');

    const now = nowIso(this.clock);
    const row = await this.db
      .insertInto('users')
      .values({
        name,
        email,
        username: input.username ?? null,
        password_hash: await argon2Hash(input.password),
        is_admin: input.isAdmin ?? false,
        is_active: true,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toUser(row);
  }

  async findById(id: number): Promise<User | null> {
    if (!isStorableId(id)) return null;
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async findByEmail(email: string): Promise<User | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', normalizeEmail(email))
      .executeTakeFirst();
    return row ? toUser(row) : null;
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * Enables or disables an account. The last active administrator cannot be disabled: nobody could
   * then run the installation (issue 20). The check is part of the UPDATE itself.
   */
  async setActive(id: number, active: boolean): Promise<void> {
    if (active) {
      await this.db
        .updateTable('users')
        .set({ is_active: true, updated_at: nowIso(this.clock) })
        .where('id', '=', id)
        .execute();
      await this.credentialsChanged();
      return;
    }
    const result = await this.db
      .updateTable('users')
      .set({ is_active: false, updated_at: nowIso(this.clock) })
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb('is_admin', '=', false),
          eb.exists(
            eb
              .selectFrom('users as other')
              .select('other.id')
              .where('other.id', '!=', id)
              .where('other.is_admin', '=', true)
              .where('other.is_active', '=', true),
          ),
        ]),
      )
      .executeTakeFirst();
    await this.credentialsChanged();
    if (Number(result.numUpdatedRows) === 0 && (await this.findById(id))?.isAdmin) {
      throw new InputError('email', 'The last active administrator cannot be disabled.');
    }
    for (const listener of this.disabledListeners) await listener(id);
  }

  /** Issues a new API token for the user, replacing any previous one. The token is returned once. */
  async issueToken(userId: number): Promise<string> {
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const now = nowIso(this.clock);
    await this.db
      .insertInto('api_tokens')
      .values({ user_id: userId, token_hash: hashToken(token), created_at: now, last_used_at: null })
      .onConflict((oc) =>
        oc
          .column('user_id')
          .doUpdateSet({ token_hash: hashToken(token), created_at: now, last_used_at: null }),
      )
      .execute();
    await this.credentialsChanged(); // the replaced token stops working everywhere
    return token;
  }

  async revokeToken(userId: number): Promise<void> {
    await this.db.deleteFrom('api_tokens').where('user_id', '=', userId).execute();
    await this.credentialsChanged();
  }

  /** The active user owning this token, or null (unknown token, revoked token, disabled user). */
  async authenticateToken(token: string): Promise<User | null> {
    if (token === '' || token.length > 512) return null;
    const hash = hashToken(token);
    const load = async () => {
      const row = await this.db
        .selectFrom('api_tokens')
        .innerJoin('users', 'users.id', 'api_tokens.user_id')
        .selectAll('users')
        .where('api_tokens.token_hash', '=', hash)
        .executeTakeFirst();
      if (!row) return null;
      const user = toUser(row);
      return user.isActive ? user : null;
    };
    return this.credentials ? this.credentials.get(`token:${hash}`, load) : load();
  }

  /** The active user with this email and password (HTTP Basic), or null. */
  async authenticatePassword(email: string, password: string): Promise<User | null> {
    const row = await this.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', normalizeEmail(email))
      .executeTakeFirst();
    const valid = await argon2Verify(row?.password_hash ?? (await getDummyHash()), password).catch(
      () => false,
    );
    if (!row || !valid) return null;
    const user = toUser(row);
    return user.isActive ? user : null;
  }
}
