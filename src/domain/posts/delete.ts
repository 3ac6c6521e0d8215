// Delete a post (R-P7): a soft delete. Own posts only for non-administrators (policy.ts).
import type { Actor } from '../policy.js';
import { announced, audited, factsOf } from './context.js';
import type { PostOperationContext } from './context.js';
import { StaleWriteError } from '../errors.js';
import { postNotFound } from './update.js';
import type { WriteOptions } from './update.js';

export async function deletePost(
  ctx: PostOperationContext,
  actor: Actor,
  ref: string,
  options: WriteOptions = {},
): Promise<void> {
  return ctx.runner.run(async () => {
    const current = await ctx.store.findDetailByRef(ref);
    if (!current || !(await ctx.policy.can(actor, 'post.read', { post: factsOf(current) })))
      throw postNotFound();
    await ctx.policy.require(actor, 'post.delete', { post: factsOf(current) });
    if (options.ifVersion !== undefined && options.ifVersion !== current.updatedAt)
      throw new StaleWriteError();
    if (!(await ctx.store.delete(current.id, options.ifVersion))) {
      // Still there: changed since it was read. Gone: someone deleted it first.
      if (options.ifVersion !== undefined && (await ctx.store.findDetail(current.id)))
        throw new StaleWriteError();
      throw postNotFound();
    }
    await announced(ctx, [current.id]);
    await audited(ctx, actor, 'post.delete', current);
  });
}
