// Keys limited to websites stay limited (issue 34 #3): a key's scope was only its rows in
// api_key_websites, so deleting its last website (the rows go with it) turned it into a key of every
// website. `limited` remembers that the key was made for chosen websites; one whose websites are all
// gone stops working.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  await db.schema
    .alterTable('api_keys')
    .addColumn('limited', pg ? sql`boolean` : sql`integer`, (col) =>
      col.notNull().defaultTo(pg ? sql`false` : sql`0`),
    )
    .execute();
  await sql`update api_keys set limited = ${pg ? sql`true` : sql`1`}
    where exists (select 1 from api_key_websites where api_key_websites.api_key_id = api_keys.id)`.execute(
    db,
  );
}
