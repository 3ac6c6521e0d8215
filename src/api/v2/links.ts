// The link directory through API v2: a website's links with their outbound click counts (filter by
// category: `filter[category]={tag id}`), one link with its ETag, create, change (If-Match), delete.
// Categories are tags of type `link_category`: named on a link (created when missing), and managed
// as tags (`/tags?filter[type]=link_category`).
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { createLinkInput, updateLinkInput } from '../../domain/community/link-operations.js';
import type { CountedLink } from '../../domain/community/link-operations.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import {
  etagOf,
  idOf,
  idParams,
  ifMatchVersion,
  notModified,
  pageMeta,
  pagedListOf,
  paginationQuery,
  queryOf,
  websiteParam,
  noContent,
  pagedQueryOf,
} from './conventions.js';
import type { V2Router } from './router.js';
import { problemSchema } from './schemas.js';

export const linkSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    slug: z.string(),
    url: z.string(),
    description: z.string(),
    icon: z.string().nullable(),
    categories: z.array(z.object({ id: z.int(), name: z.string(), slug: z.string(), type: z.string() })),
    clicks: z.int().describe('Outbound clicks counted (all time).'),
    website_ids: z.array(z.int()).describe('Empty: every website.'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Link' });
const one = z.object({ data: linkSchema });

const localeParam = z.string().max(20).optional().describe('Names in this locale.');
const listQuery = z
  .object({
    ...paginationQuery,
    filter: z
      .object({
        category: z.coerce.number().int().min(1).optional().describe('Only links of this tag (id).'),
        website: websiteParam,
      })
      .strict()
      .optional(),
    locale: localeParam,
  })
  .strict();
const showQuery = z.object({ locale: localeParam }).strict();

function linkJson(link: CountedLink) {
  return {
    id: link.id,
    name: link.name,
    slug: link.slug,
    url: link.url,
    description: link.description,
    icon: link.icon,
    categories: link.tags,
    clicks: link.clicks,
    website_ids: link.websiteIds,
    created_at: link.createdAt,
    updated_at: link.updatedAt,
  };
}

export function registerLinkRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.linkOps;
  const answer = (reply: FastifyReply, link: CountedLink, status = 200) =>
    reply
      .header('etag', etagOf(link.updatedAt))
      .code(status)
      .send({ data: linkJson(link) });

  router.route({
    method: 'GET',
    url: '/links',
    summary: 'Links of a website',
    description: 'The links shown on it (its own and every website\u2019s), newest first, with click counts.',
    tags: ['links'],
    querystring: listQuery,
    response: {
      200: pagedListOf(linkSchema),
    },
    handler: async (request, reply) => {
      const { query, page } = pagedQueryOf(listQuery, request);
      const actor = await actorOf(services, request, query.filter?.website);
      const result = await ops.list(actor, {
        page: page.page,
        perPage: page.perPage,
        tagId: query.filter?.category,
        locale: query.locale,
      });
      return {
        data: result.items.map(linkJson),
        meta: pageMeta(request, reply, page, result.total),
      };
    },
  });

  router.route({
    method: 'GET',
    url: '/links/:id',
    summary: 'Get a link',
    tags: ['links'],
    params: idParams,
    querystring: showQuery,
    response: { 200: one, 404: problemSchema },
    handler: async (request, reply) => {
      const { locale } = queryOf(showQuery, request);
      const link = await ops.show(await actorOf(services, request), idOf(request), locale);
      const etag = etagOf(link.updatedAt);
      if (notModified(request, etag)) return reply.header('etag', etag).code(304).send();
      return answer(reply, link);
    },
  });

  router.route({
    method: 'POST',
    url: '/links',
    summary: 'Create a link',
    description: 'On the Host\u2019s website unless `website_ids` says otherwise; editors and site admins.',
    tags: ['links'],
    body: createLinkInput.strict(),
    response: { 201: one },
    handler: async (request, reply) => {
      const link = await ops.create(await actorOf(services, request), request.body);
      reply.header('location', `/api/v2/links/${link.id}`);
      return answer(reply, link, 201);
    },
  });

  router.route({
    method: 'PATCH',
    url: '/links/:id',
    summary: 'Change a link',
    description:
      'Only the fields sent change (`categories` replaces them). `If-Match`: 412 when it changed since.',
    tags: ['links'],
    params: idParams,
    body: updateLinkInput.strict(),
    response: { 200: one, 404: problemSchema, 412: problemSchema },
    handler: async (request, reply) => {
      const link = await ops.update(await actorOf(services, request), idOf(request), request.body, {
        ifVersion: ifMatchVersion(request),
      });
      return answer(reply, link);
    },
  });

  router.route({
    method: 'DELETE',
    url: '/links/:id',
    summary: 'Delete a link',
    description: 'Takes `If-Match`.',
    tags: ['links'],
    params: idParams,
    response: { 204: z.null(), 404: problemSchema, 412: problemSchema },
    handler: noContent(async (request) =>
      ops.delete(await actorOf(services, request), idOf(request), { ifVersion: ifMatchVersion(request) }),
    ),
  });
}
