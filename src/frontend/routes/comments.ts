// Comments (spec 4.8, R-F1 `frontend.comments.store/.like/.report`) and the thread under a post.
// Forms work without JavaScript: a form post is answered with a 303 back to the post (a notice in the
// query, the comment in the fragment); a request that accepts JSON gets JSON.
// Order of checks: same-origin/CSRF (403) -> comments enabled (403) -> rate limit (429) ->
// honeypot (a silent fake success) -> validation (422) -> action.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MODERATION_ACTIONS } from '../../domain/community/comment-moderation.js';
import type { ModerationAction } from '../../domain/community/comment-moderation.js';
import { CommentsClosedError } from '../../domain/community/comments.js';
import { ForbiddenError, ValidationError } from '../../domain/errors.js';
import type { VoteKind } from '../../domain/community/comments.js';
import type { FaceServices } from '../../services.js';
import type { FrontendState } from '../context.js';
import { SESSION_COOKIE, siteActor, urlFor } from '../context.js';
import { checkCsrf, csrfToken } from '../../http/csrf.js';
import { honourQuery, pageTagSink } from '../page-cache.js';
import type { FrontendKit } from '../index.js';
import { safeRedirect } from '../session.js';
import { rateLimited, visitorIdentity, wantsJson } from '../visitor-id.js';
import type { VisitorIdentity } from '../visitor-id.js';
import { positiveInteger } from '../../lib/whole-number.js';
import { localizeErrors, localizeMessage } from '../site-messages.js';

/** The hidden field bots fill in and people never see. */
export const HONEYPOT_FIELD = 'website';
export const COMMENT_FORM_ACTION = '/comments/store';

/**
 * Notices a post page shows after a form post (`?comment=…`); anything else shows none. JSON answers
 * carry these English sentences; pages show the theme's `comments.notice.{name}` in their locale.
 */
const NOTICES: Record<string, string> = {
  approved: 'Thank you, your comment is published.',
  pending: 'Thank you, your comment is awaiting moderation.',
  liked: 'Thank you for your like.',
  reported: 'Thank you, the comment was reported to the moderators.',
  already: 'You did that already.',
  // After a moderator's decision on the post page (`/comments/:id/moderate`).
  'moderated-approve': 'The comment is approved and shown under the post.',
  'moderated-spam': 'The comment is marked as spam.',
  'moderated-delete': 'The comment is deleted.',
  'moderated-none': 'That comment was moderated already.',
};

type Body = Record<string, unknown>;

/** A visitor's rate limits (visitor-id.ts), with the refusal's sentence and the theme's word for it. */
interface VisitorLimit {
  bucket: 'comments' | 'votes';
  message: string;
  key: string;
}
const COMMENT_LIMIT: VisitorLimit = {
  bucket: 'comments',
  message: 'Too many comments; please wait a minute and try again.',
  key: 'comments.too_many',
};
const VOTE_LIMIT: VisitorLimit = {
  bucket: 'votes',
  message: 'Too many requests; please wait a minute and try again.',
  key: 'comments.too_many_requests',
};

function bodyOf(request: FastifyRequest): Body {
  const body = request.body;
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** The post URL in the locale the form was sent from (a hidden field; unsupported ones are ignored). */
function postUrl(state: FrontendState, slug: string, locale: unknown): string {
  const wanted = text(locale);
  const chosen = state.locales.supported.includes(wanted) ? wanted : state.locales.defaultLocale;
  return urlFor({ ...state, locale: chosen }, `/post/${encodeURIComponent(slug)}`);
}

export function commentRoutes(kit: FrontendKit): void {
  const { services } = kit;

  /**
   * A short themed page (or JSON) for a refusal: 403, 404, 429. JSON keeps the English sentence; the
   * page says it in the locale the form was sent from (`key`: the theme's word for it).
   */
  async function refuse(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    message: string,
    key?: string,
  ): Promise<unknown> {
    reply.code(status);
    if (wantsJson(request)) return reply.send({ status: 'fail', message });
    const state = kit.adoptLocale(request, bodyOf(request).locale);
    const shown = key ? state.t(key) : localizeMessage(message, state.t);
    return kit.render(request, reply, 'comments/notice', { title: shown, message: shown });
  }

  async function guard(request: FastifyRequest, reply: FastifyReply) {
    const refusal = await checkCsrf(services, request, {
      requireToken: (r) => r.cookies[SESSION_COOKIE] !== undefined,
    });
    if (refusal) return () => refuse(request, reply, 403, refusal);
    // The operations refuse a closed site themselves; asked here first so that a closed site answers
    // 403 before the rate limit and the honeypot.
    try {
      await services.comments.requireOpen();
    } catch (error) {
      if (error instanceof CommentsClosedError) return () => refuse(request, reply, 403, error.message);
      throw error;
    }
    return null;
  }

  /**
   * The visitor behind a comment or a vote, or the answer that refuses them: the form check and a
   * closed site (403, guard), then the visitor's rate limit in `limit.bucket` (429).
   */
  async function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    limit: VisitorLimit,
  ): Promise<{ identity: VisitorIdentity } | { answer: unknown }> {
    const refused = await guard(request, reply);
    if (refused) return { answer: await refused() };
    const identity = await visitorIdentity(services, request, state.user);
    if ((await rateLimited(services, reply, limit.bucket, identity.clientHash)) !== null) {
      return { answer: await refuse(request, reply, 429, limit.message, limit.key) };
    }
    return { identity };
  }

  kit.page(
    'POST',
    COMMENT_FORM_ACTION,
    { name: 'comments.store', localized: false },
    async (request, reply, state) => {
      const admission = await admit(request, reply, state, COMMENT_LIMIT);
      if ('answer' in admission) return admission.answer;
      const { identity } = admission;
      const body = bodyOf(request);

      // A filled honeypot is a bot: it is told what a held comment is told, and nothing is stored.
      if (text(body[HONEYPOT_FIELD]).trim() !== '') {
        request.log.info('comment honeypot filled; discarded');
        if (wantsJson(request)) {
          return reply
            .code(202)
            .send({ status: 'success', message: NOTICES.pending, data: { status: 'pending' } });
        }
        const post = await services.comments.commentablePost(Number(text(body.post_id)), state.website.id);
        const target = post ? `${postUrl(state, post.slug, body.locale)}?comment=pending#comments` : '/';
        return reply.redirect(target, 303);
      }

      try {
        const comment = await services.comments.store({
          postId: body.post_id,
          parentId: body.parent_id,
          content: body.content,
          name: body.name,
          email: body.email,
          user: state.user ? { id: state.user.id, name: state.user.name, email: state.user.email } : null,
          websiteId: state.website.id,
          ipHash: identity.ipHash,
          userAgent: String(request.headers['user-agent'] ?? ''),
          actor: siteActor(request, state),
        });
        const message = NOTICES[comment.status] ?? NOTICES.pending;
        if (wantsJson(request)) {
          return reply.code(comment.status === 'approved' ? 201 : 202).send({
            status: 'success',
            message,
            data: { id: comment.id, post_id: comment.postId, status: comment.status },
          });
        }
        const fragment = comment.status === 'approved' ? `comment-${comment.id}` : 'comments';
        return reply.redirect(
          `${postUrl(state, comment.postSlug, body.locale)}?comment=${comment.status}#${fragment}`,
          303,
        );
      } catch (error) {
        // Closed between the guard and the write.
        if (error instanceof CommentsClosedError) return refuse(request, reply, 403, error.message);
        if (!(error instanceof ValidationError)) throw error;
        reply.code(422);
        if (wantsJson(request)) {
          return reply.send({ status: 'fail', message: 'Validation failed', errors: error.messages });
        }
        // The form again, filled in, with the messages (no JavaScript needed to correct it), in the
        // locale it was sent from.
        const shown = kit.adoptLocale(request, body.locale);
        const messages = localizeErrors(error.messages, shown.t);
        const post = await services.comments.commentablePost(Number(text(body.post_id)), state.website.id);
        return kit.render(request, reply, 'comments/form', {
          title: shown.t('comments.could_not_post'),
          errors: Object.values(messages).flat(),
          back_url: post ? postUrl(state, post.slug, body.locale) : urlFor(shown, '/'),
          comments: {
            ...(await formContext(services, state, post?.id ?? null)),
            locale: text(body.locale),
            parent_id: text(body.parent_id).slice(0, 20),
            /** The messages by field, tied to their inputs (aria-invalid, aria-describedby). */
            errors: messages,
            old: {
              content: text(body.content).slice(0, 10_000),
              name: text(body.name).slice(0, 200),
              email: text(body.email).slice(0, 300),
            },
          },
          csrf_token: state.user ? await csrfToken(services, request, reply) : null,
        });
      }
    },
  );

  const vote = (kind: VoteKind) =>
    async function voteHandler(request: FastifyRequest, reply: FastifyReply, state: FrontendState) {
      const admission = await admit(request, reply, state, VOTE_LIMIT);
      if ('answer' in admission) return admission.answer;
      const { identity } = admission;
      const id = (request.params as { id: string }).id;
      let outcome;
      try {
        outcome = /^\d{1,10}$/.test(id)
          ? await services.comments.vote(Number(id), kind, identity.visitorHash, state.website.id)
          : null;
      } catch (error) {
        if (error instanceof CommentsClosedError) return refuse(request, reply, 403, error.message);
        throw error;
      }
      if (!outcome) return refuse(request, reply, 404, 'Comment not found.', 'comments.not_found');
      const notice = outcome.counted ? (kind === 'like' ? 'liked' : 'reported') : 'already';
      if (wantsJson(request)) {
        return reply.send({
          status: 'success',
          message: NOTICES[notice],
          data: {
            id: Number(id),
            counted: outcome.counted,
            ...(kind === 'like' ? { likes: outcome.likes } : {}),
          },
        });
      }
      return reply.redirect(
        `${postUrl(state, outcome.postSlug, bodyOf(request).locale)}?comment=${notice}#comment-${id}`,
        303,
      );
    };
  kit.page('POST', '/comments/:id/like', { name: 'comments.like', localized: false }, vote('like'));
  kit.page('POST', '/comments/:id/report', { name: 'comments.report', localized: false }, vote('report'));

  // A moderator's decision from the post page's "N comments waiting" notice: over the same operation
  // as API v2 (the policy decides who may; comments of another website are left alone).
  kit.page(
    'POST',
    '/comments/:id/moderate',
    { name: 'comments.moderate', localized: false },
    async (request, reply, state) => {
      const refusal = await checkCsrf(services, request, { requireToken: () => true });
      if (refusal) return refuse(request, reply, 403, refusal);
      const id = (request.params as { id: string }).id;
      const body = bodyOf(request);
      const action = text(body.action);
      if (!/^\d{1,10}$/.test(id))
        return refuse(request, reply, 404, 'Comment not found.', 'comments.not_found');
      if (!(MODERATION_ACTIONS as readonly string[]).includes(action)) {
        return refuse(request, reply, 422, 'Choose approve, spam or delete.', 'comments.choose_action');
      }
      let done: number[];
      try {
        done = await services.commentModeration.moderateOn(
          siteActor(request, state),
          state.website.id,
          [Number(id)],
          action as ModerationAction,
        );
      } catch (error) {
        if (error instanceof ForbiddenError) {
          return refuse(
            request,
            reply,
            403,
            'You may not moderate the comments of this website.',
            'comments.may_not_moderate',
          );
        }
        throw error;
      }
      const notice = done.length > 0 ? `moderated-${action}` : 'moderated-none';
      if (wantsJson(request)) {
        return reply.send({ status: 'success', message: NOTICES[notice], data: { ids: done } });
      }
      // Back to the page the form was on (a path of this site only), its notice in the query.
      const back = safeRedirect(body.back, urlFor(state, '/')).split(/[?#]/)[0];
      return reply.redirect(`${back}?comment=${notice}#comments`, 303);
    },
  );

  // The thread and the form under every post page (themes/default/partials/comments.liquid).
  kit.addTemplateData('post', async (request, reply, state, data) => {
    const post = data.post as { id?: unknown } | undefined;
    const postId = positiveInteger(post?.id, 10);
    if (postId === null) return {};
    const context = await formContext(services, state, postId);
    // A reader who is not signed in sees the approved comments only: the same thread for all of them,
    // kept in the website's data cache until the thread changes (comments announce it).
    const { comments, count } =
      state.user === null
        ? await services.siteReads.publicThread(pageTagSink(request), state.website, postId)
        : await services.comments.thread(postId, state.user.id);
    const query = request.query as Record<string, unknown>;
    const notice =
      typeof query.comment === 'string' && Object.hasOwn(NOTICES, query.comment)
        ? state.t(`comments.notice.${query.comment}`)
        : undefined;
    if (notice !== undefined) honourQuery(request, 'comment');
    // Held comments with their buttons, for those who may moderate them (the policy says who). Only a
    // signed-in visitor can be one, and their pages are never put in the page cache (page-cache.ts).
    const waiting =
      state.user === null
        ? null
        : await services.commentModeration.waitingOn(siteActor(request, state), state.website.id, postId);
    const moderation =
      waiting && waiting.count > 0
        ? {
            count: waiting.count,
            more: waiting.count - waiting.items.length,
            back: request.url.split(/[?#]/)[0],
            items: waiting.items.map((item) => ({
              id: item.id,
              author_name: item.authorName,
              author_email: item.authorEmail,
              content: item.content,
              created_at: item.createdAt,
            })),
          }
        : null;
    const extra: Record<string, unknown> = {
      comments: { ...context, items: comments, count, size: count, notice: notice ?? null, moderation },
    };
    // Signed-in visitors (their pages are never cached) send the form token with every form.
    if (state.user && !data.csrf_token) extra.csrf_token = await csrfToken(services, request, reply);
    return extra;
  });
}

/** What the comment form needs: where it posts, for which post, in which locale. */
async function formContext(
  services: FaceServices,
  state: FrontendState,
  postId: number | null,
): Promise<Record<string, unknown>> {
  return {
    enabled: await services.comments.enabled(),
    action: COMMENT_FORM_ACTION,
    post_id: postId,
    locale: state.locale,
    honeypot: HONEYPOT_FIELD,
    signed_in: state.user !== null,
    parent_id: '',
    old: { content: '', name: '', email: '' },
    items: [],
    count: 0,
    size: 0,
    notice: null,
  };
}
