// People through API v2: accounts (administrators: list, get, enable or disable) and the members of
// a website with their roles (administrators and the website's site admins).
import { z } from 'zod';
import { addMemberInput, grantInput } from '../../domain/people/member-operations.js';
import { SITE_ROLES } from '../../domain/people/memberships.js';
import { accountActiveInput } from '../../domain/people/user-operations.js';
import type { User } from '../../domain/people/users.js';
import { siteOrigin } from '../../domain/websites/urls.js';
import { apiKeyJson } from './keys.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import {
  idOf,
  pathId,
  listOf,
  pageMeta,
  pagedListOf,
  paginationQuery,
  noContent,
  pagedQueryOf,
} from './conventions.js';
import type { V2Router } from './router.js';

const userSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    email: z.string(),
    username: z.string().nullable(),
    is_admin: z.boolean(),
    is_active: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: 'User' });
const memberSchema = z.object({ user: userSchema, role: z.enum(SITE_ROLES) }).meta({ id: 'Member' });

function userJson(user: User) {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    username: user.username,
    is_admin: user.isAdmin,
    is_active: user.isActive,
    created_at: user.createdAt,
  };
}

const id = pathId();
const listQuery = z.object({ ...paginationQuery, q: z.string().max(100).optional() }).strict();
const activeBody = accountActiveInput.strict();
const roleBody = grantInput.strict();

const userKeySchema = z
  .object({
    id: z.int(),
    name: z.string(),
    prefix: z.string(),
    read_only: z.boolean(),
    content_only: z.boolean(),
    website_ids: z.array(z.int()),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    revoked: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: 'UserApiKey', description: 'One of a user\u2019s API keys, as administrators see it.' });

export function registerPeopleRoutes(router: V2Router, services: FaceServices): void {
  router.route({
    method: 'GET',
    url: '/users',
    summary: 'Accounts',
    description: 'Administrators only; `q` searches names, emails and usernames.',
    tags: ['people'],
    querystring: listQuery,
    response: { 200: pagedListOf(userSchema) },
    handler: async (request, reply) => {
      const { query, page } = pagedQueryOf(listQuery, request);
      const result = await services.userOps.list(await actorOf(services, request), {
        q: query.q,
        page: page.page,
        perPage: page.perPage,
      });
      return { data: result.items.map(userJson), meta: pageMeta(request, reply, page, result.total) };
    },
  });

  router.route({
    method: 'GET',
    url: '/users/:id',
    summary: 'An account',
    description: 'Administrators, or the user themself.',
    tags: ['people'],
    params: z.object({ id }),
    response: { 200: z.object({ data: userSchema }) },
    handler: async (request) => ({
      data: userJson(await services.userOps.show(await actorOf(services, request), idOf(request))),
    }),
  });

  router.route({
    method: 'PATCH',
    url: '/users/:id',
    summary: 'Enable or disable an account',
    description: 'Administrators only; the last active administrator cannot be disabled (422).',
    tags: ['people'],
    params: z.object({ id }),
    body: activeBody,
    response: { 200: z.object({ data: userSchema }) },
    handler: async (request) => {
      const body = activeBody.parse(request.body);
      const user = await services.userOps.setActive(
        await actorOf(services, request),
        idOf(request),
        body.is_active,
      );
      return { data: userJson(user) };
    },
  });

  router.route({
    method: 'GET',
    url: '/websites/:id/members',
    summary: 'The members of a website and their roles',
    tags: ['people'],
    params: z.object({ id }),
    response: { 200: listOf(memberSchema) },
    handler: async (request) => {
      const members = await services.memberOps.list(await actorOf(services, request), idOf(request));
      return { data: members.map((member) => ({ user: userJson(member.user), role: member.role })) };
    },
  });

  router.route({
    method: 'POST',
    url: '/websites/:id/members',
    summary: 'Add an existing account to a website by its email',
    description:
      'With a role (site admins give every role but site admin). 404 when no account has the email; ' +
      '409 when the user already holds a role there (PUT changes it).',
    tags: ['people'],
    params: z.object({ id }),
    body: addMemberInput.strict(),
    response: { 201: z.object({ data: memberSchema }) },
    handler: async (request, reply) => {
      const member = await services.memberOps.add(
        await actorOf(services, request),
        idOf(request),
        request.body,
      );
      return reply.code(201).send({ data: { user: userJson(member.user), role: member.role } });
    },
  });

  router.route({
    method: 'PUT',
    url: '/websites/:id/members/:user',
    summary: 'Give a user a role on a website',
    description: 'Replaces the role they had there. Site admins give every role but site admin.',
    tags: ['people'],
    params: z.object({ id, user: id }),
    body: roleBody,
    response: { 200: z.object({ data: memberSchema }) },
    handler: async (request) => {
      const member = await services.memberOps.grant(
        await actorOf(services, request),
        idOf(request),
        idOf(request, 'user'),
        request.body,
      );
      return { data: { user: userJson(member.user), role: member.role } };
    },
  });

  router.route({
    method: 'DELETE',
    url: '/websites/:id/members/:user',
    summary: 'Take a user\u2019s role on a website away',
    tags: ['people'],
    params: z.object({ id, user: id }),
    response: { 204: z.null() },
    handler: noContent(
      async (request) =>
        services.memberOps.revoke(await actorOf(services, request), idOf(request), idOf(request, 'user')),
      'The user has no role on this website.',
    ),
  });
  registerAccountToolRoutes(router, services);
}

/** What administrators do to an account: send a password reset, list and revoke its API keys. */
function registerAccountToolRoutes(router: V2Router, services: FaceServices): void {
  router.route({
    method: 'POST',
    url: '/users/:id/password-reset',
    summary: 'Send a user a password reset link',
    description:
      'Administrators. The one-time link goes through the mailer (the log when no SMTP is set), to ' +
      'the website the request is on; a disabled account gets none (422).',
    tags: ['people'],
    params: z.object({ id }),
    response: { 202: z.object({ data: z.object({ email: z.string() }) }) },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const website = actor.websiteId === null ? null : await services.websiteLookup.find(actor.websiteId);
      const origin = website ? siteOrigin(website, services.config.appUrl) : services.config.appUrl;
      const name = website?.fields.site_name ?? 'Folio';
      const user = await services.accounts.sendResetByAdministrator(
        actor,
        idOf(request),
        (token) => `${origin.replace(/\/$/, '')}/user/password/reset/${token}`,
        { name, domain: website?.domain ?? new URL(services.config.appUrl).hostname },
      );
      return reply.code(202).send({ data: { email: user.email } });
    },
  });

  router.route({
    method: 'GET',
    url: '/users/:id/keys',
    summary: 'A user\u2019s API keys',
    description: 'Administrators; revoked keys included.',
    tags: ['people'],
    params: z.object({ id }),
    response: { 200: listOf(userKeySchema) },
    handler: async (request) => {
      const keys = await services.userOps.keys(await actorOf(services, request), idOf(request));
      return {
        data: keys.map((key) => ({ ...apiKeyJson(key), revoked: key.revokedAt !== null })),
      };
    },
  });

  router.route({
    method: 'DELETE',
    url: '/users/:id/keys/:key',
    summary: 'Revoke a user\u2019s API key',
    description: 'Administrators; refused at once on every node.',
    tags: ['people'],
    params: z.object({ id, key: id }),
    response: { 204: z.null() },
    handler: noContent(
      async (request) =>
        services.userOps.revokeKey(await actorOf(services, request), idOf(request), idOf(request, 'key')),
      'The user has no such key in use.',
    ),
  });
}
