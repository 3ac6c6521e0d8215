// Content keys (issue 23 #3): read-only API keys of chosen websites that see what a visitor sees
// (published content only), whoever created them; safe to embed in a static site's build.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pg = dialect === 'postgres';
  await db.schema
    .alterTable('api_keys')
    .addColumn('content_only', pg ? sql`boolean` : sql`integer`, (col) =>
      col.notNull().defaultTo(pg ? sql`false` : sql`0`),
    )
    .execute();
}
