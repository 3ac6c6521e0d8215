// Roles per website (issue 20): a membership says which role a user holds on one website. The
// installation-wide administrator stays `users.is_admin`. Existing installations migrate so nobody
// loses what they could do: a website's owner (websites.user_id) becomes its site admin, and every other
// non-admin user becomes an author on the websites their posts are bound to and on the default website
// (the setting `default_website_id`, else the first website), as the old rule let them write there.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  const no = pg ? sql`false` : sql`0`;
  const now = pg ? sql`now()` : sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

  await db.schema
    .createTable('memberships')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('website_id', 'integer', (col) => col.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('role', 'varchar(20)', (col) => col.notNull())
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addColumn('updated_at', timestamp, (col) => col.notNull())
    .addUniqueConstraint('memberships_user_website', ['user_id', 'website_id'])
    .execute();
  await db.schema
    .createIndex('memberships_website')
    .on('memberships')
    .columns(['website_id', 'role'])
    .execute();

  // Owners first: a unique (user, website) pair keeps the strongest role when the author rows follow.
  await sql`
    insert into memberships (user_id, website_id, role, created_at, updated_at)
    select w.user_id, w.id, 'site_admin', ${now}, ${now}
    from websites w join users u on u.id = w.user_id
    where u.is_admin = ${no}
  `.execute(db);
  await sql`
    insert into memberships (user_id, website_id, role, created_at, updated_at)
    select distinct p.author_id, b.website_id, 'author', ${now}, ${now}
    from posts p
    join users u on u.id = p.author_id
    join website_bindings b on b.model_type = 'post' and b.model_id = p.id
    where u.is_admin = ${no}
    on conflict (user_id, website_id) do nothing
  `.execute(db);
  const defaultWebsite = sql`coalesce(
    (select w.id from websites w join settings s on s.key = 'default_website_id' and s.value = cast(w.id as text)),
    (select min(id) from websites)
  )`;
  await sql`
    insert into memberships (user_id, website_id, role, created_at, updated_at)
    select u.id, ${defaultWebsite}, 'author', ${now}, ${now}
    from users u
    where u.is_admin = ${no} and ${defaultWebsite} is not null
    on conflict (user_id, website_id) do nothing
  `.execute(db);
}
