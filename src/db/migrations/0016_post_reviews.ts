// The review workflow (issue 20 #4): a contributor submits a draft (status `pending`), an editor
// approves it (published or scheduled) or sends it back to draft with a note the writer reads. One
// row per step, so the post keeps its review history; the newest row is its current review state.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  await db.schema
    .createTable('post_reviews')
    .addColumn('id', 'integer', id)
    .addColumn('post_id', 'integer', (col) => col.notNull().references('posts.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
    // `submitted`, `approved` or `returned`.
    .addColumn('decision', 'varchar(20)', (col) => col.notNull())
    .addColumn('note', 'text')
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .execute();
  await db.schema.createIndex('post_reviews_post').on('post_reviews').columns(['post_id', 'id']).execute();
}
