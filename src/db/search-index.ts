// The full-text index of posts (issue 40 #2): what it stores and how it is kept, on both databases.
//
// One search document per live post (type `post`, not deleted): its title and the title's
// translations (weighted higher), and its excerpt and content with their translations (every locale:
// a search finds a post by any of its translations). Triggers on `posts` and `translations` keep it,
// in the transaction of the write that changed the text (whatever wrote it: the operations, imports,
// tests, bench seeding), like the post counters (0019).
//
// - PostgreSQL: table `post_search` (post_id, doc: the lower-cased text, words: a `simple` tsvector
//   with the title weighted A). A GIN `pg_trgm` index on `doc` answers "contains this text" (LIKE, the
//   API's semantics) for any term of 3 characters or more, in any script; the GIN tsvector index
//   answers two-character Chinese, Japanese and Korean terms (as CJK bigrams, below) and ranks.
// - SQLite: FTS5 table `post_search` (contentless, trigram tokenizer: substring matching of 3
//   characters or more, case-insensitive) with columns title, body and cjk (the bigrams).
//
// Chinese, Japanese (and Korean within its words) are written without spaces between words: a
// dictionary tokenizer finds no words there, and trigrams miss the two-character words that are most
// of their vocabulary (北京, 東京, 서울). Every run of CJK characters is therefore also indexed as its
// overlapping bigrams (北京天 -> 北京 京天), the approach of Lucene's CJKAnalyzer: a two-character term
// is then one index lookup, and exact (a term of two CJK characters is in a text exactly when it is
// one of its bigrams).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/** One CJK character: Hiragana, Katakana, CJK ideographs (with extension A), Hangul syllables. */
export const CJK_CLASS =
  '\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uac00-\\ud7af\\uf900-\\ufaff\\uff66-\\uff9f';
const CJK_RUN = new RegExp(`[${CJK_CLASS}]{2,}`, 'gu');

/** The bigrams of every CJK run of `text`, space-separated, with a space before and after each. */
export function cjkBigrams(text: string | null | undefined): string {
  if (!text) return '';
  const out: string[] = [];
  for (const match of text.matchAll(CJK_RUN)) {
    const chars = Array.from(match[0]);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  }
  return out.length === 0 ? '' : ` ${out.join(' ')} `;
}

/** The SQL function the SQLite triggers call (registered on every connection that writes). */
export const SQLITE_BIGRAMS_FUNCTION = 'folio_cjk_bigrams';

/** Registers the functions the search index's SQLite triggers use on a connection. */
export function registerSqliteSearchFunctions(sqlite: {
  function(name: string, options: { deterministic: boolean }, fn: (text: unknown) => string): unknown;
}): void {
  sqlite.function(SQLITE_BIGRAMS_FUNCTION, { deterministic: true }, (text) =>
    cjkBigrams(typeof text === 'string' ? text : typeof text === 'number' ? String(text) : ''),
  );
}

const TEXT_FIELDS = `('title', 'excerpt', 'content')`;

/** The translations of post `p` of the fields `fields`, joined by spaces ('' when none). */
function translated(p: string, fields: string, pg: boolean): string {
  const agg = pg ? `string_agg(t.value, ' ')` : `group_concat(t.value, ' ')`;
  return `coalesce((SELECT ${agg} FROM translations t
    WHERE t.model_type = 'post' AND t.model_id = ${p} AND t.field IN ${fields}), '')`;
}

/** Title text and body text of the live post `p` (as columns `title`, `body` of `posts p`). */
function documentOf(pg: boolean, p = 'p'): { title: string; body: string } {
  return {
    title: `coalesce(${p}.title, '') || ' ' || ${translated(`${p}.id`, `('title')`, pg)}`,
    body: `coalesce(${p}.excerpt, '') || ' ' || coalesce(${p}.content, '') || ' ' || ${translated(`${p}.id`, `('excerpt', 'content')`, pg)}`,
  };
}

/**
 * The title text of the post `alias` (of `posts alias`) as the index holds it: its title and the
 * title's translations (what a bounded search ranks by, domain/posts/search.ts).
 */
export function postTitleText(dialect: 'sqlite' | 'postgres', alias = 'p'): string {
  return documentOf(dialect === 'postgres', alias).title;
}

/** SQLite: fills the documents of the live posts whose id passes `ids` (`= X` or `IN (…)`). */
function sqliteFill(ids: string): string {
  const doc = documentOf(false);
  return `INSERT INTO post_search (rowid, title, body, cjk)
      SELECT d.id, d.title, d.body, ${SQLITE_BIGRAMS_FUNCTION}(d.title || ' ' || d.body)
      FROM (SELECT p.id AS id, ${doc.title} AS title, ${doc.body} AS body
            FROM posts p WHERE p.id ${ids} AND p.type = 'post' AND p.deleted_at IS NULL) d;`;
}

/** SQLite: replaces the document of post `id` (an SQL expression), or removes it when not live. */
function sqliteRefresh(id: string): string {
  return `DELETE FROM post_search WHERE rowid = ${id}; ${sqliteFill(`= ${id}`)}`;
}

/**
 * PostgreSQL: a post's row of post_search from its lower-cased title and body text (SQL expressions):
 * `title`, what a bounded search ranks by (db/posts/search.ts, read with the candidates, so no read of
 * the posts' titles and translations is needed); `doc`, the text the trigram index reads; and
 * `words`, the tsvector (title weighted above the body, CJK bigrams added). The trigger's function and
 * the bulk fill write the same row.
 */
function postgresRow(title: string, body: string): { title: string; doc: string; words: string } {
  return {
    title,
    doc: `${title} || E'\\n' || ${body}`,
    words: `setweight(to_tsvector('simple', ${title} || folio_cjk_bigrams(${title})), 'A')
           || setweight(to_tsvector('simple', ${body} || folio_cjk_bigrams(${body})), 'B')`,
  };
}

/** PostgreSQL: the function that replaces (or removes) the document of one post. */
function postgresRefreshFunction(): string {
  const doc = documentOf(true);
  const row = postgresRow('d.title', 'd.body');
  return `CREATE OR REPLACE FUNCTION folio_search_refresh(post bigint) RETURNS void LANGUAGE plpgsql AS $fn$
     DECLARE d record;
     BEGIN
       SELECT lower(${doc.title}) AS title, lower(${doc.body}) AS body INTO d
         FROM posts p WHERE p.id = post AND p.type = 'post' AND p.deleted_at IS NULL;
       IF NOT FOUND THEN
         DELETE FROM post_search WHERE post_id = post;
         RETURN;
       END IF;
       INSERT INTO post_search (post_id, title, doc, words) VALUES (post, ${row.title}, ${row.doc}, ${row.words})
       ON CONFLICT (post_id) DO UPDATE SET title = excluded.title, doc = excluded.doc, words = excluded.words;
     END $fn$`;
}

/** PostgreSQL: the functions, triggers and indexes of the search table. */
function postgresFunctions(trgmSchema: string | null): string[] {
  return [
    // The bigrams of the CJK runs (the same as cjkBigrams()).
    `CREATE FUNCTION folio_cjk_bigrams(src text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
       SELECT coalesce(' ' || string_agg(substr(r.run, i, 2), ' ' ORDER BY r.n, i) || ' ', '')
       FROM (SELECT m[1] AS run, row_number() OVER () AS n
             FROM regexp_matches(src, '[${CJK_CLASS}]{2,}', 'g') AS m) r,
            generate_series(1, length(r.run) - 1) AS i
     $fn$`,
    postgresRefreshFunction(),
    `CREATE FUNCTION folio_search_post() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN PERFORM folio_search_refresh(NEW.id); RETURN NULL; END $fn$`,
    `CREATE FUNCTION folio_search_translation() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       IF TG_OP <> 'INSERT' AND OLD.model_type = 'post' AND OLD.field IN ${TEXT_FIELDS} THEN
         PERFORM folio_search_refresh(OLD.model_id);
       END IF;
       IF TG_OP <> 'DELETE' AND NEW.model_type = 'post' AND NEW.field IN ${TEXT_FIELDS}
          AND (TG_OP = 'INSERT' OR NEW.model_id <> OLD.model_id OR NEW.model_type <> OLD.model_type
               OR NEW.field <> OLD.field) THEN
         PERFORM folio_search_refresh(NEW.model_id);
       END IF;
       RETURN NULL;
     END $fn$`,
    `CREATE TRIGGER post_search_post AFTER INSERT OR UPDATE OF title, excerpt, content, type, deleted_at
       ON posts FOR EACH ROW EXECUTE FUNCTION folio_search_post()`,
    `CREATE TRIGGER post_search_translation AFTER INSERT OR UPDATE OR DELETE ON translations
       FOR EACH ROW EXECUTE FUNCTION folio_search_translation()`,
    `CREATE INDEX post_search_words ON post_search USING gin (words)`,
    ...(trgmSchema
      ? [`CREATE INDEX post_search_doc ON post_search USING gin (doc "${trgmSchema}".gin_trgm_ops)`]
      : []),
  ];
}

function sqliteTriggers(): string[] {
  const translation = (row: 'NEW' | 'OLD') => `${row}.model_type = 'post' AND ${row}.field IN ${TEXT_FIELDS}`;
  return [
    `CREATE VIRTUAL TABLE post_search USING fts5(title, body, cjk,
       tokenize = 'trigram', content = '', contentless_delete = 1)`,
    `CREATE TRIGGER post_search_post_insert AFTER INSERT ON posts FOR EACH ROW
       BEGIN ${sqliteRefresh('NEW.id')} END`,
    `CREATE TRIGGER post_search_post_update AFTER UPDATE OF title, excerpt, content, type, deleted_at
       ON posts FOR EACH ROW BEGIN ${sqliteRefresh('NEW.id')} END`,
    `CREATE TRIGGER post_search_post_delete AFTER DELETE ON posts FOR EACH ROW
       BEGIN DELETE FROM post_search WHERE rowid = OLD.id; END`,
    `CREATE TRIGGER post_search_translation_insert AFTER INSERT ON translations FOR EACH ROW
       WHEN ${translation('NEW')} BEGIN ${sqliteRefresh('NEW.model_id')} END`,
    `CREATE TRIGGER post_search_translation_update AFTER UPDATE ON translations FOR EACH ROW
       WHEN ${translation('NEW')} OR ${translation('OLD')}
       BEGIN ${sqliteRefresh('OLD.model_id')} ${sqliteRefresh('NEW.model_id')} END`,
    `CREATE TRIGGER post_search_translation_delete AFTER DELETE ON translations FOR EACH ROW
       WHEN ${translation('OLD')} BEGIN ${sqliteRefresh('OLD.model_id')} END`,
  ];
}

/** The schema of pg_trgm where the extension is installed, else null. */
async function installedTrigramSchema(db: Kysely<unknown>): Promise<string | null> {
  return (
    (
      await sql<{ schema: string }>`
        SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
        WHERE e.extname = 'pg_trgm'`.execute(db)
    ).rows[0]?.schema ?? null
  );
}

/**
 * The schema of pg_trgm, creating the extension when it is missing (it is a trusted extension: the
 * database's owner may create it); null when it cannot be had (the index then has no trigram part
 * and longer terms are matched by reading `post_search`, still correct, slower).
 */
async function trigramSchema(db: Kysely<unknown>): Promise<string | null> {
  const found = await installedTrigramSchema(db);
  if (found) return found;
  await sql`SAVEPOINT folio_trgm`.execute(db);
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    await sql`RELEASE SAVEPOINT folio_trgm`.execute(db);
  } catch (error) {
    await sql`ROLLBACK TO SAVEPOINT folio_trgm`.execute(db);
    console.warn(
      `Search: the pg_trgm extension could not be created (${(error as Error).message}); ` +
        'searches for longer terms read the whole search table. Run `CREATE EXTENSION pg_trgm` as ' +
        'a superuser, then `folio search:reindex`.',
    );
    return null;
  }
  return installedTrigramSchema(db);
}

/** Creates the index and its triggers (migration 0040). Filling it is rebuildSearchIndex's. */
export async function createSearchIndex(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'postgres') {
    await sql`CREATE TABLE post_search (
        post_id bigint PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
        title text,
        doc text NOT NULL,
        words tsvector NOT NULL)`.execute(db);
    const schema = await trigramSchema(db);
    for (const statement of postgresFunctions(schema)) await sql.raw(statement).execute(db);
    return;
  }
  for (const statement of sqliteTriggers()) await sql.raw(statement).execute(db);
}

/**
 * PostgreSQL: the search table's `title` column (migration 0058), written by the refresh function from
 * then on. Nullable, so that adding it rewrites no row of a large table: a document written before has
 * none until `folio search:reindex` (or the post's next edit) writes it, and a search reads that post's
 * title from the posts meanwhile (domain/posts/search.ts).
 */
export async function addSearchTitle(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE post_search ADD COLUMN IF NOT EXISTS title text`.execute(db);
  await sql.raw(postgresRefreshFunction()).execute(db);
}

/** Whether PostgreSQL's search table has its trigram index (pg_trgm was available). */
export async function hasTrigramIndex(db: Kysely<unknown>): Promise<boolean> {
  const row = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_indexes
    WHERE schemaname = current_schema() AND indexname = 'post_search_doc'`.execute(db);
  return (row.rows[0]?.n ?? 0) > 0;
}

/** Ids of live posts, in steps, for a rebuild: the ids after `after`, at most `limit`. */
export async function livePostIds(db: Kysely<unknown>, after: number, limit: number): Promise<number[]> {
  const rows = await sql<{ id: number }>`
    SELECT id FROM posts WHERE type = 'post' AND deleted_at IS NULL AND id > ${after}
    ORDER BY id LIMIT ${limit}`.execute(db);
  return rows.rows.map((row) => Number(row.id));
}

/** Rebuilds the documents of posts `ids` (live ones; the others' documents are removed). */
export async function refreshDocuments(
  db: Kysely<unknown>,
  dialect: 'sqlite' | 'postgres',
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return;
  if (dialect === 'postgres') {
    await sql`SELECT folio_search_refresh(x) FROM unnest(${[...ids]}::bigint[]) AS x`.execute(db);
    return;
  }
  const list = `IN (${ids.map((id) => String(Math.trunc(Number(id)))).join(', ')})`;
  await sql.raw(`DELETE FROM post_search WHERE rowid ${list}`).execute(db);
  await sql.raw(sqliteFill(list)).execute(db);
}

/**
 * Fills the index with every live post's document in one statement (a bulk load: the index empty,
 * the triggers' work deferred, e.g. bench/search.ts --bulk); `folio search:reindex` does the same in
 * steps of transactions, searches meanwhile finding every post.
 */
export async function fillSearchIndex(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'sqlite') {
    await sql.raw(sqliteFill('IS NOT NULL')).execute(db);
    return;
  }
  const doc = documentOf(true);
  const row = postgresRow('d.title', 'd.body');
  await sql
    .raw(
      `INSERT INTO post_search (post_id, title, doc, words)
       SELECT d.id, ${row.title}, ${row.doc}, ${row.words}
       FROM (SELECT p.id AS id, lower(${doc.title}) AS title, lower(${doc.body}) AS body
             FROM posts p WHERE p.type = 'post' AND p.deleted_at IS NULL) d`,
    )
    .execute(db);
}

/** How many live posts there are (what a rebuild goes through). */
export async function livePostCount(db: Kysely<unknown>): Promise<number> {
  const row = await sql<{ n: number }>`
    SELECT count(*) AS n FROM posts WHERE type = 'post' AND deleted_at IS NULL`.execute(db);
  return Number(row.rows[0]?.n ?? 0);
}

/** Removes the documents of posts that are not live (a rebuild's last step); how many went. */
export async function removeStrayDocuments(
  db: Kysely<unknown>,
  dialect: 'sqlite' | 'postgres',
): Promise<number> {
  const live = sql`SELECT id FROM posts WHERE type = 'post' AND deleted_at IS NULL`;
  const result =
    dialect === 'postgres'
      ? await sql`DELETE FROM post_search WHERE post_id NOT IN (${live})`.execute(db)
      : await sql`DELETE FROM post_search WHERE rowid NOT IN (${live})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Empties the index (tests use it to check a rebuild). */
export async function clearSearchIndex(db: Kysely<unknown>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'postgres') await sql`TRUNCATE post_search`.execute(db);
  else await sql`DELETE FROM post_search`.execute(db);
}

// ---- The recent part of PostgreSQL's index -------------------------------------------------------

/**
 * PostgreSQL: how many of the newest posts the recent search indexes cover when built. A bounded
 * search reads the matches among the newest ids first (domain/posts/search.ts, readCandidates); the
 * GIN bitmap of a common term costs in proportion to all its matches in the table, however narrow that
 * window: at a million posts, "peba" AND "peto" took 80 to 97 ms through the whole trigram index and
 * 13 to 15 ms through one over the newest 200,000. Partial GIN indexes over `post_id > threshold`
 * (the planner takes them whenever a window starts above the threshold) keep that cost to the recent
 * posts'. Tests lower it (recentSearchIndex.span).
 */
export const RECENT_SEARCH_SPAN = 100_000;
export const recentSearchIndex = { span: RECENT_SEARCH_SPAN };

const RECENT_PREFIX = 'post_search_recent_';

export interface RecentSearchIndexes {
  /** The recent indexes cover the posts above this id (null: none, the table is small). */
  threshold: number | null;
  /** Indexes built (CREATE) and dropped (DROP) by this call. */
  built: string[];
  dropped: string[];
}

/**
 * PostgreSQL: builds the recent search indexes when the table holds more than twice the span and
 * they are missing, or cover more than twice the span (threshold: the newest id less the span), then
 * drops the older ones; does nothing otherwise, and nothing on SQLite (FTS5 reads its newest rows
 * first). Built and dropped CONCURRENTLY (writes go on; so outside any transaction); an index left
 * invalid by an interrupted build is dropped and built again. Safe to run on several nodes at once
 * (names carry the threshold; IF NOT EXISTS), but the job queue runs it on one (search.recent), whose
 * lease `beforeEachBuild` renews (a build may take a minute or two).
 */
export async function maintainRecentSearchIndexes(
  db: Kysely<unknown>,
  dialect: 'sqlite' | 'postgres',
  span = recentSearchIndex.span,
  beforeEachBuild: () => Promise<void> = async () => undefined,
): Promise<RecentSearchIndexes> {
  const result: RecentSearchIndexes = { threshold: null, built: [], dropped: [] };
  if (dialect !== 'postgres') return result;
  const existing = (
    await sql<{ name: string; valid: boolean }>`
      SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i
      JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relname LIKE ${`${RECENT_PREFIX}%`}
      ORDER BY c.relname`.execute(db)
  ).rows;
  const drop = async (name: string) => {
    await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS "${name}"`).execute(db);
    result.dropped.push(name);
  };
  for (const index of existing.filter((index) => !index.valid)) await drop(index.name);
  const trigram = await installedTrigramSchema(db);
  const thresholdOf = (name: string) => Number(/_(\d+)$/.exec(name)?.[1] ?? NaN);
  const kinds = trigram ? ['words', 'doc'] : ['words'];
  const valid = existing.filter((index) => index.valid).map((index) => index.name);
  // The newest threshold both kinds of index have.
  const complete = [...new Set(valid.map(thresholdOf))]
    .filter((threshold) => kinds.every((kind) => valid.includes(`${RECENT_PREFIX}${kind}_${threshold}`)))
    .sort((a, b) => b - a);
  const newest = Number(
    (await sql<{ max: number | null }>`SELECT max(post_id) AS max FROM post_search`.execute(db)).rows[0]
      ?.max ?? 0,
  );
  let threshold = complete[0] ?? null;
  if (newest > 2 * span && (threshold === null || newest - threshold > 2 * span)) {
    threshold = Math.trunc(newest - span);
    for (const kind of kinds) {
      const name = `${RECENT_PREFIX}${kind}_${threshold}`;
      const column = kind === 'words' ? 'words' : `doc "${trigram}".gin_trgm_ops`;
      await beforeEachBuild();
      await sql
        .raw(
          `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON post_search USING gin (${column})
           WHERE post_id > ${threshold}`,
        )
        .execute(db);
      result.built.push(name);
    }
  }
  result.threshold = threshold;
  // The older ones are wider than needed: the newer ones serve every window they served.
  for (const name of valid) if (threshold !== null && thresholdOf(name) < threshold) await drop(name);
  return result;
}
