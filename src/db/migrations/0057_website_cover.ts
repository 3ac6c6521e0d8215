// A website's home cover (issue 36 #2): an image of the media library shown across the top of the home
// page, chosen in the panel like the logo. API v2 shows it among the website's fields; API v1's website
// JSON (R-W1) does not.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('websites').addColumn('site_cover', 'text').execute();
}
