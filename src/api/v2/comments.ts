// Comments through API v2: the moderation queue of a website (its editors, site admins and
// administrators) and bulk decisions on it. Comments of another website are never touched.
import { z } from 'zod';
import { MAX_MODERATION_BATCH, MODERATION_STATUSES } from '../../domain/community/comment-moderation.js';
import { MODERATION_MODES, moderationSettingsInput } from '../../domain/community/comment-rules.js';
import { moderateInput, replyInput } from '../../domain/community/comment-moderation.js';
import type { ModeratedComment } from '../../domain/community/comment-moderation.js';
import type { FaceServices } from '../../services.js';
import { queryOf, siteActorOf, websiteField, websiteParam } from './conventions.js';
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
    parent: z
      .object({ id: z.int(), author_name: z.string().nullable(), content: z.string() })
      .nullable()
      .optional()
      .describe('The comment this one answers (its content: sanitized HTML); null when none or deleted.'),
  })
  .meta({ id: 'Comment' });
const countsSchema = z
  .object({ pending: z.int(), reported: z.int(), spam: z.int(), approved: z.int() })
  .describe('How many comments each tab of the queue holds.')
  .meta({ id: 'CommentCounts' });

const listQuery = z
  .object({
    per_page: z.coerce.number().int().min(1).max(MAX_MODERATION_BATCH).optional(),
    filter: z
      .object({
        website: websiteParam,
        status: z.enum(MODERATION_STATUSES).optional(),
        reported: z
          .enum(['true', 'false'])
          .optional()
          .describe('`true`: only reported comments (not spam), the most reported first.'),
      })
      .strict()
      .optional(),
  })
  .strict();

const moderateBody = moderateInput.extend({ website_id: websiteField }).strict();

const settingsSchema = z
  .object({
    data: z.object({
      mode: z.enum(MODERATION_MODES),
      inherited: z.boolean().describe('The mode is the installation\u2019s (`comments_moderation`).'),
      held_words: z.array(z.string()),
    }),
  })
  .meta({
    id: 'CommentSettings',
    description:
      '`none`: every comment published; `anonymous`: signed-in users\u2019 published; `first`: a commenter\u2019s first comment held, later ones published once one was approved (same user or email); `all`: every comment held. A comment containing a held word (whole word, any case) is held whatever the mode.',
  });
const websiteQuery = z
  .object({
    website_id: websiteParam,
  })
  .strict();
const settingsBody = moderationSettingsInput.extend({ website_id: websiteField }).strict();
const idParams = z.object({ id: z.coerce.number().int().min(1) }).strict();
const replyBody = replyInput
  .extend({
    content: replyInput.shape.content.describe('Sanitized like a visitor\u2019s comment.'),
    website_id: websiteField,
  })
  .strict();

function shape(comment: ModeratedComment) {
  return {
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
    ...(comment.parent === undefined
      ? {}
      : {
          parent: comment.parent && {
            id: comment.parent.id,
            author_name: comment.parent.authorName,
            content: comment.parent.content,
          },
        }),
  };
}

export function registerCommentRoutes(router: V2Router, services: FaceServices): void {
  router.route({
    method: 'GET',
    url: '/comments',
    summary: 'Comments of a website',
    description:
      'Newest first; `filter[status]=pending` is the moderation queue, `filter[reported]=true` the reported comments. Its editors and site admins.',
    tags: ['comments'],
    querystring: listQuery,
    response: { 200: z.object({ data: z.array(commentSchema), meta: z.object({ counts: countsSchema }) }) },
    handler: async (request) => {
      const query = queryOf(listQuery, request);
      const actor = await siteActorOf(services, request, query.filter?.website);
      const [comments, counts] = await Promise.all([
        services.commentModeration.listOn(actor, actor.websiteId, {
          status: query.filter?.status,
          reported: query.filter?.reported === 'true',
          limit: query.per_page ?? 100,
        }),
        services.commentModeration.countsOn(actor, actor.websiteId),
      ]);
      return { data: comments.map(shape), meta: { counts } };
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
      const actor = await siteActorOf(services, request, body.website_id);
      const ids = await services.commentModeration.moderateOn(actor, actor.websiteId, body.ids, body.action);
      return { data: { ids } };
    },
  });

  router.route({
    method: 'POST',
    url: '/comments/:id/replies',
    summary: 'Reply to a comment',
    description:
      'The caller answers a comment under the same post, published at once (a held comment answered is approved). Its editors and site admins; 409 for a comment marked as spam.',
    tags: ['comments'],
    params: idParams,
    body: replyBody,
    response: { 201: z.object({ data: commentSchema }) },
    handler: async (request, reply) => {
      const { id } = idParams.parse(request.params);
      const { website_id: websiteId, ...input } = replyBody.parse(request.body);
      const actor = await siteActorOf(services, request, websiteId);
      const answer = await services.commentModeration.replyOn(actor, actor.websiteId, id, input);
      return reply.code(201).send({ data: shape(answer) });
    },
  });

  router.route({
    method: 'GET',
    url: '/comments/settings',
    summary: 'The website\u2019s comment moderation',
    description: 'Its mode and held words. Its editors and site admins.',
    tags: ['comments'],
    querystring: websiteQuery,
    response: { 200: settingsSchema },
    handler: async (request) => {
      const query = queryOf(websiteQuery, request);
      const actor = await siteActorOf(services, request, query.website_id);
      const settings = await services.commentModeration.settingsOn(actor, actor.websiteId);
      return { data: { mode: settings.mode, inherited: settings.inherited, held_words: settings.heldWords } };
    },
  });

  router.route({
    method: 'PUT',
    url: '/comments/settings',
    summary: 'Change the website\u2019s comment moderation',
    description:
      '`mode` (`null`: the installation\u2019s) and `held_words` (the whole list); what is left out stays. Whoever manages the website.',
    tags: ['comments'],
    body: settingsBody,
    response: { 200: settingsSchema },
    handler: async (request) => {
      const { website_id: websiteId, ...input } = settingsBody.parse(request.body);
      const actor = await siteActorOf(services, request, websiteId);
      const settings = await services.commentModeration.setSettingsOn(actor, actor.websiteId, input);
      return { data: { mode: settings.mode, inherited: settings.inherited, held_words: settings.heldWords } };
    },
  });
}
