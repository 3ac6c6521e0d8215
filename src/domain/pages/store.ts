// Pages: real records (title, slug, content, type, status, translations, website bindings). The API
// only has placeholders for them (spec 4.5, R-Pg1); menus link to pages and the public website shows
// them at `/page/{slug}` (R-F4). Slugs are unique among live pages; a soft-deleted page frees its slug.
import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PagesTable } from '../../db/schema.js';
import type { WebsiteBindings } from '../websites/bindings.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import { nextVersion, nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { InputError, StaleWriteError } from '../errors.js';
import { isStorableId, storableIds } from '../ids.js';
import { slugify, uniqueSlug } from '../text/slugs.js';
import { containsText, likePattern } from '../text/text-match.js';
import { splitTranslatable, translate } from '../translations.js';
import type { Translatable, TranslationMap, TranslationsService } from '../translations.js';
import { toIso } from '../values.js';

export const PAGE_MODEL = 'page';
export const PAGE_TYPES = ['plain', 'template'] as const;
export type PageType = (typeof PAGE_TYPES)[number];
export const PAGE_STATUSES = ['draft', 'published'] as const;
export type PageStatus = (typeof PAGE_STATUSES)[number];

export interface NewPage {
  title: Translatable;
  content?: Translatable | null;
  /** Made from the title when absent; a taken slug gets `-2`, `-3`… */
  slug?: string;
  type?: PageType;
  template?: string | null;
  status?: PageStatus;
  metaTitle?: string | null;
  metaDescription?: string | null;
  authorId?: number | null;
  /** Websites the page shows on; none: every website. */
  websiteIds?: readonly number[];
  /** The locale whose value of a locale map becomes the base value (R-T2). */
  defaultLocale?: string;
}

export interface Page {
  id: number;
  title: string;
  slug: string;
  content: string | null;
  type: string;
  template: string | null;
  status: string;
  /** For search engines; null: the title, and the start of the content. */
  metaTitle: string | null;
  metaDescription: string | null;
  authorId: number | null;
  websiteIds: number[];
  translations: TranslationMap;
  createdAt: string;
  updatedAt: string;
}

export interface FindPageOptions {
  /** Only a page that shows on this website (bound to it, or to none). */
  websiteId?: number | null;
  /** Title and content in this locale (R-T3). */
  locale?: string;
  /** Only published pages. */
  publishedOnly?: boolean;
}

const COLUMNS = [
  'id',
  'title',
  'slug',
  'content',
  'type',
  'template',
  'status',
  'meta_title',
  'meta_description',
  'author_id',
  'created_at',
  'updated_at',
] as const;
type PageRow = Pick<Selectable<PagesTable>, (typeof COLUMNS)[number]>;

export class PagesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly translations: TranslationsService,
    private readonly bindings: WebsiteBindings,
  ) {}

  /** Creates a page with its translations and website bindings in one transaction. */
  async create(input: NewPage): Promise<Page> {
    const title = splitTranslatable(input.title, input.defaultLocale);
    if (title.base.trim() === '') throw new InputError('title', 'The title field is required.');
    const content =
      input.content === undefined || input.content === null
        ? null
        : splitTranslatable(input.content, input.defaultLocale);
    const now = nowIso(this.clock);
    const id = await this.db.transaction().execute(async (trx) => {
      const slug = await uniqueSlug(slugify(input.slug ?? title.base), async (candidates) => {
        const rows = await trx
          .selectFrom('pages')
          .select('slug')
          .where('deleted_at', 'is', null)
          .where('slug', 'in', candidates)
          .execute();
        return new Set(rows.map((row) => row.slug));
      });
      const row = await trx
        .insertInto('pages')
        .values({
          title: title.base,
          slug,
          content: content?.base ?? null,
          type: input.type ?? 'plain',
          template: input.template ?? null,
          status: input.status ?? 'published',
          meta_title: input.metaTitle ?? null,
          meta_description: input.metaDescription ?? null,
          author_id: input.authorId ?? null,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await this.translations.save(trx, PAGE_MODEL, row.id, 'title', title.translations);
      if (content) await this.translations.save(trx, PAGE_MODEL, row.id, 'content', content.translations);
      if (input.websiteIds?.length) await this.bindings.sync(trx, PAGE_MODEL, row.id, input.websiteIds);
      return row.id;
    });
    const page = await this.findById(id);
    if (!page) throw new Error(`page #${id} vanished after creation`);
    return page;
  }

  async findById(id: number, options: FindPageOptions = {}): Promise<Page | null> {
    if (!isStorableId(id)) return null;
    return this.findOne('id', id, options);
  }

  async findBySlug(slug: string, options: FindPageOptions = {}): Promise<Page | null> {
    return this.findOne('slug', slug, options);
  }

  /** Which of these ids are live pages, in ascending order. */
  async existingIds(ids: readonly number[], db: Db = this.db): Promise<number[]> {
    const candidates = storableIds(ids);
    if (candidates.length === 0) return [];
    const rows = await db
      .selectFrom('pages')
      .select('id')
      .where('deleted_at', 'is', null)
      .where('id', 'in', candidates)
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /** `id -> {id, title, slug}` of live pages, in one query (menus show their pages with it). */
  async summaries(
    ids: readonly number[],
    db: Db = this.db,
  ): Promise<Map<number, { id: number; title: string; slug: string }>> {
    const byId = new Map<number, { id: number; title: string; slug: string }>();
    const candidates = storableIds(ids);
    if (candidates.length === 0) return byId;
    const rows = await db
      .selectFrom('pages')
      .select(['id', 'title', 'slug'])
      .where('deleted_at', 'is', null)
      .where('id', 'in', candidates)
      .execute();
    for (const row of rows) byId.set(row.id, { id: row.id, title: row.title, slug: row.slug });
    return byId;
  }

  /** Live pages, newest first: of a website (bound to it, or to none), a status, words of the title. */
  async list(query: {
    websiteId?: number;
    status?: PageStatus;
    q?: string;
    page: number;
    perPage: number;
  }): Promise<{ items: Page[]; total: number }> {
    let select = this.db.selectFrom('pages').where('deleted_at', 'is', null);
    const websiteId = query.websiteId;
    if (websiteId !== undefined) {
      select = select.where((eb) => visibleOnWebsite(eb, PAGE_MODEL, eb.ref('pages.id'), websiteId));
    }
    if (query.status) select = select.where('status', '=', query.status);
    const q = query.q?.trim();
    if (q) select = select.where((eb) => containsText(eb.ref('pages.title'), likePattern(q)));
    const count = await select.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    const rows = await select
      .select(COLUMNS)
      .orderBy('id', 'desc')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute();
    const items: Page[] = [];
    for (const row of rows) items.push(await this.toPage(row));
    return { items, total: Number(count?.n ?? 0) };
  }

  /** Changes the fields given (absent: unchanged); a slug is made unique like a new one's. */
  async update(
    id: number,
    patch: Partial<Omit<NewPage, 'authorId'>> & { websiteIds?: readonly number[] },
    ifUpdatedAt?: string,
  ): Promise<Page | null> {
    const current = await this.findById(id);
    if (!current) return null;
    const title = patch.title === undefined ? undefined : splitTranslatable(patch.title, patch.defaultLocale);
    if (title && title.base.trim() === '') throw new InputError('title', 'The title field is required.');
    const content =
      patch.content === undefined || patch.content === null
        ? patch.content
        : splitTranslatable(patch.content, patch.defaultLocale);
    await this.db.transaction().execute(async (trx) => {
      const changes: Record<string, unknown> = { updated_at: nextVersion(this.clock, current.updatedAt) };
      if (title) changes.title = title.base;
      if (content !== undefined) changes.content = content?.base ?? null;
      if (patch.type !== undefined) changes.type = patch.type;
      if (patch.template !== undefined) changes.template = patch.template;
      if (patch.status !== undefined) changes.status = patch.status;
      if (patch.metaTitle !== undefined) changes.meta_title = patch.metaTitle;
      if (patch.metaDescription !== undefined) changes.meta_description = patch.metaDescription;
      if (patch.slug !== undefined) {
        changes.slug = await uniqueSlug(slugify(patch.slug), async (candidates) => {
          const rows = await trx
            .selectFrom('pages')
            .select('slug')
            .where('deleted_at', 'is', null)
            .where('id', '!=', id)
            .where('slug', 'in', candidates)
            .execute();
          return new Set(rows.map((row) => row.slug));
        });
      }
      let update = trx.updateTable('pages').set(changes).where('id', '=', id).where('deleted_at', 'is', null);
      // API v2's If-Match: only the version the writer read is changed; else nothing is (412).
      if (ifUpdatedAt !== undefined) update = update.where('updated_at', '=', ifUpdatedAt);
      const updated = await update.executeTakeFirst();
      if (ifUpdatedAt !== undefined && Number(updated.numUpdatedRows) === 0) throw new StaleWriteError();
      if (title) await this.translations.save(trx, PAGE_MODEL, id, 'title', title.translations);
      if (content) await this.translations.save(trx, PAGE_MODEL, id, 'content', content.translations);
      if (patch.websiteIds !== undefined) await this.bindings.sync(trx, PAGE_MODEL, id, patch.websiteIds);
    });
    return this.findById(id);
  }

  /** The menu items that link to a page (deleting it would leave them pointing nowhere). */
  async menuItemsUsing(id: number): Promise<number> {
    const row = await this.db
      .selectFrom('menu_items')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('page_id', '=', id)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Soft delete: the page disappears and its slug becomes free. */
  async delete(id: number): Promise<boolean> {
    const result = await this.db
      .updateTable('pages')
      .set({ deleted_at: nowIso(this.clock) })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  private async findOne(column: 'id' | 'slug', value: number | string, options: FindPageOptions) {
    let query = this.db.selectFrom('pages').select(COLUMNS).where('deleted_at', 'is', null);
    query = column === 'id' ? query.where('id', '=', Number(value)) : query.where('slug', '=', String(value));
    if (options.publishedOnly) query = query.where('status', '=', 'published');
    const websiteId = options.websiteId;
    if (websiteId !== undefined && websiteId !== null) {
      query = query.where((eb) => visibleOnWebsite(eb, PAGE_MODEL, eb.ref('pages.id'), websiteId));
    }
    const row = await query.executeTakeFirst();
    return row ? this.toPage(row, options.locale) : null;
  }

  private async toPage(row: PageRow, locale?: string): Promise<Page> {
    const translations = (await this.translations.forModels(PAGE_MODEL, [row.id])).get(row.id) ?? {};
    const websiteIds = (await this.bindings.websitesOf(PAGE_MODEL, [row.id])).get(row.id) ?? [];
    return {
      id: row.id,
      title: locale ? translate(row.title, translations, 'title', locale) : row.title,
      slug: row.slug,
      content:
        locale && row.content !== null
          ? translate(row.content, translations, 'content', locale)
          : row.content,
      type: row.type,
      template: row.template,
      status: row.status,
      metaTitle: row.meta_title,
      metaDescription: row.meta_description,
      authorId: row.author_id,
      websiteIds,
      translations,
      createdAt: toIso(row.created_at),
      updatedAt: toIso(row.updated_at),
    };
  }
}
