// Named menus (issue 23 #1, issue 25 #3): a website has several menus, each with a handle (`header`,
// `footer`, …) unique on the website. Items belong to a menu and may point to a page, a post or a tag
// as well as a URL. Existing items move into their website's `header` menu, the one API v1's sync
// replaces and the default theme shows in its header, so neither changes.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  await db.schema
    .createTable('menus')
    .addColumn('id', 'integer', id)
    .addColumn('website_id', 'integer', (col) => col.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('handle', 'varchar(50)', (col) => col.notNull())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addColumn('updated_at', timestamp, (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('menus_handle_unique')
    .on('menus')
    .columns(['website_id', 'handle'])
    .unique()
    .execute();

  // Nullable only because SQLite cannot add a NOT NULL column without a default; every write sets it.
  await db.schema
    .alterTable('menu_items')
    .addColumn('menu_id', 'integer', (col) => col.references('menus.id').onDelete('cascade'))
    .execute();
  await db.schema
    .alterTable('menu_items')
    .addColumn('post_id', 'integer', (col) => col.references('posts.id').onDelete('set null'))
    .execute();
  await db.schema
    .alterTable('menu_items')
    .addColumn('tag_id', 'integer', (col) => col.references('tags.id').onDelete('set null'))
    .execute();
  await db.schema
    .createIndex('menu_items_by_menu')
    .on('menu_items')
    .columns(['menu_id', 'position'])
    .execute();

  const now = new Date().toISOString();
  const websites = await sql<{ website_id: number }>`
    select distinct website_id from menu_items order by website_id`.execute(db);
  for (const { website_id: websiteId } of websites.rows) {
    await sql`insert into menus (website_id, handle, name, created_at, updated_at)
      values (${websiteId}, 'header', 'Header', ${now}, ${now})`.execute(db);
  }
  await sql`update menu_items set menu_id = (
      select menus.id from menus where menus.website_id = menu_items.website_id and menus.handle = 'header')`.execute(
    db,
  );
}
