// Shareable preview links (issue 37 #3): a signed, expiring, revocable link to a draft post or page
// (or to someone's autosave of it). Only the SHA-256 of the token is stored; the token itself is shown
// once, to whoever issues the link.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  await db.schema
    .createTable('preview_links')
    .addColumn('id', 'integer', id)
    // Hex SHA-256 of the token.
    .addColumn('token_hash', 'varchar(64)', (col) => col.notNull().unique())
    // 'post' or 'page'.
    .addColumn('resource_type', 'varchar(20)', (col) => col.notNull())
    .addColumn('resource_id', 'integer', (col) => col.notNull())
    // Set: the link shows this user's autosave of the resource instead of its saved version.
    .addColumn('autosave_user_id', 'integer')
    .addColumn('created_by', 'integer')
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addColumn('expires_at', timestamp, (col) => col.notNull())
    .addColumn('revoked_at', timestamp)
    .execute();
  await db.schema
    .createIndex('preview_links_resource')
    .on('preview_links')
    .columns(['resource_type', 'resource_id'])
    .execute();
}
