// The media library's records (issue 23, issue 24 #4): the `media` rows of a website (bound to it,
// or to none: every website's), their alt texts and captions with translations, their variants, and
// where each item is used (posts' thumbnails and contents, pages' contents, websites' logo and
// favicon). Reads and writes only: who may do what is media-operations.ts's (the policy's) question.
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { MediaTable } from '../../db/schema.js';
import { boundOnlyTo, boundToWebsite, visibleOnWebsite } from '../websites/bindings.js';
import type { WebsiteBindings } from '../websites/bindings.js';
import { StaleWriteError } from '../errors.js';
import { isStorableId } from '../ids.js';
import { parseVariants } from './files.js';
import type { MediaStore, StoredUpload } from './files.js';
import { readInIdRanges } from '../../db/chunked.js';
import { containsText, likePattern } from '../text/text-match.js';
import { splitTranslatable, translate } from '../translations.js';
import type { Translatable, TranslationMap, TranslationsService } from '../translations.js';
import { toIso } from '../values.js';

export const MEDIA_MODEL = 'media';
/** Kinds of files, by the first part of their MIME type (the library takes images today). */
export const MEDIA_TYPES = ['image', 'video', 'audio', 'document'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const SORTABLE_MEDIA_FIELDS = ['created_at', 'file_name', 'size'] as const;
export type MediaSortField = (typeof SORTABLE_MEDIA_FIELDS)[number];
export const MAX_MEDIA_FILE_NAME_LENGTH = 255;

export interface MediaVariant {
  name: string;
  url: string;
  mimeType: string;
  width: number | null;
  height: number | null;
  size: number;
}

export interface MediaItem {
  id: number;
  userId: number | null;
  /** Empty: every website's. */
  websiteIds: number[];
  fileName: string;
  url: string;
  path: string;
  mimeType: string;
  type: MediaType;
  size: number;
  width: number | null;
  height: number | null;
  alt: string | null;
  caption: string | null;
  /** `{ alt: { locale: text }, caption: { … } }` */
  translations: TranslationMap;
  variants: MediaVariant[];
  createdAt: string;
  /** The item's version (its ETag). */
  updatedAt: string;
}

/** Where an item is used, as far as the website asking may see; `elsewhere` counts the rest. */
export interface MediaUsage {
  posts: Array<{
    id: number;
    title: string;
    type: string;
    status: string;
    as: Array<'thumbnail' | 'content'>;
  }>;
  pages: Array<{ id: number; title: string; status: string; as: Array<'content'> }>;
  websites: Array<{ id: number; name: string; as: Array<'logo' | 'favicon' | 'cover'> }>;
  /** Uses by posts, pages and websites the asking website does not show. */
  elsewhere: number;
  /** Every post and page using it, shown or not (whose pages change when it goes). */
  postIds: number[];
  pageIds: number[];
}

export interface MediaListQuery {
  websiteId: number;
  q?: string;
  type?: MediaType;
  sort: MediaSortField;
  direction: 'asc' | 'desc';
  page: number;
  perPage: number;
}

export interface MediaTextChange {
  alt?: Translatable | null;
  caption?: Translatable | null;
}

const COLUMNS = [
  'media.id',
  'media.user_id',
  'media.path',
  'media.url',
  'media.mime_type',
  'media.size',
  'media.width',
  'media.height',
  'media.file_name',
  'media.alt',
  'media.caption',
  'media.variants',
  'media.created_at',
  'media.updated_at',
] as const;

/** A row as COLUMNS select it. */
type Row = Pick<Selectable<MediaTable>, Unqualified<(typeof COLUMNS)[number]>>;
type Unqualified<Column> = Column extends `media.${infer Name}` ? Name : never;

export function mediaTypeOf(mimeType: string): MediaType {
  const major = mimeType.split('/')[0];
  return major === 'image' || major === 'video' || major === 'audio' ? major : 'document';
}

/**
 * What a reference to an item contains: its URL's path without the extension, which every variant's
 * path starts with too (`/media/library/2026/11/<sha256>`), written absolute or relative.
 */
export function referenceKey(url: string): string {
  let path: string;
  try {
    path = new URL(url, 'http://folio.invalid').pathname;
  } catch {
    path = url;
  }
  return path.replace(/\.[A-Za-z0-9]{1,8}$/, '');
}

export class MediaLibrary {
  constructor(
    private readonly db: Db,
    private readonly deps: {
      store: MediaStore;
      translations: TranslationsService;
      bindings: WebsiteBindings;
    },
  ) {}

  /** A page of a website's items (its own and every website's). */
  async list(query: MediaListQuery): Promise<{ items: MediaItem[]; total: number }> {
    let base = this.db
      .selectFrom('media')
      .where((eb) => visibleOnWebsite(eb, MEDIA_MODEL, eb.ref('media.id'), query.websiteId));
    const q = query.q?.trim();
    if (q) {
      const pattern = likePattern(q);
      const columns = ['media.file_name', 'media.alt', 'media.caption'] as const;
      base = base.where((eb) => eb.or(columns.map((column) => containsText(eb.ref(column), pattern))));
    }
    if (query.type !== undefined) {
      base =
        query.type === 'document'
          ? base.where((eb) =>
              eb.and([
                eb('media.mime_type', 'not like', 'image/%'),
                eb('media.mime_type', 'not like', 'video/%'),
                eb('media.mime_type', 'not like', 'audio/%'),
              ]),
            )
          : base.where('media.mime_type', 'like', `${query.type}/%`);
    }
    const counted = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const total = Number(counted?.total ?? 0);
    if (total === 0) return { items: [], total };
    const ordered =
      query.sort === 'file_name'
        ? base.orderBy(sql`coalesce(media.file_name, '')`, query.direction)
        : base.orderBy(`media.${query.sort}`, query.direction);
    const rows = await ordered
      .select(COLUMNS)
      .orderBy('media.id', query.direction)
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute();
    return { items: await this.hydrate(rows), total };
  }

  async find(id: number): Promise<MediaItem | null> {
    if (!isStorableId(id)) return null;
    const rows = await this.db.selectFrom('media').select(COLUMNS).where('media.id', '=', id).execute();
    return (await this.hydrate(rows))[0] ?? null;
  }

  async findMany(ids: readonly number[]): Promise<MediaItem[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('media')
      .select(COLUMNS)
      .where('media.id', 'in', [...ids])
      .orderBy('media.id')
      .execute();
    return this.hydrate(rows);
  }

  /**
   * Records uploaded files as items of a website, in the caller's transaction. A file already in the
   * website's library (the same bytes, the same month) is answered by its item, not recorded twice.
   */
  async record(
    trx: Db,
    uploads: ReadonlyArray<{ stored: StoredUpload; fileName: string }>,
    owner: { userId: number | null; websiteId: number; now: string },
  ): Promise<number[]> {
    const ids: number[] = [];
    for (const { stored, fileName } of uploads) {
      const existing = await trx
        .selectFrom('media')
        .select('media.id')
        .where('media.path', '=', stored.path)
        .where('media.disk', '=', this.deps.store.disk)
        .where((eb) => boundToWebsite(eb, MEDIA_MODEL, eb.ref('media.id'), owner.websiteId))
        .executeTakeFirst();
      if (existing) {
        ids.push(existing.id);
        continue;
      }
      const row = await trx
        .insertInto('media')
        .values({
          user_id: owner.userId,
          disk: this.deps.store.disk,
          path: stored.path,
          url: stored.url,
          mime_type: stored.mimeType,
          size: stored.size,
          width: stored.width,
          height: stored.height,
          source_url: null,
          sha256: stored.sha256,
          file_name: fileName.slice(0, MAX_MEDIA_FILE_NAME_LENGTH),
          variants: JSON.stringify(stored.variants),
          created_at: owner.now,
          updated_at: owner.now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await this.deps.bindings.sync(trx, MEDIA_MODEL, row.id, [owner.websiteId]);
      ids.push(row.id);
    }
    return ids;
  }

  /**
   * Changes the alt text and caption (a string, or a map of locale to text whose base is the default
   * locale's), in the caller's transaction. `ifVersion`: StaleWriteError when the item changed since.
   */
  async changeTexts(
    trx: Db,
    item: MediaItem,
    change: MediaTextChange,
    options: { now: Date; defaultLocale: string; ifVersion?: string },
  ): Promise<void> {
    if (options.ifVersion !== undefined && options.ifVersion !== item.updatedAt) throw new StaleWriteError();
    // A new version even within the same millisecond: an ETag read before this write never matches.
    const floor = Date.parse(item.updatedAt) + 1;
    const updatedAt = new Date(Math.max(options.now.getTime(), floor)).toISOString();
    const values: { alt?: string | null; caption?: string | null; updated_at: string } = {
      updated_at: updatedAt,
    };
    const translations: Array<[string, Record<string, string>]> = [];
    for (const field of ['alt', 'caption'] as const) {
      const value = change[field];
      if (value === undefined) continue;
      if (value === null) {
        values[field] = null;
        await trx
          .deleteFrom('translations')
          .where('model_type', '=', MEDIA_MODEL)
          .where('model_id', '=', item.id)
          .where('field', '=', field)
          .execute();
        continue;
      }
      const split = splitTranslatable(value, options.defaultLocale);
      values[field] = split.base;
      translations.push([field, split.translations]);
    }
    const result = await trx
      .updateTable('media')
      .set(values)
      .where('id', '=', item.id)
      .where('updated_at', '=', item.updatedAt)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new StaleWriteError();
    for (const [field, texts] of translations) {
      await this.deps.translations.save(trx, MEDIA_MODEL, item.id, field, texts);
    }
  }

  /**
   * Deletes an item (its row, bindings, translations) in the caller's transaction; answers the stored
   * files no other item names, for the caller to remove once committed.
   */
  /**
   * Removes the items bound to this website alone (the website is being deleted, in `trx`); answers
   * the files no remaining item names, to delete after the commit.
   */
  async removeBoundOnlyTo(trx: Db, websiteId: number): Promise<string[]> {
    const rows = await trx
      .selectFrom('media')
      .select(['media.id', 'media.path'])
      .where('media.id', 'in', boundOnlyTo(trx, websiteId, MEDIA_MODEL))
      .execute();
    const files: string[] = [];
    for (const row of rows) files.push(...(await this.remove(trx, { id: row.id, path: row.path })));
    return files;
  }

  async remove(trx: Db, item: Pick<MediaItem, 'id' | 'path'>): Promise<string[]> {
    const row = await trx.selectFrom('media').select('variants').where('id', '=', item.id).executeTakeFirst();
    await trx.deleteFrom('media').where('id', '=', item.id).execute();
    await this.deps.bindings.sync(trx, MEDIA_MODEL, item.id, []);
    await this.deps.translations.deleteAll(trx, MEDIA_MODEL, item.id);
    const shared = await trx
      .selectFrom('media')
      .select('id')
      .where('path', '=', item.path)
      .executeTakeFirst();
    if (shared) return [];
    return [item.path, ...parseVariants(row?.variants ?? null).map((variant) => variant.path)];
  }

  /**
   * Where each item is used: posts (links too) whose thumbnail or content names it (any locale),
   * pages whose content does, websites whose logo or favicon does. Details of what `websiteId`
   * shows; the rest counted in `elsewhere`. Deleted posts and pages are not uses.
   */
  async usage(
    items: readonly MediaItem[],
    websiteId: number,
    options: { chunkIds?: number } = {},
  ): Promise<Map<number, MediaUsage>> {
    const result = new Map<number, MediaUsage>();
    for (const item of items)
      result.set(item.id, { posts: [], pages: [], websites: [], elsewhere: 0, postIds: [], pageIds: [] });
    if (items.length === 0) return result;
    const keys = items.map((item) => ({ id: item.id, key: referenceKey(item.url).toLowerCase() }));
    const patterns = keys.map(({ key }) => likePattern(key));
    const uses = (text: string | null) =>
      text === null ? [] : keys.filter(({ key }) => text.toLowerCase().includes(key)).map(({ id }) => id);

    // Translated contents first: the posts and pages they belong to are read with the others.
    // Texts are searched in steps over id ranges (chunked.ts): no index serves a search inside them.
    const inSteps = <T>(table: string, read: (from: number, to: number) => Promise<T[]>) =>
      readInIdRanges(this.db, table, read, options.chunkIds);
    const translated = await inSteps('translations', (from, to) =>
      this.db
        .selectFrom('translations')
        .select(['model_type', 'model_id', 'value'])
        .where('id', '>=', from)
        .where('id', '<', to)
        .where('model_type', 'in', ['post', 'page'])
        .where('field', '=', 'content')
        .where((eb) => eb.or(patterns.map((pattern) => containsText(eb.ref('value'), pattern))))
        .execute(),
    );
    const translatedUses = new Map<string, Set<number>>();
    for (const row of translated) {
      const key = `${row.model_type}:${row.model_id}`;
      const set = translatedUses.get(key) ?? new Set<number>();
      for (const id of uses(row.value)) set.add(id);
      translatedUses.set(key, set);
    }
    const idsOf = (type: string) =>
      translated.filter((row) => row.model_type === type).map((row) => row.model_id);

    // A range's rows whose own texts name an item, or whose translations did.
    const inRange = (ids: number[], from: number, to: number) => ids.filter((id) => id >= from && id < to);
    const postIdsByTranslation = idsOf('post');
    const posts = await inSteps('posts', (from, to) => {
      const translatedIds = inRange(postIdsByTranslation, from, to);
      return this.db
        .selectFrom('posts')
        .select(['id', 'title', 'type', 'status', 'thumbnail', 'content'])
        .where('id', '>=', from)
        .where('id', '<', to)
        .where('deleted_at', 'is', null)
        .where((eb) =>
          eb.or([
            ...patterns.flatMap((pattern) => [
              containsText(eb.ref('thumbnail'), pattern),
              containsText(eb.ref('content'), pattern),
            ]),
            ...(translatedIds.length > 0 ? [eb('id', 'in', translatedIds)] : []),
          ]),
        )
        .orderBy('id')
        .execute();
    });
    const pageIdsByTranslation = idsOf('page');
    const pages = await inSteps('pages', (from, to) => {
      const translatedIds = inRange(pageIdsByTranslation, from, to);
      return this.db
        .selectFrom('pages')
        .select(['id', 'title', 'status', 'content'])
        .where('id', '>=', from)
        .where('id', '<', to)
        .where('deleted_at', 'is', null)
        .where((eb) =>
          eb.or([
            ...patterns.map((pattern) => containsText(eb.ref('content'), pattern)),
            ...(translatedIds.length > 0 ? [eb('id', 'in', translatedIds)] : []),
          ]),
        )
        .orderBy('id')
        .execute();
    });
    const websites = await this.db
      .selectFrom('websites')
      .select(['id', 'site_name', 'site_logo', 'site_favicon', 'site_cover'])
      .where((eb) =>
        eb.or(
          patterns.flatMap((pattern) => [
            containsText(eb.ref('site_logo'), pattern),
            containsText(eb.ref('site_favicon'), pattern),
            containsText(eb.ref('site_cover'), pattern),
          ]),
        ),
      )
      .orderBy('id')
      .execute();

    const [postSites, pageSites] = await Promise.all([
      this.deps.bindings.websitesOf(
        'post',
        posts.map((post) => post.id),
      ),
      this.deps.bindings.websitesOf(
        'page',
        pages.map((page) => page.id),
      ),
    ]);
    const shown = (sites: number[] | undefined) => !sites || sites.length === 0 || sites.includes(websiteId);

    for (const post of posts) {
      const inContent = new Set([...uses(post.content), ...(translatedUses.get(`post:${post.id}`) ?? [])]);
      const asThumbnail = new Set(uses(post.thumbnail));
      for (const id of new Set([...inContent, ...asThumbnail])) {
        const usage = result.get(id)!;
        usage.postIds.push(post.id);
        if (!shown(postSites.get(post.id))) {
          usage.elsewhere += 1;
          continue;
        }
        const as: Array<'thumbnail' | 'content'> = [];
        if (asThumbnail.has(id)) as.push('thumbnail');
        if (inContent.has(id)) as.push('content');
        usage.posts.push({ id: post.id, title: post.title, type: post.type, status: post.status, as });
      }
    }
    for (const page of pages) {
      const inContent = new Set([...uses(page.content), ...(translatedUses.get(`page:${page.id}`) ?? [])]);
      for (const id of inContent) {
        const usage = result.get(id)!;
        usage.pageIds.push(page.id);
        if (!shown(pageSites.get(page.id))) usage.elsewhere += 1;
        else usage.pages.push({ id: page.id, title: page.title, status: page.status, as: ['content'] });
      }
    }
    for (const website of websites) {
      const asLogo = new Set(uses(website.site_logo));
      const asFavicon = new Set(uses(website.site_favicon));
      const asCover = new Set(uses(website.site_cover));
      for (const id of new Set([...asLogo, ...asFavicon, ...asCover])) {
        const usage = result.get(id)!;
        if (website.id !== websiteId) {
          usage.elsewhere += 1;
          continue;
        }
        const as: Array<'logo' | 'favicon' | 'cover'> = [];
        if (asLogo.has(id)) as.push('logo');
        if (asFavicon.has(id)) as.push('favicon');
        if (asCover.has(id)) as.push('cover');
        usage.websites.push({ id: website.id, name: website.site_name, as });
      }
    }
    return result;
  }

  /** Rows to items: bindings and translations in one query each. */
  private async hydrate(rows: Row[]): Promise<MediaItem[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const [sites, translations] = await Promise.all([
      this.deps.bindings.websitesOf(MEDIA_MODEL, ids),
      this.deps.translations.forModels(MEDIA_MODEL, ids),
    ]);
    return rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      websiteIds: sites.get(row.id) ?? [],
      fileName: row.file_name ?? row.path.split('/').pop() ?? row.path,
      url: row.url,
      path: row.path,
      mimeType: row.mime_type,
      type: mediaTypeOf(row.mime_type),
      size: row.size,
      width: row.width,
      height: row.height,
      alt: row.alt,
      caption: row.caption,
      translations: translations.get(row.id) ?? {},
      variants: parseVariants(row.variants).map((variant) => ({
        name: variant.name,
        url: this.deps.store.url(variant.path),
        mimeType: variant.mimeType,
        width: variant.width,
        height: variant.height,
        size: variant.size,
      })),
      createdAt: toIso(row.created_at),
      updatedAt: toIso(row.updated_at ?? row.created_at),
    }));
  }
}

/** An item's text in one locale (R-T3): its translation, else its base text. */
export function mediaText(item: MediaItem, field: 'alt' | 'caption', locale: string): string | null {
  const base = item[field];
  if (base === null && !item.translations[field]) return null;
  return translate(base ?? '', item.translations, field, locale);
}
