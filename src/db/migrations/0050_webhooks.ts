// Webhooks (issue 38): a target URL told of chosen events, per website (site admins and up) or for the
// whole installation (website_id null: administrators). The secret signs every delivery (Standard
// Webhooks HMAC): it must be readable to sign, so it is stored as-is and shown only once, when the
// webhook is made; no read returns it again. `webhook_deliveries` is the log of every attempt;
// `webhook_public_posts` remembers which posts webhooks last saw public, so that a change of a post
// is told as published, updated or unpublished.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'integer', id)
    .addColumn('website_id', 'integer', (col) => col.references('websites.id').onDelete('cascade'))
    .addColumn('url', 'varchar(2000)', (col) => col.notNull())
    // A JSON array of event names (webhooks/events.ts).
    .addColumn('events', 'text', (col) => col.notNull())
    .addColumn('secret', 'varchar(200)', (col) => col.notNull())
    .addColumn('active', 'integer', (col) => col.notNull().defaultTo(1))
    // Deliveries that failed for good in a row; the webhook is disabled at the limit.
    .addColumn('failures', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('disabled_reason', 'text')
    .addColumn('created_by', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addColumn('updated_at', timestamp, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('webhooks_website').on('webhooks').column('website_id').execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'integer', id)
    .addColumn('webhook_id', 'integer', (col) => col.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('job_id', 'integer')
    // The Standard Webhooks message id (the same on every attempt of one message).
    .addColumn('message_id', 'varchar(100)', (col) => col.notNull())
    .addColumn('event', 'varchar(60)', (col) => col.notNull())
    .addColumn('attempt', 'integer', (col) => col.notNull())
    .addColumn('request_body', 'text', (col) => col.notNull())
    .addColumn('status_code', 'integer')
    // The first bytes of the answer, or why there was none.
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_hook')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'id'])
    .execute();
  await db.schema
    .createTable('webhook_public_posts')
    .addColumn('post_id', 'integer', (col) => col.primaryKey())
    .execute();
}
