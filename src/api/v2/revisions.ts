// A post's or page's history through API v2 (issue 37): its revisions (paged, newest first), one
// revision, a comparison of two (word-level diff of the texts, field by field for the rest) and
// restoring one (`If-Match`: 412 when it changed since). A thin face over domain/revisions/revisions.ts.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { restoreInput } from '../../domain/revisions/revisions.js';
import type {
  PageRevision,
  Revision,
  RevisionKind,
  RevisionSummary,
} from '../../domain/revisions/revisions.js';
import type { Actor } from '../../domain/policy.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import {
  pathId,
  etagOf,
  ifMatchVersion,
  pageMeta,
  pagedListOf,
  paginationQuery,
  queryOf,
  pagedQueryOf,
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
/** Two revisions compared: their summaries, the word-level diff of the texts, the other fields that differ. */
const comparisonOf = (summary: z.ZodType, id: string) =>
  z
    .object({
      from: summary,
      to: summary,
      text: z.array(z.object({ field: z.string(), locale: z.string(), parts: z.array(diffPart) })),
      fields: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
    })
    .meta({ id });
const comparisonSchema = comparisonOf(revisionSummarySchema, 'RevisionComparison');
const pageComparisonSchema = comparisonOf(pageRevisionSummarySchema, 'PageRevisionComparison');

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

/** What a post's history and a page's differ in: the same four routes answer both (historyRoutes). */
interface History {
  kind: RevisionKind;
  id: z.ZodType;
  text: {
    list: string;
    listDescription: string;
    compare: string;
    compareDescription: string;
    show: string;
    restore: string;
    restoreDescription: string;
  };
  summarySchema: z.ZodType;
  comparisonSchema: z.ZodType;
  revisionSchema: z.ZodType;
  missingSchema: z.ZodType;
  summaryJson: (revision: RevisionSummary) => object;
  show: (actor: Actor, id: string, revision: string) => Promise<object>;
  restore: (
    actor: Actor,
    id: string,
    revision: string,
    options: { status?: string; ifVersion?: string },
  ) => Promise<{ resource: { id: number; status: string; updatedAt: string }; missing: object }>;
}

export function registerRevisionRoutes(router: V2Router, services: FaceServices): void {
  const revisions = services.revisions;
  historyRoutes(router, services, {
    kind: 'post',
    id: postId,
    text: {
      list: "List a post's revisions",
      listDescription: 'Newest first, paged. Those who may change the post may see its history.',
      compare: 'Compare two revisions',
      compareDescription:
        'A word-level diff of each translatable field per locale, and the other fields that differ.',
      show: 'Get one revision',
      restore: 'Restore a revision',
      restoreDescription:
        'The post takes the revision\u2019s fields (a new revision itself); its status only when `status` ' +
        'is sent. Tags and websites deleted since are left out and named in `missing`. `If-Match`: 412 ' +
        'when the post changed since.',
    },
    summarySchema: revisionSummarySchema,
    comparisonSchema,
    revisionSchema,
    missingSchema: z.object({ tags: z.array(z.int()), websites: z.array(z.int()) }),
    summaryJson,
    show: async (actor, id, revision) => revisionJson(await revisions.show(actor, id, revision)),
    restore: async (actor, id, revision, options) => {
      const result = await revisions.restore(actor, id, revision, options);
      return { resource: result.post, missing: result.missing };
    },
  });
  // The same four routes for pages: policy = the page's editors; restore audited, `If-Match` as PATCH.
  historyRoutes(router, services, {
    kind: 'page',
    id: pageId,
    text: {
      list: "List a page's revisions",
      listDescription: 'Newest first, paged. Those who may change the page may see its history.',
      compare: 'Compare two revisions of a page',
      compareDescription:
        'A word-level diff of the title and content per locale, and the other fields that differ.',
      show: 'Get one revision of a page',
      restore: 'Restore a revision of a page',
      restoreDescription:
        'The page takes the revision\u2019s fields (a new revision itself); its status only when `status` ' +
        'is sent. Websites deleted since are left out and named in `missing`. `If-Match`: 412 when the ' +
        'page changed since.',
    },
    summarySchema: pageRevisionSummarySchema,
    comparisonSchema: pageComparisonSchema,
    revisionSchema: pageRevisionSchema,
    missingSchema: z.object({ websites: z.array(z.int()) }),
    summaryJson: pageSummaryJson,
    show: async (actor, id, revision) => pageRevisionJson(await revisions.showPage(actor, id, revision)),
    restore: async (actor, id, revision, options) => {
      const result = await revisions.restorePage(actor, id, revision, options);
      return { resource: result.page, missing: result.missing };
    },
  });
}

/** A post's or a page's history: its revisions, a comparison of two, one revision, restoring one. */
function historyRoutes(router: V2Router, services: FaceServices, history: History): void {
  const revisions = services.revisions;
  const { kind, text } = history;
  const base = `/${kind}s/:id/revisions`;
  const refOf = (request: FastifyRequest) => (request.params as { id: string }).id;
  const revisionOf = (request: FastifyRequest) => (request.params as { revision: string }).revision;

  router.route({
    method: 'GET',
    url: base,
    summary: text.list,
    description: text.listDescription,
    tags: ['revisions'],
    params: z.object({ id: history.id }),
    querystring: listQuery,
    response: { 200: pagedListOf(history.summarySchema) },
    handler: async (request, reply) => {
      const { page } = pagedQueryOf(listQuery, request);
      const actor = await actorOf(services, request);
      const result = await revisions.list(
        actor,
        refOf(request),
        { page: page.page, pageSize: page.perPage },
        kind,
      );
      return {
        data: result.data.map(history.summaryJson),
        meta: pageMeta(request, reply, page, result.total),
      };
    },
  });

  router.route({
    method: 'GET',
    url: `${base}/compare`,
    summary: text.compare,
    description: text.compareDescription,
    tags: ['revisions'],
    params: z.object({ id: history.id }),
    querystring: compareQuery,
    response: { 200: z.object({ data: history.comparisonSchema }) },
    handler: async (request) => {
      const query = queryOf(compareQuery, request);
      const actor = await actorOf(services, request);
      const comparison = await revisions.compare(actor, refOf(request), query.from, query.to, kind);
      return {
        data: {
          from: history.summaryJson(comparison.from),
          to: history.summaryJson(comparison.to),
          text: comparison.text,
          fields: comparison.fields.map((item) => ({ ...item, field: SNAKE[item.field] ?? item.field })),
        },
      };
    },
  });

  router.route({
    method: 'GET',
    url: `${base}/:revision`,
    summary: text.show,
    tags: ['revisions'],
    params: z.object({ id: history.id, revision: revisionId }),
    response: { 200: z.object({ data: history.revisionSchema }) },
    handler: async (request) => ({
      data: await history.show(await actorOf(services, request), refOf(request), revisionOf(request)),
    }),
  });

  router.route({
    method: 'POST',
    url: `${base}/:revision/restore`,
    summary: text.restore,
    description: text.restoreDescription,
    tags: ['revisions'],
    params: z.object({ id: history.id, revision: revisionId }),
    body: restoreBody.optional(),
    response: {
      200: z.object({
        data: z.object({
          [`${kind}_id`]: z.int(),
          status: z.string(),
          updated_at: z.string(),
          missing: history.missingSchema,
        }),
      }),
    },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const body = (request.body ?? {}) as { status?: string };
      const { resource, missing } = await history.restore(actor, refOf(request), revisionOf(request), {
        status: body.status,
        ifVersion: ifMatchVersion(request),
      });
      reply.header('etag', etagOf(resource.updatedAt));
      return {
        data: {
          [`${kind}_id`]: resource.id,
          status: resource.status,
          updated_at: resource.updatedAt,
          missing,
        },
      };
    },
  });
}
