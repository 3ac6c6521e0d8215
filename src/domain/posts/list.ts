// List posts (spec 4.1, R-P2, R-P3): one schema; what the actor may see decides the query (policy.ts):
// administrators every post of the status asked for, others posts published and due plus their own,
// and an editor of the request's website every post bound to it.
import { ValidationError } from '../errors.js';
import { isAnonymous } from '../policy.js';
import type { Actor } from '../policy.js';
import { parse } from '../schema-fields.js';
import type { PostOperationContext } from './context.js';
import { decodeCursor } from './cursor.js';
import { clampPageSize, listPostsInput } from './input.js';
import type { ListPostsInput } from './input.js';
import type { Page, PostListQuery, PostSortKey, PostSummary } from './model.js';
import type { AnswerView, PostReads } from './reads.js';

/** The store's query for a parsed list input and an actor. */
async function listQueryOf(
  ctx: PostOperationContext,
  actor: Actor,
  input: ListPostsInput,
): Promise<PostListQuery> {
  // A caller without a user (a public list) asks for published posts only.
  if (isAnonymous(actor) && input.status !== undefined && input.status !== 'published') {
    throw new ValidationError({ status: ['The selected status is invalid.'] });
  }
  return {
    page: Math.max(1, input.page),
    pageSize: clampPageSize(input.page_size),
    sort: input.sort,
    direction: input.direction,
    websiteId: actor.websiteId,
    status: input.status,
    keywords: input.keywords === undefined ? undefined : input.keywords.split(','),
    tagIds: input.tags,
    tagType: input.tag_type,
    excludedIds: input.excluded_post_ids,
    random: input.is_random,
    // An administrator lists every status (with a key limited to websites: only on them).
    viewer: ctx.policy.adminOn(actor, actor.websiteId === null ? [] : [actor.websiteId])
      ? undefined
      : {
          // Their own posts of any status (with a limited key, only on its websites).
          userId: ctx.policy.listsOwnPosts(actor, actor.websiteId) ? actor.userId : null,
          now: ctx.policy.now().toISOString(),
          // An editor of the request's website lists its posts of every status (issue 20).
          editsWebsite:
            actor.websiteId !== null &&
            (await ctx.policy.can(actor, 'website.edit', { websiteId: actor.websiteId })),
        },
  };
}

export function parseListInput(raw: unknown): ListPostsInput {
  return parse(listPostsInput, raw);
}

/** A page of posts through a face's view (cached; see PostReads). */
export async function listPosts<Out extends object>(
  ctx: PostOperationContext & { reads: PostReads },
  actor: Actor,
  input: ListPostsInput,
  view: AnswerView<Page<PostSummary>, Out>,
  options: {
    cursor?: string;
    authorId?: number;
    thenBy?: PostSortKey[];
    timed?: boolean;
    relevance?: boolean;
    bounded?: boolean;
  } = {},
): Promise<{ query: PostListQuery; answer: Out }> {
  const query = await listQueryOf(ctx, actor, input);
  if (options.timed) query.timed = true;
  if (options.authorId !== undefined) query.authorId = options.authorId;
  if (options.thenBy?.length) query.thenBy = options.thenBy;
  if (options.relevance) query.relevance = true;
  if (options.bounded) query.bounded = true;
  if (options.cursor !== undefined) query.after = decodeCursor(options.cursor, query);
  const read = () => ctx.reads.listPage(query, view);
  // A list that searches is counted per client (issue 34 #11); the others are not. A signed-in caller
  // of API v2 is held to the searches at once only: their key's (or user's) rate limit counts the rest
  // (the admin panel sends six searches per search: the list and a count per status).
  const searches = ctx.searchLimit && query.keywords?.some((term) => term.trim() !== '');
  const perMinute = actor.userId === null || actor.origin?.surface !== 'api-v2';
  return {
    query,
    answer: await (searches && ctx.searchLimit
      ? ctx.searchLimit.run(actor.origin?.clientIp, read, { perMinute })
      : read()),
  };
}
