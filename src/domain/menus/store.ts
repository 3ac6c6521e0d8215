// Menus: every website has named menus (issue 23 #1: `header`, `footer`, …), each a tree of items that
// point to a page, a post, a tag or a URL, with translatable labels. This file is their store: reads
// (the site's menus by handle, cached; one menu's tree) and the transactions of every write. Who may
// write and what input means live in menu-operations.ts; API v1's sync (spec 4.3, 2.5, R-M2, R-M3)
// replaces the website's `header` menu, the one the site had before menus had names.
//
// Nesting: a request names a child's parent by the parent's `page_id` (that is what the examples do),
// so a child's `parent_id` must equal the `page_id` of a page item of the same request, the first such
// item in request order other than the child itself; the stored `parent_id` is that item's id. No such
// item, or parents that go round in a circle, is a 422 on `menu_items.N.parent_id`.
//
// Page items get their URL from the page: `/page/{slug}`, a path (so it works on every domain of the
// website), prefixed with `/{locale}` when localization is on and the sync's locale is not the
// default one (R-F3).
import type { Cache } from '../../cache/cache.js';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { MenuItemsTable } from '../../db/schema.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import { isUniqueViolation } from '../../db/errors.js';
import { ConflictError, InputError, NotFoundError, StaleWriteError, ValidationError } from '../errors.js';
import { isStorableId, storableIds } from '../ids.js';
import { localizedPath } from '../locales.js';
import { safeHref } from '../websites/urls.js';
import type { LocaleSettings } from '../locales.js';
import type { PagesService } from '../pages/store.js';
import { splitTranslatable, translate } from '../translations.js';
import type { Translatable, TranslationMap, TranslationsService } from '../translations.js';
import { toIso } from '../values.js';

/** The item types API v1's sync writes. */
export const MENU_ITEM_TYPES = ['page', 'link'] as const;
export type MenuItemType = (typeof MENU_ITEM_TYPES)[number];
/** Every item type: `link` is a URL; the others point to a record of the website. */
export const MENU_ITEM_KINDS = ['page', 'post', 'tag', 'link'] as const;
export type MenuItemKind = (typeof MENU_ITEM_KINDS)[number];
/** The menu API v1 works on, and the default theme's header. */
export const HEADER_MENU = 'header';
/** The model type of menu items' translations (their labels: field `label`). */
export const MENU_ITEM_MODEL = 'menu_item';
export const MAX_MENU_ITEMS = 200;
export const MAX_MENU_DEPTH = 5;
export const MAX_MENUS_PER_WEBSITE = 50;
export const MENU_TARGETS = ['_self', '_blank'] as const;
export type MenuTarget = (typeof MENU_TARGETS)[number];

/** The cache tag of every menu, and of one website's menu. */
export const MENUS_CACHE_TAG = 'menus';
export const websiteMenuCacheTag = (websiteId: number) => `menus:website:${websiteId}`;

/** One item of a sync request, validated. */
export interface MenuItemInput {
  order: number;
  name: string;
  type: MenuItemType;
  pageId: number | null;
  url: string | null;
  target: MenuTarget;
  icon: string | null;
  /** The `page_id` of the parent item in the same request. */
  parentPageId: number | null;
}

export interface MenuItem {
  id: number;
  websiteId: number;
  order: number;
  name: string;
  type: string;
  pageId: number | null;
  postId: number | null;
  tagId: number | null;
  url: string | null;
  target: string;
  icon: string | null;
  parentId: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface MenuItemWithPage extends MenuItem {
  page: { id: number; title: string; slug: string } | null;
}

export interface MenuTreeItem extends MenuItem {
  /** A tag item's tag (the site makes its URL from the tag type's public path). */
  tag: { type: string; slug: string } | null;
  /** `{ label: { locale: text } }`. */
  translations: TranslationMap;
  children: MenuTreeItem[];
}

/** A named menu (without its items). */
export interface Menu {
  id: number;
  websiteId: number;
  handle: string;
  name: string;
  createdAt: string;
  /** The menu's version: every change of it or of its items moves it forward. */
  updatedAt: string;
}

/** One item of a menu tree as validated for a write (menu-operations.ts). */
export interface MenuItemSpec {
  /** The index of its parent in the request, or null for a root. */
  parent: number | null;
  /** Its position among its siblings. */
  position: number;
  label: Translatable;
  type: MenuItemKind;
  pageId: number | null;
  postId: number | null;
  tagId: number | null;
  url: string | null;
  target: MenuTarget;
  icon: string | null;
}

export interface SyncResult {
  websiteId: number;
  itemsCreated: number;
  itemsDeleted: number;
}

export interface SyncOptions {
  /** The locale the page URLs are made for; the default locale when absent. */
  locale?: string;
  locales: LocaleSettings;
}

const COLUMNS = [
  'id',
  'website_id',
  'position',
  'name',
  'type',
  'page_id',
  'post_id',
  'tag_id',
  'url',
  'target',
  'icon',
  'parent_id',
  'created_at',
  'updated_at',
] as const;

type MenuItemRow = Pick<Selectable<MenuItemsTable>, (typeof COLUMNS)[number]>;

const pageIdError = (index: number) =>
  new InputError(`menu_items.${index}.page_id`, `The selected menu items.${index}.page id is invalid.`);
const parentIdError = (index: number) =>
  new InputError(`menu_items.${index}.parent_id`, `The selected menu items.${index}.parent id is invalid.`);

/**
 * The index (in the request) of each item's parent, or null; the InputErrors of items whose parent
 * cannot be found or that sit in a circle of parents.
 */
export function resolveParents(items: readonly MenuItemInput[]): {
  parents: (number | null)[];
  errors: InputError[];
} {
  const errors: InputError[] = [];
  const parents = items.map((item, index) => {
    if (item.parentPageId === null) return null;
    const parent = items.findIndex(
      (other, otherIndex) =>
        otherIndex !== index && other.type === 'page' && other.pageId === item.parentPageId,
    );
    if (parent < 0) errors.push(parentIdError(index));
    return parent < 0 ? null : parent;
  });
  items.forEach((_item, index) => {
    const seen = new Set<number>([index]);
    for (let current = parents[index] ?? null; current !== null; current = parents[current] ?? null) {
      if (seen.has(current)) {
        errors.push(parentIdError(index));
        return;
      }
      seen.add(current);
    }
  });
  errors.sort((a, b) => itemIndexOf(a) - itemIndexOf(b));
  return { parents, errors };
}

const itemIndexOf = (error: InputError) => Number(error.field.split('.')[1]);

export const menuNotFound = () => new NotFoundError('Menu not found');

/** `{ handle: tree }` of a website's menus, as the site shows them. */
export type SiteMenus = Record<string, MenuTreeItem[]>;

type Trx = Db;

export class MenusService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly cache: Cache,
    private readonly pages: PagesService,
    private readonly translations: TranslationsService,
  ) {}

  /**
   * Every rule of a sync that needs no website: page items name live pages, parents resolve. Returns
   * the InputErrors, in item order (page before parent for one item).
   */
  async check(items: readonly MenuItemInput[], db: Db = this.db): Promise<InputError[]> {
    const pageIds = items.flatMap((item) =>
      item.type === 'page' && item.pageId !== null ? [item.pageId] : [],
    );
    const live = new Set(await this.pages.existingIds(pageIds, db));
    const errors: InputError[] = [];
    items.forEach((item, index) => {
      if (item.type === 'page' && item.pageId !== null && !live.has(item.pageId))
        errors.push(pageIdError(index));
    });
    errors.push(...resolveParents(items).errors);
    return errors.sort((a, b) => itemIndexOf(a) - itemIndexOf(b));
  }

  /**
   * Replaces every item of the website's `header` menu (made when missing) in one transaction (spec
   * 4.3 rule 3): deletes them, then creates the request's items in `order` (then request order) and
   * links children to parents. Any failure rolls everything back, so the previous menu stays. The
   * website's other menus are not API v1's and stay as they are.
   */
  async sync(websiteId: number, items: readonly MenuItemInput[], options: SyncOptions): Promise<SyncResult> {
    const { parents, errors } = resolveParents(items);
    if (errors[0]) throw errors[0];
    const locale = options.locale ?? options.locales.defaultLocale;
    const now = nowIso(this.clock);

    const result = await this.db.transaction().execute(async (trx) => {
      const header = await this.headerMenu(trx, websiteId);
      // Rows written before menus had names (menu_id null) are the header's too.
      const existing = await trx
        .selectFrom('menu_items')
        .select('id')
        .where('website_id', '=', websiteId)
        .where((eb) => eb.or([eb('menu_id', '=', header.id), eb('menu_id', 'is', null)]))
        .execute();
      await this.removeItems(
        trx,
        existing.map((row) => row.id),
      );
      // Pages are read inside the transaction: a page deleted since the request was checked fails it.
      const pages = await this.pages.summaries(
        items.flatMap((item) => (item.pageId !== null ? [item.pageId] : [])),
        trx,
      );
      const creationOrder = items
        .map((item, index) => ({ item, index }))
        .sort((a, b) => a.item.order - b.item.order || a.index - b.index);
      const ids = new Map<number, number>();
      for (const { item, index } of creationOrder) {
        let url = item.url;
        let pageId: number | null = null;
        if (item.type === 'page') {
          const page = item.pageId === null ? undefined : pages.get(item.pageId);
          if (!page) throw pageIdError(index);
          pageId = page.id;
          url = localizedPath(`/page/${encodeURIComponent(page.slug)}`, locale, options.locales);
        }
        const row = await trx
          .insertInto('menu_items')
          .values({
            website_id: websiteId,
            menu_id: header.id,
            parent_id: null,
            position: item.order,
            name: item.name,
            type: item.type,
            page_id: pageId,
            url,
            target: item.target,
            icon: item.icon,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        ids.set(index, row.id);
      }
      for (const [index, parent] of parents.entries()) {
        if (parent === null) continue;
        await trx
          .updateTable('menu_items')
          .set({ parent_id: ids.get(parent) ?? null })
          .where('id', '=', ids.get(index) ?? -1)
          .execute();
      }
      await this.advance(trx, header.id);
      return { websiteId, itemsCreated: items.length, itemsDeleted: existing.length };
    });
    return result;
  }

  /** One item with its page (R-M3), or null. */
  async find(id: number): Promise<MenuItemWithPage | null> {
    if (!isStorableId(id)) return null;
    const row = await this.db
      .selectFrom('menu_items')
      .select(COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    const pages = await this.pages.summaries(row.page_id === null ? [] : [row.page_id]);
    return { ...toItem(row), page: (row.page_id === null ? undefined : pages.get(row.page_id)) ?? null };
  }

  /** A website's `header` menu as a tree, labels in their base text (API v1's menu). */
  async treeOf(websiteId: number): Promise<MenuTreeItem[]> {
    return (await this.siteMenus(websiteId, null))[HEADER_MENU] ?? [];
  }

  /**
   * Every menu of a website as `{ handle: tree }` for the site, labels in `locale` (null: their base
   * text), cached under the menu cache tags. Items in position, then id.
   */
  async siteMenus(websiteId: number, locale: string | null): Promise<SiteMenus> {
    return this.cache.remember(
      `menus:site:${websiteId}:${locale ?? ''}`,
      { tags: [MENUS_CACHE_TAG, websiteMenuCacheTag(websiteId)] },
      async () => {
        const menus = await this.db
          .selectFrom('menus')
          .select(['id', 'handle'])
          .where('website_id', '=', websiteId)
          .orderBy('id')
          .execute();
        const trees = await this.trees(
          menus.map((menu) => menu.id),
          locale,
        );
        // For the site: a stored `javascript:` URL (written before it was refused, or by SQL) is
        // never a clickable link.
        const safe = (nodes: MenuTreeItem[]): MenuTreeItem[] =>
          nodes.map((node) => ({ ...node, url: safeHref(node.url), children: safe(node.children) }));
        return Object.fromEntries(menus.map((menu) => [menu.handle, safe(trees.get(menu.id) ?? [])]));
      },
    );
  }

  // ---- Named menus (issue 23 #1): the writes of menu-operations.ts ---------------------------------

  async list(websiteId: number): Promise<Menu[]> {
    const rows = await this.db
      .selectFrom('menus')
      .selectAll()
      .where('website_id', '=', websiteId)
      .orderBy('id')
      .limit(MAX_MENUS_PER_WEBSITE)
      .execute();
    return rows.map(toMenu);
  }

  async findMenu(id: number): Promise<Menu | null> {
    if (!isStorableId(id)) return null;
    const row = await this.db.selectFrom('menus').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toMenu(row) : null;
  }

  async findMenuByHandle(websiteId: number, handle: string): Promise<Menu | null> {
    const row = await this.db
      .selectFrom('menus')
      .selectAll()
      .where('website_id', '=', websiteId)
      .where('handle', '=', handle)
      .executeTakeFirst();
    return row ? toMenu(row) : null;
  }

  /** One menu's items as a tree, labels in `locale` (null: base text) with every translation. */
  async tree(menuId: number, locale: string | null): Promise<MenuTreeItem[]> {
    return (await this.trees([menuId], locale)).get(menuId) ?? [];
  }

  /** A new menu; a handle the website already has, or one menu too many, is a ConflictError. */
  async createMenu(websiteId: number, input: { handle: string; name: string }): Promise<Menu> {
    const now = nowIso(this.clock);
    const id = await handleConflicts(input.handle, () =>
      this.db.transaction().execute(async (trx) => {
        const count = await trx
          .selectFrom('menus')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('website_id', '=', websiteId)
          .executeTakeFirst();
        if (Number(count?.n ?? 0) >= MAX_MENUS_PER_WEBSITE) {
          throw new ConflictError(`A website has at most ${MAX_MENUS_PER_WEBSITE} menus.`);
        }
        await this.assertHandleFree(trx, websiteId, input.handle, null);
        const row = await trx
          .insertInto('menus')
          .values({
            website_id: websiteId,
            handle: input.handle,
            name: input.name,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return row.id;
      }),
    );
    return this.mustFind(id);
  }

  /** Renames a menu (name, handle); `ifVersion`: the version the writer read (else StaleWriteError). */
  async updateMenu(
    menu: Menu,
    patch: { handle?: string; name?: string },
    ifVersion: string | undefined,
  ): Promise<Menu> {
    await handleConflicts(patch.handle ?? menu.handle, () =>
      this.db.transaction().execute(async (trx) => {
        const version = await this.advance(trx, menu.id, ifVersion);
        const changes: { updated_at: string; handle?: string; name?: string } = { updated_at: version };
        if (patch.handle !== undefined && patch.handle !== menu.handle) {
          await this.assertHandleFree(trx, menu.websiteId, patch.handle, menu.id);
          changes.handle = patch.handle;
        }
        if (patch.name !== undefined) changes.name = patch.name;
        await trx.updateTable('menus').set(changes).where('id', '=', menu.id).execute();
      }),
    );
    return this.mustFind(menu.id);
  }

  /** Deletes a menu with its items (and their labels' translations). */
  async deleteMenu(menu: Menu, ifVersion: string | undefined): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.advance(trx, menu.id, ifVersion);
      const items = await trx.selectFrom('menu_items').select('id').where('menu_id', '=', menu.id).execute();
      await this.removeItems(
        trx,
        items.map((row) => row.id),
      );
      await trx.deleteFrom('menus').where('id', '=', menu.id).execute();
    });
  }

  /**
   * Replaces a menu's whole tree in one transaction (reorder and nest in one call). The items'
   * structure was checked by the operation; here, inside the transaction, that every page, post and
   * tag named is live and on the menu's website (a ValidationError on `items.N.page_id` … otherwise:
   * nothing is written). Page and post items keep the path of their record as their URL.
   */
  async replaceItems(
    menu: Menu,
    items: readonly MenuItemSpec[],
    options: { ifVersion?: string; defaultLocale?: string },
  ): Promise<void> {
    const now = nowIso(this.clock);
    await this.db.transaction().execute(async (trx) => {
      await this.advance(trx, menu.id, options.ifVersion);
      const targets = await this.targetsOn(trx, menu.websiteId, items);
      const errors: Record<string, string[]> = {};
      items.forEach((item, index) => {
        const [field, known] =
          item.type === 'page'
            ? (['page_id', targets.pages.has(item.pageId ?? -1)] as const)
            : item.type === 'post'
              ? (['post_id', targets.posts.has(item.postId ?? -1)] as const)
              : item.type === 'tag'
                ? (['tag_id', targets.tags.has(item.tagId ?? -1)] as const)
                : (['url', true] as const);
        if (!known)
          errors[`items.${index}.${field}`] = [
            `The selected items.${index}.${field.replace('_', ' ')} is invalid.`,
          ];
      });
      if (Object.keys(errors).length > 0) throw new ValidationError(errors);

      const old = await trx.selectFrom('menu_items').select('id').where('menu_id', '=', menu.id).execute();
      await this.removeItems(
        trx,
        old.map((row) => row.id),
      );
      const ids: number[] = [];
      // Parents come before their children in the request (the operation checked it).
      for (const item of items) {
        const label = splitTranslatable(item.label, options.defaultLocale);
        const row = await trx
          .insertInto('menu_items')
          .values({
            website_id: menu.websiteId,
            menu_id: menu.id,
            parent_id: item.parent === null ? null : (ids[item.parent] ?? null),
            position: item.position,
            name: label.base,
            type: item.type,
            page_id: item.type === 'page' ? item.pageId : null,
            post_id: item.type === 'post' ? item.postId : null,
            tag_id: item.type === 'tag' ? item.tagId : null,
            url:
              item.type === 'page'
                ? `/page/${encodeURIComponent(targets.pages.get(item.pageId ?? -1) ?? '')}`
                : item.type === 'post'
                  ? `/post/${encodeURIComponent(targets.posts.get(item.postId ?? -1) ?? '')}`
                  : item.type === 'link'
                    ? item.url
                    : null,
            target: item.target,
            icon: item.icon,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        ids.push(row.id);
        await this.translations.save(trx, MENU_ITEM_MODEL, row.id, 'label', label.translations);
      }
    });
  }

  /** The website's `header` menu, made when it has none yet (API v1's sync writes there). */
  private async headerMenu(trx: Trx, websiteId: number): Promise<{ id: number }> {
    const now = nowIso(this.clock);
    // Two first syncs at once: the second finds the first's menu instead of failing on the handle.
    await trx
      .insertInto('menus')
      .values({
        website_id: websiteId,
        handle: HEADER_MENU,
        name: 'Header',
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.columns(['website_id', 'handle']).doNothing())
      .execute();
    return trx
      .selectFrom('menus')
      .select('id')
      .where('website_id', '=', websiteId)
      .where('handle', '=', HEADER_MENU)
      .executeTakeFirstOrThrow();
  }

  private async mustFind(id: number): Promise<Menu> {
    const menu = await this.findMenu(id);
    if (!menu) throw menuNotFound();
    return menu;
  }

  private async assertHandleFree(trx: Trx, websiteId: number, handle: string, except: number | null) {
    let query = trx
      .selectFrom('menus')
      .select('id')
      .where('website_id', '=', websiteId)
      .where('handle', '=', handle);
    if (except !== null) query = query.where('id', '!=', except);
    const taken = await query.executeTakeFirst();
    if (taken) throw new ConflictError(`This website already has a menu "${handle}" (#${taken.id}).`);
  }

  /**
   * Moves the menu's version forward, first thing in a write's transaction (it takes the row's lock):
   * strictly later than the current one even within one millisecond, so an ETag never names two
   * states. With `ifVersion`, a menu changed since the writer read it is a StaleWriteError.
   */
  private async advance(trx: Trx, menuId: number, ifVersion?: string): Promise<string> {
    const row = await trx
      .selectFrom('menus')
      .select('updated_at')
      .where('id', '=', menuId)
      .executeTakeFirst();
    if (!row) throw menuNotFound();
    const current = toIso(row.updated_at);
    if (ifVersion !== undefined && ifVersion !== current) throw new StaleWriteError();
    const next = new Date(Math.max(this.clock.now().getTime(), Date.parse(current) + 1)).toISOString();
    let update = trx.updateTable('menus').set({ updated_at: next }).where('id', '=', menuId);
    // A concurrent writer committed between the read and this write: the read version is stale.
    if (ifVersion !== undefined) update = update.where('updated_at', '=', row.updated_at);
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new StaleWriteError();
    return next;
  }

  /** Deletes items with their labels' translations (children go with their parents). */
  private async removeItems(trx: Trx, ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await trx
      .deleteFrom('translations')
      .where('model_type', '=', MENU_ITEM_MODEL)
      .where('model_id', 'in', [...ids])
      .execute();
    await trx
      .deleteFrom('menu_items')
      .where('id', 'in', [...ids])
      .execute();
  }

  /** The pages, posts and tags the items name that are live on the website: `id -> slug`. */
  private async targetsOn(trx: Trx, websiteId: number, items: readonly MenuItemSpec[]) {
    const idsOf = (type: MenuItemKind, pick: (item: MenuItemSpec) => number | null) =>
      storableIds(items.flatMap((item) => (item.type === type && pick(item) !== null ? [pick(item)!] : [])));
    const pageIds = idsOf('page', (item) => item.pageId);
    const postIds = idsOf('post', (item) => item.postId);
    const tagIds = idsOf('tag', (item) => item.tagId);
    // Pages and posts: those not deleted (tags are deleted for good).
    const live = async (kind: 'page' | 'post', ids: number[]) => {
      if (ids.length === 0) return [];
      const table = kind === 'page' ? 'pages' : 'posts';
      return trx
        .selectFrom(table)
        .select(['id', 'slug'])
        .where('id', 'in', ids)
        .where('deleted_at', 'is', null)
        .where((eb) => visibleOnWebsite(eb, kind, eb.ref(`${table}.id`), websiteId))
        .execute();
    };
    const pages = await live('page', pageIds);
    const posts = await live('post', postIds);
    const tags = tagIds.length
      ? await trx
          .selectFrom('tags')
          .select(['id', 'slug'])
          .where('id', 'in', tagIds)
          .where((eb) => visibleOnWebsite(eb, 'tag', eb.ref('tags.id'), websiteId))
          .execute()
      : [];
    const bySlug = (rows: Array<{ id: number; slug: string }>) =>
      new Map(rows.map((row) => [row.id, row.slug]));
    return { pages: bySlug(pages), posts: bySlug(posts), tags: bySlug(tags) };
  }

  /** The trees of these menus (position, then id), labels in `locale` (null: base text). */
  private async trees(
    menuIds: readonly number[],
    locale: string | null,
  ): Promise<Map<number, MenuTreeItem[]>> {
    const trees = new Map<number, MenuTreeItem[]>();
    if (menuIds.length === 0) return trees;
    const rows = await this.db
      .selectFrom('menu_items')
      .select([...COLUMNS, 'menu_id'])
      .where('menu_id', 'in', [...menuIds])
      .orderBy('position')
      .orderBy('id')
      .execute();
    const translations = await this.translations.forModels(
      MENU_ITEM_MODEL,
      rows.map((row) => row.id),
    );
    const tagIds = storableIds(rows.flatMap((row) => (row.tag_id === null ? [] : [row.tag_id])));
    const tags = new Map(
      (tagIds.length
        ? await this.db.selectFrom('tags').select(['id', 'type', 'slug']).where('id', 'in', tagIds).execute()
        : []
      ).map((tag) => [tag.id, { type: tag.type, slug: tag.slug }]),
    );
    // Items follow their page or post: the stored URL (made when the item was written) takes the
    // target's slug of now; a deleted target keeps the last one.
    const liveSlugs = async (table: 'pages' | 'posts', kind: 'page' | 'post') => {
      const ids = storableIds(
        rows.flatMap((row) => (row.type === kind && row[`${kind}_id`] !== null ? [row[`${kind}_id`]!] : [])),
      );
      if (ids.length === 0) return new Map<number, string>();
      const found = await this.db
        .selectFrom(table)
        .select(['id', 'slug'])
        .where('id', 'in', ids)
        .where('deleted_at', 'is', null)
        .execute();
      return new Map(found.map((target) => [target.id, target.slug]));
    };
    const [pageSlugs, postSlugs] = await Promise.all([
      liveSlugs('pages', 'page'),
      liveSlugs('posts', 'post'),
    ]);
    const nodes = new Map<number, MenuTreeItem>();
    for (const row of rows) {
      const map = translations.get(row.id) ?? {};
      const item = toItem(row);
      if (row.type === 'page' && row.page_id !== null)
        item.url = retarget(item.url, 'page', pageSlugs.get(row.page_id));
      if (row.type === 'post' && row.post_id !== null)
        item.url = retarget(item.url, 'post', postSlugs.get(row.post_id));
      nodes.set(row.id, {
        ...item,
        name: locale === null ? item.name : translate(item.name, map, 'label', locale),
        tag: row.tag_id === null ? null : (tags.get(row.tag_id) ?? null),
        translations: map,
        children: [],
      });
    }
    for (const row of rows) {
      const node = nodes.get(row.id) as MenuTreeItem;
      const parent = row.parent_id === null ? undefined : nodes.get(row.parent_id);
      if (parent) parent.children.push(node);
      else {
        const roots = trees.get(row.menu_id ?? -1) ?? [];
        roots.push(node);
        trees.set(row.menu_id ?? -1, roots);
      }
    }
    return trees;
  }
}

/** A stored `…/page/{slug}` or `…/post/{slug}` URL pointing at the slug of now (its locale prefix kept). */
export function retarget(url: string | null, kind: 'page' | 'post', slug: string | undefined): string | null {
  if (url === null || slug === undefined) return url;
  const at = url.lastIndexOf(`/${kind}/`);
  if (at === -1) return url;
  return `${url.slice(0, at)}/${kind}/${encodeURIComponent(slug)}`;
}

/**
 * The websites whose menus point at these pages, posts or tags: a change of one of them changes
 * those menus (their links follow a renamed slug; see trees()).
 */
export class MenuReferences {
  constructor(private readonly db: Db) {}

  async websitesPointingAt(kind: 'page' | 'post' | 'tag', ids: readonly number[]): Promise<number[]> {
    const targets = storableIds(ids);
    if (targets.length === 0) return [];
    const rows = await this.db
      .selectFrom('menu_items')
      .select('website_id')
      .distinct()
      .where(`${kind}_id`, 'in', targets)
      .execute();
    return rows.map((row) => row.website_id);
  }
}

/** A handle taken by a concurrent write (the unique index decided) is the same 409 as one found taken. */
async function handleConflicts<T>(handle: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`This website already has a menu "${handle}".`);
    throw error;
  }
}

function toMenu(row: {
  id: number;
  website_id: number;
  handle: string;
  name: string;
  created_at: Date | string;
  updated_at: Date | string;
}): Menu {
  return {
    id: row.id,
    websiteId: row.website_id,
    handle: row.handle,
    name: row.name,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

function toItem(row: MenuItemRow): MenuItem {
  return {
    id: row.id,
    websiteId: row.website_id,
    order: Number(row.position),
    name: row.name,
    type: row.type,
    pageId: row.page_id,
    postId: row.post_id,
    tagId: row.tag_id,
    url: row.url,
    target: row.target,
    icon: row.icon,
    parentId: row.parent_id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}
