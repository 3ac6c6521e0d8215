// Counts of live posts from the kept counters (migration 0017_post_counts, issue 26 #1): a list's total
// is a sum over a few rows of `post_counts` instead of a count(*) over every matching post. Only the
// shapes the counters can answer come here (any or one status, any or one tag, a website or all);
// the lists keep their count query for the rest (search terms, several tags, excluded ids, …).
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { visibleOnWebsite } from '../bindings.js';
import { POST_MODEL } from './model.js';

export interface CountScope {
  /** Posts having this tag; undefined: every post. */
  tagId?: number;
  /** The website's posts and the global ones (bound to no website); null: every post. */
  websiteId: number | null;
  /** One status; null: every status. */
  status: string | null;
}

/** How many live posts (type `post`, not deleted) the scope holds, from the counters. */
export async function keptPostCount(db: Db, scope: CountScope): Promise<number> {
  let query = db
    .selectFrom('post_counts')
    .select((eb) => eb.fn.sum<number | string | null>('total').as('total'))
    .where('tag_id', '=', scope.tagId ?? 0);
  query =
    scope.websiteId === null
      ? query.where('website_id', '=', 0)
      : query.where('website_id', 'in', [scope.websiteId, -1]);
  if (scope.status !== null) query = query.where('status', '=', scope.status);
  const row = await query.executeTakeFirst();
  return Number(row?.total ?? 0);
}

/**
 * How many of the scope's published posts are not public yet: `published_at` still to come (and, with
 * `nullIsDue` false, none at all). Read on the due index (status, published_at): it reads only those
 * few posts, so "published and due" is the counter minus this.
 */
export async function publishedNotDue(
  db: Db,
  scope: Omit<CountScope, 'status'>,
  now: string,
  options: { nullIsDue: boolean },
): Promise<number> {
  let query = db
    .selectFrom('posts')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('posts.status', '=', 'published')
    .where('posts.deleted_at', 'is', null)
    .where('posts.type', '=', POST_MODEL)
    .where((eb) =>
      options.nullIsDue
        ? eb('posts.published_at', '>', now)
        : eb.or([eb('posts.published_at', '>', now), eb('posts.published_at', 'is', null)]),
    );
  const { websiteId, tagId } = scope;
  if (websiteId !== null) {
    query = query.where((eb) => visibleOnWebsite(eb, POST_MODEL, eb.ref('posts.id'), websiteId));
  }
  if (tagId !== undefined) {
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('taggables')
          .select('taggables.tag_id')
          .where('taggables.taggable_type', '=', POST_MODEL)
          .whereRef('taggables.taggable_id', '=', 'posts.id')
          .where('taggables.tag_id', '=', tagId),
      ),
    );
  }
  const row = await query.executeTakeFirst();
  return Number(row?.total ?? 0);
}

/**
 * Folds every counter key's delta rows into one row (the triggers append a row per change). Each key's
 * rows are deleted and their sum written back in one transaction; on PostgreSQL the DELETE returns
 * exactly the rows it removed, so a writer's delta committed meanwhile is never lost. Run by the
 * scheduler; safe on several nodes at once.
 */
export async function compactPostCounts(db: Db): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const removed = await sql<{ tag_id: number; website_id: number; status: string; total: number }>`
      DELETE FROM post_counts WHERE id IN (
        SELECT c.id FROM post_counts c JOIN (
          SELECT tag_id, website_id, status FROM post_counts
          GROUP BY tag_id, website_id, status HAVING count(*) > 1
        ) k ON k.tag_id = c.tag_id AND k.website_id = c.website_id AND k.status = c.status)
      RETURNING tag_id, website_id, status, total`.execute(trx);
    const sums = new Map<string, { tag_id: number; website_id: number; status: string; total: number }>();
    for (const row of removed.rows) {
      const key = `${row.tag_id}/${row.website_id}/${row.status}`;
      const sum = sums.get(key) ?? {
        tag_id: row.tag_id,
        website_id: row.website_id,
        status: row.status,
        total: 0,
      };
      sum.total += Number(row.total);
      sums.set(key, sum);
    }
    const rows = [...sums.values()].filter((row) => row.total !== 0);
    for (let i = 0; i < rows.length; i += 500) {
      await trx
        .insertInto('post_counts')
        .values(rows.slice(i, i + 500))
        .execute();
    }
    return removed.rows.length;
  });
}
