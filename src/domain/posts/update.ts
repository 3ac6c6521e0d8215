// Update a post (R-P6): only the fields sent change. Own posts only for non-administrators, on
// websites they may write to (policy.ts).
import { NotFoundError, StaleWriteError } from '../errors.js';
import type { Actor } from '../policy.js';
import { parse } from '../schema-fields.js';
import { announced, audited, factsOf, goesPublic } from './context.js';
import type { PostOperationContext } from './context.js';
import { thumbnailUpload, toWrite, updatePostInput } from './input.js';
import type { PostDetail } from './model.js';
import { cleaned } from './sanitize.js';

export const postNotFound = () => new NotFoundError('Post not found');

/** A write's precondition: the version (`updatedAt`) of the post the writer read (API v2's If-Match). */
export interface WriteOptions {
  ifVersion?: string;
}

export async function updatePost(
  ctx: PostOperationContext,
  actor: Actor,
  ref: string,
  raw: Record<string, unknown>,
  options: WriteOptions = {},
): Promise<PostDetail> {
  const input = parse(updatePostInput, raw);
  const upload = thumbnailUpload(raw.thumbnail);
  const write = toWrite(input, upload);
  // Downloading the content's images (localize_images) takes seconds: before the transaction, and only
  // for an actor who may change the post.
  if (await ctx.store.localizes(write)) {
    const before = await ctx.store.findDetailByRef(ref);
    if (!before || !(await ctx.policy.can(actor, 'post.read', { post: factsOf(before) })))
      throw postNotFound();
    await ctx.policy.require(actor, 'post.update', { post: factsOf(before), websiteIds: write.websiteIds });
    await ctx.store.localizeContent(write, actor);
  }
  return ctx.runner.run(async () => {
    const current = await ctx.store.findDetailByRef(ref);
    // A post the actor may not even read is not revealed (404), one they may read but not change is 403.
    if (!current || !(await ctx.policy.can(actor, 'post.read', { post: factsOf(current) })))
      throw postNotFound();
    await ctx.policy.require(actor, 'post.update', { post: factsOf(current), websiteIds: write.websiteIds });
    // What is public (or scheduled to be) after the change needs the right to publish (issue 20).
    if (goesPublic(write.status ?? current.status)) {
      await ctx.policy.require(actor, 'post.publish', {
        post: factsOf(current),
        websiteIds: write.websiteIds,
      });
    }
    // A stale version is told before the input is checked further; the store checks it again in its
    // transaction, so a change made in between is never overwritten either.
    if (options.ifVersion !== undefined) {
      if (options.ifVersion !== current.updatedAt) throw new StaleWriteError();
      write.ifUpdatedAt = options.ifVersion;
    }
    if (write.authorId !== undefined) {
      write.authorAllowed = await ctx.policy.can(actor, 'post.name_author', {
        authorId: write.authorId,
        post: factsOf(current),
      });
    }
    const post = await ctx.store.update(
      current.id,
      cleaned(write, await ctx.policy.can(actor, 'content.unfiltered_html', {})),
      actor,
    );
    if (!post) throw postNotFound();
    // Rebound: the websites the post leaves must drop it too (their lists are flushed).
    await announced(ctx, [post.id], write.websiteIds !== undefined ? current.websiteIds : undefined);
    await audited(ctx, actor, 'post.update', post, raw);
    return post;
  });
}
