// Accounts of the public site: visitor sessions (the database driver of the session store) and
// password reset tokens. Only SHA-256 hashes of session ids and reset tokens are stored, so a leaked
// table gives nobody a session or a reset.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'integer', id)
    .addColumn('token_hash', 'char(64)', (col) => col.notNull().unique())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addColumn('expires_at', timestamp, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expiry').on('sessions').column('expires_at').execute();

  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'integer', id)
    .addColumn('token_hash', 'char(64)', (col) => col.notNull().unique())
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addColumn('expires_at', timestamp, (col) => col.notNull())
    .addColumn('used_at', timestamp)
    .execute();
  await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
}
