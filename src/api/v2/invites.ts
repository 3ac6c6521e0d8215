// Invitations to a website through API v2 (issue 25 #7): those who manage its members invite an
// address to a role (the mail carries a one-time link to /user/invite/…), list the ones not yet
// accepted, and withdraw one.
import { z } from 'zod';
import { createInviteInput } from '../../domain/people/invites.js';
import type { Invite } from '../../domain/people/invites.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import { idOf, pathId, listOf, noContent } from './conventions.js';
import type { V2Router } from './router.js';

const id = pathId('An id.');

const inviteSchema = z
  .object({
    id: z.int(),
    website_id: z.int(),
    email: z.string(),
    role: z.string(),
    invited_by: z.int().nullable(),
    created_at: z.string(),
    expires_at: z.string().describe('The link works until then, once.'),
  })
  .meta({ id: 'Invite' });

const inviteJson = (invite: Invite) => ({
  id: invite.id,
  website_id: invite.websiteId,
  email: invite.email,
  role: invite.role,
  invited_by: invite.invitedBy,
  created_at: invite.createdAt,
  expires_at: invite.expiresAt,
});

export function registerInviteRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.inviteOps;

  router.route({
    method: 'GET',
    url: '/websites/:id/invites',
    summary: 'Invitations not yet accepted',
    tags: ['people'],
    params: z.object({ id }),
    response: { 200: listOf(inviteSchema) },
    handler: async (request) => {
      const invites = await ops.list(await actorOf(services, request), idOf(request));
      return { data: invites.map(inviteJson) };
    },
  });

  router.route({
    method: 'POST',
    url: '/websites/:id/invites',
    summary: 'Invite someone by email',
    description:
      'Mails a one-time link (valid for 7 days; in the log when no SMTP is set) that joins the website ' +
      'with the role: a new account is made on the way, or an existing one signs in. Site admins ' +
      'invite every role but site admin; a member already there is a 422.',
    tags: ['people'],
    params: z.object({ id }),
    body: createInviteInput,
    response: { 201: z.object({ data: inviteSchema }) },
    handler: async (request, reply) => {
      const invite = await ops.create(await actorOf(services, request), idOf(request), request.body);
      return reply.code(201).send({ data: inviteJson(invite) });
    },
  });

  router.route({
    method: 'DELETE',
    url: '/websites/:id/invites/:invite',
    summary: 'Withdraw an invitation',
    tags: ['people'],
    params: z.object({ id, invite: id }),
    response: { 204: z.null() },
    handler: noContent(
      async (request) => ops.revoke(await actorOf(services, request), idOf(request), idOf(request, 'invite')),
      'No such invitation waiting on this website.',
    ),
  });
}
