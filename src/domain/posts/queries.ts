// The SQL of post lists and post details, compiled once per shape (see db/compiled.ts).
import { sql } from 'kysely';
import type { Expression, ExpressionBuilder, InferResult, SqlBool } from 'kysely';
import { param } from '../../db/compiled.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import { taggedWith } from '../tagged.js';
import { POST_MODEL } from './model.js';
import type { PostSortField, PostSortKey } from './model.js';

import { candidateTable, dialectOf, rankedPosts, termMatches, titleRank } from './search.js';
import type { TermKind } from './search.js';

/** What decides the SQL text of a list's queries (the values are Params). */
export interface ListShape {
  anyStatus: boolean;
  /** The status asked for, by what the site shows at Param `now` (PostListQuery.timed); else null. */
  timed: 'published' | 'scheduled' | null;
  /** The kinds of the search terms (any of which matches), each with its Param `term:i`. */
  terms: TermKind[];
  tags: number;
  tagType: boolean;
  excluded: number;
  /** Posts of one author only (Param `author`). */
  author: boolean;
  onWebsite: boolean;
  random: boolean;
  /** Only posts published and due (Param `now`), or written by the viewer (Param `viewer`). */
  restricted: boolean;
  /** With `restricted`: also every post bound to the list's website (an editor's list there). */
  edited: boolean;
  sort: PostSortField;
  direction: 'asc' | 'desc';
  /** Orders after the first (never with `keyset`: such lists have no cursors). */
  thenBy: PostSortKey[];
  /**
   * Best match first, by the search index's score for Param `rank` (a rankQuery()); the sort then
   * breaks ties. Never with `keyset` or `reversed`.
   */
  ranked: boolean;
  /**
   * A bounded search (PostListQuery.bounded): the terms' matches are the candidates of Param
   * `candidates` (candidatesParam(): ids read from the index first), not the term Params; ranked,
   * by whether the title has a term (Params `title:i`).
   */
  candidates: boolean;
  /** Only rows after a cursor (keyset pagination): Params `after:value` and `after:id`; offset 0. */
  keyset: boolean;
  /**
   * The page is read from the list's far end (order reversed, offset counted from the end): a page
   * past the middle then reads no more index entries than the page as far from the other end.
   */
  reversed: boolean;
}

/** Live posts (type `post`, not deleted) shown on the website: bound to it, or to none. */
export function livePostsOn(db: Db, websiteId: number) {
  return db
    .selectFrom('posts')
    .where('posts.type', '=', POST_MODEL)
    .where('posts.deleted_at', 'is', null)
    .where((eb) => visibleOnWebsite(eb, POST_MODEL, eb.ref('posts.id'), websiteId));
}

/** Whether the post (`posts.id`) has one of these tags. */
export function hasAnyTag(
  eb: ExpressionBuilder<Database, 'posts'>,
  tagIds: readonly number[],
): Expression<SqlBool> {
  return taggedWith(eb, POST_MODEL, eb.ref('posts.id'), tagIds);
}

/**
 * The count and the page of a list of this shape, with Params for every value that varies: `status`,
 * `term:i` (termValue()s), `tag:i`, `tagType`, `excluded:i`, `website`, `limit`, `offset`.
 */
export function listQueries(db: Db, shape: ListShape) {
  let base = db
    .selectFrom('posts')
    .where('posts.deleted_at', 'is', null)
    .where('posts.type', '=', POST_MODEL);
  // Timed (issue 36 #9): `published` only once due, `scheduled` also when published but not due.
  if (shape.timed === 'published') {
    base = base.where((eb) =>
      eb.and([
        eb('posts.status', '=', 'published'),
        eb.or([eb('posts.published_at', 'is', null), eb('posts.published_at', '<=', param<string>('now'))]),
      ]),
    );
  } else if (shape.timed === 'scheduled') {
    base = base.where((eb) =>
      eb.or([
        eb('posts.status', '=', 'scheduled'),
        eb.and([eb('posts.status', '=', 'published'), eb('posts.published_at', '>', param<string>('now'))]),
      ]),
    );
  } else if (!shape.anyStatus) base = base.where('posts.status', '=', param<string>('status'));
  if (shape.restricted) {
    base = base.where((eb) =>
      eb.or([
        eb.and([
          eb('posts.status', '=', 'published'),
          eb.or([eb('posts.published_at', 'is', null), eb('posts.published_at', '<=', param<string>('now'))]),
        ]),
        eb('posts.author_id', '=', param<number>('viewer')),
        ...(shape.edited
          ? [
              eb.exists(
                eb
                  .selectFrom('website_bindings')
                  .select('website_bindings.model_id')
                  .where('website_bindings.model_type', '=', POST_MODEL)
                  .whereRef('website_bindings.model_id', '=', 'posts.id')
                  .where('website_bindings.website_id', '=', param<number>('website')),
              ),
            ]
          : []),
      ]),
    );
  }
  if (shape.candidates) {
    // A bounded search: among the candidates read from the index (at most SEARCH_CANDIDATES).
    const dialect = dialectOf(db);
    base = base.where((eb) =>
      eb(
        'posts.id',
        'in',
        eb.selectFrom(candidateTable(dialect, param<string>('candidates'))).select('candidate.id'),
      ),
    );
  } else if (shape.terms.length > 0) {
    // Through the search index (domain/posts/search.ts): the values are termValue()s.
    const dialect = dialectOf(db);
    base = base.where((eb) =>
      eb.or(shape.terms.map((kind, i) => termMatches(eb, dialect, kind, param<string>(`term:${i}`)))),
    );
  }
  if (shape.tags > 0 || shape.tagType) {
    base = base.where((eb) => {
      let tagged = eb
        .selectFrom('taggables')
        .innerJoin('tags', 'tags.id', 'taggables.tag_id')
        .select('taggables.tag_id')
        .where('taggables.taggable_type', '=', POST_MODEL)
        .whereRef('taggables.taggable_id', '=', 'posts.id');
      if (shape.tags > 0) {
        tagged = tagged.where(
          'taggables.tag_id',
          'in',
          Array.from({ length: shape.tags }, (_, i) => param<number>(`tag:${i}`)),
        );
      }
      if (shape.tagType) tagged = tagged.where('tags.type', '=', param<string>('tagType'));
      return eb.exists(tagged);
    });
  }
  if (shape.author) base = base.where('posts.author_id', '=', param<number>('author'));
  if (shape.excluded > 0) {
    base = base.where(
      'posts.id',
      'not in',
      Array.from({ length: shape.excluded }, (_, i) => param<number>(`excluded:${i}`)),
    );
  }
  // On a website, its posts and global ones; the page's check is per row (see visibleOnWebsite).
  const visible = (perRow: boolean) => (qb: typeof base) =>
    shape.onWebsite
      ? qb.where((eb) =>
          visibleOnWebsite(eb, POST_MODEL, eb.ref('posts.id'), param<number>('website'), { perRow }),
        )
      : qb;
  const count = base.$call(visible(false)).select((eb) => eb.fn.countAll<number>().as('total'));
  const columns = [
    'posts.id',
    'posts.title',
    'posts.slug',
    'posts.excerpt',
    'posts.content',
    'posts.thumbnail',
    'posts.status',
    'posts.published_at',
    'posts.created_at',
    'posts.updated_at',
    'users.id as author_id',
    'users.name as author_name',
  ] as const;
  const window = { limit: param<number>('limit'), offset: param<number>('offset') };
  if (shape.random) {
    const page = base
      .$call(visible(true))
      .leftJoin('users', 'users.id', 'posts.author_id')
      .select(columns)
      .orderBy(sql`random()`);
    return { count, page: page.limit(window.limit).offset(window.offset) };
  }
  // Ties are broken by id, newest first, in either direction.
  const flip = (direction: 'asc' | 'desc'): 'asc' | 'desc' => (direction === 'asc' ? 'desc' : 'asc');
  const order = shape.reversed
    ? { sort: flip(shape.direction), id: 'asc' as const }
    : { sort: shape.direction, id: 'desc' as const };
  let ids = base.$call(visible(true)).select('posts.id');
  if (shape.keyset) {
    const column = `posts.${shape.sort}` as const;
    const value = param<string>('after:value');
    ids = ids.where((eb) =>
      eb.or([
        eb(column, shape.direction === 'desc' ? '<' : '>', value),
        eb.and([eb(column, '=', value), eb('posts.id', '<', param<number>('after:id'))]),
      ]),
    );
  }
  // A deferred join (issue 26 #2): the page's ids first, read in index order (the listing index
  // covers the filters and the default order, so skipped rows are index entries, not posts), then only
  // those rows in full.
  // Ranked: the index's score of each post (0 for one matched otherwise), carried to the outer order;
  // a bounded search's candidates, 1 for a post whose title has any term (titleRank: Param `in_title`,
  // read with the candidates, on PostgreSQL; Params `title:i`, their likePattern()s, on SQLite).
  let pageIds = ids
    .$if(shape.ranked && shape.candidates, (qb) => {
      const inTitle = titleRank(dialectOf(db), param<string>('in_title'), {
        patterns: shape.terms.map((_, i) => param<string>(`title:${i}`)),
        mode: 'any',
      });
      return qb
        .select(sql<number>`case when ${inTitle} then 1 else 0 end`.as('score'))
        .orderBy(sql`score`, 'desc');
    })
    .$if(shape.ranked && !shape.candidates, (qb) =>
      qb
        .leftJoin(rankedPosts(dialectOf(db), param<string>('rank')), 'ranked.id', 'posts.id')
        .select(sql<number>`coalesce(ranked.score, 0)`.as('score'))
        .orderBy(sql`coalesce(ranked.score, 0)`, 'desc'),
    )
    // A bounded search's page also counts every candidate the list shows (the window's count, taken
    // before the limit): the candidates are read once for both, not again by the count query.
    .$if(shape.candidates && !shape.keyset, (qb) => qb.select(sql<number>`count(*) over ()`.as('total')))
    .orderBy(`posts.${shape.sort}`, order.sort);
  for (const key of shape.thenBy) {
    pageIds = pageIds.orderBy(`posts.${key.field}`, shape.reversed ? flip(key.direction) : key.direction);
  }
  pageIds = pageIds.orderBy('posts.id', order.id).limit(window.limit).offset(window.offset);
  let page = db
    .selectFrom('posts')
    .innerJoin(pageIds.as('page_ids'), 'page_ids.id', 'posts.id')
    .leftJoin('users', 'users.id', 'posts.author_id')
    .select(columns)
    .$if(shape.candidates && !shape.keyset, (qb) => qb.select(sql<number>`page_ids.total`.as('total')));
  if (shape.ranked) page = page.orderBy(sql`page_ids.score`, 'desc');
  page = page.orderBy(`posts.${shape.sort}`, shape.direction);
  for (const key of shape.thenBy) page = page.orderBy(`posts.${key.field}`, key.direction);
  page = page.orderBy('posts.id', 'desc');
  return { count, page };
}

export type ListRow = InferResult<ReturnType<typeof listQueries>['page']>[number];

/** A live post with its author's name and email, by id or by slug (the Param `value`). */
export function detailQuery(db: Db, column: 'posts.id' | 'posts.slug') {
  return db
    .selectFrom('posts')
    .leftJoin('users', 'users.id', 'posts.author_id')
    .selectAll('posts')
    .select(['users.name as author_name', 'users.email as author_email'])
    .where(column, '=', param<string>('value'))
    .where('posts.deleted_at', 'is', null)
    .where('posts.type', '=', POST_MODEL);
}

export type DetailRow = InferResult<ReturnType<typeof detailQuery>>[number];
