// Revisions of posts and pages (issue 37 #1): a snapshot of the resource after every save, written by
// the operation runner's write hook in the save's own transaction (domain/revisions/revisions.ts). Only the
// history endpoints read this table; lists and pages never do.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  await db.schema
    .createTable('revisions')
    .addColumn('id', 'integer', id)
    // 'post' or 'page'.
    .addColumn('resource_type', 'varchar(20)', (col) => col.notNull())
    .addColumn('resource_id', 'integer', (col) => col.notNull())
    // post.create, post.update, post.approve, post.restore, …
    .addColumn('action', 'varchar(60)', (col) => col.notNull())
    .addColumn('status', 'varchar(20)', (col) => col.notNull())
    // 1 when the snapshot was a published version: such revisions survive pruning.
    .addColumn('published', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('user_id', 'integer')
    .addColumn('api_key_id', 'integer')
    .addColumn('surface', 'varchar(20)', (col) => col.notNull())
    .addColumn('created_at', timestamp, (col) => col.notNull())
    // The snapshot (JSON): every translatable field per locale, the other fields, tags, websites.
    .addColumn('data', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('revisions_resource')
    .on('revisions')
    .columns(['resource_type', 'resource_id', 'id'])
    .execute();
}
