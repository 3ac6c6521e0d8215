// Named API keys with scopes (issue 20): a user may hold several, each limited to chosen websites, to
// reading or to reading and writing, with an optional expiry. The key is shown once, when created; only
// its SHA-256 is stored. A key never grants more than its user holds: the policy checks the user's own
// rights first and the key's scope on top.
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { Actor } from '../policy.js';
import type { CredentialCache } from './credential-cache.js';
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ApiKeysTable } from '../../db/schema.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { InputError } from '../errors.js';
import { isStorableId } from '../ids.js';
import { hashToken, toUser } from './users.js';
import type { User, UsersService } from './users.js';
import { flag, toIso } from '../values.js';

export const API_KEY_PREFIX = 'folio_key_';
export const MAX_API_KEY_NAME = 100;
/**
 * Keys in use (neither revoked nor expired) one user may hold (issue 34 #13): each key has a rate
 * limit of its own, so unlimited keys were unlimited requests.
 */
export const MAX_ACTIVE_API_KEYS = 50;
/** last_used_at is written at most this often per key: a busy key must not write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKey {
  id: number;
  userId: number;
  name: string;
  /** The key's first characters, to tell keys apart; never enough to use it. */
  prefix: string;
  readOnly: boolean;
  /**
   * A content key: read-only, limited to its websites, and seeing only what a visitor sees (published
   * content), whoever created it; safe to embed in a static site's build.
   */
  contentOnly: boolean;
  /** The websites the key is limited to; empty: every website its user may reach. */
  websiteIds: number[];
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

export interface NewApiKey {
  name: string;
  websiteIds?: readonly number[];
  readOnly?: boolean;
  /** A content key (read-only, published content only); it must name its websites. */
  contentOnly?: boolean;
  expiresAt?: Date | null;
}

export class ApiKeysService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit?: AuditLog,
    /** Key -> user and scope, remembered for seconds; forgotten on every change (credential-cache.ts). */
    private readonly credentials?: CredentialCache,
  ) {}

  /**
   * Creates a key; answers it with its secret, which is never shown again. `actor`: who asked, for the
   * audit log.
   */
  async create(userId: number, input: NewApiKey, actor?: Actor): Promise<{ key: ApiKey; secret: string }> {
    // The input's own rules (a name, a content key's websites) are the operation's schema
    // (key-operations.ts apiKeyInput); what needs the clock or the database is checked here.
    const name = input.name.trim();
    if (input.expiresAt && input.expiresAt.getTime() <= this.clock.now().getTime()) {
      throw new InputError('expires_at', 'The expiry must be a date in the future.');
    }
    const websiteIds = [...new Set(input.websiteIds ?? [])];
    if (websiteIds.some((id) => !isStorableId(id))) {
      throw new InputError('website_id', 'The selected website id is invalid.');
    }
    if (websiteIds.length > 0) {
      const found = await this.db.selectFrom('websites').select('id').where('id', 'in', websiteIds).execute();
      if (found.length !== websiteIds.length) {
        throw new InputError('website_id', 'The selected website id is invalid.');
      }
    }
    // An invariant the policy relies on (the operation's schema says it to callers first): a content
    // key reads only the websites it names.
    if (input.contentOnly && websiteIds.length === 0) {
      throw new InputError('website_ids', 'A content key must name the websites it reads.');
    }
    const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url');
    const now = nowIso(this.clock);
    const id = await this.db.transaction().execute(async (trx) => {
      const active = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .executeTakeFirst();
      if (Number(active?.n ?? 0) >= MAX_ACTIVE_API_KEYS) {
        throw new InputError(
          'name',
          `You have ${MAX_ACTIVE_API_KEYS} API keys in use, the most one account may hold: revoke one you no longer need first.`,
        );
      }
      const row = await trx
        .insertInto('api_keys')
        .values({
          user_id: userId,
          name,
          prefix: secret.slice(0, API_KEY_PREFIX.length + 6),
          key_hash: hashToken(secret),
          read_only: (input.readOnly ?? false) || (input.contentOnly ?? false),
          content_only: input.contentOnly ?? false,
          limited: websiteIds.length > 0,
          expires_at: input.expiresAt?.toISOString() ?? null,
          last_used_at: null,
          revoked_at: null,
          created_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (websiteIds.length > 0) {
        await trx
          .insertInto('api_key_websites')
          .values(websiteIds.map((websiteId) => ({ api_key_id: row.id, website_id: websiteId })))
          .execute();
      }
      return row.id;
    });
    const key = (await this.list(userId)).find((candidate) => candidate.id === id);
    if (!key) throw new Error(`api key #${id} vanished`);
    if (actor) {
      await recordWrite(this.audit, actor, {
        action: 'api_key.create',
        resourceType: 'api_key',
        resourceId: id,
        websiteIds: [],
        input: {
          name,
          website_id: websiteIds,
          read_only: key.readOnly,
          content_only: key.contentOnly,
          expires_at: key.expiresAt,
        },
      });
    }
    return { key, secret };
  }

  /** The user's keys, revoked ones included (newest first). */
  async list(userId: number): Promise<ApiKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('id', 'desc')
      .execute();
    return this.hydrate(rows);
  }

  /** Revokes one of the user's keys; answers whether it was in use until now. */
  async revoke(userId: number, id: number, actor?: Actor): Promise<boolean> {
    if (!isStorableId(id)) return false;
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: nowIso(this.clock) })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const revoked = Number(result.numUpdatedRows) > 0;
    if (revoked) await this.credentials?.changed();
    if (revoked && actor) {
      await recordWrite(this.audit, actor, {
        action: 'api_key.revoke',
        resourceType: 'api_key',
        resourceId: id,
        websiteIds: [],
      });
    }
    return revoked;
  }

  /**
   * The key and its active user for a secret, or null: unknown, revoked or expired keys, and keys of a
   * disabled user, are refused alike (401 like an unknown token).
   */
  async authenticate(secret: string): Promise<{ user: User; key: ApiKey } | null> {
    if (!secret.startsWith(API_KEY_PREFIX) || secret.length > 512) return null;
    const hash = hashToken(secret);
    const load = () => this.load(hash);
    const found = this.credentials ? await this.credentials.get(`key:${hash}`, load) : await load();
    if (!found) return null;
    const now = this.clock.now();
    const { key } = found;
    if (key.expiresAt !== null && new Date(key.expiresAt).getTime() <= now.getTime()) return null;
    const previous = key.lastUsedAt;
    const lastUsed = previous === null ? 0 : new Date(previous).getTime();
    if (now.getTime() - lastUsed < LAST_USED_RESOLUTION_MS) return found;
    // The remembered key carries the time too: one write per key and resolution, not per request.
    key.lastUsedAt = now.toISOString();
    await this.db
      .updateTable('api_keys')
      .set({ last_used_at: key.lastUsedAt })
      .where('id', '=', key.id)
      .execute();
    // The answer shows the key as it was before this use.
    return { user: found.user, key: { ...key, lastUsedAt: previous } };
  }

  /** The key with this hash and its user, when neither is revoked nor disabled (expiry: the caller). */
  private async load(hash: string): Promise<{ user: User; key: ApiKey } | null> {
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .selectAll('users')
      .select([
        'api_keys.id as key_id',
        'api_keys.name as key_name',
        'api_keys.prefix as key_prefix',
        'api_keys.read_only as key_read_only',
        'api_keys.content_only as key_content_only',
        'api_keys.limited as key_limited',
        'api_keys.expires_at as key_expires_at',
        'api_keys.last_used_at as key_last_used_at',
        'api_keys.revoked_at as key_revoked_at',
        'api_keys.created_at as key_created_at',
        'api_keys.key_hash as key_hash',
      ])
      .where('api_keys.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row || row.key_revoked_at !== null) return null;
    const user = toUser(row);
    if (!user.isActive) return null;
    const [key] = await this.hydrate([
      {
        id: row.key_id,
        user_id: row.id,
        name: row.key_name,
        prefix: row.key_prefix,
        key_hash: row.key_hash,
        read_only: row.key_read_only,
        content_only: row.key_content_only,
        limited: row.key_limited,
        expires_at: row.key_expires_at,
        last_used_at: row.key_last_used_at,
        revoked_at: row.key_revoked_at,
        created_at: row.key_created_at,
      },
    ]);
    // A key made for chosen websites whose websites are all gone works nowhere (never everywhere).
    if (key && flag(row.key_limited) && key.websiteIds.length === 0) return null;
    return key ? { user, key } : null;
  }

  private async hydrate(rows: Selectable<ApiKeysTable>[]): Promise<ApiKey[]> {
    if (rows.length === 0) return [];
    const scopes = await this.db
      .selectFrom('api_key_websites')
      .select(['api_key_id', 'website_id'])
      .where(
        'api_key_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('website_id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      name: row.name,
      prefix: row.prefix,
      readOnly: flag(row.read_only),
      contentOnly: flag(row.content_only),
      websiteIds: scopes.filter((scope) => scope.api_key_id === row.id).map((scope) => scope.website_id),
      expiresAt: row.expires_at === null ? null : toIso(row.expires_at),
      lastUsedAt: row.last_used_at === null ? null : toIso(row.last_used_at),
      revokedAt: row.revoked_at === null ? null : toIso(row.revoked_at),
      createdAt: toIso(row.created_at),
    }));
  }
}

/**
 * Who a credential names, for every face that takes one: an API key (`folio_key_…`, with its scope)
 * or a user's token; null when it names nobody (unknown, revoked, expired, or its user disabled).
 */
export async function authenticateCredential(
  services: { apiKeys: Pick<ApiKeysService, 'authenticate'>; users: Pick<UsersService, 'authenticateToken'> },
  credential: string,
): Promise<{ user: User; key: ApiKey | null } | null> {
  if (credential.startsWith(API_KEY_PREFIX)) return services.apiKeys.authenticate(credential);
  const user = await services.users.authenticateToken(credential);
  return user && { user, key: null };
}
