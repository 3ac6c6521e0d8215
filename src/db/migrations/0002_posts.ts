// Posts: an index for the list of live posts. It holds only rows that are not soft-deleted, in the
// list's default order (created_at, then id), so the count and the first pages read the index alone.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('posts_live_listing')
    .on('posts')
    .columns(['type', 'status', 'created_at', 'id'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
  // Scheduled publishing looks for due posts by status and time.
  await db.schema
    .createIndex('posts_live_due')
    .on('posts')
    .columns(['status', 'published_at'])
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();
}
