// What every post operation works with: the store, the one policy and the operation runner. The operations are
// the only callers of the store's writes; every face (API v1, the public site, the CLI) calls them.
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { Actor, Policy, PostFacts } from '../policy.js';
import type { PostDetail } from './model.js';
import type { PostsService } from './store.js';
import type { SearchLimit } from './search-limit.js';
import type { OperationRunner } from '../run.js';
import type { ContentChanges } from '../changes.js';

export interface PostOperationContext {
  store: PostsService;
  policy: Policy;
  /** Each write runs as one operation: one transaction with its audit row and outbox (run.ts). */
  runner: OperationRunner;
  /** Every write is recorded (issue 20 #6); absent in tests that do not care. */
  audit?: AuditLog;
  /** Counts the lists that search (keywords) per client (issue 34 #11); absent: no limit. */
  searchLimit?: SearchLimit;
  /**
   * Where each write announces what it changed (the runner keeps it for after commit; the caches
   * listen). The operations announce, never the store.
   */
  changes: ContentChanges;
}

/** Announces a change of posts: the caches it affects are flushed by the one map (cache-tags.ts). */
export function announced(
  ctx: PostOperationContext,
  ids: number[],
  formerWebsiteIds?: readonly number[],
): Promise<void> {
  return ctx.changes.announce({ kind: 'post', ids, formerWebsiteIds });
}

/** Records a post write in the audit log (audit.ts's recordWrite). */
export function audited(
  ctx: PostOperationContext,
  actor: Actor,
  action: 'post.create' | 'post.update' | 'post.delete' | 'post.submit' | 'post.approve' | 'post.return',
  post: Pick<PostDetail, 'id' | 'websiteIds'>,
  input?: unknown,
): Promise<void> {
  return recordWrite(ctx.audit, actor, {
    action,
    resourceType: 'post',
    resourceId: post.id,
    websiteIds: post.websiteIds,
    input,
  });
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
