// The dashboard's reads through API v2: a website's views, clicks and top posts (its contributors and
// above), and the installation's health (administrators).
import { z } from 'zod';
import { MAX_STATS_DAYS } from '../../domain/system/insights.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import { queryOf, siteActorOf, websiteParam } from './conventions.js';
import type { V2Router } from './router.js';

const statsQuery = z
  .object({
    days: z.coerce.number().int().min(1).max(MAX_STATS_DAYS).optional().describe('Default 30.'),
    website_id: websiteParam,
  })
  .strict();

const statsSchema = z
  .object({
    data: z.object({
      website_id: z.int(),
      days: z
        .array(z.object({ date: z.string().describe('UTC, YYYY-MM-DD'), views: z.int(), clicks: z.int() }))
        .describe('Oldest first, today last; days without events count 0.'),
      totals: z.object({ views: z.int(), clicks: z.int() }),
      top_posts: z.array(z.object({ id: z.int(), title: z.string(), slug: z.string(), views: z.int() })),
    }),
  })
  .meta({ id: 'SiteStats' });

const healthSchema = z
  .object({
    data: z.object({
      database: z.object({
        ok: z.boolean(),
        dialect: z.enum(['sqlite', 'postgres']),
        latency_ms: z.number().nullable(),
      }),
      cache: z.object({
        ok: z.boolean(),
        kind: z.enum(['redis', 'memory']),
        latency_ms: z.number().nullable(),
      }),
      disk: z.array(
        z.object({
          label: z.enum(['database', 'media']),
          path: z.string(),
          free_bytes: z.number(),
          total_bytes: z.number(),
        }),
      ),
      version: z.string(),
      latest_version: z.string().nullable(),
      update_available: z.boolean().nullable().describe('Null: not known (updates disabled, or no answer).'),
    }),
  })
  .meta({ id: 'Health' });

export function registerInsightRoutes(router: V2Router, services: FaceServices): void {
  router.route({
    method: 'GET',
    url: '/stats',
    summary: 'Views and clicks of a website',
    description:
      'Per day over the last `days` days (UTC), and its most viewed posts. Its contributors and above; 404 for a website the caller does not see.',
    tags: ['insights'],
    querystring: statsQuery,
    response: { 200: statsSchema },
    handler: async (request) => {
      const { website_id: websiteId, ...input } = queryOf(statsQuery, request);
      const actor = await siteActorOf(services, request, websiteId);
      const stats = await services.insights.stats(actor, actor.websiteId, input);
      return {
        data: {
          website_id: stats.websiteId,
          days: stats.days,
          totals: stats.totals,
          top_posts: stats.topPosts,
        },
      };
    },
  });

  router.route({
    method: 'GET',
    url: '/system/health',
    summary: 'The installation\u2019s health',
    description: 'Database, cache, free disk where data lives, version and update. Administrators.',
    tags: ['insights'],
    response: { 200: healthSchema },
    handler: async (request) => {
      const health = await services.insights.health(await actorOf(services, request));
      return {
        data: {
          database: {
            ok: health.database.ok,
            dialect: health.database.dialect,
            latency_ms: health.database.latencyMs,
          },
          cache: { ok: health.cache.ok, kind: health.cache.kind, latency_ms: health.cache.latencyMs },
          disk: health.disk.map((entry) => ({
            label: entry.label,
            path: entry.path,
            free_bytes: entry.freeBytes,
            total_bytes: entry.totalBytes,
          })),
          version: health.version,
          latest_version: health.latestVersion,
          update_available: health.updateAvailable,
        },
      };
    },
  });
}
