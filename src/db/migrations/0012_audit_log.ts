// The audit log (issue 20): one row per write through any surface (API, public site, CLI): who (user,
// API key), what (action, resource type and id, website), when, from where (request id, client
// address), and the names of the fields it changed — never their values, secrets or bodies.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'integer', id)
    .addColumn('created_at', timestamp, (col) => col.notNull())
    // No foreign keys: the record outlives the user, key or website it names.
    .addColumn('user_id', 'integer')
    .addColumn('api_key_id', 'integer')
    .addColumn('action', 'varchar(60)', (col) => col.notNull())
    .addColumn('resource_type', 'varchar(40)', (col) => col.notNull())
    .addColumn('resource_id', 'varchar(64)')
    .addColumn('website_id', 'integer')
    .addColumn('surface', 'varchar(20)', (col) => col.notNull())
    .addColumn('request_id', 'varchar(64)')
    .addColumn('client_ip', 'varchar(45)')
    .addColumn('summary', 'varchar(1000)')
    .execute();
  await db.schema.createIndex('audit_log_created').on('audit_log').column('created_at').execute();
  await db.schema.createIndex('audit_log_website').on('audit_log').columns(['website_id', 'id']).execute();
  await db.schema.createIndex('audit_log_user').on('audit_log').columns(['user_id', 'id']).execute();
  await db.schema
    .createIndex('audit_log_resource')
    .on('audit_log')
    .columns(['resource_type', 'resource_id', 'id'])
    .execute();
}
