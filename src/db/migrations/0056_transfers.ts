// Exports and imports started from API v2 and the admin panel (issue 39 #1, #2, #6): each is a job on
// the queue (0033_jobs); this row keeps what people see of it: its progress (done of total, the phase),
// and its result (the archive's file and size, or the import's report) or why it failed.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();
  await db.schema
    .createTable('transfers')
    .addColumn('id', 'integer', id)
    /** `export` or `import`. */
    .addColumn('kind', 'varchar(16)', (col) => col.notNull())
    /** `queued`, `running`, `done`, `failed` or `expired` (an export whose archive was deleted). */
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    /** The website exported or imported into; null: the whole installation. */
    .addColumn('website_id', 'integer', (col) => col.references('websites.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (col) => col.references('users.id').onDelete('set null'))
    .addColumn('job_id', 'integer')
    /** The options it was started with (JSON: with_secrets, dry_run, format, file name). */
    .addColumn('options', 'text', (col) => col.notNull())
    .addColumn('phase', 'varchar(64)')
    .addColumn('done', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('total', 'integer', (col) => col.notNull().defaultTo(0))
    /** The archive written (an export) or the uploaded file (an import), on the local disk. */
    .addColumn('file', 'varchar(2048)')
    .addColumn('bytes', 'bigint')
    /** JSON: an export's summary, an import's report. */
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addColumn('updated_at', timestamp, (col) => col.notNull())
    .addColumn('finished_at', timestamp)
    .addColumn('expires_at', timestamp)
    .execute();
  await db.schema.createIndex('transfers_user').on('transfers').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('transfers_expiry').on('transfers').columns(['status', 'expires_at']).execute();
}
