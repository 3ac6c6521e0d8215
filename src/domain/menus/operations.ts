// Named menus as operations for the management faces (API v2, the admin panel next): a website's
// menus, one menu with its tree, create, rename, delete, and replace a menu's whole tree in one call
// (reorder and nest at once). One zod schema per input, one policy question (policy.managesMenus: the
// website's management, as for its fields and domains), one transaction (the store's, menus.ts), one
// announced change, audited.
//
// A tree is sent flat, in display order: each item may carry a `ref` (any short text, unique in the
// request) and name its parent by that `ref`; a parent comes before its children. That is what a
// drag-and-drop builder has at hand, and what makes a cycle or a too-deep nesting a field error
// (`items.N.parent`) instead of something a nested body could not even say.
import type { z } from 'zod';
import type { ContentChanges } from '../changes.js';
import type { OperationRunner } from '../run.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import { ForbiddenError, InputError, NotFoundError, ValidationError } from '../errors.js';
import { isStorableId } from '../ids.js';
import { localeSettings } from '../locales.js';
import {
  bySyncFieldOrder,
  createMenuInput,
  parseMenuSync,
  replaceMenuItemsInput,
  updateMenuInput,
} from './input.js';
import type { menuItemInput } from './input.js';
import { MAX_MENU_DEPTH, menuNotFound } from './store.js';
import type {
  Menu,
  MenuItemSpec,
  MenuItemWithPage,
  MenuTreeItem,
  MenusService,
  SyncResult,
} from './store.js';
import type { Actor, Policy } from '../policy.js';
import { parse } from '../schema-fields.js';
import type { SettingsService } from '../system/settings.js';
import { DEFAULT_LOCALE } from '../translations.js';

type ItemInput = z.output<typeof menuItemInput>;

const REFERENCE_FIELD = { page: 'page_id', post: 'post_id', tag: 'tag_id', link: 'url' } as const;

/**
 * The structure of a flat tree: each item's parent index and position among its siblings, or the
 * ValidationError naming every item that breaks a rule (its reference missing, a `ref` used twice,
 * a parent unknown or after it, a cycle, nesting deeper than MAX_MENU_DEPTH).
 */
export function planTree(items: readonly ItemInput[]): MenuItemSpec[] {
  const errors: Record<string, string[]> = {};
  const fail = (index: number, field: string, message: string) =>
    (errors[`items.${index}.${field}`] ??= []).push(message);
  const refs = new Map<string, number>();
  items.forEach((item, index) => {
    const field = REFERENCE_FIELD[item.type];
    if (item[field] === undefined) {
      fail(
        index,
        field,
        `The items.${index}.${field.replace('_', ' ')} field is required when type is ${item.type}.`,
      );
    }
    if (item.ref === undefined) return;
    if (refs.has(item.ref))
      fail(index, 'ref', `The items.${index}.ref has already been used in this request.`);
    else refs.set(item.ref, index);
  });
  // Parents by index; one that names an unknown ref is an error and becomes a root.
  const parents = items.map((item, index) => {
    if (item.parent === undefined || item.parent === null) return null;
    const parent = refs.get(item.parent);
    if (parent === undefined) {
      fail(index, 'parent', `The selected items.${index}.parent is invalid: no item has this ref.`);
      return null;
    }
    return parent;
  });
  items.forEach((_item, index) => {
    const seen = new Set<number>([index]);
    let depth = 1;
    for (let at = parents[index] ?? null; at !== null; at = parents[at] ?? null) {
      if (seen.has(at)) {
        fail(index, 'parent', `The items.${index}.parent makes a cycle: an item cannot be its own ancestor.`);
        return;
      }
      seen.add(at);
      depth += 1;
    }
    if (depth > MAX_MENU_DEPTH) {
      fail(index, 'parent', `The items.${index}.parent nests it deeper than ${MAX_MENU_DEPTH} levels.`);
    } else if (parents[index] !== null && (parents[index] ?? 0) > index) {
      fail(index, 'parent', `The items.${index}.parent must come before it in the list.`);
    }
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  const siblings = new Map<number | null, number>();
  return items.map((item, index) => {
    const parent = parents[index] ?? null;
    const position = siblings.get(parent) ?? 0;
    siblings.set(parent, position + 1);
    return {
      parent,
      position,
      label: item.label,
      type: item.type,
      pageId: item.page_id ?? null,
      postId: item.post_id ?? null,
      tagId: item.tag_id ?? null,
      url: item.url ?? null,
      target: item.target ?? '_self',
      icon: item.icon ?? null,
    };
  });
}

/** A menu with its tree. */
export interface MenuWithItems extends Menu {
  items: MenuTreeItem[];
}

/** API v1's menu sync found items it cannot store (each one an InputError), in the request's field order. */
export class MenuSyncProblems extends ValidationError {
  constructor(readonly problems: readonly InputError[]) {
    const messages: Record<string, string[]> = {};
    for (const problem of [...problems].sort((a, b) => bySyncFieldOrder(a.field, b.field))) {
      const list = (messages[problem.field] ??= []);
      if (!list.includes(problem.message)) list.push(problem.message);
    }
    super(messages);
    this.name = 'MenuSyncProblems';
  }
}

export class MenuOperations {
  constructor(
    private readonly menus: MenusService,
    private readonly policy: Policy,
    private readonly settings: SettingsService,
    private readonly websiteExists: (id: number) => Promise<boolean>,
    private readonly runner: OperationRunner,
    private readonly audit: AuditLog,
    private readonly websiteByDomain: (domain: string) => Promise<number | null>,
    /** Each write announces its website's menus (the caches listen); the store does not. */
    private readonly changes: ContentChanges,
  ) {}

  private announce(websiteId: number): Promise<void> {
    return this.changes.announce({ kind: 'menu', websiteId });
  }

  /**
   * API v1's menu sync: the website's menu items replaced by the request's (the website found by id,
   * or by domain). The request is checked first (parseMenuSync), then its items against the database
   * (MenuSyncProblems), then the website (404), then who may manage its menus; one transaction.
   */
  async sync(actor: Actor, raw: unknown): Promise<SyncResult> {
    const locales = await localeSettings(this.settings);
    const { target, items, locale } = parseMenuSync(raw, locales.supported);
    const options = { locale, locales };
    return this.runner.run(async () => {
      const problems = await this.menus.check(items);
      if (problems.length > 0) throw new MenuSyncProblems(problems);
      const websiteId =
        'websiteId' in target
          ? isStorableId(target.websiteId) && (await this.websiteExists(target.websiteId))
            ? target.websiteId
            : null
          : await this.websiteByDomain(target.domain);
      if (websiteId === null || !this.policy.inKeyScope(actor, websiteId)) {
        throw new NotFoundError('Website not found');
      }
      if (!(await this.policy.can(actor, 'menu.manage', { websiteId }))) throw new ForbiddenError();
      try {
        const result = await this.menus.sync(websiteId, items, options);
        await this.announce(websiteId);
        await recordWrite(this.audit, actor, {
          action: 'menu.sync',
          resourceType: 'menu',
          resourceId: websiteId,
          websiteIds: [websiteId],
          input: { items: items.length },
        });
        return result;
      } catch (error) {
        // A page deleted between the check and the write: the sync is rolled back.
        if (error instanceof InputError) throw new MenuSyncProblems([error]);
        throw error;
      }
    });
  }

  /** One menu item with its page (API v1's menu show): what the site shows, to any caller. */
  async item(id: number): Promise<MenuItemWithPage | null> {
    return this.menus.find(id);
  }

  /** A website's menus (without items): anyone its key reaches may read them (the site shows them). */
  async list(actor: Actor, websiteId: number): Promise<Menu[]> {
    await this.readable(actor, websiteId);
    return this.menus.list(websiteId);
  }

  /** One menu with its tree, labels in `locale` (absent: base text, every translation alongside). */
  async show(actor: Actor, id: number, locale?: string): Promise<MenuWithItems> {
    const menu = await this.menus.findMenu(id);
    if (!menu || !this.policy.inKeyScope(actor, menu.websiteId)) throw menuNotFound();
    return { ...menu, items: await this.menus.tree(menu.id, locale ?? null) };
  }

  async showByHandle(
    actor: Actor,
    websiteId: number,
    handle: string,
    locale?: string,
  ): Promise<MenuWithItems> {
    await this.readable(actor, websiteId);
    const menu = await this.menus.findMenuByHandle(websiteId, handle.slice(0, 50));
    if (!menu) throw menuNotFound();
    return { ...menu, items: await this.menus.tree(menu.id, locale ?? null) };
  }

  async create(actor: Actor, websiteId: number, raw: unknown): Promise<MenuWithItems> {
    return this.runner.run(async () => {
      const input = parse(createMenuInput, raw);
      await this.manages(actor, websiteId);
      const menu = await this.menus.createMenu(websiteId, input);
      await this.announce(websiteId);
      await this.audited(actor, 'menu.create', menu, raw);
      return { ...menu, items: [] };
    });
  }

  async update(actor: Actor, id: number, raw: unknown, ifVersion?: string): Promise<MenuWithItems> {
    return this.runner.run(async () => {
      const input = parse(updateMenuInput, raw);
      const menu = await this.writable(actor, id);
      const changed = await this.menus.updateMenu(menu, input, ifVersion);
      await this.announce(menu.websiteId);
      await this.audited(actor, 'menu.update', changed, raw);
      return { ...changed, items: await this.menus.tree(changed.id, null) };
    });
  }

  async delete(actor: Actor, id: number, ifVersion?: string): Promise<void> {
    return this.runner.run(async () => {
      const menu = await this.writable(actor, id);
      await this.menus.deleteMenu(menu, ifVersion);
      await this.announce(menu.websiteId);
      await this.audited(actor, 'menu.delete', menu, {});
    });
  }

  /** Replaces the menu's whole tree (see the top of this file for its shape). */
  async replaceItems(actor: Actor, id: number, raw: unknown, ifVersion?: string): Promise<MenuWithItems> {
    return this.runner.run(async () => {
      const input = parse(replaceMenuItemsInput, raw);
      const items = planTree(input.items);
      const menu = await this.writable(actor, id);
      await this.menus.replaceItems(menu, items, { ifVersion, defaultLocale: await this.defaultLocale() });
      await this.announce(menu.websiteId);
      const saved = (await this.menus.findMenu(menu.id)) ?? menu;
      await recordWrite(this.audit, actor, {
        action: 'menu.items',
        resourceType: 'menu',
        resourceId: menu.id,
        websiteIds: [menu.websiteId],
        input: { items: items.length },
      });
      return { ...saved, items: await this.menus.tree(menu.id, null) };
    });
  }

  /** A website the actor's key reaches and that exists (others are "not found"). */
  private async readable(actor: Actor, websiteId: number): Promise<void> {
    if (!this.policy.inKeyScope(actor, websiteId) || !(await this.websiteExists(websiteId))) {
      throw new NotFoundError('Website not found');
    }
  }

  private async manages(actor: Actor, websiteId: number): Promise<void> {
    await this.readable(actor, websiteId);
    if (!(await this.policy.can(actor, 'menu.manage', { websiteId }))) throw new ForbiddenError();
  }

  private async writable(actor: Actor, id: number): Promise<Menu> {
    const menu = await this.menus.findMenu(id);
    if (!menu || !this.policy.inKeyScope(actor, menu.websiteId)) throw menuNotFound();
    if (!(await this.policy.can(actor, 'menu.manage', { websiteId: menu.websiteId })))
      throw new ForbiddenError();
    return menu;
  }

  private async defaultLocale(): Promise<string> {
    return (await this.settings.get('default_locale'))?.trim() || DEFAULT_LOCALE;
  }

  private audited(actor: Actor, action: string, menu: Menu, input: unknown) {
    return recordWrite(this.audit, actor, {
      action,
      resourceType: 'menu',
      resourceId: menu.id,
      websiteIds: [menu.websiteId],
      input,
    });
  }
}
