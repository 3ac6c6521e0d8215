// The one schema of each post operation's input (API v1's fields, spec 4.1; the public site's
// authoring sends the same fields). Messages are worded by each face from the issues (':attribute').
import { positiveInteger } from '../../lib/whole-number.js';
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import { isMediaPath } from '../media/urls.js';
import { boolean, integer, integerArray, isoDateTime, optional, translatable } from '../schema-fields.js';
import { MAX_SLUG_LENGTH } from '../text/slugs.js';
import {
  DEFAULT_POST_PAGE_SIZE,
  MAX_POST_PAGE_SIZE,
  POST_LIST_STATUSES,
  POST_STATUSES,
  SORTABLE_POST_FIELDS,
} from './model.js';
import type { PostWrite } from './model.js';

/** The most ids a list of tags, categories or exclusions may hold (larger lists are a 422, not a 500). */
export const MAX_ID_LIST = 1000;
/** Keywords of a list search, all terms together. */
export const MAX_KEYWORDS_LENGTH = 100;

const ids = () => integerArray().max(MAX_ID_LIST);

export const listPostsInput = z.object({
  keywords: optional(z.string().max(MAX_KEYWORDS_LENGTH)),
  tags: optional(ids()),
  tag_type: optional(z.string().max(50)),
  excluded_post_ids: optional(ids()),
  status: optional(z.enum(POST_LIST_STATUSES)),
  sort: optional(z.enum(SORTABLE_POST_FIELDS)).default('created_at'),
  direction: optional(
    z.preprocess(
      (value) => (typeof value === 'string' ? value.toLowerCase() : value),
      z.enum(['asc', 'desc']),
    ),
  ).default('desc'),
  page_size: optional(integer()).default(DEFAULT_POST_PAGE_SIZE),
  page: optional(integer()).default(1),
  is_random: optional(boolean()).default(false),
});
export type ListPostsInput = z.output<typeof listPostsInput>;
export const LIST_FIELDS = Object.keys(listPostsInput.shape);

export const clampPageSize = (value: number) => Math.min(MAX_POST_PAGE_SIZE, Math.max(1, value));

/**
 * The largest texts of a post, per locale, for every face (the site's form had its own, smaller caps
 * before issue 35 #3). Generous for API clients and imports, and bounding the sanitizer's work.
 */
export const MAX_POST_TITLE_LENGTH = 1000;
export const MAX_POST_CONTENT_LENGTH = 2_000_000;
export const MAX_POST_EXCERPT_LENGTH = 65_535;

/** Present and blank (`null` or `''`) means "clear it"; absent means "not sent". */
const nullable = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (value === '' ? null : value), schema.nullable().optional());

/** `website_id`: an integer, an array of them, or a comma-separated string (R-P8). */
const websiteIds = z.unknown().transform((value, ctx): number[] => {
  const items =
    typeof value === 'string'
      ? value.split(',').map((item) => item.trim())
      : Array.isArray(value)
        ? value
        : [value];
  const ids: number[] = [];
  if (items.length > MAX_ID_LIST) {
    ctx.addIssue({
      code: 'custom',
      message: `The :attribute may not have more than ${MAX_ID_LIST} items.`,
      input: value,
    });
    return z.NEVER;
  }
  for (const item of items) {
    const id = positiveInteger(item, 15);
    if (id === null) {
      ctx.addIssue({ code: 'custom', message: 'The selected :attribute is invalid.', input: value });
      return z.NEVER;
    }
    ids.push(id);
  }
  return ids;
});

/** Folio's own file by its site-relative address (issue 36 #5), or an http(s) URL: a post's thumbnail. */
export function isThumbnailAddress(value: string): boolean {
  if (isMediaPath(value)) return true;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine(isThumbnailAddress, { message: 'The :attribute format is invalid.' });

function writeSchema(creating: boolean) {
  // On update a title or content that is sent must not be blank; absent leaves it unchanged.
  const text = (max: number) => {
    const field = translatable({ required: true, max, style: 'post' });
    return creating ? field : field.optional();
  };
  return z.object({
    title: text(MAX_POST_TITLE_LENGTH),
    content: text(MAX_POST_CONTENT_LENGTH),
    slug: optional(z.string().max(MAX_SLUG_LENGTH)),
    excerpt: nullable(translatable({ max: MAX_POST_EXCERPT_LENGTH, style: 'post' })),
    keywords: nullable(translatable({ max: MAX_POST_EXCERPT_LENGTH, style: 'post' })),
    thumbnail: z.unknown().optional(),
    thumbnail_url: nullable(httpUrl),
    author_id: optional(integer()),
    status: optional(z.enum(POST_STATUSES)),
    published_at: nullable(isoDateTime()),
    meta_title: nullable(z.string().max(1000)),
    meta_description: nullable(z.string().max(65535)),
    meta_keywords: nullable(z.string().max(65535)),
    tags: optional(ids()),
    categories: optional(ids()),
    website_id: optional(websiteIds),
    localize_images: optional(boolean()),
  });
}

export const createPostInput = writeSchema(true);
export const updatePostInput = writeSchema(false);
export type PostInput = z.output<typeof updatePostInput>;

/** An uploaded file as a face hands it over (multipart): the domain reads its bytes only. */
export interface UploadedBytes {
  filename: string;
  data: Buffer;
  /** Cut off at the request's limit: too large whatever the setting says. */
  truncated: boolean;
}

function isUpload(value: unknown): value is UploadedBytes {
  return (
    typeof value === 'object' &&
    value !== null &&
    Buffer.isBuffer((value as UploadedBytes).data) &&
    typeof (value as UploadedBytes).filename === 'string'
  );
}

/** The uploaded thumbnail; a thumbnail that is not a file is a 422 (its content is checked later). */
export function thumbnailUpload(value: unknown): UploadedBytes | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  // A form whose file input was left empty sends a nameless, empty file: nothing was uploaded.
  if (isUpload(value) && value.filename === '' && value.data.length === 0) return undefined;
  if (!isUpload(value) || value.data.length === 0) {
    throw new ValidationError({ thumbnail: ['The thumbnail must be an image.'] });
  }
  return value;
}

/** The write a parsed input asks for (absent fields stay absent: an update leaves them alone). */
export function toWrite(input: PostInput, upload: UploadedBytes | undefined): PostWrite {
  return {
    title: input.title,
    content: input.content,
    excerpt: input.excerpt,
    keywords: input.keywords,
    slug: input.slug,
    status: input.status,
    publishedAt:
      input.published_at === undefined || input.published_at === null
        ? input.published_at
        : new Date(input.published_at.trim()).toISOString(),
    metaTitle: input.meta_title,
    metaDescription: input.meta_description,
    metaKeywords: input.meta_keywords,
    authorId: input.author_id,
    tags: input.tags,
    categories: input.categories,
    websiteIds: input.website_id,
    thumbnailUrl: input.thumbnail_url,
    thumbnailUpload: upload?.data,
    thumbnailTruncated: upload?.truncated,
    localizeImages: input.localize_images,
  };
}
