// The one schema of each menu operation's input: API v2's named menus and their trees, and API v1's
// menu sync (spec 4.3, R-M1..R-M3, R-V2), whose rules across fields (`website_id` or `domain`, a
// page item's `page_id`, a supported `locale`) are checked here too, so one 422 lists them all.
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import type { ValidationIssue } from '../errors.js';
import { MAX_DB_INTEGER, MIN_DB_INTEGER } from '../ids.js';
import { ATTRIBUTE, integer, optional, requiredString, translatable } from '../schema-fields.js';
import { isValidLocale, normalizeLocale } from '../translations.js';
import { isSafeHref } from '../websites/urls.js';
import { MAX_MENU_ITEMS, MENU_ITEM_KINDS, MENU_ITEM_TYPES, MENU_TARGETS } from './store.js';
import type { MenuItemInput } from './store.js';

const HANDLE = z
  .string()
  .regex(
    /^[a-z][a-z0-9_-]{0,49}$/,
    `The ${ATTRIBUTE} must start with a letter and hold only a-z, 0-9, - and _ (at most 50).`,
  );

export const createMenuInput = z.object({ handle: HANDLE, name: requiredString(255) });
export const updateMenuInput = z.object({ handle: HANDLE.optional(), name: requiredString(255).optional() });

const MAX_LABEL = 255;
const MAX_LABEL_LOCALES = 50;
const textsOf = (value: string | Record<string, string>) =>
  typeof value === 'string' ? [value] : Object.values(value);
const label = translatable()
  .refine((value) => textsOf(value).some((text) => text.trim() !== ''), `The ${ATTRIBUTE} field is required.`)
  .refine(
    (value) =>
      textsOf(value).length <= MAX_LABEL_LOCALES && textsOf(value).every((text) => text.length <= MAX_LABEL),
    `The ${ATTRIBUTE} may not be greater than ${MAX_LABEL} characters (in at most ${MAX_LABEL_LOCALES} locales).`,
  );
const REF = z.string().min(1).max(64);

export const menuItemInput = z
  .object({
    ref: REF.optional().describe('A name for the item in this request, for its children\u2019s `parent`.'),
    parent: REF.nullable().optional().describe('The `ref` of its parent (an item before it); none: a root.'),
    label: label.describe('A text, or a map of locale to text.'),
    type: z.enum(MENU_ITEM_KINDS),
    page_id: integer().optional().describe('type `page`: a page of the menu\u2019s website.'),
    post_id: integer().optional().describe('type `post`: a post of the menu\u2019s website.'),
    tag_id: integer().optional().describe('type `tag`: a tag of the menu\u2019s website.'),
    url: z
      .string()
      .trim()
      .max(2048)
      .refine(isSafeHref, `The ${ATTRIBUTE} format is invalid.`)
      .optional()
      .describe('type `link`: http(s), mailto, tel, or a relative URL.'),
    target: z.enum(MENU_TARGETS).optional(),
    icon: z.string().max(100).nullable().optional(),
  })
  .strict();

export const replaceMenuItemsInput = z.object({ items: z.array(menuItemInput).max(MAX_MENU_ITEMS) });

/** One of `values`; absent or empty is `field is required`, anything else `selected … is invalid`. */
const requiredChoice = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess(
    (value) => {
      if (value === undefined || value === null || value === '') return undefined;
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
    },
    z.string().pipe(z.enum(values)),
  );

const syncItemInput = z.object({
  order: integer().pipe(z.int().min(MIN_DB_INTEGER).max(MAX_DB_INTEGER)),
  name: requiredString(255),
  type: requiredChoice(MENU_ITEM_TYPES),
  page_id: optional(integer()),
  url: optional(z.string().trim().max(2048).refine(isSafeHref, `The ${ATTRIBUTE} format is invalid.`)),
  target: optional(requiredChoice(MENU_TARGETS)).default('_self'),
  icon: optional(z.string().max(255)),
  parent_id: optional(integer()),
});

/** API v1's menu sync: a website (by id or domain) and its whole menu. */
export const syncMenuInput = z.object({
  website_id: optional(integer()),
  domain: optional(z.string().trim()),
  locale: optional(z.string().trim()),
  menu_items: z.array(syncItemInput).min(1),
});

export interface MenuSyncRequest {
  target: { websiteId: number } | { domain: string };
  items: MenuItemInput[];
  /** Normalized (R-T1); absent: the website's default. */
  locale?: string;
}

const given = (value: unknown) => value !== undefined && value !== null && value !== '';

/** Field order of the request: website_id, domain, locale, menu_items, then items by index and field. */
export function syncFieldRank(field: string): [number, number, number] {
  const top = ['website_id', 'domain', 'locale', 'menu_items'].indexOf(field);
  if (top >= 0) return [top, 0, 0];
  const [, index, name] = field.split('.');
  const fields = ['order', 'name', 'type', 'page_id', 'url', 'target', 'icon', 'parent_id'];
  return [4, Number(index), fields.indexOf(name ?? '')];
}

export function bySyncFieldOrder(a: string, b: string): number {
  const [ra, rb] = [syncFieldRank(a), syncFieldRank(b)];
  return ra[0] - rb[0] || ra[1] - rb[1] || ra[2] - rb[2];
}

/**
 * API v1's menu sync request checked: the schema's findings and the rules across fields, each a
 * finding on its field, in the request's field order; `supportedLocales` are the installation's.
 */
export function parseMenuSync(raw: unknown, supportedLocales: readonly string[]): MenuSyncRequest {
  const input = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const result = syncMenuInput.safeParse(input, { reportInput: true });
  const issues: ValidationIssue[] = result.success ? [] : [...(result.error.issues as ValidationIssue[])];
  // `input` is what the rule looked at (a finding without one would be worded as a missing field).
  const finding = (path: PropertyKey[], message: string, value: unknown) =>
    issues.push({ code: 'custom', path, message, input: value });
  if (!given(input.website_id) && !given(input.domain)) {
    finding(['website_id'], 'Either website_id or domain is required.', input);
  }
  if (Array.isArray(input.menu_items)) {
    input.menu_items.forEach((item: unknown, index) => {
      if (typeof item !== 'object' || item === null) return;
      const fields = item as Record<string, unknown>;
      if (fields.type === 'page' && !given(fields.page_id)) {
        finding(['menu_items', index, 'page_id'], `The ${ATTRIBUTE} field is required.`, fields.page_id);
      }
    });
  }
  const locale = result.success ? result.data.locale : undefined;
  if (
    locale !== undefined &&
    (!isValidLocale(locale) || !supportedLocales.includes(normalizeLocale(locale)))
  ) {
    finding(['locale'], `The selected ${ATTRIBUTE} is invalid.`, locale);
  }
  if (issues.length > 0 || !result.success) {
    const key = (issue: ValidationIssue) => issue.path.map(String).join('.');
    // A stable sort: the findings of one field keep their order ("Either …" first).
    issues.sort((a, b) => bySyncFieldOrder(key(a), key(b)));
    throw new ValidationError({}, issues);
  }
  const data = result.data;
  return {
    target: data.website_id !== undefined ? { websiteId: data.website_id } : { domain: data.domain ?? '' },
    items: data.menu_items.map((item) => ({
      order: item.order,
      name: item.name,
      type: item.type,
      pageId: item.type === 'page' ? (item.page_id ?? null) : null,
      url: item.type === 'link' ? (item.url ?? null) : null,
      target: item.target,
      icon: item.icon ?? null,
      parentPageId: item.parent_id ?? null,
    })),
    locale: data.locale === undefined ? undefined : normalizeLocale(data.locale),
  };
}
