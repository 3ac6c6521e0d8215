// Server-side autosave (issue 37 #2): one copy per post (or page) and user of what the editor holds,
// never what readers see and not a revision. Saving the post clears that user's copy.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  await db.schema
    .createTable('autosaves')
    .addColumn('id', 'integer', id)
    .addColumn('resource_type', 'varchar(20)', (col) => col.notNull())
    .addColumn('resource_id', 'integer', (col) => col.notNull())
    .addColumn('user_id', 'integer', (col) => col.notNull())
    // The version (updated_at) of the post the editor started from.
    .addColumn('base_version', 'varchar(40)')
    // The editor's fields (JSON).
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('updated_at', timestamp, (col) => col.notNull())
    .addUniqueConstraint('autosaves_one_per_user', ['resource_type', 'resource_id', 'user_id'])
    .execute();
}
