// The audit log, read (issue 20 #6): administrators read every entry, site admins their websites'.
import { z } from 'zod';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import { MAX_PER_PAGE, paginationQuery, queryOf } from './conventions.js';
import type { V2Router } from './router.js';
import { auditEntrySchema } from './schemas.js';

const auditQuery = z
  .object({
    per_page: paginationQuery.per_page,
    before: z.coerce.number().int().min(1).optional().describe('Entries older than this id (the next page).'),
    since: z.iso.datetime({ offset: true }).optional(),
    until: z.iso.datetime({ offset: true }).optional(),
    filter: z
      .object({
        website: z.coerce.number().int().min(1).optional(),
        user: z.coerce.number().int().min(1).optional(),
        action: z
          .string()
          .regex(/^[a-z_]+(\.[a-z_]*)?$/)
          .max(60)
          .optional()
          .describe('An action (`post.update`), or every action of a kind (`post.`).'),
        resource_type: z.string().max(40).optional(),
        resource_id: z.string().max(64).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export function registerAuditRoutes(router: V2Router, services: FaceServices): void {
  router.route({
    method: 'GET',
    url: '/audit',
    summary: 'The audit log',
    description:
      'Newest first; `before` (the last id of a page) gives the next. Administrators read every ' +
      'entry; a site admin reads the entries of their website (`filter[website]` is then required).',
    tags: ['audit'],
    querystring: auditQuery,
    response: {
      200: z.object({ data: z.array(auditEntrySchema), meta: z.object({ next_before: z.int().nullable() }) }),
    },
    handler: async (request, reply) => {
      const query = queryOf(auditQuery, request);
      const websiteId = query.filter?.website;
      const actor = await actorOf(services, request, websiteId ?? null);
      const perPage = query.per_page ?? 50;
      const entries = await services.auditReads.list(actor, {
        websiteId,
        userId: query.filter?.user,
        action: query.filter?.action,
        resourceType: query.filter?.resource_type,
        resourceId: query.filter?.resource_id,
        since: query.since ? new Date(query.since) : undefined,
        until: query.until ? new Date(query.until) : undefined,
        beforeId: query.before,
        limit: Math.min(perPage, MAX_PER_PAGE),
      });
      const last = entries.at(-1);
      if (last && entries.length === perPage) {
        const url = new URL(request.url, 'http://folio.invalid');
        url.searchParams.set('before', String(last.id));
        reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
      }
      return {
        data: entries.map((entry) => ({
          id: entry.id,
          created_at: entry.createdAt,
          user_id: entry.userId,
          api_key_id: entry.apiKeyId,
          action: entry.action,
          resource_type: entry.resourceType,
          resource_id: entry.resourceId,
          website_id: entry.websiteId,
          surface: entry.surface,
          request_id: entry.requestId,
          client_ip: entry.clientIp,
          summary: entry.summary,
        })),
        meta: { next_before: last && entries.length === perPage ? last.id : null },
      };
    },
  });
}
