// Comments, click analytics and links (issue 8):
// - comment_votes: one like and one report per comment and voter (a signed-in user or a visitor's
//   hash), so a double click or a replayed request counts once; the counters on comments are only
//   incremented when the vote row was new.
// - clicks_once_per_visitor: a like or favourite of a post, link or page counts once per visitor
//   (views and outbound clicks are events and may repeat).
// - links: the URL and icon of a post of type `link` (its name is the title, its description the
//   content); a side table keeps the posts table as it is.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const timestamp = dialect === 'postgres' ? sql`timestamptz` : sql`text`;

  await db.schema
    .createTable('comment_votes')
    .addColumn('comment_id', 'integer', (col) => col.notNull().references('comments.id').onDelete('cascade'))
    .addColumn('kind', 'varchar(10)', (col) => col.notNull())
    .addColumn('voter', 'char(64)', (col) => col.notNull())
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addPrimaryKeyConstraint('comment_votes_pk', ['comment_id', 'kind', 'voter'])
    .execute();

  await db.schema
    .createIndex('clicks_once_per_visitor')
    .on('clicks')
    .columns(['model_type', 'model_id', 'kind', 'visitor_hash'])
    .unique()
    .where(sql<boolean>`kind in ('like', 'fav')`)
    .execute();

  await db.schema
    .createTable('links')
    .addColumn('post_id', 'integer', (col) => col.primaryKey().references('posts.id').onDelete('cascade'))
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('icon', 'text')
    .execute();
}
