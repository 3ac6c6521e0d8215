// Comments through API v2: the moderation queue of a website (its editors, site admins and
// administrators) and bulk decisions on it. Comments of another website are never touched.
import { z } from 'zod';
import {
  MAX_MODERATION_BATCH,
  MODERATION_ACTIONS,
  MODERATION_STATUSES,
} from '../../domain/comment-moderation.js';
import { notFound } from './problem.js';
import type { Services } from '../../services.js';
import { actorOf } from './auth.js';
import { queryOf } from './conventions.js';
import type { V2Router } from './router.js';

const commentSchema = z
  .object({
    id: z.int(),
    post_id: z.int(),
    post_title: z.string(),
    parent_id: z.int().nullable(),
    author_name: z.string().nullable(),
    author_email: z.string().nullable(),
    user_id: z.int().nullable(),
    content: z.string().describe('Sanitized HTML.'),
    status: z.enum(MODERATION_STATUSES),
    reports: z.int(),
    created_at: z.string(),
  })
  .meta({ id: 'Comment' });

const listQuery = z
  .object({
    per_page: z.coerce.number().int().min(1).max(MAX_MODERATION_BATCH).optional(),
    filter: z
      .object({
        website: z.coerce.number().int().min(1).optional().describe('Default: the Host\u2019s website.'),
        status: z.enum(MODERATION_STATUSES).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const moderateBody = z
  .object({
    ids: z.array(z.int().min(1)).min(1).max(MAX_MODERATION_BATCH),
    action: z.enum(MODERATION_ACTIONS),
    website_id: z.int().min(1).optional().describe('Default: the Host\u2019s website.'),
  })
  .strict();

export function registerCommentRoutes(router: V2Router, services: Services): void {
  router.route({
    method: 'GET',
    url: '/comments',
    summary: 'Comments of a website',
    description:
      'Newest first; `filter[status]=pending` is the moderation queue. Its editors and site admins.',
    tags: ['comments'],
    querystring: listQuery,
    response: { 200: z.object({ data: z.array(commentSchema) }) },
    handler: async (request) => {
      const query = queryOf(listQuery, request);
      const actor = await actorOf(services, request, query.filter?.website);
      if (actor.websiteId === null) throw notFound('No website is configured for this host.');
      const comments = await services.commentModeration.listOn(actor, actor.websiteId, {
        status: query.filter?.status,
        limit: query.per_page ?? 100,
      });
      return {
        data: comments.map((comment) => ({
          id: comment.id,
          post_id: comment.postId,
          post_title: comment.postTitle,
          parent_id: comment.parentId,
          author_name: comment.authorName,
          author_email: comment.authorEmail,
          user_id: comment.userId,
          content: comment.content,
          status: comment.status,
          reports: comment.reports,
          created_at: comment.createdAt,
        })),
      };
    },
  });

  router.route({
    method: 'POST',
    url: '/comments/moderate',
    summary: 'Approve, mark as spam or delete comments',
    description: 'Answers the ids acted on; ids of comments not on the website are left out.',
    tags: ['comments'],
    body: moderateBody,
    response: { 200: z.object({ data: z.object({ ids: z.array(z.int()) }) }) },
    handler: async (request) => {
      const body = moderateBody.parse(request.body);
      const actor = await actorOf(services, request, body.website_id);
      if (actor.websiteId === null) throw notFound('No website is configured for this host.');
      const ids = await services.commentModeration.moderateOn(actor, actor.websiteId, body.ids, body.action);
      return { data: { ids } };
    },
  });
}
