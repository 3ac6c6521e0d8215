// Idempotency keys of creates (issue 21 #16): a client that sends `Idempotency-Key` and retries after
// a cut connection gets the first answer again instead of a second post. One row per (caller, scope,
// key): a fingerprint of the request, and the answer once there is one (null while it runs).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('caller', 'varchar(64)', (col) => col.notNull())
    .addColumn('scope', 'varchar(100)', (col) => col.notNull())
    .addColumn('key', 'varchar(255)', (col) => col.notNull())
    .addColumn('fingerprint', 'char(64)', (col) => col.notNull())
    .addColumn('status', 'integer')
    .addColumn('body', 'text')
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['caller', 'scope', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .column('created_at')
    .execute();
}
