// A page's own title and description for search engines (issue 34 #20: the page editor gets the SEO
// fields the post editor has). Null: the page's title, and the start of its content.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pages').addColumn('meta_title', 'text').execute();
  await db.schema.alterTable('pages').addColumn('meta_description', 'text').execute();
}
