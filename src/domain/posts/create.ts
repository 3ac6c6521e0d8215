// Create a post (spec 4.1, R-P5, R-P8): one schema, one policy question, one transaction (the runner's:
// the post, its audit row and its announcement commit together).
import { ForbiddenError } from '../errors.js';
import type { Actor } from '../policy.js';
import { parse } from '../schema-fields.js';
import { announced, audited, goesPublic } from './context.js';
import type { PostOperationContext } from './context.js';
import { createPostInput, thumbnailUpload, toWrite } from './input.js';
import type { PostDetail } from './model.js';
import { cleaned } from './sanitize.js';

export async function createPost(
  ctx: PostOperationContext,
  actor: Actor,
  raw: Record<string, unknown>,
): Promise<PostDetail> {
  const input = parse(createPostInput, raw);
  const write = toWrite(input, thumbnailUpload(raw.thumbnail));
  // R-P8: none given, the website of the request's Host; none resolved, a global post.
  if (write.websiteIds === undefined && actor.websiteId !== null) write.websiteIds = [actor.websiteId];
  // Downloading the content's images (localize_images) takes seconds: before the transaction, and only
  // for an actor who may create here.
  if (await ctx.store.localizes(write)) {
    await ctx.policy.require(actor, 'post.create', { websiteIds: write.websiteIds ?? [] });
    await ctx.store.localizeContent(write, actor);
  }
  return ctx.runner.run(async () => {
    await ctx.policy.require(actor, 'post.create', { websiteIds: write.websiteIds ?? [] });
    // A contributor's post is a draft unless they ask for more, which is refused (issue 20).
    if (!(await ctx.policy.can(actor, 'post.publish', { post: null, websiteIds: write.websiteIds ?? [] }))) {
      if (write.status === undefined) write.status = 'draft';
      else if (goesPublic(write.status)) throw new ForbiddenError();
    }
    if (write.authorId !== undefined)
      write.authorAllowed = await ctx.policy.can(actor, 'post.name_author', { authorId: write.authorId });
    const post = await ctx.store.create(
      cleaned(write, await ctx.policy.can(actor, 'content.unfiltered_html', {})),
      actor,
    );
    await announced(ctx, [post.id]);
    await audited(ctx, actor, 'post.create', post, raw);
    return post;
  });
}
