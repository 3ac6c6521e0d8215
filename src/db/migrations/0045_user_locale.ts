// The language a person chose (issue 41): the admin panel speaks it, and every mail to them is written
// in it. Null until they choose: the panel then guesses from the browser, mails use the site's locale.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('locale', 'varchar(16)').execute();
}
