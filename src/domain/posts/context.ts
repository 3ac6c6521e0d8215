// What every post operation works with: the store and the one policy. The operations are
// the only callers of the store's writes; every face (API v1, the public site, the CLI) calls them.
import type { Policy, PostFacts } from '../policy.js';
import type { PostDetail } from './model.js';
import type { PostsService } from './store.js';

export interface PostOperationContext {
  store: PostsService;
  policy: Policy;
}

/** The facts the policy decides on, from a post as the store reads it. */
export function factsOf(post: PostDetail): PostFacts {
  return {
    authorId: post.author?.id ?? null,
    status: post.status,
    publishedAt: post.publishedAt,
    websiteIds: post.websiteIds,
  };
}
