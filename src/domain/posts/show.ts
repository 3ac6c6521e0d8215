// Show a post (spec 4.1, R-P4): by id or slug; a post the actor may not read is "not found" (nothing
// is revealed). A caller without a user never sees an author's email.
import type { Actor, PostFacts } from '../policy.js';
import { factsOf } from './context.js';
import type { PostOperationContext } from './context.js';
import type { PostDetail } from './model.js';
import type { AnswerView, PostReads } from './reads.js';
import { postNotFound } from './update.js';

/** The view's answer for the post, or NotFoundError. */
export async function showPost<Out extends object>(
  ctx: PostOperationContext & { reads: PostReads },
  actor: Actor,
  ref: string,
  view: AnswerView<PostDetail, Out>,
): Promise<Out> {
  const anonymous = actor.userId === null && !actor.isAdmin;
  const shown = await ctx.reads.post(ref, anonymous ? publicViewOf(view) : factsView(view));
  if (!shown || !ctx.policy.canRead(actor, shown.facts)) throw postNotFound();
  return shown.answer;
}

interface Faceted<Out> {
  facts: PostFacts;
  answer: Out;
}

const factsViews = new WeakMap<object, AnswerView<PostDetail, Faceted<object>>>();
const publicViews = new WeakMap<object, AnswerView<PostDetail, Faceted<object>>>();

/** The view with the facts the policy needs kept beside each answer. */
function factsView<Out extends object>(
  view: AnswerView<PostDetail, Out>,
): AnswerView<PostDetail, Faceted<Out>> {
  let wrapped = factsViews.get(view);
  if (!wrapped) {
    wrapped = {
      name: view.name,
      build: (post) => ({ facts: factsOf(post), answer: view.build(post) }),
      size: (value) => view.size(value.answer as Out),
    };
    factsViews.set(view, wrapped);
  }
  return wrapped as AnswerView<PostDetail, Faceted<Out>>;
}

/** The same, for callers without a user: the author's email left out. */
function publicViewOf<Out extends object>(
  view: AnswerView<PostDetail, Out>,
): AnswerView<PostDetail, Faceted<Out>> {
  let wrapped = publicViews.get(view);
  if (!wrapped) {
    wrapped = {
      name: `${view.name}:public`,
      build: (post) => ({
        facts: factsOf(post),
        answer: view.build({
          ...post,
          author: post.author && { id: post.author.id, name: post.author.name, email: undefined },
        } as never),
      }),
      size: (value) => view.size(value.answer as Out),
    };
    publicViews.set(view, wrapped);
  }
  return wrapped as AnswerView<PostDetail, Faceted<Out>>;
}
