// Named API keys with scopes (issue 20), beside the spec's one token per user: each limited to chosen
// websites (none listed: every website the user may reach), to reading or to reading and writing, with
// an optional expiry. Only the SHA-256 of a key is stored; `prefix` (the key's first characters) lets
// its owner tell keys apart. A revoked key keeps its row (revoked_at) so the audit log can name it.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const flag = pg ? sql`boolean` : sql`integer`;
  const no = pg ? sql`false` : sql`0`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    .addColumn('prefix', 'varchar(20)', (col) => col.notNull())
    .addColumn('key_hash', 'char(64)', (col) => col.notNull().unique())
    .addColumn('read_only', flag, (col) => col.notNull().defaultTo(no))
    .addColumn('expires_at', timestamp)
    .addColumn('last_used_at', timestamp)
    .addColumn('revoked_at', timestamp)
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();
  await db.schema
    .createTable('api_key_websites')
    .addColumn('api_key_id', 'integer', (col) => col.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('website_id', 'integer', (col) => col.notNull().references('websites.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('api_key_websites_pk', ['api_key_id', 'website_id'])
    .execute();
}
