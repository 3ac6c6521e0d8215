// The review workflow (issue 20 #4), as three operations every face calls: a writer submits a draft
// (status `pending`); an editor (or site admin) of every website the post is on approves it (published
// now, or scheduled at a later `published_at`) or sends it back to draft with a note its writer reads.
// Each: one schema, one policy question, one transaction (the runner's), one announced change.
import { z } from 'zod';
import { ValidationError } from '../errors.js';
import type { Actor } from '../policy.js';
import { isoDateTime, optional, parse, requiredString } from '../schema-fields.js';
import { announced, audited, factsOf } from './context.js';
import type { PostOperationContext } from './context.js';
import type { PostDetail } from './model.js';
import { REVIEW_STATUS } from './model.js';
import type { PendingPost, PostReviewStore, ReviewStep, ReviewWrite } from './review-store.js';
import { postNotFound } from './update.js';

export const MAX_REVIEW_NOTE = 2000;
export const MAX_REVIEW_QUEUE = 200;

export interface ReviewContext extends PostOperationContext {
  reviews: PostReviewStore;
}

/** Approving: the date to publish at (later than now: scheduled; absent or null: now). */
export const approveInput = z.object({ published_at: optional(isoDateTime()) });
/** Sending back: the note its writer reads. */
export const returnInput = z.object({ note: requiredString(MAX_REVIEW_NOTE) });

/** A concurrent step got there first (the post is no longer what the caller saw). */
const notPending = () => new ValidationError({ status: ['The post is not waiting for review.'] });

/** The post the actor may see, or 404 (a post they may not read is not revealed). */
async function readable(ctx: ReviewContext, actor: Actor, ref: string): Promise<PostDetail> {
  const post = await ctx.store.findDetailByRef(ref);
  if (!post || !(await ctx.policy.can(actor, 'post.read', { post: factsOf(post) }))) throw postNotFound();
  return post;
}

/** Submits a draft for review: its writer (or anyone who may change it) asks an editor to publish it. */
export function submitPost(ctx: ReviewContext, actor: Actor, ref: string): Promise<PostDetail> {
  return ctx.runner.run(async () => {
    const post = await readable(ctx, actor, ref);
    await ctx.policy.require(actor, 'post.update', { post: factsOf(post) });
    if (post.status !== 'draft') {
      throw new ValidationError({ status: ['Only a draft can be submitted for review.'] });
    }
    return takeStep(ctx, actor, post, 'post.submit', {
      decision: 'submitted',
      status: REVIEW_STATUS,
      expectedStatus: 'draft',
    });
  });
}

/** Approves a pending post: published now, or scheduled when `published_at` is later than now. */
export async function approvePost(
  ctx: ReviewContext,
  actor: Actor,
  ref: string,
  raw: unknown,
): Promise<PostDetail> {
  const input = parse(approveInput, raw ?? {});
  return decide(ctx, actor, ref, 'post.approve', raw, () => {
    const publishedAt = input.published_at ? new Date(input.published_at.trim()).toISOString() : null;
    const later = publishedAt !== null && Date.parse(publishedAt) > ctx.policy.now().getTime();
    return { decision: 'approved', status: later ? 'scheduled' : 'published', publishedAt };
  });
}

/** Sends a pending post back to its writer as a draft, with a note saying what to change. */
export async function returnPost(
  ctx: ReviewContext,
  actor: Actor,
  ref: string,
  raw: unknown,
): Promise<PostDetail> {
  const input = parse(returnInput, raw ?? {});
  return decide(ctx, actor, ref, 'post.return', raw, () => ({
    decision: 'returned',
    status: 'draft',
    note: input.note,
  }));
}

/**
 * An editor's decision on a pending post (the post as it is now): the step `step()` says, taken
 * only while the post is still pending.
 */
function decide(
  ctx: ReviewContext,
  actor: Actor,
  ref: string,
  action: 'post.approve' | 'post.return',
  raw: unknown,
  step: () => Omit<ReviewWrite, 'postId' | 'userId' | 'expectedStatus'>,
): Promise<PostDetail> {
  return ctx.runner.run(async () => {
    const post = await readable(ctx, actor, ref);
    await ctx.policy.require(actor, 'post.review', { post: factsOf(post) });
    if (post.status !== REVIEW_STATUS) throw notPending();
    return takeStep(ctx, actor, post, action, { ...step(), expectedStatus: REVIEW_STATUS }, raw);
  });
}

/** Takes the step (a concurrent step taken first: not pending), announces and audits it. */
async function takeStep(
  ctx: ReviewContext,
  actor: Actor,
  post: PostDetail,
  action: 'post.submit' | 'post.approve' | 'post.return',
  step: Omit<ReviewWrite, 'postId' | 'userId'>,
  raw?: unknown,
): Promise<PostDetail> {
  const taken = await ctx.reviews.step({ postId: post.id, userId: actor.userId, ...step });
  if (!taken) throw notPending();
  await announced(ctx, [post.id]);
  await audited(ctx, actor, action, post, raw);
  return (await ctx.store.findDetail(post.id)) ?? post;
}

/** The posts waiting for review on a website, for its editors (others: ForbiddenError). */
export async function reviewQueue(
  ctx: ReviewContext,
  actor: Actor,
  websiteId: number,
): Promise<PendingPost[]> {
  await ctx.policy.require(actor, 'post.review', {
    post: {
      authorId: null,
      status: REVIEW_STATUS,
      publishedAt: null,
      websiteIds: [websiteId],
    },
  });
  return ctx.reviews.pendingOn(websiteId, MAX_REVIEW_QUEUE);
}

/** The newest review step of a post the actor may read (the writer reads the editor's note). */
export async function reviewOf(ctx: ReviewContext, actor: Actor, ref: string): Promise<ReviewStep | null> {
  const post = await readable(ctx, actor, ref);
  return ctx.reviews.latest(post.id);
}
