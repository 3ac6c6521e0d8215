// Registrations waiting for their email to be confirmed. Registering never tells whether an email has
// an account: the form always answers "check your email", and the account is only created when the
// link mailed to the address is opened. Only the SHA-256 of the link's token is stored; the password
// is stored as its argon2 hash, as in `users`. One pending registration per email (a new one replaces
// it), so the unique index on `email` also bounds the table by the number of addresses.
import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  const timestamp = pg ? sql`timestamptz` : sql`text`;
  const id = (col: ColumnDefinitionBuilder) =>
    pg ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement();

  await db.schema
    .createTable('pending_registrations')
    .addColumn('id', 'integer', id)
    .addColumn('token_hash', 'char(64)', (col) => col.notNull().unique())
    .addColumn('email', 'varchar(255)', (col) => col.notNull().unique())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    // The username asked for; null: one is made from the name when the account is created.
    .addColumn('username', 'varchar(32)')
    .addColumn('password_hash', 'varchar(255)', (col) => col.notNull())
    .addColumn('created_at', timestamp, (col) => col.notNull())
    .addColumn('expires_at', timestamp, (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('pending_registrations_expiry')
    .on('pending_registrations')
    .column('expires_at')
    .execute();
}
