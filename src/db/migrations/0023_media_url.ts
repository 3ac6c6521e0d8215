// Media by URL (issue 22): a post's cover is its thumbnail URL; the public site finds the image's
// sizes (its `variants`) by that URL for every list it shows, so the lookup must not scan the table.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('media_url').on('media').column('url').execute();
}
