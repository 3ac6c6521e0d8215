// Tags API (spec 4.2, R-Tg1..R-Tg4), with the envelope deviations of spec 2.1: the list has no
// `message`; store answers `{status, message, data}` only, and its 500 is
// `{"status":500,"message":"Server Error: …"}`.
import { z } from 'zod';
import { InputError } from '../../domain/errors.js';
import { MAX_DB_INTEGER, MIN_DB_INTEGER, isStorableId } from '../../domain/ids.js';
import { defaultLocale } from '../../domain/locales.js';
import { DEFAULT_TAG_TYPE, MAX_TAG_NAME_LENGTH, MAX_TAG_TYPE_LENGTH } from '../../domain/tags/store.js';
import type { Tag, TagNode } from '../../domain/tags/store.js';
import { isValidLocale, normalizeLocale } from '../../domain/translations.js';
import type { Translatable } from '../../domain/translations.js';
import type { FaceServices } from '../../services.js';
import { JsonText, success, validationFailed } from './envelope.js';
import type { Json } from './envelope.js';
import { actorOf } from './actor.js';
import { requestInput } from './input.js';
import type { ApiRouter } from './router.js';
import { boolean, integer, optional, requiredString, validate } from './validation.js';

/** A tag as the API shows it (R-Tg2). */
export function tagJson(tag: Tag): { [key: string]: Json } {
  return {
    id: tag.id,
    name: tag.name,
    slug: tag.slug,
    type: tag.type,
    parent_id: tag.parentId,
    description: tag.description,
    icon: tag.icon,
    sort: tag.sort,
    created_at: tag.createdAt,
    updated_at: tag.updatedAt,
  };
}

export function tagTreeJson(node: TagNode): Json {
  return { ...tagJson(node), children: node.children.map(tagTreeJson) };
}

/** The width of `translations.locale`. */
const MAX_LOCALE_LENGTH = 20;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `name`: a string of at most 255 characters, or a locale map of such strings (Folio's addition, as
 * for posts: the default locale's value is the name, every entry a translation).
 */
const tagName = z.unknown().transform((value, ctx): Translatable => {
  const issue = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  const tooLong = `The :attribute may not be greater than ${MAX_TAG_NAME_LENGTH} characters.`;
  if (value === undefined || value === null) return issue('The :attribute field is required.');
  if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return issue('The :attribute field is required.');
    return text.length > MAX_TAG_NAME_LENGTH ? issue(tooLong) : text;
  }
  if (!isPlainObject(value)) return issue('The :attribute must be a string.');
  const map: Record<string, string> = {};
  for (const [locale, text] of Object.entries(value)) {
    if (!isValidLocale(locale) || normalizeLocale(locale).length > MAX_LOCALE_LENGTH) {
      return issue('The selected :attribute is invalid.');
    }
    if (typeof text !== 'string') return issue('The :attribute must be a string.');
    if (text.trim().length > MAX_TAG_NAME_LENGTH) return issue(tooLong);
    map[locale] = text.trim();
  }
  if (Object.values(map).every((text) => text === '')) return issue('The :attribute field is required.');
  return map;
});

/**
 * `website_id`: an integer, an array, or a comma-separated string (spec 4.2 rule 5). Anything that is
 * not a positive integer is ignored; absent gives undefined.
 */
export function websiteIdList(value: unknown): number[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const parts: unknown[] = Array.isArray(value)
    ? value
    : typeof value === 'string'
      ? value.split(',')
      : [value];
  const ids: number[] = [];
  for (const part of parts) {
    const id =
      typeof part === 'number'
        ? part
        : typeof part === 'string' && /^\s*\d+\s*$/.test(part)
          ? Number(part)
          : NaN;
    if (isStorableId(id) && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

// Sizes capped (issue 21 #4): a type and a locale name a cache entry.
export const listSchema = z.object({
  type: requiredString(MAX_TAG_TYPE_LENGTH),
  locale: optional(z.string().max(MAX_LOCALE_LENGTH)),
});

export const existSchema = z.object({
  tagIds: z.array(integer()).min(1),
});

export const storeSchema = z.object({
  name: tagName,
  slug: optional(z.string().trim().max(255)),
  type: optional(z.string().trim().max(MAX_TAG_TYPE_LENGTH)),
  parent_id: optional(integer()),
  description: optional(z.string()),
  icon: optional(z.string().max(255)),
  sort: optional(integer().pipe(z.int().min(MIN_DB_INTEGER).max(MAX_DB_INTEGER))),
  website_id: z.unknown().transform(websiteIdList).optional(),
  update_when_duplicated: optional(boolean()).default(false),
});

/** The answer's bytes, encoded once per cached copy. */
const encoded = new WeakMap<object, JsonText>();
function answerBytes(answer: { text: string }): JsonText {
  let bytes = encoded.get(answer);
  if (!bytes) encoded.set(answer, (bytes = new JsonText(200, Buffer.from(answer.text))));
  return bytes;
}

/** The tag store's 500: a numeric status and no `code` (spec section 7). */
const storeServerError = (message: string): Json => ({ status: 500, message });

export function registerTagRoutes(router: ApiRouter, services: FaceServices): void {
  // Trees as answer text (cached by the read, per type and locale).
  const treeView = {
    name: 'api-v1',
    build: (tree: TagNode[]) => ({
      text: JSON.stringify({ code: 200, status: 'success', data: tree.map(tagTreeJson), extra: [] }),
    }),
  };
  router.route(['POST'], '/tags', { switchKey: 'svc_api_tag_index', read: true }, async (request) => {
    const input = validate(listSchema, requestInput(request));
    const locale = input.locale?.trim()
      ? normalizeLocale(input.locale)
      : await defaultLocale(services.settings);
    return answerBytes(await services.tagReads.tree(input.type, locale, treeView));
  });

  router.route(['POST'], '/tags/exist', { switchKey: 'svc_api_tag_exist', read: true }, async (request) => {
    const input = validate(existSchema, requestInput(request));
    return success('Successfully fetched data', { ids: await services.tagOps.existingIds(input.tagIds) });
  });

  router.route(
    ['POST'],
    '/tags/store',
    { switchKey: 'svc_api_tag_store', legacySwitch: 'enable_api_tag_store', userRequired: true },
    async (request) => {
      const input = validate(storeSchema, requestInput(request));
      try {
        const { outcome, tag } = await services.tagOps.store({
          name: input.name,
          type: input.type || DEFAULT_TAG_TYPE,
          slug: input.slug || undefined,
          parentId: input.parent_id,
          description: input.description,
          icon: input.icon,
          sort: input.sort,
          websiteIds: input.website_id,
          updateWhenDuplicated: input.update_when_duplicated,
          defaultLocale: await defaultLocale(services.settings),
          actor: await actorOf(services, request),
        });
        const message =
          outcome === 'created'
            ? `tag #${tag.id} created`
            : outcome === 'updated'
              ? 'Existing tag updated'
              : 'Skipped. Duplicated tag found';
        return { status: 'success', message, data: tagJson(tag) };
      } catch (error) {
        if (error instanceof InputError) throw validationFailed({ [error.field]: [error.message] });
        throw error;
      }
    },
    { serverErrorBody: storeServerError },
  );
}
