// Websites and their domains. Each website has one primary domain and any number of aliases, all in
// the `domains` table, whose unique index keeps a domain on one website even under concurrent writes.
// Every change flushes the cache tag `websites` (spec 4.4 rule 5), which host resolution uses.
import net from 'node:net';
import { domainToASCII } from 'node:url';
import type { Expression, ExpressionBuilder, Selectable, SqlBool } from 'kysely';
import type { Cache } from '../../cache/cache.js';
import { NearCache } from '../../cache/near-cache.js';
import { memoized } from '../../lib/memo.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { Database, WebsitesTable } from '../../db/schema.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { DomainError, NotFoundError } from '../errors.js';
import { isStorableId } from '../ids.js';
import { MEDIA_MODEL } from '../media/library.js';
import { MENU_ITEM_MODEL } from '../menus/store.js';
import { isSiteAdmin } from '../people/memberships.js';
import { boundOnlyTo, boundToWebsite } from './bindings.js';
import { containsText, likePattern } from '../text/text-match.js';
import { splitTranslatable } from '../translations.js';
import type { Translatable, TranslationMap, TranslationsService } from '../translations.js';
import { flag, toIso } from '../values.js';

export const WEBSITE_MODEL = 'website';
export const WEBSITES_TAG = 'websites';
/** Flushed when a domain starts or stops leading to a website (which website a host shows). */
export const DOMAINS_TAG = 'domains';
const HOST_CACHE_TTL_SECONDS = 300;

/** Text fields an API caller may write (spec 2.6); the first four accept locale maps. */
export const TRANSLATABLE_WEBSITE_FIELDS = [
  'site_name',
  'site_slogan',
  'site_seo_keywords',
  'site_seo_description',
] as const;
export const PLAIN_WEBSITE_FIELDS = [
  'site_logo',
  'site_favicon',
  'site_cover',
  'theme',
  'homepage',
  'remark',
  'meta_verification',
  'head_code',
  'body_code',
  'analytics',
  'license',
] as const;
/** Fields only admins may change (R-W6): they put code into every page or move ownership. */
export const ADMIN_ONLY_WEBSITE_FIELDS = ['head_code', 'body_code', 'analytics', 'user_id'] as const;
/** The code a website puts into every page: only administrators see it through API v2 (issue 25 #6). */
export const WEBSITE_CODE_FIELDS = ['head_code', 'body_code', 'analytics'] as const;

/** What deleting a website takes with it (R-W8), counted before the delete is confirmed. */
export interface WebsiteUsage {
  /** Posts bound to this website alone (posts on other websites too stay there). */
  posts: number;
  pages: number;
  /** Items of the media library bound to this website alone. */
  media: number;
  /** Comments on the posts that go. */
  comments: number;
  menus: number;
  /** The primary domain and the aliases. */
  domains: number;
}

type TranslatableField = (typeof TRANSLATABLE_WEBSITE_FIELDS)[number];
type PlainField = (typeof PLAIN_WEBSITE_FIELDS)[number];

export interface DomainAlias {
  id: number;
  domain: string;
  createdAt: string;
}

export interface Website {
  id: number;
  userId: number | null;
  domain: string;
  fields: Record<TranslatableField | PlainField, string | null>;
  enabledPageCache: boolean;
  enabledDataCache: boolean;
  aliases: DomainAlias[];
  translations: TranslationMap;
  createdAt: string;
  updatedAt: string;
}

export interface NewWebsite {
  siteName: Translatable;
  domain: string;
  userId?: number | null;
  theme?: string;
  remark?: string | null;
}

export type WebsitePatch = Partial<Record<TranslatableField, Translatable | null>> &
  Partial<Record<PlainField, string | null>> & {
    user_id?: number | null;
    domain?: string;
    enabled_page_cache?: boolean;
    enabled_data_cache?: boolean;
  };

/** A domain that cannot be used as a hostname (R-W3: 422 `Invalid domain format`). */
export class InvalidDomainError extends DomainError {
  constructor() {
    super('Invalid domain format');
  }
}

/** A domain that another website uses (R-W3: 409). */
export class DomainConflictError extends DomainError {
  constructor(readonly usedAs: 'primary' | 'alias') {
    super(
      usedAs === 'primary'
        ? 'Domain is already used as a primary domain by another website'
        : 'Domain alias is already assigned to another website',
    );
  }
}

export class LastDomainError extends DomainError {
  constructor() {
    super('Cannot remove the last domain of a website');
  }
}

export type AddDomainResult =
  | { outcome: 'created'; aliasId: number; domain: string }
  | { outcome: 'alias-exists'; aliasId: number; domain: string }
  | { outcome: 'is-primary'; domain: string };

/**
 * A domain as Folio stores it (R-W3): the lower-case host only — scheme, user info, port, path and a
 * trailing dot dropped, internationalized names as punycode. Null when nothing usable is left.
 */
export function normalizeDomain(input: string): string | null {
  let host = input.trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  host = host.split(/[/?#]/, 1)[0] ?? '';
  host = host.slice(host.lastIndexOf('@') + 1);
  if (host.startsWith('[')) return null; // IPv6 literals are not website domains
  host = host.replace(/:\d*$/, '').replace(/\.+$/, '');
  if (host === '') return null;
  const ascii = domainToASCII(host);
  if (ascii === '' || ascii.length > 253) return null;
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  return ascii.split('.').every((part) => label.test(part)) ? ascii : null;
}

/**
 * Names no website of a non-administrator may claim (issue 21 #12): IP literals, `localhost` and the
 * special-use names that never reach the public internet (RFC 6761, 6762, 8375, .internal). Such a
 * name would let a site owner answer for this server's own loopback or LAN name.
 */
export function isReservedDomain(domain: string): boolean {
  if (/^[0-9.]+$/.test(domain) || net.isIP(domain) !== 0) return true;
  const last = domain.split('.').pop() ?? '';
  if (/^\d+$/.test(last)) return true; // a numeric top label is an address in disguise (127.1)
  return (
    domain === 'localhost' ||
    /\.(localhost|local|internal|invalid|home\.arpa|arpa|onion)$/.test(domain) ||
    ['local', 'internal', 'invalid', 'arpa', 'onion'].includes(domain)
  );
}

/** normalizeDomain() of request hosts, remembered: every request resolves its Host. Bounded. */
const hostDomains = new Map<string, string | null>();
const MAX_REMEMBERED_HOSTS = 1000;
function normalizedHost(host: string): string | null {
  return memoized(hostDomains, host, MAX_REMEMBERED_HOSTS, () => normalizeDomain(host));
}

function requireDomain(input: string): string {
  const domain = normalizeDomain(input);
  if (domain === null) throw new InvalidDomainError();
  return domain;
}

/**
 * A domain a website may be given (issue 34 #13): a name with a dot in it, or `localhost`. A single
 * label (`intranet`, `foo`) is a name on some local network, never a website's public name, and
 * would catch whatever Host a client sends bare. 422 `Invalid domain format` like any unusable input.
 */
function requireWebsiteDomain(input: string): string {
  const domain = requireDomain(input);
  if (!domain.includes('.') && domain !== 'localhost') throw new InvalidDomainError();
  return domain;
}

export class WebsitesService {
  /** Which website a host shows, copied in this process (read on every request). */
  private readonly hosts: NearCache<{ website: Website | null }>;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly cache: Cache,
    private readonly translations: TranslationsService,
    private readonly defaultLocale: () => Promise<string>,
  ) {
    this.hosts = new NearCache(cache);
  }

  /** Creates a website with its primary domain in one transaction; returns its id. */
  async create(input: NewWebsite): Promise<number> {
    const domain = requireWebsiteDomain(input.domain);
    const siteName = splitTranslatable(input.siteName, await this.defaultLocale());
    const now = nowIso(this.clock);
    await this.assertDomainFree(domain, null);
    const id = await this.conflictsAsErrors(domain, null, () =>
      this.db.transaction().execute(async (trx) => {
        const website = await trx
          .insertInto('websites')
          .values({
            site_name: siteName.base,
            user_id: input.userId ?? null,
            theme: input.theme ?? 'default',
            remark: input.remark ?? null,
            enabled_page_cache: false,
            enabled_data_cache: true,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('domains')
          .values({ website_id: website.id, domain, is_primary: true, created_at: now, updated_at: now })
          .execute();
        await this.translations.save(trx, WEBSITE_MODEL, website.id, 'site_name', siteName.translations);
        return website.id;
      }),
    );
    return id;
  }

  async find(id: number): Promise<Website | null> {
    if (!isStorableId(id)) return null;
    const row = await this.db.selectFrom('websites').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return null;
    return (await this.hydrate([row]))[0] ?? null;
  }

  /**
   * A page of websites: every website, or only those `accessibleTo` a user owns, is bound to or is a
   * site admin of (R-W7), and only `ids` when given (the operations decide which: website-operations.ts).
   */
  async list(options: {
    accessibleTo?: number;
    ids?: readonly number[];
    keyword?: string;
    page: number;
    pageSize: number;
  }): Promise<{ items: Website[]; total: number }> {
    let query = this.db.selectFrom('websites');
    const { accessibleTo, ids } = options;
    if (accessibleTo !== undefined) query = query.where((eb) => this.accessibleBy(eb, accessibleTo));
    if (ids !== undefined) query = query.where('websites.id', 'in', ids.length > 0 ? [...ids] : [0]);
    const keyword = options.keyword?.trim();
    if (keyword) {
      const pattern = likePattern(keyword);
      query = query.where((eb) =>
        eb.or([
          containsText(eb.ref('websites.site_name'), pattern),
          eb.exists(
            eb
              .selectFrom('domains')
              .select('domains.id')
              .whereRef('domains.website_id', '=', 'websites.id')
              .where((inner) => containsText(inner.ref('domains.domain'), pattern)),
          ),
        ]),
      );
    }
    const count = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    const rows = await query
      .selectAll('websites')
      .orderBy('websites.id', 'asc')
      .limit(options.pageSize)
      .offset((options.page - 1) * options.pageSize)
      .execute();
    return { items: await this.hydrate(rows), total: Number(count?.n ?? 0) };
  }

  /** The ids of the websites a user owns or is bound to (R-W7), without administrators' reach. */
  async accessibleIds(userId: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('websites')
      .select('websites.id')
      .where((eb) => this.accessibleBy(eb, userId))
      .execute();
    return rows.map((row) => row.id);
  }

  async update(id: number, patch: WebsitePatch): Promise<Website> {
    const current = await this.find(id);
    if (!current) throw new NotFoundError('Website not found');
    const locale = await this.defaultLocale();
    const now = nowIso(this.clock);
    const domain = patch.domain === undefined ? undefined : requireDomain(patch.domain);
    if (domain !== undefined && domain !== current.domain) {
      // A domain the website has already (an alias swapped in) was admitted when it was added.
      if (!current.aliases.some((alias) => alias.domain === domain)) requireWebsiteDomain(domain);
      await this.assertDomainFree(domain, id);
    }

    await this.conflictsAsErrors(domain ?? '', id, () =>
      this.db.transaction().execute(async (trx) => {
        const values: Record<string, unknown> = { updated_at: now };
        for (const field of TRANSLATABLE_WEBSITE_FIELDS) {
          const value = patch[field];
          if (value === undefined) continue;
          if (value === null) {
            values[field] = field === 'site_name' ? current.fields.site_name : null;
            continue;
          }
          const split = splitTranslatable(value, locale);
          values[field] = split.base;
          await this.translations.save(trx, WEBSITE_MODEL, id, field, split.translations);
        }
        for (const field of PLAIN_WEBSITE_FIELDS) {
          if (patch[field] !== undefined)
            values[field] = field === 'theme' ? (patch[field] ?? 'default') : patch[field];
        }
        if (patch.user_id !== undefined) values.user_id = patch.user_id;
        if (patch.enabled_page_cache !== undefined) values.enabled_page_cache = patch.enabled_page_cache;
        if (patch.enabled_data_cache !== undefined) values.enabled_data_cache = patch.enabled_data_cache;
        await trx.updateTable('websites').set(values).where('id', '=', id).execute();

        if (domain !== undefined && domain !== current.domain) {
          const alias = current.aliases.find((candidate) => candidate.domain === domain);
          if (alias) {
            // R-W6: the alias becomes primary and the old primary stays as an alias.
            await trx
              .updateTable('domains')
              .set({ is_primary: false, updated_at: now })
              .where('website_id', '=', id)
              .where('is_primary', '=', true)
              .execute();
            await trx
              .updateTable('domains')
              .set({ is_primary: true, updated_at: now })
              .where('id', '=', alias.id)
              .execute();
          } else {
            await trx
              .updateTable('domains')
              .set({ domain, updated_at: now })
              .where('website_id', '=', id)
              .where('is_primary', '=', true)
              .execute();
          }
        }
      }),
    );
    const updated = await this.find(id);
    if (!updated) throw new NotFoundError('Website not found');
    return updated;
  }

  /** What `delete` takes with it (see WebsiteUsage). */
  async usage(id: number): Promise<WebsiteUsage> {
    const onlyHere = (modelType: string) => boundOnlyTo(this.db, id, modelType);
    const count = async (query: {
      executeTakeFirst(): Promise<{ n: number | string | bigint } | undefined>;
    }) => Number((await query.executeTakeFirst())?.n ?? 0);
    const liveOnlyHere = (table: 'posts' | 'pages', modelType: 'post' | 'page') =>
      count(
        this.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('id', 'in', onlyHere(modelType))
          .where('deleted_at', 'is', null),
      );
    const ofWebsite = (table: 'menus' | 'domains') =>
      count(
        this.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('website_id', '=', id),
      );
    const [posts, pages, media, comments, menus, domains] = await Promise.all([
      liveOnlyHere('posts', 'post'),
      liveOnlyHere('pages', 'page'),
      count(
        this.db
          .selectFrom('media')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('id', 'in', onlyHere(MEDIA_MODEL)),
      ),
      count(
        this.db
          .selectFrom('comments')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('post_id', 'in', onlyHere('post'))
          .where('post_id', 'in', this.db.selectFrom('posts').select('id').where('deleted_at', 'is', null)),
      ),
      ofWebsite('menus'),
      ofWebsite('domains'),
    ]);
    return { posts, pages, media, comments, menus, domains };
  }

  /**
   * Deletes a website (R-W8): its domains, menus and bindings go with it, and content bound to this
   * website only is soft-deleted (their comments with them). One transaction, in which `alsoInside`
   * removes what else goes (the media bound here alone) and answers files to delete after the commit.
   */
  async delete(id: number, alsoInside?: (trx: Db) => Promise<string[]>): Promise<string[]> {
    const now = nowIso(this.clock);
    const deleted = await this.db.transaction().execute(async (trx) => {
      const files = (await alsoInside?.(trx)) ?? [];
      for (const [modelType, table] of [
        ['post', 'posts'],
        ['page', 'pages'],
      ] as const) {
        const onlyHere = boundOnlyTo(trx, id, modelType);
        await trx
          .updateTable(table)
          .set({ deleted_at: now, updated_at: now })
          .where('id', 'in', onlyHere)
          .where('deleted_at', 'is', null)
          .execute();
      }
      await trx
        .deleteFrom('translations')
        .where('model_type', '=', WEBSITE_MODEL)
        .where('model_id', '=', id)
        .execute();
      // Its menus go with it (foreign keys); their items' labels are translations, keyed by no key.
      await trx
        .deleteFrom('translations')
        .where('model_type', '=', MENU_ITEM_MODEL)
        .where('model_id', 'in', trx.selectFrom('menu_items').select('id').where('website_id', '=', id))
        .execute();
      const result = await trx.deleteFrom('websites').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0 ? files : null;
    });
    if (!deleted) throw new NotFoundError('Website not found');
    return deleted;
  }

  /** Adds an alias (spec 4.4, R-W4); answers what was already there without changing it. */
  async addDomain(id: number, input: string): Promise<AddDomainResult> {
    const domain = requireWebsiteDomain(input);
    const existing = await this.db
      .selectFrom('domains')
      .select(['id', 'website_id', 'is_primary'])
      .where('domain', '=', domain)
      .executeTakeFirst();
    if (existing && existing.website_id === id) {
      return flag(existing.is_primary)
        ? { outcome: 'is-primary', domain }
        : { outcome: 'alias-exists', aliasId: existing.id, domain };
    }
    if (existing) throw new DomainConflictError(flag(existing.is_primary) ? 'primary' : 'alias');
    const now = nowIso(this.clock);
    const row = await this.conflictsAsErrors(domain, id, () =>
      this.db
        .insertInto('domains')
        .values({ website_id: id, domain, is_primary: false, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow(),
    );
    return { outcome: 'created', aliasId: row.id, domain };
  }

  /**
   * Removes a domain (R-W5): an alias, or the primary when an alias (the oldest) can be promoted, in one
   * transaction. Returns the primary domain after the removal.
   */
  async removeDomain(id: number, input: string): Promise<{ removed: string; primary: string }> {
    const domain = requireDomain(input);
    const result = await this.db.transaction().execute(async (trx) => {
      const domains = await trx
        .selectFrom('domains')
        .select(['id', 'domain', 'is_primary'])
        .where('website_id', '=', id)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
      const target = domains.find((row) => row.domain === domain);
      if (!target) throw new NotFoundError('Domain alias not found on this website');
      if (domains.length === 1) throw new LastDomainError();
      await trx.deleteFrom('domains').where('id', '=', target.id).execute();
      if (!flag(target.is_primary)) {
        const primary = domains.find((row) => flag(row.is_primary));
        return { removed: domain, primary: primary?.domain ?? '' };
      }
      const promoted = domains.find((row) => row.id !== target.id);
      if (!promoted) throw new LastDomainError();
      await trx
        .updateTable('domains')
        .set({ is_primary: true, updated_at: nowIso(this.clock) })
        .where('id', '=', promoted.id)
        .execute();
      return { removed: domain, primary: promoted.domain };
    });
    return result;
  }

  /** The website that a domain (primary or alias) belongs to; the domain is normalized first. */
  async findIdByDomain(domain: string): Promise<number | null> {
    return (await this.resolveHost(domain))?.id ?? null;
  }

  /**
   * The website a request's Host belongs to (port ignored), from the cache when possible (and from a
   * copy in this process while its tags are known current): every website or domain change flushes it.
   */
  async resolveHost(host: string): Promise<Website | null> {
    const domain = normalizedHost(host);
    if (domain === null) return null;
    const cached = await this.hosts.remember(
      `website:host:${domain}`,
      { tags: [WEBSITES_TAG], ttlSeconds: HOST_CACHE_TTL_SECONDS },
      async () => {
        const row = await this.db
          .selectFrom('domains')
          .select('website_id')
          .where('domain', '=', domain)
          .executeTakeFirst();
        return { website: row ? await this.find(row.website_id) : null };
      },
    );
    return cached.website;
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('websites')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** WHERE the website is owned by the user or bound to them (model type `user`). */
  private accessibleBy(eb: ExpressionBuilder<Database, 'websites'>, userId: number): Expression<SqlBool> {
    return eb.or([
      eb('websites.user_id', '=', userId),
      boundToWebsite(eb, 'user', userId, eb.ref('websites.id')),
      // Its site admins manage it as its owner does (issue 20).
      isSiteAdmin(eb, userId, eb.ref('websites.id')),
    ]);
  }

  /** Refuses a domain that another website already uses (R-W3). */
  private async assertDomainFree(domain: string, websiteId: number | null): Promise<void> {
    const existing = await this.db
      .selectFrom('domains')
      .select(['website_id', 'is_primary'])
      .where('domain', '=', domain)
      .executeTakeFirst();
    if (existing && existing.website_id !== websiteId) {
      throw new DomainConflictError(flag(existing.is_primary) ? 'primary' : 'alias');
    }
  }

  /** Runs a write; a unique violation (a concurrent writer took the domain) becomes the 409. */
  private async conflictsAsErrors<T>(
    domain: string,
    websiteId: number | null,
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await this.assertDomainFree(domain, websiteId);
      throw new DomainConflictError('alias');
    }
  }

  private async hydrate(rows: Selectable<WebsitesTable>[]): Promise<Website[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const domains = await this.db
      .selectFrom('domains')
      .select(['id', 'website_id', 'domain', 'is_primary', 'created_at'])
      .where('website_id', 'in', ids)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    const translations = await this.translations.forModels(WEBSITE_MODEL, ids);
    return rows.map((row) => {
      const own = domains.filter((domain) => domain.website_id === row.id);
      const fields = {} as Website['fields'];
      for (const field of [...TRANSLATABLE_WEBSITE_FIELDS, ...PLAIN_WEBSITE_FIELDS])
        fields[field] = row[field];
      return {
        id: row.id,
        userId: row.user_id,
        domain: own.find((domain) => flag(domain.is_primary))?.domain ?? '',
        fields,
        enabledPageCache: flag(row.enabled_page_cache),
        enabledDataCache: flag(row.enabled_data_cache),
        aliases: own
          .filter((domain) => !flag(domain.is_primary))
          .map((domain) => ({ id: domain.id, domain: domain.domain, createdAt: toIso(domain.created_at) })),
        translations: translations.get(row.id) ?? {},
        createdAt: toIso(row.created_at),
        updatedAt: toIso(row.updated_at),
      };
    });
  }
}
