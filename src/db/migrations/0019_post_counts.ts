// Post counters (issue 26 #1): how many live posts (type `post`, not deleted) there are per status, per
// website bucket and per tag, so a list's total is a few key lookups instead of a count(*) that reads
// every matching row after each write.
//
// One row per (tag_id, website_id, status):
//   tag_id      0 = every post, else posts having that tag;
//   website_id  0 = every post, -1 = global posts (bound to no website), W = posts bound to website W.
// A website shows its own posts and the global ones: its count is bucket W + bucket -1.
//
// The counters are kept by triggers, like an index: every statement that changes what they count (the
// post operations, the review steps, a tag merged or deleted, a website deleted and its bindings
// cascading, imports, test and bench seeding) updates them in its own transaction, on both databases,
// with no path able to forget. A change appends delta rows and a count is the sum of its key's rows:
// writers never update a shared row, so concurrent writes neither wait for each other nor deadlock (an
// upsert per key did deadlock on PostgreSQL, two transactions locking keys in different orders).
// compactPostCounts (domain/posts/counts.ts) folds each key's rows into one, every scheduler run.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/** The website buckets of post `p` (an SQL expression): 0, and its websites or -1 when it has none. */
function keysOf(p: string): string {
  const bindings = `website_bindings b WHERE b.model_type = 'post' AND b.model_id = ${p}`;
  return `SELECT 0 AS website_id UNION ALL SELECT b.website_id FROM ${bindings}
    UNION ALL SELECT -1 WHERE NOT EXISTS (SELECT 1 FROM ${bindings})`;
}

/** The tag buckets of post `p`: 0, and each of its tags. */
function tagsOf(p: string): string {
  return `SELECT 0 AS tag_id UNION ALL SELECT t.tag_id FROM taggables t
    WHERE t.taggable_type = 'post' AND t.taggable_id = ${p}`;
}

/** Appends the deltas of `rows` (tag_id, website_id, status, d), one row per key. */
function bump(rows: string): string {
  return `INSERT INTO post_counts (tag_id, website_id, status, total)
    SELECT x.tag_id, x.website_id, x.status, SUM(x.d) FROM (${rows}) x
    GROUP BY x.tag_id, x.website_id, x.status HAVING SUM(x.d) <> 0;`;
}

const live = (row: 'NEW' | 'OLD') => `${row}.type = 'post' AND ${row}.deleted_at IS NULL`;
/** A live post `p` joined as `p` (its status is what it counts under). */
const livePost = (p: string) => `p.id = ${p} AND p.type = 'post' AND p.deleted_at IS NULL`;

/** Every trigger: name, table, timing per dialect, event, condition, body. */
function triggers(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const postRows = (status: string, d: number, p: string) =>
    `SELECT g.tag_id, k.website_id, ${status} AS status, ${d} AS d
     FROM (${tagsOf(p)}) g CROSS JOIN (${keysOf(p)}) k`;
  const taggableRows = (row: 'NEW' | 'OLD', d: number) =>
    `SELECT ${row}.tag_id AS tag_id, k.website_id, p.status, ${d} AS d
     FROM posts p CROSS JOIN (${keysOf(`${row}.taggable_id`)}) k WHERE ${livePost(`${row}.taggable_id`)}`;
  const bindingsLeft = (row: 'NEW' | 'OLD') =>
    `(SELECT count(*) FROM website_bindings b WHERE b.model_type = 'post' AND b.model_id = ${row}.model_id)`;
  // A binding moves the post between buckets: into W, and out of -1 when it was its first (or back
  // into -1 when its last goes). PostgreSQL fires these BEFORE the row is written, where each row of a
  // multi-row statement sees the rows before it (AFTER row triggers there run at the statement's end).
  const wasGlobal = pg ? `${bindingsLeft('NEW')} = 0` : `${bindingsLeft('NEW')} = 1`;
  const nowGlobal = pg ? `${bindingsLeft('OLD')} = 1` : `${bindingsLeft('OLD')} = 0`;
  const bindingRows = (row: 'NEW' | 'OLD', d: number, moved: string) =>
    `SELECT g.tag_id, k.website_id, p.status, k.d FROM posts p
     CROSS JOIN (${tagsOf(`${row}.model_id`)}) g
     CROSS JOIN (SELECT ${row}.website_id AS website_id, ${d} AS d
                 UNION ALL SELECT -1, ${-d} WHERE ${moved}) k
     WHERE ${livePost(`${row}.model_id`)}`;
  const distinct = pg ? 'IS DISTINCT FROM' : 'IS NOT';
  return [
    {
      name: 'post_counts_post_insert',
      table: 'posts',
      timing: 'AFTER',
      event: 'INSERT',
      when: live('NEW'),
      body: bump(postRows('NEW.status', 1, 'NEW.id')),
    },
    {
      name: 'post_counts_post_update',
      table: 'posts',
      timing: 'AFTER',
      event: 'UPDATE',
      when: `OLD.status ${distinct} NEW.status OR OLD.type ${distinct} NEW.type
        OR (OLD.deleted_at IS NULL) <> (NEW.deleted_at IS NULL)`,
      body: bump(
        `SELECT g.tag_id, k.website_id, s.status, s.d
         FROM (${tagsOf('NEW.id')}) g CROSS JOIN (${keysOf('NEW.id')}) k
         CROSS JOIN (SELECT OLD.status AS status, -1 AS d WHERE ${live('OLD')}
                     UNION ALL SELECT NEW.status, 1 WHERE ${live('NEW')}) s`,
      ),
    },
    {
      // Before: its tags and bindings are still there to say which buckets it leaves.
      name: 'post_counts_post_delete',
      table: 'posts',
      timing: 'BEFORE',
      event: 'DELETE',
      when: live('OLD'),
      body: bump(postRows('OLD.status', -1, 'OLD.id')),
    },
    {
      name: 'post_counts_tag_insert',
      table: 'taggables',
      timing: 'AFTER',
      event: 'INSERT',
      when: `NEW.taggable_type = 'post'`,
      body: bump(taggableRows('NEW', 1)),
    },
    {
      name: 'post_counts_tag_delete',
      table: 'taggables',
      timing: 'AFTER',
      event: 'DELETE',
      when: `OLD.taggable_type = 'post'`,
      body: bump(taggableRows('OLD', -1)),
    },
    {
      // A tag merge moves links to another tag.
      name: 'post_counts_tag_update',
      table: 'taggables',
      timing: 'AFTER',
      event: 'UPDATE',
      when: `OLD.taggable_type = 'post' OR NEW.taggable_type = 'post'`,
      body: `${bump(`${taggableRows('OLD', -1)} AND OLD.taggable_type = 'post'`)}
        ${bump(`${taggableRows('NEW', 1)} AND NEW.taggable_type = 'post'`)}`,
    },
    {
      name: 'post_counts_binding_insert',
      table: 'website_bindings',
      timing: pg ? 'BEFORE' : 'AFTER',
      event: 'INSERT',
      when: `NEW.model_type = 'post'`,
      body: bump(bindingRows('NEW', 1, wasGlobal)),
    },
    {
      name: 'post_counts_binding_delete',
      table: 'website_bindings',
      timing: pg ? 'BEFORE' : 'AFTER',
      event: 'DELETE',
      when: `OLD.model_type = 'post'`,
      body: bump(bindingRows('OLD', -1, nowGlobal)),
    },
  ];
}

/** Every counter recomputed from the rows (the backfill; tests compare the kept counters with it). */
export const RECOUNT_SQL = `
  WITH live AS (SELECT id, status FROM posts WHERE type = 'post' AND deleted_at IS NULL),
  keyed AS (
    SELECT id AS post_id, 0 AS website_id FROM live
    UNION ALL SELECT b.model_id, b.website_id FROM website_bindings b JOIN live ON live.id = b.model_id
      WHERE b.model_type = 'post'
    UNION ALL SELECT id, -1 FROM live WHERE NOT EXISTS (
      SELECT 1 FROM website_bindings b WHERE b.model_type = 'post' AND b.model_id = live.id)),
  tagged AS (
    SELECT id AS post_id, 0 AS tag_id FROM live
    UNION ALL SELECT t.taggable_id, t.tag_id FROM taggables t JOIN live ON live.id = t.taggable_id
      WHERE t.taggable_type = 'post')
  SELECT tagged.tag_id, keyed.website_id, live.status, count(*) AS total
  FROM live JOIN keyed ON keyed.post_id = live.id JOIN tagged ON tagged.post_id = live.id
  GROUP BY tagged.tag_id, keyed.website_id, live.status`;

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  await db.schema
    .createTable('post_counts')
    .addColumn('id', pg ? 'bigint' : 'integer', (col) =>
      pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
    )
    .addColumn('tag_id', 'integer', (col) => col.notNull())
    .addColumn('website_id', 'integer', (col) => col.notNull())
    .addColumn('status', 'varchar(20)', (col) => col.notNull())
    .addColumn('total', 'integer', (col) => col.notNull())
    .execute();
  // A count reads its key's rows (one after compaction), the total included: the index alone.
  await db.schema
    .createIndex('post_counts_key')
    .on('post_counts')
    .columns(['tag_id', 'website_id', 'status', 'total'])
    .execute();
  for (const t of triggers(dialect)) {
    if (pg) {
      const result = t.timing === 'AFTER' ? 'NULL' : t.event === 'DELETE' ? 'OLD' : 'NEW';
      await sql
        .raw(
          `CREATE FUNCTION ${t.name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
           BEGIN ${t.body} RETURN ${result}; END $fn$`,
        )
        .execute(db);
      await sql
        .raw(
          `CREATE TRIGGER ${t.name} ${t.timing} ${t.event} ON ${t.table}
           FOR EACH ROW WHEN (${t.when}) EXECUTE FUNCTION ${t.name}()`,
        )
        .execute(db);
    } else {
      await sql
        .raw(
          `CREATE TRIGGER ${t.name} ${t.timing} ${t.event} ON ${t.table}
           FOR EACH ROW WHEN ${t.when} BEGIN ${t.body} END`,
        )
        .execute(db);
    }
  }
  await sql
    .raw(`INSERT INTO post_counts (tag_id, website_id, status, total) SELECT * FROM (${RECOUNT_SQL}) r`)
    .execute(db);
}
