// The one schema of each website write's input (spec 4.4; API v1 and API v2 parse with them): fields
// in the API's names; messages are worded by each face from the issues (':attribute').
import { z } from 'zod';
import { boolean, integer, optional, requiredString, translatable } from '../schema-fields.js';
import { PLAIN_WEBSITE_FIELDS, TRANSLATABLE_WEBSITE_FIELDS } from './store.js';

export const DEFAULT_WEBSITE_PAGE_SIZE = 20;
export const MAX_WEBSITE_PAGE_SIZE = 100;

/** The websites a caller may see (API v1's list, spec 4.4), by a keyword in name or domain. */
export const listWebsitesInput = z.object({
  keyword: optional(z.string().max(255)),
  page_size: optional(integer()).default(DEFAULT_WEBSITE_PAGE_SIZE),
  page: optional(integer()).default(1),
});

const nullableText = (max?: number) =>
  z
    .string()
    .max(max ?? 65_535)
    .nullable()
    .optional();

export const createWebsiteInput = z.object({
  site_name: translatable().refine((value) => typeof value !== 'string' || value.trim() !== '', {
    message: 'The :attribute field is required.',
  }),
  domain: requiredString(255),
  theme: optional(z.string().max(100)),
  remark: optional(z.string().max(65_535)),
});

/** One schema per field of a list, typed by the field names (Object.fromEntries alone forgets them). */
function fieldsOf<F extends string, S extends z.ZodType>(fields: readonly F[], schema: (field: F) => S) {
  return Object.fromEntries(fields.map((field) => [field, schema(field)])) as Record<F, S>;
}

export const updateWebsiteInput = z.object({
  user_id: integer().nullable().optional(),
  domain: optional(z.string().max(255)),
  ...fieldsOf(TRANSLATABLE_WEBSITE_FIELDS, () => translatable().nullable().optional()),
  ...fieldsOf(PLAIN_WEBSITE_FIELDS, (field) => nullableText(field === 'theme' ? 100 : undefined)),
  enabled_page_cache: optional(boolean()),
  enabled_data_cache: optional(boolean()),
});

export const websiteDomainInput = z.object({ website_id: integer(), domain: requiredString(255) });
