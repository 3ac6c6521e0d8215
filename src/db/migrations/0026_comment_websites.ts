// The website a comment was made on (issue 34 #7): a post shown on several websites (or on every
// website) gathers comments from each, and each website's moderators see and act on their own
// website's comments only, with the commenters' addresses. Comments made before this know no website;
// those under a post bound to exactly one website are that website's, the others stay unknown (and
// are moderated by the editors of the websites their post is bound to; under an all-sites post, by the
// administrators).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('comments')
    .addColumn('website_id', 'integer', (col) => col.references('websites.id').onDelete('set null'))
    .execute();
  await sql`update comments set website_id = (
      select min(website_bindings.website_id) from website_bindings
      where website_bindings.model_type = 'post' and website_bindings.model_id = comments.post_id)
    where (select count(*) from website_bindings
      where website_bindings.model_type = 'post' and website_bindings.model_id = comments.post_id) = 1`.execute(
    db,
  );
  await db.schema
    .createIndex('comments_by_website')
    .on('comments')
    .columns(['website_id', 'status'])
    .execute();
}
