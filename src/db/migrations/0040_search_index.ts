// Full-text search that scales (issue 40 #2): the posts' search index and the triggers that keep it
// (see db/search-index.ts), filled from the posts already there.
import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import { createSearchIndex, livePostIds, refreshDocuments } from '../search-index.js';

export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'sqlite' && dialect !== 'postgres') return;
  await createSearchIndex(db, dialect);
  for (let after = 0; ;) {
    const ids = await livePostIds(db, after, 2000);
    if (ids.length === 0) break;
    await refreshDocuments(db, dialect, ids);
    after = ids[ids.length - 1]!;
  }
}
