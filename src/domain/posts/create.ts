// Create a post (spec 4.1, R-P5, R-P8): one schema, one policy question, one transaction (the store's),
// one announced change (the store's, after commit).
import type { Actor } from '../policy.js';
import { parse } from '../schema-fields.js';
import { audited } from './context.js';
import type { PostOperationContext } from './context.js';
import { createPostInput, thumbnailUpload, toWrite } from './input.js';
import type { PostDetail } from './model.js';
import { cleanForActor } from './sanitize.js';

export async function createPost(
  ctx: PostOperationContext,
  actor: Actor,
  raw: Record<string, unknown>,
): Promise<PostDetail> {
  const input = parse(createPostInput, raw);
  const write = toWrite(input, thumbnailUpload(raw.thumbnail));
  // R-P8: none given, the website of the request's Host; none resolved, a global post.
  if (write.websiteIds === undefined && actor.websiteId !== null) write.websiteIds = [actor.websiteId];
  await ctx.policy.require(actor, 'post.create', null, write.websiteIds ?? []);
  const post = await ctx.store.create(cleanForActor(actor, write), actor);
  await audited(ctx, actor, 'post.create', post, raw);
  return post;
}
