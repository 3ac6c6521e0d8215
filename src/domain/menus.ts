// Menus (spec 4.3, 2.5, R-M2, R-M3): the items of a website's menu, replaced as a whole by a sync.
//
// Nesting: a request names a child's parent by the parent's `page_id` (that is what the examples do),
// so a child's `parent_id` must equal the `page_id` of a page item of the same request, the first such
// item in request order other than the child itself; the stored `parent_id` is that item's id. No such
// item, or parents that go round in a circle, is a 422 on `menu_items.N.parent_id`.
//
// Page items get their URL from the page: `/page/{slug}`, a path (so it works on every domain of the
// website), prefixed with `/{locale}` when localization is on and the sync's locale is not the
// default one (R-F3).
import type { Cache } from '../cache/cache.js';
import { recordWrite } from './audit.js';
import type { AuditLog } from './audit.js';
import type { ContentChanges } from './changes.js';
import type { Actor } from './policy.js';
import type { Db } from '../db/database.js';
import { nowIso } from './clock.js';
import type { Clock } from './clock.js';
import { InputError } from './errors.js';
import { isStorableId } from './ids.js';
import { localizedPath } from './locales.js';
import { safeHref } from './site-urls.js';
import type { LocaleSettings } from './locales.js';
import type { PagesService } from './pages.js';
import { toIso } from './values.js';

export const MENU_ITEM_TYPES = ['page', 'link'] as const;
export type MenuItemType = (typeof MENU_ITEM_TYPES)[number];
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
  children: MenuTreeItem[];
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
  /** Who syncs, for the audit log (absent: a system write, e.g. the sample content). */
  actor?: Actor;
}

const COLUMNS = [
  'id',
  'website_id',
  'position',
  'name',
  'type',
  'page_id',
  'url',
  'target',
  'icon',
  'parent_id',
  'created_at',
  'updated_at',
] as const;

interface MenuItemRow {
  id: number;
  website_id: number;
  position: number;
  name: string;
  type: string;
  page_id: number | null;
  url: string | null;
  target: string;
  icon: string | null;
  parent_id: number | null;
  created_at: Date | string;
  updated_at: Date | string;
}

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

export class MenusService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly cache: Cache,
    private readonly pages: PagesService,
    /** Told after every committed change (the caches listen: cache-tags.ts). */
    private readonly changes?: ContentChanges,
    private readonly audit?: AuditLog,
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
   * Replaces every menu item of the website in one transaction (spec 4.3 rule 3): deletes them, then
   * creates the request's items in `order` (then request order) and links children to parents. Any
   * failure rolls everything back, so the previous menu stays. Flushes the menu cache after.
   */
  async sync(websiteId: number, items: readonly MenuItemInput[], options: SyncOptions): Promise<SyncResult> {
    const { parents, errors } = resolveParents(items);
    if (errors[0]) throw errors[0];
    const locale = options.locale ?? options.locales.defaultLocale;
    const now = nowIso(this.clock);

    const result = await this.db.transaction().execute(async (trx) => {
      // Counted first: SQLite does not count the children its cascade removes with their parent.
      const existing = await trx
        .selectFrom('menu_items')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('website_id', '=', websiteId)
        .executeTakeFirst();
      await trx.deleteFrom('menu_items').where('website_id', '=', websiteId).execute();
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
      return { websiteId, itemsCreated: items.length, itemsDeleted: Number(existing?.n ?? 0) };
    });

    await this.changes?.announce({ kind: 'menu', websiteId });
    if (options.actor) {
      await recordWrite(this.audit, options.actor, {
        action: 'menu.sync',
        resourceType: 'menu',
        resourceId: websiteId,
        websiteIds: [websiteId],
        input: { items: items.length },
      });
    }
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

  /** A website's menu as a tree (in `order`, then id), cached under the menu cache tags. */
  async treeOf(websiteId: number): Promise<MenuTreeItem[]> {
    return this.cache.remember(
      `menus:tree:${websiteId}`,
      { tags: [MENUS_CACHE_TAG, websiteMenuCacheTag(websiteId)] },
      async () => {
        const rows = await this.db
          .selectFrom('menu_items')
          .select(COLUMNS)
          .where('website_id', '=', websiteId)
          .orderBy('position')
          .orderBy('id')
          .execute();
        // For the site: a stored `javascript:` URL (written before it was refused, or by SQL) is
        // never a clickable link.
        const nodes = new Map(
          rows.map((row) => [
            row.id,
            { ...toItem(row), url: safeHref(row.url), children: [] as MenuTreeItem[] },
          ]),
        );
        const roots: MenuTreeItem[] = [];
        for (const row of rows) {
          const node = nodes.get(row.id) as MenuTreeItem;
          const parent = row.parent_id === null ? undefined : nodes.get(row.parent_id);
          if (parent) parent.children.push(node);
          else roots.push(node);
        }
        return roots;
      },
    );
  }
}

function toItem(row: MenuItemRow): MenuItem {
  return {
    id: row.id,
    websiteId: row.website_id,
    order: Number(row.position),
    name: row.name,
    type: row.type,
    pageId: row.page_id,
    url: row.url,
    target: row.target,
    icon: row.icon,
    parentId: row.parent_id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}
