// The public site's post form as the input of the authoring operations (posts/authoring.ts): one
// schema, with the same caps as every other face's posts (posts/input.ts), in the form's own shape
// (tags by name, categories as repeated fields, a Markdown or HTML body, a blank thumbnail address).
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import type { ValidationIssue } from '../errors.js';
import { CONTENT_FORMATS } from '../text/markdown.js';
import { MAX_TAG_NAME, MAX_TAG_NAMES } from './authoring.js';
import type { PostForm } from './authoring.js';
import {
  isThumbnailAddress,
  MAX_POST_CONTENT_LENGTH,
  MAX_POST_EXCERPT_LENGTH,
  MAX_POST_TITLE_LENGTH,
} from './input.js';
import { MAX_REVIEW_NOTE } from './review.js';

/** A list from a form: repeated fields (`categories[]=1&categories[]=2`) or one value. */
export const formList = (value: unknown): unknown[] =>
  value === undefined || value === '' ? [] : Array.isArray(value) ? (value as unknown[]) : [value];

/** The form's thumbnail address: blank (none) or one a post may have. */
const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine(
    (value) => value === '' || isThumbnailAddress(value),
    'The :attribute must be an http or https URL.',
  );

export const postFormInput = z.object({
  title: z.string().trim().min(1).max(MAX_POST_TITLE_LENGTH),
  content: z
    .string()
    .min(1)
    .max(MAX_POST_CONTENT_LENGTH)
    .refine((value) => value.trim() !== '', 'The :attribute field is required.'),
  // A form without the field (an older theme's) is HTML, as the form always was.
  format: z.enum(CONTENT_FORMATS).default('html'),
  excerpt: z.string().max(MAX_POST_EXCERPT_LENGTH).default(''),
  status: z.string(),
  categories: z.preprocess(
    formList,
    z.array(z.string().regex(/^\d{1,15}$/, 'The selected :attribute is invalid.')).max(50),
  ),
  tags: z
    .string()
    .max(1000)
    .default('')
    .transform((value) => [
      ...new Set(
        value
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== ''),
      ),
    ])
    .refine(
      (names) => names.length <= MAX_TAG_NAMES,
      `The :attribute may not have more than ${MAX_TAG_NAMES} items.`,
    )
    .refine(
      (names) => names.every((name) => name.length <= MAX_TAG_NAME),
      `Each tag may not be greater than ${MAX_TAG_NAME} characters.`,
    ),
  thumbnail_url: httpUrl.default(''),
  // An uploaded file (multipart): the post operation checks that it is an image within the size limit.
  thumbnail: z.unknown().optional(),
});

/** The form read and checked; `allowed` are the statuses this writer's form may set. */
export function readPostForm(body: unknown, allowed: readonly string[]): PostForm {
  const result = postFormInput.safeParse(body ?? {}, { reportInput: true });
  if (!result.success) throw new ValidationError({}, result.error.issues as unknown as ValidationIssue[]);
  const input = result.data;
  if (!allowed.includes(input.status))
    throw new ValidationError({ status: ['The selected status is invalid.'] });
  return {
    title: input.title,
    content: input.content,
    format: input.format,
    excerpt: input.excerpt,
    status: input.status,
    categories: input.categories.map(Number),
    tags: input.tags,
    thumbnailUrl: input.thumbnail_url,
    thumbnail: input.thumbnail,
  };
}

/** The editor's live preview: the content as it would be stored (nothing is stored). */
export const postPreviewInput = z.object({
  content: z.string().max(MAX_POST_CONTENT_LENGTH).default(''),
  format: z.enum(CONTENT_FORMATS).default('markdown'),
});

/** An editor's decision on a post waiting for review, from the site's review page. */
export const reviewDecisionInput = z.object({
  decision: z.enum(['approve', 'return']),
  note: z.string().max(MAX_REVIEW_NOTE).default(''),
});
