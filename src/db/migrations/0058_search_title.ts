// The search table's lower-cased title (issue 40 #2, PostgreSQL): a bounded search ranks its candidates
// by whether the title has the terms, and now reads that with the candidates from the search table,
// not from each post's title and translations (db/search-index.ts, addSearchTitle). Nullable: no row
// of a large table is rewritten here; `folio search:reindex` fills the older documents' titles, and a
// search reads the posts' titles for those meanwhile. SQLite's index (FTS5) is unchanged.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { addSearchTitle } from '../search-index.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await addSearchTitle(db);
}
