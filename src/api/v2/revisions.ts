// A post's or page's history through API v2 (issue 37): its revisions (paged, newest first), one
// revision, a comparison of two (word-level diff of the texts, field by field for the rest) and
// restoring one (`If-Match`: 412 when it changed since). A thin face over domain/revisions/revisions.ts.
import { z } from 'zod';
import { restoreInput } from '../../domain/revisions/revisions.js';
import type { PageRevision, Revision, RevisionSummary } from '../../domain/revisions/revisions.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import {
  pathId,
  etagOf,
  ifMatchVersion,
  pageOf,
  pageMeta,
  pagedListOf,
  paginationQuery,
  queryOf,
} from './conventions.js';
import type { V2Router } from './router.js';

const postId = pathId('The post id.');
const pageId = pathId('The page id.');
const revisionId = pathId('The revision id.');

const revisionSummarySchema = z
  .object({
    id: z.int(),
    post_id: z.int(),
    action: z.string().describe('post.create, post.update, post.approve, post.restore, …'),
    status: z.string().describe('The post status this revision recorded.'),
    published: z.boolean().describe('A published version: kept however many revisions follow.'),
    user_id: z.int().nullable(),
    api_key_id: z.int().nullable(),
    surface: z.string().describe('Where the save came from: api, api-v2, site, admin, cli, system.'),
    created_at: z.string(),
  })
  .meta({ id: 'RevisionSummary' });

const pageRevisionSummarySchema = revisionSummarySchema
  .omit({ post_id: true })
  .extend({
    page_id: z.int(),
    action: z.string().describe('page.create, page.update, page.restore'),
    status: z.string().describe('The page status this revision recorded.'),
  })
  .meta({ id: 'PageRevisionSummary' });

const localized = z.record(z.string(), z.string());
const pageRevisionSchema = pageRevisionSummarySchema
  .extend({
    data: z.object({
      title: localized,
      content: localized,
      slug: z.string(),
      type: z.string(),
      template: z.string().nullable(),
      status: z.string(),
      meta_title: z.string().nullable(),
      meta_description: z.string().nullable(),
      author_id: z.int().nullable(),
      website_ids: z.array(z.int()),
    }),
  })
  .meta({ id: 'PageRevision' });
const revisionSchema = revisionSummarySchema
  .extend({
    data: z.object({
      title: localized,
      content: localized,
      excerpt: localized,
      keywords: localized,
      slug: z.string(),
      status: z.string(),
      published_at: z.string().nullable(),
      thumbnail: z.string().nullable(),
      meta_title: z.string().nullable(),
      meta_description: z.string().nullable(),
      meta_keywords: z.string().nullable(),
      author_id: z.int().nullable(),
      tags: z.array(z.int()),
      categories: z.array(z.int()),
      website_ids: z.array(z.int()),
    }),
  })
  .meta({ id: 'Revision' });

const diffPart = z.object({
  value: z.string(),
  added: z.boolean().optional(),
  removed: z.boolean().optional(),
});
const comparisonSchema = z
  .object({
    from: revisionSummarySchema,
    to: revisionSummarySchema,
    text: z.array(z.object({ field: z.string(), locale: z.string(), parts: z.array(diffPart) })),
    fields: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
  })
  .meta({ id: 'RevisionComparison' });
const pageComparisonSchema = z
  .object({
    from: pageRevisionSummarySchema,
    to: pageRevisionSummarySchema,
    text: z.array(z.object({ field: z.string(), locale: z.string(), parts: z.array(diffPart) })),
    fields: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
  })
  .meta({ id: 'PageRevisionComparison' });

function pageSummaryJson(revision: RevisionSummary) {
  const { post_id, ...rest } = summaryJson(revision);
  return { ...rest, page_id: post_id };
}

function pageRevisionJson(revision: PageRevision) {
  const { data } = revision;
  return {
    ...pageSummaryJson(revision),
    data: {
      title: data.title,
      content: data.content,
      slug: data.slug,
      type: data.type,
      template: data.template,
      status: data.status,
      meta_title: data.metaTitle,
      meta_description: data.metaDescription,
      author_id: data.authorId,
      website_ids: data.websiteIds,
    },
  };
}

function summaryJson(revision: RevisionSummary) {
  return {
    id: revision.id,
    post_id: revision.resourceId,
    action: revision.action,
    status: revision.status,
    published: revision.published,
    user_id: revision.userId,
    api_key_id: revision.apiKeyId,
    surface: revision.surface,
    created_at: revision.createdAt,
  };
}

function revisionJson(revision: Revision) {
  const { data } = revision;
  return {
    ...summaryJson(revision),
    data: {
      title: data.title,
      content: data.content,
      excerpt: data.excerpt,
      keywords: data.keywords,
      slug: data.slug,
      status: data.status,
      published_at: data.publishedAt,
      thumbnail: data.thumbnail,
      meta_title: data.metaTitle,
      meta_description: data.metaDescription,
      meta_keywords: data.metaKeywords,
      author_id: data.authorId,
      tags: data.tags,
      categories: data.categories,
      website_ids: data.websiteIds,
    },
  };
}

const SNAKE: Record<string, string> = {
  publishedAt: 'published_at',
  metaTitle: 'meta_title',
  metaDescription: 'meta_description',
  metaKeywords: 'meta_keywords',
  authorId: 'author_id',
  websiteIds: 'website_ids',
};

const listQuery = z.object({ ...paginationQuery }).strict();
const compareQuery = z
  .object({
    from: revisionId.describe('The older revision.'),
    to: revisionId.describe('The newer revision.'),
  })
  .strict();
const restoreBody = restoreInput.strict();

export function registerRevisionRoutes(router: V2Router, services: FaceServices): void {
  const revisions = services.revisions;

  router.route({
    method: 'GET',
    url: '/posts/:id/revisions',
    summary: "List a post's revisions",
    description: 'Newest first, paged. Those who may change the post may see its history.',
    tags: ['revisions'],
    params: z.object({ id: postId }),
    querystring: listQuery,
    response: { 200: pagedListOf(revisionSummarySchema) },
    handler: async (request, reply) => {
      const page = pageOf(queryOf(listQuery, request));
      const actor = await actorOf(services, request);
      const { id } = request.params as { id: string };
      const result = await revisions.list(actor, id, { page: page.page, pageSize: page.perPage });
      return { data: result.data.map(summaryJson), meta: pageMeta(request, reply, page, result.total) };
    },
  });

  router.route({
    method: 'GET',
    url: '/posts/:id/revisions/compare',
    summary: 'Compare two revisions',
    description: 'A word-level diff of each translatable field per locale, and the other fields that differ.',
    tags: ['revisions'],
    params: z.object({ id: postId }),
    querystring: compareQuery,
    response: { 200: z.object({ data: comparisonSchema }) },
    handler: async (request) => {
      const query = queryOf(compareQuery, request);
      const actor = await actorOf(services, request);
      const { id } = request.params as { id: string };
      const comparison = await revisions.compare(actor, id, query.from, query.to);
      return {
        data: {
          from: summaryJson(comparison.from),
          to: summaryJson(comparison.to),
          text: comparison.text,
          fields: comparison.fields.map((item) => ({ ...item, field: SNAKE[item.field] ?? item.field })),
        },
      };
    },
  });

  router.route({
    method: 'GET',
    url: '/posts/:id/revisions/:revision',
    summary: 'Get one revision',
    tags: ['revisions'],
    params: z.object({ id: postId, revision: revisionId }),
    response: { 200: z.object({ data: revisionSchema }) },
    handler: async (request) => {
      const actor = await actorOf(services, request);
      const { id, revision } = request.params as { id: string; revision: string };
      return { data: revisionJson(await revisions.show(actor, id, revision)) };
    },
  });

  router.route({
    method: 'POST',
    url: '/posts/:id/revisions/:revision/restore',
    summary: 'Restore a revision',
    description:
      'The post takes the revision\u2019s fields (a new revision itself); its status only when `status` ' +
      'is sent. Tags and websites deleted since are left out and named in `missing`. `If-Match`: 412 ' +
      'when the post changed since.',
    tags: ['revisions'],
    params: z.object({ id: postId, revision: revisionId }),
    body: restoreBody.optional(),
    response: {
      200: z.object({
        data: z.object({
          post_id: z.int(),
          status: z.string(),
          updated_at: z.string(),
          missing: z.object({ tags: z.array(z.int()), websites: z.array(z.int()) }),
        }),
      }),
    },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const { id, revision } = request.params as { id: string; revision: string };
      const body = (request.body ?? {}) as { status?: string };
      const result = await revisions.restore(actor, id, revision, {
        status: body.status,
        ifVersion: ifMatchVersion(request),
      });
      reply.header('etag', etagOf(result.post.updatedAt));
      return {
        data: {
          post_id: result.post.id,
          status: result.post.status,
          updated_at: result.post.updatedAt,
          missing: result.missing,
        },
      };
    },
  });

  registerPageRevisionRoutes(router, services);
}

/** The same four routes for pages: policy = the page's editors; restore audited, `If-Match` as PATCH. */
function registerPageRevisionRoutes(router: V2Router, services: FaceServices): void {
  const revisions = services.revisions;
  router.route({
    method: 'GET',
    url: '/pages/:id/revisions',
    summary: "List a page's revisions",
    description: 'Newest first, paged. Those who may change the page may see its history.',
    tags: ['revisions'],
    params: z.object({ id: pageId }),
    querystring: listQuery,
    response: { 200: pagedListOf(pageRevisionSummarySchema) },
    handler: async (request, reply) => {
      const page = pageOf(queryOf(listQuery, request));
      const actor = await actorOf(services, request);
      const { id } = request.params as { id: string };
      const result = await revisions.list(actor, id, { page: page.page, pageSize: page.perPage }, 'page');
      return { data: result.data.map(pageSummaryJson), meta: pageMeta(request, reply, page, result.total) };
    },
  });

  router.route({
    method: 'GET',
    url: '/pages/:id/revisions/compare',
    summary: 'Compare two revisions of a page',
    description: 'A word-level diff of the title and content per locale, and the other fields that differ.',
    tags: ['revisions'],
    params: z.object({ id: pageId }),
    querystring: compareQuery,
    response: { 200: z.object({ data: pageComparisonSchema }) },
    handler: async (request) => {
      const query = queryOf(compareQuery, request);
      const actor = await actorOf(services, request);
      const { id } = request.params as { id: string };
      const comparison = await revisions.compare(actor, id, query.from, query.to, 'page');
      return {
        data: {
          from: pageSummaryJson(comparison.from),
          to: pageSummaryJson(comparison.to),
          text: comparison.text,
          fields: comparison.fields.map((item) => ({ ...item, field: SNAKE[item.field] ?? item.field })),
        },
      };
    },
  });

  router.route({
    method: 'GET',
    url: '/pages/:id/revisions/:revision',
    summary: 'Get one revision of a page',
    tags: ['revisions'],
    params: z.object({ id: pageId, revision: revisionId }),
    response: { 200: z.object({ data: pageRevisionSchema }) },
    handler: async (request) => {
      const actor = await actorOf(services, request);
      const { id, revision } = request.params as { id: string; revision: string };
      return { data: pageRevisionJson(await revisions.showPage(actor, id, revision)) };
    },
  });

  router.route({
    method: 'POST',
    url: '/pages/:id/revisions/:revision/restore',
    summary: 'Restore a revision of a page',
    description:
      'The page takes the revision\u2019s fields (a new revision itself); its status only when `status` ' +
      'is sent. Websites deleted since are left out and named in `missing`. `If-Match`: 412 when the ' +
      'page changed since.',
    tags: ['revisions'],
    params: z.object({ id: pageId, revision: revisionId }),
    body: restoreBody.optional(),
    response: {
      200: z.object({
        data: z.object({
          page_id: z.int(),
          status: z.string(),
          updated_at: z.string(),
          missing: z.object({ websites: z.array(z.int()) }),
        }),
      }),
    },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const { id, revision } = request.params as { id: string; revision: string };
      const body = (request.body ?? {}) as { status?: string };
      const result = await revisions.restorePage(actor, id, revision, {
        status: body.status,
        ifVersion: ifMatchVersion(request),
      });
      reply.header('etag', etagOf(result.page.updatedAt));
      return {
        data: {
          page_id: result.page.id,
          status: result.page.status,
          updated_at: result.page.updatedAt,
          missing: result.missing,
        },
      };
    },
  });
}
