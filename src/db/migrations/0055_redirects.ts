// Redirects (issue 39 #3): an old URL of a website (a WordPress permalink, `/2020/05/hello-world/`)
// answered with a 301 to what it became here: a post, a page, or a URL. Looked up only when no route
// matched the path, so they cost nothing on the pages Folio serves itself.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  await db.schema
    .createTable('redirects')
    .addColumn('id', 'integer', id)
    .addColumn('website_id', 'integer', (col) => col.notNull().references('websites.id').onDelete('cascade'))
    /** The old path, without a trailing slash (`/2020/05/hello-world`); `/` stays `/`. */
    .addColumn('from_path', 'varchar(2048)', (col) => col.notNull())
    .addColumn('post_id', 'integer', (col) => col.references('posts.id').onDelete('cascade'))
    .addColumn('page_id', 'integer', (col) => col.references('pages.id').onDelete('cascade'))
    .addColumn('to_url', 'varchar(2048)')
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('redirects_from_unique')
    .on('redirects')
    .columns(['website_id', 'from_path'])
    .unique()
    .execute();
}
