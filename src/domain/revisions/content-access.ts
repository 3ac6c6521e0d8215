// "May this actor change this post (or page)?" for the operations around a save: history (revisions),
// preview links, autosaves. One answer, from the policy: someone who may not even read it is told it
// does not exist (404); someone who reads it but may not change it is refused (403).
import { ForbiddenError, NotFoundError } from '../errors.js';
import type { PageOperations } from '../pages/operations.js';
import type { Page } from '../pages/store.js';
import type { Actor, Policy } from '../policy.js';
import { factsOf } from '../posts/context.js';
import type { PostDetail } from '../posts/model.js';
import type { PostsService } from '../posts/store.js';

export type ContentKind = 'post' | 'page';

export class EditableContent {
  constructor(private readonly deps: { posts: PostsService; pageOps: PageOperations; policy: Policy }) {}

  /** The post (by id or slug) when the actor may change it. */
  async post(actor: Actor, ref: string): Promise<PostDetail> {
    const post = await this.deps.posts.findDetailByRef(ref);
    if (!post || !(await this.deps.policy.can(actor, 'post.read', { post: factsOf(post) }))) {
      throw new NotFoundError('Post not found');
    }
    await this.deps.policy.require(actor, 'post.update', { post: factsOf(post) });
    return post;
  }

  /** The page (by id) when the actor may change it (an editor of every website it is on). */
  async page(actor: Actor, ref: string): Promise<Page> {
    const id = /^\d{1,15}$/.test(ref) ? Number(ref) : NaN;
    // A draft page the actor may not write does not exist for them (as its show).
    const page = await this.deps.pageOps.show(actor, id);
    if (!(await this.deps.policy.can(actor, 'content.write', { websiteIds: page.websiteIds })))
      throw new ForbiddenError();
    return page;
  }

  /** The id of the post or page, when the actor may change it. */
  async idOf(actor: Actor, kind: ContentKind, ref: string): Promise<number> {
    return kind === 'post' ? (await this.post(actor, ref)).id : (await this.page(actor, ref)).id;
  }
}
