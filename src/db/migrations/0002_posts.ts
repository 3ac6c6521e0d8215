// Posts: an index for the list of live posts, in the list's default order (created_at, then id) after
// the equality filters, deleted_at included, so the count reads the index alone (a covering index) and
// the first pages need no sort.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('posts_live_listing')
    .on('posts')
    .columns(['type', 'status', 'deleted_at', 'created_at', 'id'])
    .execute();
  // Scheduled publishing looks for due posts by status and time.
  await db.schema
    .createIndex('posts_live_due')
    .on('posts')
    .columns(['status', 'published_at'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
}
