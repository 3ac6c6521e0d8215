// Websites through API v2, over the same website operations as API v1: the ones the caller manages
// (administrators: all; owners, bound users and site admins: theirs), their fields and their domains.
import { z } from 'zod';
import { parse } from '../../domain/schema-fields.js';
import { createWebsiteInput, updateWebsiteInput, websiteDomainInput } from '../../domain/websites/input.js';
import type { Actor } from '../../domain/policy.js';
import type { Website, WebsitePatch } from '../../domain/websites/store.js';
import { DomainConflictError, InvalidDomainError, LastDomainError } from '../../domain/websites/store.js';
import type { FaceServices } from '../../services.js';
import { actorOf, callerOf } from './auth.js';
import {
  pathId,
  idOf,
  idParams,
  pageMeta,
  pagedListOf,
  paginationQuery,
  noContent,
  pagedQueryOf,
} from './conventions.js';
import { Problem } from './problem.js';
import type { V2Router } from './router.js';

const websiteSchema = z
  .object({
    id: z.int(),
    domain: z.string().describe('The primary domain.'),
    aliases: z.array(z.object({ id: z.int(), domain: z.string() })),
    owner_id: z.int().nullable(),
    fields: z
      .record(z.string(), z.string().nullable())
      .describe(
        "site_name, site_slogan, site_logo, site_favicon, site_cover (the home page's cover image), theme, homepage, …; head_code, body_code and analytics only for administrators.",
      ),
    translations: z.record(z.string(), z.record(z.string(), z.string())),
    enabled_page_cache: z.boolean(),
    enabled_data_cache: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Website' });

function websiteJson(website: Website) {
  return {
    id: website.id,
    domain: website.domain,
    aliases: website.aliases.map((alias) => ({ id: alias.id, domain: alias.domain })),
    owner_id: website.userId,
    fields: website.fields,
    translations: website.translations,
    enabled_page_cache: website.enabledPageCache,
    enabled_data_cache: website.enabledDataCache,
    created_at: website.createdAt,
    updated_at: website.updatedAt,
  };
}

/** The domain rules' refusals as problems (409 for a domain in use, 422 for the rest). */
async function domainProblems<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainConflictError) throw new Problem(409, 'conflict', 'Conflict', error.message);
    if (error instanceof InvalidDomainError || error instanceof LastDomainError) {
      throw new Problem(
        422,
        'validation',
        'Validation failed',
        error.message,
        {},
        { domain: [error.message] },
      );
    }
    throw error;
  }
}

const usageSchema = z
  .object({
    posts: z.int(),
    pages: z.int(),
    media: z.int(),
    comments: z.int(),
    menus: z.int(),
    domains: z.int(),
  })
  .meta({ id: 'WebsiteUsage', description: 'What deleting the website takes with it.' });

const domainCheckSchema = z
  .object({
    domain: z.string(),
    verdict: z
      .enum(['here', 'elsewhere', 'unresolved'])
      .describe('Resolves to this server, resolves elsewhere, or does not resolve.'),
    addresses: z.array(z.string()).describe('What the domain resolves to.'),
    local_addresses: z.array(z.string()).describe('Which of them are this machine\u2019s.'),
    http: z
      .enum(['matched', 'other', 'unreachable'])
      .nullable()
      .describe('The answer to the token path, when asked (null: DNS decided).'),
    http_detail: z.string().nullable(),
  })
  .meta({ id: 'DomainCheck' });

const listQuery = z.object({ ...paginationQuery, q: z.string().max(255).optional() }).strict();
const domainBody = websiteDomainInput.pick({ domain: true }).strict();
const updateBody = updateWebsiteInput.strict();
const createBody = createWebsiteInput.strict();
const one = z.object({ data: websiteSchema });

export function registerWebsiteRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.websiteOps;
  /** The website as this caller may see it (the policy hides page code from non-administrators). */
  const shown = async (actor: Actor, website: Website) => websiteJson(await ops.visible(actor, website));

  router.route({
    method: 'GET',
    url: '/websites',
    summary: 'Websites you manage',
    tags: ['websites'],
    querystring: listQuery,
    response: { 200: pagedListOf(websiteSchema) },
    handler: async (request, reply) => {
      const { query, page } = pagedQueryOf(listQuery, request);
      const actor = await actorOf(services, request);
      const result = await services.websiteOps.list(actor, {
        keyword: query.q,
        page: page.page,
        pageSize: page.perPage,
      });
      return {
        data: await Promise.all(result.items.map((website) => shown(actor, website))),
        meta: pageMeta(request, reply, page, result.total),
      };
    },
  });

  router.route({
    method: 'POST',
    url: '/websites',
    summary: 'Create a website',
    description: 'Administrators only. `domain` is its primary domain.',
    tags: ['websites'],
    body: createBody,
    response: { 201: one },
    handler: async (request, reply) => {
      const input = parse(createWebsiteInput, request.body);
      const actor = await actorOf(services, request);
      const website = await domainProblems(async () =>
        ops.create(actor, {
          siteName: input.site_name,
          domain: input.domain,
          theme: input.theme,
          remark: input.remark,
          userId: callerOf(request).user.id,
        }),
      );
      reply.header('location', `/api/v2/websites/${website.id}`);
      return reply.code(201).send({ data: await shown(actor, website) });
    },
  });

  router.route({
    method: 'GET',
    url: '/websites/:id',
    summary: 'Get a website',
    tags: ['websites'],
    params: idParams,
    response: { 200: one },
    handler: async (request) => {
      const actor = await actorOf(services, request);
      return { data: await shown(actor, await ops.show(actor, idOf(request))) };
    },
  });

  router.route({
    method: 'PATCH',
    url: '/websites/:id',
    summary: 'Change a website',
    description:
      'Only the fields sent change; head_code, body_code, analytics and user_id are the administrators\u2019.',
    tags: ['websites'],
    params: idParams,
    body: updateBody,
    response: { 200: one },
    handler: async (request) => {
      const patch = parse(updateWebsiteInput, request.body) as WebsitePatch;
      const actor = await actorOf(services, request);
      const website = await domainProblems(async () => ops.update(actor, idOf(request), patch));
      return { data: await shown(actor, website) };
    },
  });

  router.route({
    method: 'DELETE',
    url: '/websites/:id',
    summary: 'Delete a website',
    description:
      'Administrators only: its domains, menus and bindings, and the posts, pages (with their comments) ' +
      'and media bound to it alone go with it (GET …/usage counts them first).',
    tags: ['websites'],
    params: idParams,
    response: { 204: z.null() },
    handler: noContent(async (request) => ops.delete(await actorOf(services, request), idOf(request))),
  });

  router.route({
    method: 'POST',
    url: '/websites/:id/domains',
    summary: 'Add a domain alias',
    tags: ['websites'],
    params: idParams,
    body: domainBody,
    response: { 200: one },
    handler: async (request) => {
      const actor = await actorOf(services, request);
      await domainProblems(() => ops.addDomain(actor, idOf(request), domainBody.parse(request.body).domain));
      return { data: await shown(actor, await ops.show(actor, idOf(request))) };
    },
  });

  router.route({
    method: 'DELETE',
    url: '/websites/:id/domains/:domain',
    summary: 'Remove a domain',
    description: 'Removing the primary domain promotes the oldest alias; the last domain stays (422).',
    tags: ['websites'],
    params: z.object({ id: pathId(), domain: z.string().min(1).max(255) }),
    response: { 200: one },
    handler: async (request) => {
      const actor = await actorOf(services, request);
      const { domain } = request.params as { domain: string };
      await domainProblems(() => ops.removeDomain(actor, idOf(request), domain));
      return { data: await shown(actor, await ops.show(actor, idOf(request))) };
    },
  });

  registerWebsiteToolRoutes(router, services);
}

/** The tools of the panel's Website screen: what a delete takes, the domain check, the themes. */
function registerWebsiteToolRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.websiteOps;

  router.route({
    method: 'GET',
    url: '/websites/:id/usage',
    summary: 'What deleting a website takes with it',
    description: 'Administrators. Counts of what `DELETE /websites/{id}` removes.',
    tags: ['websites'],
    params: idParams,
    response: { 200: z.object({ data: usageSchema }) },
    handler: async (request) => ({
      data: await ops.usage(await actorOf(services, request), idOf(request)),
    }),
  });

  router.route({
    method: 'POST',
    url: '/websites/:id/domain-check',
    summary: 'Whether a domain of the website leads to this server',
    description:
      'Its DNS addresses compared with this machine\u2019s; else the domain is asked for this ' +
      'installation\u2019s token at `/.well-known/folio-domain-check` (public addresses only).',
    tags: ['websites'],
    params: idParams,
    body: domainBody,
    response: { 200: z.object({ data: domainCheckSchema }) },
    handler: async (request) => {
      const body = domainBody.parse(request.body);
      const check = await ops.checkDomain(await actorOf(services, request), idOf(request), body.domain);
      return {
        data: {
          domain: check.domain,
          verdict: check.verdict,
          addresses: check.addresses,
          local_addresses: check.localAddresses,
          http: check.http,
          http_detail: check.httpDetail,
        },
      };
    },
  });

  router.route({
    method: 'GET',
    url: '/themes',
    summary: 'The installed themes',
    tags: ['websites'],
    response: { 200: z.object({ data: z.array(z.object({ name: z.string() })) }) },
    handler: async (request) => ({
      data: (await ops.themes(await actorOf(services, request))).map((name) => ({ name })),
    }),
  });
}
