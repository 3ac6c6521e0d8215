// Menus API (spec 4.3, R-M1..R-M3). Index and store are placeholders; sync replaces a website's menu
// (admin only); show fetches one item with its page.
//
// Authentication: menus have no switch of their own, only the global one (R-A2). The index
// placeholder is public (it returns nothing); the store placeholder writes the request to the log, so
// it needs a user in the mode `svc_api_menu_store_should_auth` (default simple); show uses
// `svc_api_menu_show_should_auth` (R-A3); sync always needs an admin, in the mode
// `svc_api_menu_sync_should_auth` (simple or basic).
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { localeSettings } from '../../domain/locales.js';
import { MENU_ITEM_TYPES, MENU_TARGETS } from '../../domain/menus/store.js';
import type { MenuItemInput, MenuItemWithPage } from '../../domain/menus/store.js';
import { NotFoundError } from '../../domain/errors.js';
import type { InputError } from '../../domain/errors.js';
import { MenuSyncProblems } from '../../domain/menus/operations.js';
import { MAX_DB_INTEGER, MIN_DB_INTEGER } from '../../domain/ids.js';
import { isValidLocale, normalizeLocale } from '../../domain/translations.js';
import { isSafeHref } from '../../domain/websites/urls.js';
import { ATTRIBUTE } from '../../domain/schema-fields.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './actor.js';
import { ApiError, success, validationFailed } from './envelope.js';
import type { Json } from './envelope.js';
import { requestInput } from './input.js';
import type { ApiRouter } from './router.js';
import { formatIssues, integer, optional, requiredString } from './validation.js';

/** A menu item as the API shows it (spec 2.5, R-M3). */
export function menuItemJson(item: MenuItemWithPage): Json {
  return {
    id: item.id,
    website_id: item.websiteId,
    order: item.order,
    name: item.name,
    type: item.type,
    page_id: item.pageId,
    url: item.url,
    target: item.target,
    icon: item.icon,
    parent_id: item.parentId,
    page: item.page,
    created_at: item.createdAt,
    updated_at: item.updatedAt,
  };
}

/** One of `values`; absent or empty is `field is required`, anything else `selected … is invalid`. */
const requiredChoice = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess(
    (value) => {
      if (value === undefined || value === null || value === '') return undefined;
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
    },
    z.string().pipe(z.enum(values)),
  );

const itemSchema = z.object({
  order: integer().pipe(z.int().min(MIN_DB_INTEGER).max(MAX_DB_INTEGER)),
  name: requiredString(255),
  type: requiredChoice(MENU_ITEM_TYPES),
  page_id: optional(integer()),
  url: optional(z.string().trim().max(2048).refine(isSafeHref, `The ${ATTRIBUTE} format is invalid.`)),
  target: optional(requiredChoice(MENU_TARGETS)).default('_self'),
  icon: optional(z.string().max(255)),
  parent_id: optional(integer()),
});

export const syncSchema = z.object({
  website_id: optional(integer()),
  domain: optional(z.string().trim()),
  locale: optional(z.string().trim()),
  menu_items: z.array(itemSchema).min(1),
});

type SyncInput = z.output<typeof syncSchema>;

/** Adds messages to an error map, keeping the first field's position. */
function addError(errors: Record<string, string[]>, field: string, message: string): void {
  const list = (errors[field] ??= []);
  if (!list.includes(message)) list.push(message);
}

/**
 * The sync request's rules that zod alone does not express: `website_id` or `domain` (R-V2), a
 * `page_id` for page items (required_if), and a supported `locale`. Collected with the schema's own
 * errors, so one 422 lists them all.
 */
function checkSyncInput(input: Record<string, unknown>, supportedLocales: string[]): SyncInput {
  const result = syncSchema.safeParse(input, { reportInput: true });
  const errors: Record<string, string[]> = {};
  const given = (value: unknown) => value !== undefined && value !== null && value !== '';
  if (!given(input.website_id) && !given(input.domain)) {
    addError(errors, 'website_id', 'Either website_id or domain is required.');
  }
  if (!result.success) mergeInto(errors, formatIssues(result.error.issues));
  if (Array.isArray(input.menu_items)) {
    input.menu_items.forEach((raw: unknown, index) => {
      if (typeof raw !== 'object' || raw === null) return;
      const item = raw as Record<string, unknown>;
      if (item.type === 'page' && !given(item.page_id)) {
        addError(errors, `menu_items.${index}.page_id`, `The menu items.${index}.page id field is required.`);
      }
    });
  }
  if (result.success && result.data.locale !== undefined) {
    const locale = result.data.locale;
    if (!isValidLocale(locale) || !supportedLocales.includes(normalizeLocale(locale))) {
      addError(errors, 'locale', 'The selected locale is invalid.');
    }
  }
  if (Object.keys(errors).length > 0 || !result.success) throw validationFailed(sortErrors(errors));
  return result.data;
}

function mergeInto(errors: Record<string, string[]>, more: Record<string, string[]>): void {
  for (const [field, messages] of Object.entries(more)) {
    for (const message of messages) addError(errors, field, message);
  }
}

/** Field order of the request: website_id, domain, locale, menu_items, then items by index. */
function sortErrors(errors: Record<string, string[]>): Record<string, string[]> {
  const rank = (field: string) => {
    const top = ['website_id', 'domain', 'locale', 'menu_items'].indexOf(field);
    if (top >= 0) return [top, 0, 0];
    const [, index, name] = field.split('.');
    const fields = ['order', 'name', 'type', 'page_id', 'url', 'target', 'icon', 'parent_id'];
    return [4, Number(index), fields.indexOf(name ?? '')];
  };
  const sorted = Object.entries(errors).sort(([a], [b]) => {
    const [ra, rb] = [rank(a), rank(b)];
    return ra[0]! - rb[0]! || ra[1]! - rb[1]! || ra[2]! - rb[2]!;
  });
  return Object.fromEntries(sorted);
}

const toItems = (input: SyncInput): MenuItemInput[] =>
  input.menu_items.map((item) => ({
    order: item.order,
    name: item.name,
    type: item.type,
    pageId: item.type === 'page' ? (item.page_id ?? null) : null,
    url: item.type === 'link' ? (item.url ?? null) : null,
    target: item.target,
    icon: item.icon ?? null,
    parentPageId: item.parent_id ?? null,
  }));

const errorsOf = (list: InputError[]) => {
  const errors: Record<string, string[]> = {};
  for (const error of list) addError(errors, error.field, error.message);
  return sortErrors(errors);
};

/**
 * What the store placeholder logs of a request body: each field's name and size (the characters of
 * its JSON), never a value, so neither a token nor anything a client sends reaches the logs
 * (issue 21 #12).
 */
export function fieldSizes(body: unknown): Record<string, number> | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  return Object.fromEntries(
    Object.entries(body)
      .filter(([key]) => key !== 'api_token')
      .slice(0, 50)
      .map(([key, value]) => [key.slice(0, 64), JSON.stringify(value)?.length ?? 0]),
  );
}

const menuNotFound = () => ApiError.fail(404, 'Menu not found');

function menuId(request: FastifyRequest): number | null {
  const raw = (request.params as { id?: string }).id ?? '';
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

export function registerMenuRoutes(router: ApiRouter, services: FaceServices): void {
  router.route(['GET', 'POST'], '/menus', { switchKey: null, authKey: null, read: true }, async () =>
    success('Successfully fetched menus', []),
  );

  router.route(
    ['POST'],
    '/menus/store',
    { switchKey: null, authKey: 'svc_api_menu_store' },
    async (request) => {
      request.log.info({ menuStore: fieldSizes(request.body) }, 'menu store request');
      return success('Menu store request logged', []);
    },
  );

  router.route(
    ['POST'],
    '/menus/sync',
    { switchKey: null, authKey: 'svc_api_menu_sync', adminOnly: true },
    async (request) => {
      const locales = await localeSettings(services.settings);
      const input = checkSyncInput(requestInput(request), locales.supported);
      const items = toItems(input);
      try {
        const result = await services.menuOps.sync(
          await actorOf(services, request),
          input.website_id !== undefined ? { websiteId: input.website_id } : { domain: input.domain ?? '' },
          items,
          { locale: input.locale === undefined ? undefined : normalizeLocale(input.locale), locales },
        );
        return success('Menu synchronized successfully', {
          website_id: result.websiteId,
          items_created: result.itemsCreated,
          items_deleted: result.itemsDeleted,
        });
      } catch (error) {
        if (error instanceof MenuSyncProblems) throw validationFailed(errorsOf([...error.problems]));
        if (error instanceof NotFoundError) throw ApiError.fail(404, 'Website not found');
        throw error;
      }
    },
  );

  router.route(
    ['GET', 'POST'],
    '/menus/:id',
    { switchKey: null, authKey: 'svc_api_menu_show', read: true },
    async (request) => {
      const id = menuId(request);
      const item = id === null ? null : await services.menuOps.item(id);
      if (!item) throw menuNotFound();
      return success('Successfully fetched menu', menuItemJson(item));
    },
  );
}
