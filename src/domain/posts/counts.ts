// Counts of live posts from the kept counters (migration 0019_post_counts, issue 26 #1): a list's total
// is a sum over a few rows of `post_counts` instead of a count(*) over every matching post. Only the
// shapes the counters can answer come here (any or one status, any or one tag, a website or all);
// the lists keep their count query for the rest (search terms, several tags, excluded ids, …).
import { PostgresAdapter, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import { POST_MODEL } from './model.js';
import { hasAnyTag } from './queries.js';

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
    query = query.where((eb) => hasAnyTag(eb, [tagId]));
  }
  const row = await query.executeTakeFirst();
  return Number(row?.total ?? 0);
}

/**
 * Folds every counter key's delta rows into one row (the triggers append a row per change; a bulk
 * import appends millions), in SQL without reading the rows out. Run by the scheduler, and by bulk
 * loaders after their work; safe on several nodes at once and beside writers:
 * - PostgreSQL: one statement; the DELETE returns exactly the rows it removed and their sum is written
 *   back, so a delta committed meanwhile (invisible to the statement) is kept as it is.
 * - SQLite: one writer at a time; the transaction takes the write lock first, then sums and deletes
 *   the rows up to the largest id it saw.
 */
export async function compactPostCounts(db: Db): Promise<void> {
  const keys = sql`SELECT tag_id, website_id, status FROM post_counts`;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`
      WITH dup AS (${keys} GROUP BY tag_id, website_id, status HAVING count(*) > 1),
      gone AS (
        DELETE FROM post_counts c USING dup
        WHERE c.tag_id = dup.tag_id AND c.website_id = dup.website_id AND c.status = dup.status
        RETURNING c.tag_id, c.website_id, c.status, c.total)
      INSERT INTO post_counts (tag_id, website_id, status, total)
      SELECT tag_id, website_id, status, sum(total) FROM gone
      GROUP BY tag_id, website_id, status HAVING sum(total) <> 0`.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await sql`UPDATE post_counts SET total = total WHERE 0`.execute(trx); // the write lock, now
    const last = await sql<{ id: number | null }>`SELECT max(id) AS id FROM post_counts`.execute(trx);
    const max = last.rows[0]?.id;
    if (max == null) return;
    const dup = sql`(${keys} WHERE id <= ${max} GROUP BY tag_id, website_id, status HAVING count(*) > 1)`;
    await sql`
      INSERT INTO post_counts (tag_id, website_id, status, total)
      SELECT tag_id, website_id, status, sum(total) FROM post_counts
      WHERE id <= ${max} GROUP BY tag_id, website_id, status HAVING count(*) > 1 AND sum(total) <> 0`.execute(
      trx,
    );
    await sql`
      DELETE FROM post_counts WHERE id <= ${max} AND (tag_id, website_id, status) IN ${dup}`.execute(trx);
  });
}
