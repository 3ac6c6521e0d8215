// Posts: one module per action (create.ts, update.ts, delete.ts, list.ts, show.ts), the store they
// share (store.ts), the review workflow (review.ts), the one input schema per action (input.ts) and the answer caches (reads.ts).
// `PostOperations` binds the actions to their context for the faces.
import { z } from 'zod';
import { ForbiddenError } from '../errors.js';
import type { Actor } from '../policy.js';
import { parse } from '../schema-fields.js';
import { MAX_SLUG_LENGTH } from '../text/slugs.js';
import { bulkPosts } from './bulk.js';
import type { BulkResult } from './bulk.js';
import { createPost } from './create.js';
import { deletePost } from './delete.js';
import { listPosts, parseListInput } from './list.js';
import type { ListPostsInput } from './input.js';
import type { Page, PostDetail, PostSortKey, PostSummary } from './model.js';
import type { AnswerView, PostReads } from './reads.js';
import { approvePost, returnPost, reviewOf, reviewQueue, submitPost } from './review.js';
import type { ReviewContext } from './review.js';
import type { PendingPost, ReviewStep } from './review-store.js';
import { showPost } from './show.js';
import { updatePost } from './update.js';
import type { WriteOptions } from './update.js';

export * from './model.js';
export { PostsService } from './store.js';
export type { PostsDependencies } from './store.js';
export { PostReads } from './reads.js';
export { PostReviewStore } from './review-store.js';
export type { PendingPost, ReviewStep } from './review-store.js';
export type { AnswerView } from './reads.js';
export { LIST_FIELDS } from './input.js';
export type { ListPostsInput, UploadedBytes } from './input.js';
export type { WriteOptions } from './update.js';
export { bulkPostInput, MAX_BULK_POSTS } from './bulk.js';
export { approveInput, returnInput } from './review.js';
export type { BulkResult } from './bulk.js';
export { nextCursor as nextPostCursor } from './cursor.js';
export { keptPostCount, publishedNotDue } from './counts.js';

const slugCheckInput = z
  .object({
    slug: z.string().min(1).max(MAX_SLUG_LENGTH),
    post_id: z.coerce.number().int().min(1).optional(),
  })
  .strict();

export class PostOperations {
  constructor(private readonly ctx: ReviewContext & { reads: PostReads }) {}

  create(actor: Actor, input: Record<string, unknown>): Promise<PostDetail> {
    return createPost(this.ctx, actor, input);
  }

  /** `ifVersion`: the `updatedAt` the writer read; a later change makes it StaleWriteError. */
  update(
    actor: Actor,
    ref: string,
    input: Record<string, unknown>,
    options?: WriteOptions,
  ): Promise<PostDetail> {
    return updatePost(this.ctx, actor, ref, input, options);
  }

  delete(actor: Actor, ref: string, options?: WriteOptions): Promise<void> {
    return deletePost(this.ctx, actor, ref, options);
  }

  /** One action (publish, unpublish, delete, move) on many posts, each through its own operation. */
  bulk(actor: Actor, input: unknown): Promise<BulkResult[]> {
    return bulkPosts(this.ctx, actor, input);
  }

  /** Submits a draft for review (status `pending`). */
  submit(actor: Actor, ref: string): Promise<PostDetail> {
    return submitPost(this.ctx, actor, ref);
  }

  /** Approves a pending post: published, or scheduled at a later `published_at`. */
  approve(actor: Actor, ref: string, input: unknown): Promise<PostDetail> {
    return approvePost(this.ctx, actor, ref, input);
  }

  /** Sends a pending post back to draft with a `note` for its writer. */
  sendBack(actor: Actor, ref: string, input: unknown): Promise<PostDetail> {
    return returnPost(this.ctx, actor, ref, input);
  }

  /** Posts waiting for review on a website (its editors only). */
  reviewQueue(actor: Actor, websiteId: number): Promise<PendingPost[]> {
    return reviewQueue(this.ctx, actor, websiteId);
  }

  /** The newest review step of a post (its note, for the writer). */
  reviewOf(actor: Actor, ref: string): Promise<ReviewStep | null> {
    return reviewOf(this.ctx, actor, ref);
  }

  /**
   * Whether a slug is free for a post (the editor checks as the writer types). Any signed-in writer
   * may ask: it tells no more than a create's "already taken" would.
   */
  async checkSlug(actor: Actor, input: unknown) {
    const { slug, post_id: postId } = parse(slugCheckInput, input);
    if (!(await this.ctx.policy.can(actor, 'caller.identified', {}))) throw new ForbiddenError();
    return this.ctx.store.slugCheck(slug, postId ?? null);
  }

  /**
   * The translations of posts a list showed (a face showing them in one locale). Lists only name
   * posts their reader may see, so this reveals nothing more.
   */
  translationsOf(posts: ReadonlyArray<{ id: number }>) {
    return this.ctx.store.translationsOf(posts.map((post) => post.id));
  }

  /** Parses a list's input (a pure function of it: faces may remember the result). */
  parseList(input: unknown): ListPostsInput {
    return parseListInput(input);
  }

  /** `cursor`: the page after the one that gave it (keyset pagination; see cursor.ts). */
  list<Out extends object>(
    actor: Actor,
    input: ListPostsInput,
    view: AnswerView<Page<PostSummary>, Out>,
    /**
     * `timed`: statuses by what the site shows (PostListQuery.timed, API v2); `relevance`: best match
     * of the keywords first (PostListQuery.relevance); `bounded`: a search of bounded cost
     * (PostListQuery.bounded, API v2).
     */
    options?: {
      cursor?: string;
      authorId?: number;
      thenBy?: PostSortKey[];
      timed?: boolean;
      relevance?: boolean;
      bounded?: boolean;
    },
  ) {
    return listPosts(this.ctx, actor, input, view, options);
  }

  show<Out extends object>(actor: Actor, ref: string, view: AnswerView<PostDetail, Out>): Promise<Out> {
    return showPost(this.ctx, actor, ref, view);
  }
}
