// The media library of API v2 (issue 23, issue 24 #4): an item keeps the name it was uploaded with,
// an alt text and a caption (their other locales in `translations`, model type `media`), its WebP and
// size variants (JSON: name, path, type, width, height, size), and when it last changed (its ETag).
// Which website an item belongs to is a website binding (model type `media`), like pages and tags:
// items stored before (post thumbnails, localized images) are bound to none, every website's.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const timestamp = dialect === 'postgres' ? sql`timestamptz` : sql`text`;
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema.alterTable('media').addColumn('file_name', 'varchar(255)').execute();
  await db.schema.alterTable('media').addColumn('alt', 'text').execute();
  await db.schema.alterTable('media').addColumn('caption', 'text').execute();
  await db.schema.alterTable('media').addColumn('variants', 'text').execute();
  await db.schema.alterTable('media').addColumn('updated_at', timestamp).execute();
  await sql`update media set updated_at = created_at`.execute(db);
  await db.schema.createIndex('media_created').on('media').columns(['created_at', 'id']).execute();
}
