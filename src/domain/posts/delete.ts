// Delete a post (R-P7): a soft delete. Own posts only for non-administrators (policy.ts).
import type { Actor } from '../policy.js';
import { audited, factsOf } from './context.js';
import type { PostOperationContext } from './context.js';
import { postNotFound } from './update.js';

export async function deletePost(ctx: PostOperationContext, actor: Actor, ref: string): Promise<void> {
  const current = await ctx.store.findDetailByRef(ref);
  if (!current || !(await ctx.policy.mayRead(actor, factsOf(current)))) throw postNotFound();
  await ctx.policy.require(actor, 'post.delete', factsOf(current));
  if (!(await ctx.store.delete(current.id))) throw postNotFound();
  await audited(ctx, actor, 'post.delete', current);
}
