// The website a view or click happened on (issue 25 #1): a post shown on every website is counted on
// the one it was seen on, so a website's daily views and top posts read its own rows, through one
// index (website, time), instead of joining every counted event with the posts' bindings. Rows from
// before this migration have none and count on no website's dashboard.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('clicks').addColumn('website_id', 'integer').execute();
  await db.schema
    .createIndex('clicks_by_website_time')
    .on('clicks')
    .columns(['website_id', 'created_at', 'kind'])
    .execute();
}
