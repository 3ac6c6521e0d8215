// Show a post (spec 4.1, R-P4): by id or slug; a post the actor may not read is "not found" (nothing
// is revealed). A caller without a user never sees an author's email.
import { isAnonymous } from '../policy.js';
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
  const shown = await ctx.reads.post(
    ref,
    isAnonymous(actor) ? facetedView(view, 'public', withoutEmail) : facetedView(view, '', asIs),
  );
  if (!shown || !(await ctx.policy.can(actor, 'post.read', { post: shown.facts }))) throw postNotFound();
  return shown.answer;
}

interface Faceted<Out> {
  facts: PostFacts;
  answer: Out;
}

const views = new Map<string, WeakMap<object, AnswerView<PostDetail, Faceted<object>>>>();

/**
 * The view with the facts the policy needs kept beside each answer; `variant` names a redaction of
 * the post made before the view sees it (kept apart in the cache).
 */
function facetedView<Out extends object>(
  view: AnswerView<PostDetail, Out>,
  variant: string,
  redact: (post: PostDetail) => PostDetail,
): AnswerView<PostDetail, Faceted<Out>> {
  let byView = views.get(variant);
  if (!byView) views.set(variant, (byView = new WeakMap()));
  let wrapped = byView.get(view);
  if (!wrapped) {
    wrapped = {
      name: variant === '' ? view.name : `${view.name}:${variant}`,
      build: (post) => ({ facts: factsOf(post), answer: view.build(redact(post)) }),
      size: (value) => view.size(value.answer as Out),
    };
    byView.set(view, wrapped);
  }
  return wrapped as AnswerView<PostDetail, Faceted<Out>>;
}

const asIs = (post: PostDetail) => post;
/** What a caller without a user sees: no author's email. */
const withoutEmail = (post: PostDetail): PostDetail =>
  ({ ...post, author: post.author && { id: post.author.id, name: post.author.name } }) as PostDetail;
