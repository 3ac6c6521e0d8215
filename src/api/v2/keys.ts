// The caller's own API keys: list, create (the secret is answered once), revoke. A key never grants
// more than its user holds (policy.ts); a key cannot make other keys.
import { z } from 'zod';
import type { ApiKey } from '../../domain/people/api-keys.js';
import { apiKeyInput } from '../../domain/people/key-operations.js';
import type { FaceServices } from '../../services.js';
import { actorOf, callerOf } from './auth.js';
import { idOf, listOf, noContent } from './conventions.js';
import type { V2Router } from './router.js';

const keySchema = z
  .object({
    id: z.int(),
    name: z.string(),
    prefix: z.string().describe('Its first characters, to tell keys apart.'),
    read_only: z.boolean(),
    content_only: z
      .boolean()
      .describe('A content key: reads published content only, as a visitor would; safe to embed.'),
    website_ids: z.array(z.int()).describe('Empty: every website its user may reach.'),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'ApiKey' });

/** A key as API v2 shows it (never its secret, nor its hash). */
export function apiKeyJson(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    read_only: key.readOnly,
    content_only: key.contentOnly,
    website_ids: key.websiteIds,
    expires_at: key.expiresAt,
    last_used_at: key.lastUsedAt,
    created_at: key.createdAt,
  };
}

export function registerKeyRoutes(router: V2Router, services: FaceServices): void {
  /** Whose keys: the caller's (the operations refuse a caller who came with a key). */
  const owner = (request: Parameters<typeof callerOf>[0]) => callerOf(request).user;

  router.route({
    method: 'GET',
    url: '/keys',
    summary: 'Your API keys',
    tags: ['keys'],
    response: { 200: listOf(keySchema) },
    handler: async (request) => ({
      data: (await services.keyOps.list(await actorOf(services, request), owner(request).id)).map(apiKeyJson),
    }),
  });

  router.route({
    method: 'POST',
    url: '/keys',
    summary: 'Create an API key',
    description: 'The answer holds the secret (`key`) once; Folio keeps only its hash.',
    tags: ['keys'],
    body: apiKeyInput,
    response: { 201: z.object({ data: keySchema.extend({ key: z.string() }) }) },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const { key, secret } = await services.keyOps.create(actor, owner(request).id, request.body);
      return reply.code(201).send({ data: { ...apiKeyJson(key), key: secret } });
    },
  });

  router.route({
    method: 'DELETE',
    url: '/keys/:id',
    summary: 'Revoke an API key',
    tags: ['keys'],
    params: z.object({ id: z.string().regex(/^\d{1,10}$/) }),
    response: { 204: z.null() },
    handler: noContent(
      async (request) =>
        services.keyOps.revoke(await actorOf(services, request), owner(request).id, idOf(request)),
      'You have no such key in use.',
    ),
  });
}
