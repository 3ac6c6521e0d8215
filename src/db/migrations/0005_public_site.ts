// The public site's list queries (issue 7): live published posts newest first (the blog, listings,
// tags, authors and the sitemap filter on type, status, deleted_at, then order by published_at), and
// rankings that count a kind of click within a period, post by post.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex('posts_public_listing')
    .on('posts')
    .columns(['type', 'status', 'deleted_at', 'published_at', 'id'])
    .execute();
  await db.schema
    .createIndex('clicks_ranking')
    .on('clicks')
    .columns(['model_type', 'kind', 'created_at', 'model_id'])
    .execute();
  // Posts of an author (user pages), newest first.
  await db.schema
    .createIndex('posts_author_published')
    .on('posts')
    .columns(['author_id', 'type', 'status', 'published_at'])
    .execute();
}
