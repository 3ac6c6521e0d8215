// Pages through API v2: a website's pages (drafts for its editors), one page, create, change, delete
// (409 while a menu links to it, unless `?force=true`).
import { z } from 'zod';
import { createPageInput, updatePageInput } from '../../domain/pages/operations.js';
import { PAGE_STATUSES } from '../../domain/pages/store.js';
import type { Page } from '../../domain/pages/store.js';
import type { ContentAbilities } from '../../domain/resource-abilities.js';
import type { FaceServices } from '../../services.js';
import { WEBHOOK_READER } from '../../domain/webhooks/index.js';
import { actorOf } from './auth.js';
import {
  createOnce,
  etagOf,
  forceQuery,
  idOf,
  ifMatchVersion,
  notModified,
  idParams,
  pageMeta,
  pagedListOf,
  paginationQuery,
  siteActorOf,
  websiteParam,
  noContent,
  forced,
  pagedQueryOf,
} from './conventions.js';
import type { V2Router } from './router.js';
import { contentCanSchema } from './schemas.js';

const pageSchema = z
  .object({
    id: z.int(),
    title: z.string(),
    slug: z.string(),
    content: z.string().nullable(),
    type: z.string(),
    template: z.string().nullable(),
    status: z.enum(PAGE_STATUSES),
    meta_title: z.string().nullable().describe('For search engines; null: the title.'),
    meta_description: z.string().nullable().describe('For search engines; null: the start of the content.'),
    author_id: z.int().nullable(),
    website_ids: z.array(z.int()).describe('Empty: every website.'),
    translations: z.record(z.string(), z.record(z.string(), z.string())),
    created_at: z.string(),
    updated_at: z.string(),
    can: contentCanSchema
      .optional()
      .describe('What the caller may do to it: change (and publish), delete (issue 34 #19).'),
  })
  .meta({ id: 'Page' });

function pageJson(page: Page, can?: ContentAbilities) {
  return {
    id: page.id,
    title: page.title,
    slug: page.slug,
    content: page.content,
    type: page.type,
    template: page.template,
    status: page.status as (typeof PAGE_STATUSES)[number],
    meta_title: page.metaTitle,
    meta_description: page.metaDescription,
    author_id: page.authorId,
    website_ids: page.websiteIds,
    translations: page.translations,
    created_at: page.createdAt,
    updated_at: page.updatedAt,
    ...(can ? { can } : {}),
  };
}

const listQuery = z
  .object({
    ...paginationQuery,
    q: z.string().max(100).optional(),
    filter: z
      .object({
        website: websiteParam,
        status: z.enum(PAGE_STATUSES).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
const one = z.object({ data: pageSchema });

export function registerPageRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.pageOps;

  router.route({
    method: 'GET',
    url: '/pages',
    summary: 'Pages of a website',
    description: 'Published ones; drafts too for its editors.',
    tags: ['pages'],
    querystring: listQuery,
    response: { 200: pagedListOf(pageSchema) },
    handler: async (request, reply) => {
      const { query, page } = pagedQueryOf(listQuery, request);
      const actor = await siteActorOf(services, request, query.filter?.website);
      const result = await ops.list(actor, {
        websiteId: actor.websiteId,
        status: query.filter?.status,
        q: query.q,
        page: page.page,
        perPage: page.perPage,
      });
      const cans = await services.abilities.ofPages(actor, result.items);
      return {
        data: result.items.map((item, index) => pageJson(item, cans[index])),
        meta: pageMeta(request, reply, page, result.total),
      };
    },
  });

  router.route({
    method: 'GET',
    url: '/pages/:id',
    summary: 'Get a page',
    description: 'With an ETag: send it back as `If-None-Match` (304) or as `If-Match` on a write.',
    tags: ['pages'],
    params: idParams,
    response: { 200: one },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const page = await ops.show(actor, idOf(request));
      const etag = etagOf(page.updatedAt);
      reply.header('etag', etag);
      if (notModified(request, etag)) return reply.code(304).send();
      const [can] = await services.abilities.ofPages(actor, [page]);
      return { data: pageJson(page, can) };
    },
  });

  router.route({
    method: 'POST',
    url: '/pages',
    summary: 'Create a page',
    description:
      'On the Host\u2019s website unless `website_ids` says otherwise; editors and site admins. ' +
      '`Idempotency-Key` makes a retry answer the first result.',
    tags: ['pages'],
    body: createPageInput.strict(),
    response: { 201: one },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      return createOnce(services, request, reply, {
        scope: 'api.v2.pages.create',
        create: () => ops.create(actor, request.body),
        json: (page) => pageJson(page),
        location: (id) => `/api/v2/pages/${id}`,
      });
    },
  });

  router.route({
    method: 'PATCH',
    url: '/pages/:id',
    summary: 'Change a page',
    description: 'With `If-Match` (its ETag or `updated_at`): 412 when someone changed it since.',
    tags: ['pages'],
    params: idParams,
    body: updatePageInput.strict(),
    response: { 200: one },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const page = await ops.update(actor, idOf(request), request.body, ifMatchVersion(request));
      reply.header('etag', etagOf(page.updatedAt));
      const [can] = await services.abilities.ofPages(actor, [page]);
      return { data: pageJson(page, can) };
    },
  });

  router.route({
    method: 'DELETE',
    url: '/pages/:id',
    summary: 'Delete a page',
    description: 'While a menu links to it: 409 naming the links, unless `?force=true`.',
    tags: ['pages'],
    params: idParams,
    querystring: forceQuery,
    response: { 204: z.null() },
    handler: noContent(async (request) =>
      ops.delete(await actorOf(services, request), idOf(request), forced(request)),
    ),
  });
}

/** A page as this API shows it, for webhook payloads (issue 38). */
export async function pageResource(services: FaceServices, id: string): Promise<unknown> {
  return pageJson(await services.pageOps.show(WEBHOOK_READER, Number(id)));
}
