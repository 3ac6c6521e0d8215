// The one schema of each tag operation's input. API v1's tag routes (spec 4.2, R-Tg1..R-Tg4) and API
// v2's tag routes derive theirs from these; messages are worded by each face from the issues
// (':attribute').
import { z } from 'zod';
import { isStorableId, MAX_DB_INTEGER, MIN_DB_INTEGER } from '../ids.js';
import {
  boolean,
  integer,
  MAX_LOCALE_LENGTH,
  optional,
  requiredString,
  translatable,
} from '../schema-fields.js';
import { MAX_TAG_NAME_LENGTH, MAX_TAG_TYPE_LENGTH } from './store.js';

/**
 * `website_id` of API v1's tag store: an integer, an array, or a comma-separated string (spec 4.2
 * rule 5). Anything that is not a positive integer is ignored; absent gives undefined.
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

/** A tag tree of one type, names in `locale` (API v1's `/tags`). Sizes capped: they name a cache entry. */
export const tagTreeInput = z.object({
  type: requiredString(MAX_TAG_TYPE_LENGTH),
  locale: optional(z.string().max(MAX_LOCALE_LENGTH)),
});

/** Which of these tag ids exist (API v1's `/tags/exist`). */
export const existingTagsInput = z.object({
  tagIds: z.array(integer()).min(1),
});

/**
 * API v1's tag store: a tag, or with `update_when_duplicated` the existing one of the same name and
 * type changed. `name` is a string of at most 255 characters, or a locale map of such strings.
 */
export const storeTagInput = z.object({
  name: translatable({ required: true, trim: true, max: MAX_TAG_NAME_LENGTH, style: 'tag' }),
  slug: optional(z.string().trim().max(255)),
  type: optional(z.string().trim().max(MAX_TAG_TYPE_LENGTH)),
  parent_id: optional(integer()),
  description: optional(z.string()),
  icon: optional(z.string().max(255)),
  sort: optional(integer().pipe(z.int().min(MIN_DB_INTEGER).max(MAX_DB_INTEGER))),
  website_id: z.unknown().transform(websiteIdList).optional(),
  update_when_duplicated: optional(boolean()).default(false),
});

const ids = z.array(integer()).max(100);
/** A new tag's type (API v2): a lower-case identifier. */
const TYPE = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'The :attribute format is invalid.')
  .max(MAX_TAG_TYPE_LENGTH);

export const createTagInput = z.object({
  name: translatable(),
  type: TYPE,
  slug: optional(z.string().max(190)),
  parent_id: optional(integer()),
  description: optional(z.string().max(65_535)),
  icon: optional(z.string().max(255)),
  sort: optional(integer()),
  website_ids: optional(ids),
});

export const updateTagInput = z.object({
  name: translatable().optional(),
  slug: optional(z.string().max(190)),
  parent_id: integer().nullable().optional(),
  description: z.string().max(65_535).nullable().optional(),
  icon: z.string().max(255).nullable().optional(),
  sort: optional(integer()),
  website_ids: optional(ids),
});

export const mergeTagInput = z.object({ into: integer() });
