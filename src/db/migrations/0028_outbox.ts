// The outbox (issue 35 #4): what a committed operation announces — the content changes the caches
// listen to and the domain events (post.update, membership.grant, …) webhooks and other listeners
// follow — written in the operation's own transaction. After commit the node that ran it announces
// the rows and deletes them; rows a crashed node left behind are claimed and announced by the next
// drain (domain/run.ts), so an announcement is never lost.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  await db.schema
    .createTable('outbox')
    .addColumn('id', 'integer', id)
    .addColumn('created_at', timestamp, (col) => col.notNull())
    // 'change' (a ContentChange for the caches) or 'event' (a DomainEvent).
    .addColumn('topic', 'varchar(20)', (col) => col.notNull())
    .addColumn('payload', 'text', (col) => col.notNull())
    // Set by the node announcing the row; a claim older than the lease is taken over.
    .addColumn('claimed_at', timestamp)
    .execute();
  await db.schema.createIndex('outbox_created').on('outbox').column('created_at').execute();
}
