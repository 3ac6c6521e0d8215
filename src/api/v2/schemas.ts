// The shapes API v2 answers, as zod schemas: the OpenAPI document is generated from them (and from
// the domain's input schemas), and the tests check real answers against them.
import { z } from 'zod';
import { cursorPaginationMeta } from './conventions.js';

const id = () => z.int().min(1);
const time = () => z.string().describe('ISO 8601 date and time (UTC).');

export const POST_V2_STATUSES = ['draft', 'pending', 'published', 'scheduled'] as const;

export const postTagSchema = z.object({ id: id(), name: z.string(), type: z.string().optional() });

/**
 * What the caller may do to one post (issue 34 #19), from the policy: faces offer only these actions
 * (the operations still check every write). Depends on the caller, never cached across callers.
 */
export const postCanSchema = z
  .object({
    update: z.boolean().describe('Change it (and unpublish it: back to draft).'),
    publish: z.boolean().describe('Make it public: publish or schedule it.'),
    delete: z.boolean(),
  })
  .describe('What the caller may do to this post (the policy’s answer; writes are checked again).')
  .meta({ id: 'PostCan' });

/** What the caller may do to one page or menu (issue 34 #19). */
export const contentCanSchema = z
  .object({ update: z.boolean(), delete: z.boolean() })
  .describe('What the caller may do to it (the policy’s answer; writes are checked again).')
  .meta({ id: 'ContentCan' });

/** A post. Lists leave out the detail fields; `?fields=` keeps only the fields named. */
export const postSchema = z
  .object({
    id: id(),
    title: z.string(),
    slug: z.string(),
    excerpt: z.string().nullable(),
    content: z.string(),
    thumbnail: z.string().nullable(),
    status: z.enum(POST_V2_STATUSES),
    published_at: z.string().nullable(),
    author_id: id().nullable(),
    created_at: time(),
    updated_at: time(),
    // Detail only.
    website_ids: z.array(id()).optional().describe('The websites it is on; empty: every website.'),
    keywords: z.string().nullable().optional(),
    meta_title: z.string().nullable().optional(),
    meta_description: z.string().nullable().optional(),
    meta_keywords: z.string().nullable().optional(),
    translations: z
      .record(z.string(), z.record(z.string(), z.string()))
      .optional()
      .describe('Without `?locale=`: `{ field: { locale: text } }`.'),
    // With `?include=`.
    tags: z.array(postTagSchema).optional(),
    categories: z.array(postTagSchema).optional(),
    author: z.object({ id: id(), name: z.string(), email: z.string().optional() }).nullable().optional(),
    can: postCanSchema,
    // Lists with `q`.
    highlight: z
      .string()
      .nullable()
      .describe(
        'Lists with `q`: the text around the first match (in `locale` when given), as HTML: escaped, ' +
          'each match in `<mark>`; null when the match is in another locale or in markup.',
      ),
  })
  .partial()
  .meta({ id: 'Post' });

export const postListSchema = z
  .object({ data: z.array(postSchema), meta: z.object({ pagination: cursorPaginationMeta }) })
  .meta({ id: 'PostList' });

export const postOneSchema = z.object({ data: postSchema }).meta({ id: 'PostResponse' });

export const pendingPostSchema = z
  .object({
    id: id(),
    title: z.string(),
    slug: z.string(),
    author_id: id().nullable(),
    author_name: z.string().nullable(),
    submitted_at: time(),
  })
  .meta({ id: 'PendingPost' });

export const reviewStepSchema = z
  .object({
    decision: z.enum(['submitted', 'approved', 'returned']),
    note: z.string().nullable(),
    user_id: id().nullable(),
    user_name: z.string().nullable(),
    at: time(),
  })
  .meta({ id: 'ReviewStep' });

export const meSchema = z
  .object({
    data: z.object({
      id: id(),
      name: z.string(),
      email: z.string(),
      username: z.string().nullable(),
      is_admin: z.boolean(),
      language: z
        .string()
        .nullable()
        .describe('The language the caller chose for the panel and their mails (`zh_TW`), or null.'),
      roles: z.array(
        z.object({
          website_id: id(),
          role: z.string(),
          domain: z.string().describe('The website\u2019s primary domain.'),
          name: z.string(),
        }),
      ),
      api_key: z
        .object({ id: id(), name: z.string(), read_only: z.boolean(), website_ids: z.array(id()) })
        .nullable(),
      website: z
        .object({
          id: id(),
          domain: z.string(),
          name: z.string(),
          can: z
            .object({
              create_posts: z.boolean(),
              publish_posts: z.boolean(),
              edit_others_posts: z.boolean(),
              review_posts: z.boolean(),
              moderate_comments: z.boolean(),
              manage_pages: z.boolean(),
              upload_media: z.boolean(),
              manage_menus: z.boolean(),
              manage_website: z.boolean(),
              manage_members: z.boolean(),
              read_audit: z.boolean(),
              manage_tags: z.boolean(),
              create_tags: z.boolean(),
              read_stats: z.boolean(),
            })
            .describe('What the policy lets the caller do on this website (the operations check again).'),
        })
        .nullable()
        .describe('The website of the request\u2019s Host, and what the caller may do there.'),
      locales: z
        .object({ default: z.string(), supported: z.array(z.string()) })
        .describe('The locales translatable fields are written in.'),
    }),
  })
  .meta({ id: 'Me' });

export const auditEntrySchema = z
  .object({
    id: id(),
    created_at: time(),
    user_id: id().nullable(),
    api_key_id: id().nullable(),
    action: z.string(),
    resource_type: z.string(),
    resource_id: z.string().nullable(),
    website_id: id().nullable(),
    surface: z.string(),
    request_id: z.string().nullable(),
    client_ip: z.string().nullable(),
    summary: z.string().nullable().describe('The names of the fields sent, never their values.'),
  })
  .meta({ id: 'AuditEntry' });

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    request_id: z.string().optional(),
    errors: z.record(z.string(), z.array(z.string())).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json).' });

/** The error answers every authenticated route may give. */
export const commonProblems = {
  401: problemSchema,
  403: problemSchema,
  422: problemSchema,
};
