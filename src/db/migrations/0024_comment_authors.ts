// A commenter's earlier comments: with the moderation mode `first`, every new comment asks whether
// its author (the user, or anyone with the same email address, in any letter case) has one approved
// already. Without these indexes that question read every approved comment of the installation.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('comments_by_user').on('comments').columns(['user_id', 'status']).execute();
  // An expression index: the question compares lower(author_email), as addresses are case-blind.
  await sql`create index comments_by_email on comments (lower(author_email), status)`.execute(db);
}
