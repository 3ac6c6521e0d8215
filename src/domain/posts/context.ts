// What every post operation works with: the store and the one policy. The operations are
// the only callers of the store's writes; every face (API v1, the public site, the CLI) calls them.
import type { AuditLog } from '../audit.js';
import type { Actor, Policy, PostFacts } from '../policy.js';
import type { PostDetail } from './model.js';
import type { PostsService } from './store.js';

export interface PostOperationContext {
  store: PostsService;
  policy: Policy;
  /** Every write is recorded (issue 20 #6); absent in tests that do not care. */
  audit?: AuditLog;
}

/**
 * Records a post write in the audit log: who (user, API key), what, on which websites, from where,
 * and the names of the fields sent. After the write commits; a failure to record is reported, never
 * undoes the write.
 */
export async function audited(
  ctx: PostOperationContext,
  actor: Actor,
  action: 'post.create' | 'post.update' | 'post.delete',
  post: Pick<PostDetail, 'id' | 'websiteIds'>,
  input?: unknown,
): Promise<void> {
  if (!ctx.audit) return;
  try {
    await ctx.audit.record({
      userId: actor.userId,
      apiKeyId: actor.origin?.apiKeyId ?? null,
      action,
      resourceType: 'post',
      resourceId: post.id,
      websiteId: post.websiteIds.length === 1 ? post.websiteIds[0] : (actor.websiteId ?? null),
      surface: actor.origin?.surface ?? 'system',
      requestId: actor.origin?.requestId ?? null,
      clientIp: actor.origin?.clientIp ?? null,
      input,
    });
  } catch (error) {
    console.error(`audit log: recording ${action} of post ${post.id} failed: ${(error as Error).message}`);
  }
}

/** A status that shows the post to readers, now or at its time. */
export const goesPublic = (status: string) => status === 'published' || status === 'scheduled';

/** The facts the policy decides on, from a post as the store reads it. */
export function factsOf(post: PostDetail): PostFacts {
  return {
    authorId: post.author?.id ?? null,
    status: post.status,
    publishedAt: post.publishedAt,
    websiteIds: post.websiteIds,
  };
}
