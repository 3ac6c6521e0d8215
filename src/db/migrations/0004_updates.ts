// Update locks: the owner of a lock, so that a run releases (or refreshes) only the lock it took,
// never the lock of a newer run that took over after it stalled.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('update_state').addColumn('lock_owner', 'varchar(64)').execute();
}
