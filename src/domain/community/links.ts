// The link directory: links are posts of type `link` (their name is the title, their description the
// content; translations, website bindings and tags work as for posts), with the URL and icon in the
// `links` side table. They are grouped by tags of type `link_category` (or any other `link_*` type).
// API v1 has no endpoint for links; API v2 (link-operations.ts), the CLI (`folio link:create`) and
// seed data write them. The store reads and writes rows only: the operations (link-operations.ts)
// ask the policy, record the audit row and announce each change.
import type { Cache } from '../../cache/cache.js';
import type { Db } from '../../db/database.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import type { WebsiteBindings } from '../websites/bindings.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { InputError, StaleWriteError } from '../errors.js';
import { isStorableId } from '../ids.js';
import { slugify, uniqueSlug } from '../text/slugs.js';
import type { TagOperations } from '../tags/operations.js';
import { taggedWith } from '../tagged.js';
import { translate } from '../translations.js';
import type { TranslationsService } from '../translations.js';
import { toIso } from '../values.js';

export const LINK_TYPE = 'link';
/** Tags of links have types `link_<short name>`; `/link/category/x` reads `link_category` (R-F2). */
export const LINK_TAG_PREFIX = 'link_';
export const LINK_CATEGORY = 'link_category';
/** Cache tag of the link pages, flushed by every link write. */
export const LINKS_CACHE_TAG = 'links';
export const DEFAULT_LINK_PAGE_SIZE = 20;
export const MAX_LINK_NAME_LENGTH = 255;
export const MAX_LINK_URL_LENGTH = 2048;
export const MAX_LINK_DESCRIPTION_LENGTH = 5000;

// Posts and links share the bindings, tags and translations of model type `post` (they are posts).
const MODEL = 'post';

export interface LinkInput {
  name: string;
  url: string;
  description?: string | null;
  /** An image URL (http/https) or a path on this site. */
  icon?: string | null;
  /** Names of `link_category` tags; missing ones are created. */
  categories?: string[];
  /** Websites to show the link on; none: every website. */
  websiteIds?: number[];
  authorId?: number | null;
}

/** A change of a link: only the fields given change (`categories` replaces them all). */
export type LinkChange = Partial<Omit<LinkInput, 'authorId'>>;

export interface LinkTag {
  id: number;
  name: string;
  slug: string;
  type: string;
}

export interface Link {
  id: number;
  name: string;
  slug: string;
  url: string;
  description: string;
  icon: string | null;
  tags: LinkTag[];
  createdAt: string;
  /** Its version (API v2's ETag). */
  updatedAt: string;
  /** Bound websites; empty: every website. */
  websiteIds: number[];
}

export interface LinkListQuery {
  websiteId: number;
  locale: string;
  page: number;
  pageSize?: number;
  /** Only the links having this tag. */
  tagId?: number;
}

/** An absolute http(s) URL, normalized, or null. */
export function httpUrl(value: string): string | null {
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
}

/** `category` -> `link_category`; null for a short name that cannot be a tag type. */
export function linkTagType(shortName: string): string | null {
  return /^[a-z][a-z0-9_]{0,39}$/.test(shortName) ? `${LINK_TAG_PREFIX}${shortName}` : null;
}

export class LinksService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly deps: {
      /** Creates the missing categories (as the domain's own write: the link's operation checked its own). */
      tags: Pick<TagOperations, 'ensure'>;
      translations: TranslationsService;
      bindings: WebsiteBindings;
      cache: Cache;
      defaultLocale: () => Promise<string>;
    },
  ) {}

  /** Creates a published link with its categories (created when missing) and website bindings. */
  async create(input: LinkInput): Promise<Link> {
    const name = this.checkedName(input.name);
    const url = this.checkedUrl(input.url);
    const description = this.checkedDescription(input.description);
    const icon = this.checkedIcon(input.icon);
    const websiteIds = input.websiteIds ?? [];
    await this.checkWebsites(websiteIds);
    const defaultLocale = await this.deps.defaultLocale();
    const tagIds = await this.categoryIds(input.categories ?? [], defaultLocale);

    const now = nowIso(this.clock);
    const id = await this.db.transaction().execute(async (trx) => {
      const slug = await uniqueSlug(slugify(name), async (candidates) => {
        const rows = await trx
          .selectFrom('posts')
          .select('slug')
          .where('type', '=', LINK_TYPE)
          .where('deleted_at', 'is', null)
          .where('slug', 'in', candidates)
          .execute();
        return new Set(rows.map((row) => row.slug));
      });
      const row = await trx
        .insertInto('posts')
        .values({
          type: LINK_TYPE,
          author_id: input.authorId ?? null,
          title: name,
          slug,
          excerpt: description === '' ? null : description,
          content: description,
          status: 'published',
          published_at: now,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx.insertInto('links').values({ post_id: row.id, url, icon }).execute();
      const unique = [...new Set(tagIds)];
      if (unique.length > 0) {
        await trx
          .insertInto('taggables')
          .values(unique.map((tagId) => ({ tag_id: tagId, taggable_type: MODEL, taggable_id: row.id })))
          .execute();
      }
      if (websiteIds.length > 0) await this.deps.bindings.sync(trx, MODEL, row.id, websiteIds);
      return row.id;
    });
    const link = await this.findAny(id, defaultLocale);
    if (!link) throw new Error(`link ${id} vanished after create`);
    return link;
  }

  /**
   * Changes a link: only the fields given (`categories` replaces its link tags, `websiteIds` its
   * websites). `ifVersion`: StaleWriteError when it changed since that version. Null: no such link.
   */
  async update(id: number, change: LinkChange, options: { ifVersion?: string } = {}): Promise<Link | null> {
    const current = isStorableId(id) ? await this.findAny(id, await this.deps.defaultLocale()) : null;
    if (!current) return null;
    if (options.ifVersion !== undefined && options.ifVersion !== current.updatedAt)
      throw new StaleWriteError();
    const name = change.name === undefined ? undefined : this.checkedName(change.name);
    const url = change.url === undefined ? undefined : this.checkedUrl(change.url);
    const description =
      change.description === undefined ? undefined : this.checkedDescription(change.description);
    const icon = change.icon === undefined ? undefined : this.checkedIcon(change.icon);
    if (change.websiteIds !== undefined) await this.checkWebsites(change.websiteIds);
    const defaultLocale = await this.deps.defaultLocale();
    const tagIds =
      change.categories === undefined ? undefined : await this.categoryIds(change.categories, defaultLocale);
    const now = new Date(
      Math.max(this.clock.now().getTime(), Date.parse(current.updatedAt) + 1),
    ).toISOString();
    await this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('posts')
        .set({
          updated_at: now,
          ...(name === undefined ? {} : { title: name }),
          ...(description === undefined
            ? {}
            : { content: description, excerpt: description === '' ? null : description }),
        })
        .where('id', '=', id)
        .where('type', '=', LINK_TYPE)
        .where('deleted_at', 'is', null)
        .where('updated_at', '=', current.updatedAt)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) throw new StaleWriteError();
      if (url !== undefined || icon !== undefined) {
        await trx
          .updateTable('links')
          .set({ ...(url === undefined ? {} : { url }), ...(icon === undefined ? {} : { icon }) })
          .where('post_id', '=', id)
          .execute();
      }
      if (tagIds !== undefined) {
        const linkTags = trx
          .selectFrom('tags')
          .select('tags.id')
          .where('tags.type', 'like', `${LINK_TAG_PREFIX}%`);
        await trx
          .deleteFrom('taggables')
          .where('taggable_type', '=', MODEL)
          .where('taggable_id', '=', id)
          .where('tag_id', 'in', linkTags)
          .execute();
        const unique = [...new Set(tagIds)];
        if (unique.length > 0) {
          await trx
            .insertInto('taggables')
            .values(unique.map((tagId) => ({ tag_id: tagId, taggable_type: MODEL, taggable_id: id })))
            .execute();
        }
      }
      if (change.websiteIds !== undefined) await this.deps.bindings.sync(trx, MODEL, id, change.websiteIds);
    });
    return this.findAny(id, defaultLocale);
  }

  /** Deletes a link (out of every list; its slug is free again). False: no such link. */
  async remove(id: number): Promise<boolean> {
    if (!isStorableId(id)) return false;
    const result = await this.db
      .updateTable('posts')
      .set({ deleted_at: nowIso(this.clock) })
      .where('id', '=', id)
      .where('type', '=', LINK_TYPE)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** A link of any website, or null. */
  async findAnyWebsite(id: number, locale: string): Promise<Link | null> {
    if (!isStorableId(id)) return null;
    return this.findAny(id, locale);
  }

  private checkedName(given: string): string {
    const name = given.trim();
    if (name === '') throw new InputError('name', 'The name field is required.');
    if (name.length > MAX_LINK_NAME_LENGTH)
      throw new InputError('name', `The name may not be greater than ${MAX_LINK_NAME_LENGTH} characters.`);
    return name;
  }

  private checkedUrl(given: string): string {
    const url = given.length <= MAX_LINK_URL_LENGTH ? httpUrl(given) : null;
    if (!url) throw new InputError('url', 'The url must be a valid http or https URL.');
    return url;
  }

  private checkedDescription(given: string | null | undefined): string {
    const description = (given ?? '').trim();
    if (description.length > MAX_LINK_DESCRIPTION_LENGTH)
      throw new InputError(
        'description',
        `The description may not be greater than ${MAX_LINK_DESCRIPTION_LENGTH} characters.`,
      );
    return description;
  }

  private checkedIcon(given: string | null | undefined): string | null {
    if (!given || given.trim() === '') return null;
    const trimmed = given.trim();
    const icon = /^\/(?!\/)[^\s]*$/.test(trimmed) ? trimmed : httpUrl(trimmed);
    if (!icon || icon.length > MAX_LINK_URL_LENGTH)
      throw new InputError('icon', 'The icon must be an http or https URL or a path.');
    return icon;
  }

  private async checkWebsites(websiteIds: readonly number[]): Promise<void> {
    if (websiteIds.length === 0) return;
    const existing = await this.deps.bindings.existing(websiteIds);
    if (existing.length !== new Set(websiteIds).size)
      throw new InputError('website_id', 'The selected website id is invalid.');
  }

  /** The `link_category` tags of these names, created when missing. */
  private async categoryIds(categories: readonly string[], defaultLocale: string): Promise<number[]> {
    const tagIds: number[] = [];
    for (const category of categories) {
      if (category.trim() === '') continue;
      const { tag } = await this.deps.tags.ensure({
        name: category.trim(),
        type: LINK_CATEGORY,
        updateWhenDuplicated: false,
        defaultLocale,
      });
      tagIds.push(tag.id);
    }
    return tagIds;
  }

  /** A page of the published links shown on a website, newest first. */
  async list(query: LinkListQuery): Promise<{ items: Link[]; total: number }> {
    const pageSize = query.pageSize ?? DEFAULT_LINK_PAGE_SIZE;
    let base = this.live().where((eb) => visibleOnWebsite(eb, MODEL, eb.ref('posts.id'), query.websiteId));
    const tagId = query.tagId;
    if (tagId !== undefined) base = base.where((eb) => taggedWith(eb, MODEL, eb.ref('posts.id'), tagId));
    const countRow = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const total = Number(countRow?.total ?? 0);
    if (total === 0) return { items: [], total };
    const rows = await base
      .select(this.columns())
      .orderBy('posts.created_at', 'desc')
      .orderBy('posts.id', 'desc')
      .limit(pageSize)
      .offset((Math.max(1, query.page) - 1) * pageSize)
      .execute();
    return { items: await this.hydrate(rows, query.locale), total };
  }

  /** A published link shown on the website, or null. */
  async find(id: number, websiteId: number, locale: string): Promise<Link | null> {
    if (!isStorableId(id)) return null;
    const rows = await this.live()
      .where('posts.id', '=', id)
      .where((eb) => visibleOnWebsite(eb, MODEL, eb.ref('posts.id'), websiteId))
      .select(this.columns())
      .execute();
    return (await this.hydrate(rows, locale))[0] ?? null;
  }

  /** The tag of `/link/{type}/{slug}`: `type` is the short name of a `link_*` tag type (R-F2). */
  async tagBySlug(shortType: string, slug: string): Promise<LinkTag | null> {
    const type = linkTagType(shortType);
    if (!type || slug.length > 255) return null;
    const row = await this.db
      .selectFrom('tags')
      .select(['id', 'name', 'slug', 'type'])
      .where('type', '=', type)
      .where('slug', '=', slug)
      .executeTakeFirst();
    return row ?? null;
  }

  /** The name of a tag in a locale (R-T3). */
  async tagName(tag: LinkTag, locale: string): Promise<string> {
    const translations = await this.deps.translations.forModels('tag', [tag.id]);
    return translate(tag.name, translations.get(tag.id), 'name', locale);
  }

  private async findAny(id: number, locale: string): Promise<Link | null> {
    const rows = await this.live().where('posts.id', '=', id).select(this.columns()).execute();
    return (await this.hydrate(rows, locale))[0] ?? null;
  }

  private live() {
    return this.db
      .selectFrom('posts')
      .innerJoin('links', 'links.post_id', 'posts.id')
      .where('posts.type', '=', LINK_TYPE)
      .where('posts.status', '=', 'published')
      .where('posts.deleted_at', 'is', null);
  }

  private columns() {
    return [
      'posts.id',
      'posts.title',
      'posts.slug',
      'posts.content',
      'posts.created_at',
      'posts.updated_at',
      'links.url',
      'links.icon',
    ] as const;
  }

  /** Rows to links: their tags and translations in one query each (no N+1). */
  private async hydrate(
    rows: Array<{
      id: number;
      title: string;
      slug: string;
      content: string;
      created_at: Date | string;
      updated_at: Date | string;
      url: string;
      icon: string | null;
    }>,
    locale: string,
  ): Promise<Link[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const [tagRows, translations, sites] = await Promise.all([
      this.db
        .selectFrom('taggables')
        .innerJoin('tags', 'tags.id', 'taggables.tag_id')
        .select(['taggables.taggable_id as link_id', 'tags.id', 'tags.name', 'tags.slug', 'tags.type'])
        .where('taggables.taggable_type', '=', MODEL)
        .where('taggables.taggable_id', 'in', ids)
        .orderBy('tags.sort', 'desc')
        .orderBy('tags.id')
        .execute(),
      this.deps.translations.forModels(MODEL, ids),
      this.deps.bindings.websitesOf(MODEL, ids),
    ]);
    const tagNames = await this.deps.translations.forModels(
      'tag',
      tagRows.map((row) => row.id),
    );
    const tagsByLink = new Map<number, LinkTag[]>();
    for (const row of tagRows) {
      if (!row.type.startsWith(LINK_TAG_PREFIX)) continue;
      const list = tagsByLink.get(row.link_id) ?? [];
      list.push({
        id: row.id,
        name: translate(row.name, tagNames.get(row.id), 'name', locale),
        slug: row.slug,
        type: row.type,
      });
      tagsByLink.set(row.link_id, list);
    }
    return rows.map((row) => ({
      id: row.id,
      name: translate(row.title, translations.get(row.id), 'title', locale),
      slug: row.slug,
      url: row.url,
      description: translate(row.content, translations.get(row.id), 'content', locale),
      icon: row.icon,
      tags: tagsByLink.get(row.id) ?? [],
      createdAt: toIso(row.created_at),
      updatedAt: toIso(row.updated_at),
      websiteIds: sites.get(row.id) ?? [],
    }));
  }
}
