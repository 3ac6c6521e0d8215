// Searching posts through the full-text index (issue 40 #2; the index: db/search-index.ts). One home
// for what a search term means, on both databases:
// - a term matches a post whose title, excerpt or content, or one of their translations in any
//   locale, contains it, whatever the letters' case (the meaning API v1's `keywords` always had,
//   R-P3: `%` and `_` literal);
// - terms of three characters or more, in any script, are looked up in the trigram index (pg_trgm on
//   PostgreSQL, FTS5 `trigram` on SQLite); a term of two Chinese, Japanese or Korean characters (most
//   words there) in the CJK bigrams; shorter terms on SQLite are matched by reading the texts (a long
//   read, as every search was before), on PostgreSQL by reading the search table;
// - ranked: PostgreSQL's ts_rank over the tsvector (title weighted above the rest), SQLite's bm25 over
//   the trigrams (title and CJK bigrams weighted above the body); a bounded search, on both, among
//   its newest matches by whether the title has the terms (readCandidates, then titleRank);
// - excerpts: the part of the text around the first match, HTML-escaped, matches in <mark>.
import { PostgresAdapter, sql } from 'kysely';
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import {
  CJK_CLASS,
  cjkBigrams,
  livePostCount,
  livePostIds,
  maintainRecentSearchIndexes,
  postTitleText,
  refreshDocuments,
  removeStrayDocuments,
} from '../../db/search-index.js';
import type { RecentSearchIndexes } from '../../db/search-index.js';
import type { JobQueue } from '../../jobs/queue.js';
import { containsText, escapeRegExp, likePattern } from '../text/text-match.js';

export type SearchDialect = 'sqlite' | 'postgres';

/** How one term is looked up (see the file's head). */
export type TermKind = 'text' | 'cjk2' | 'scan';

const CJK_PAIR = new RegExp(`^[${CJK_CLASS}]{2}$`, 'u');
const CJK_RUN = new RegExp(`[${CJK_CLASS}]+`, 'gu');

/** The dialect of a Kysely instance (the search SQL differs). */
export function dialectOf(db: Kysely<never> | Kysely<Database>): SearchDialect {
  return (db as Kysely<Database>).getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export function termKind(dialect: SearchDialect, term: string): TermKind {
  if (CJK_PAIR.test(term)) return 'cjk2';
  if (dialect === 'postgres') return 'text';
  return Array.from(term).length >= 3 ? 'text' : 'scan';
}

/** The value bound for a term of that kind (the Param of a compiled query). */
export function termValue(dialect: SearchDialect, kind: TermKind, term: string): string {
  if (kind === 'scan') return likePattern(term);
  if (dialect === 'postgres') return kind === 'cjk2' ? term : likePattern(term);
  return kind === 'cjk2' ? `cjk : " ${term} "` : `{title body} : ${ftsString(term)}`;
}

/** An FTS5 string (a phrase: with the trigram tokenizer, "contains this text"). */
function ftsString(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/** The older match, reading every text: title, excerpt, content and their translations. */
export function scanMatches(eb: ExpressionBuilder<Database, 'posts'>, pattern: string): Expression<SqlBool> {
  return eb.or([
    containsText(eb.ref('posts.title'), pattern),
    containsText(eb.ref('posts.excerpt'), pattern),
    containsText(eb.ref('posts.content'), pattern),
    eb.exists(
      eb
        .selectFrom('translations')
        .select('translations.id')
        .where('translations.model_type', '=', 'post')
        .whereRef('translations.model_id', '=', 'posts.id')
        .where('translations.field', 'in', ['title', 'excerpt', 'content'])
        .where((inner) => containsText(inner.ref('translations.value'), pattern)),
    ),
  ]);
}

/**
 * A post matches one term, of kind `kind`; `value`: termValue() of the term, or the Param of a query
 * compiled once that stands for it.
 */
export function termMatches(
  eb: ExpressionBuilder<Database, 'posts'>,
  dialect: SearchDialect,
  kind: TermKind,
  value: string,
): Expression<SqlBool> {
  if (kind === 'scan') return scanMatches(eb, value);
  const id = eb.ref('posts.id');
  if (dialect === 'postgres') {
    return kind === 'cjk2'
      ? sql<SqlBool>`${id} in (select post_id from post_search where words @@ plainto_tsquery('simple', ${value}))`
      : sql<SqlBool>`${id} in (select post_id from post_search where doc like ${value} escape '\\')`;
  }
  return sql<SqlBool>`${id} in (select rowid from post_search where post_search match ${value})`;
}

/** Terms planned: each term's kind and value. */
export interface PlannedTerm {
  kind: TermKind;
  value: string;
  /** No index serves it (a short term): it reads every text, a long read (db/read-thread.ts). */
  slow: boolean;
}

export function planTerms(dialect: SearchDialect, terms: readonly string[]): PlannedTerm[] {
  return terms.map((term) => {
    const kind = termKind(dialect, term);
    const slow = kind === 'scan' || (kind === 'text' && Array.from(term).length < 3);
    return { kind, value: termValue(dialect, kind, term), slow };
  });
}

/** Posts matching every term (`all`) or any (`any`). */
export function termsMatch(
  eb: ExpressionBuilder<Database, 'posts'>,
  dialect: SearchDialect,
  planned: readonly PlannedTerm[],
  mode: 'all' | 'any',
): Expression<SqlBool> {
  const each = planned.map((term) => termMatches(eb, dialect, term.kind, term.value));
  return mode === 'all' ? eb.and(each) : eb.or(each);
}

/**
 * What a ranking query looks for: on PostgreSQL the terms' words and CJK bigrams (a tsquery of any of
 * them); on SQLite an FTS5 query of any indexed term; null when no term can be ranked.
 */
export function rankQuery(dialect: SearchDialect, terms: readonly string[]): string | null {
  if (dialect === 'postgres') {
    const words = terms
      .map((term) => term.toLowerCase().replace(CJK_RUN, (run) => cjkBigrams(run) || run))
      .join(' ')
      .trim();
    return words === '' ? null : words;
  }
  const parts = planTerms(dialect, terms)
    .filter((term) => term.kind !== 'scan')
    .map((term) => `(${term.value})`);
  return parts.length === 0 ? null : parts.join(' OR ');
}

/**
 * The posts a rankQuery() (`query`) finds with their scores (higher is better), as a table `ranked`
 * (id, score) to left-join on posts: one index query for the whole list, rather than one per row.
 * A post matched otherwise (by a part of a word, or a short term) is not in it: score 0.
 */
export function rankedPosts(dialect: SearchDialect, query: string) {
  if (dialect === 'postgres') {
    // Any of the words: plainto_tsquery joins them with &, a ranking wants |.
    return sql<{ id: number; score: number }>`(select ps.post_id as id, ts_rank(ps.words, q.q) as score
      from post_search ps,
        (select replace(plainto_tsquery('simple', ${query})::text, '&', '|')::tsquery as q) q
      where ps.words @@ q.q)`.as('ranked');
  }
  // bm25 is negative, lower for a better match; weights: title, body, CJK bigrams. The LIMIT keeps
  // SQLite from flattening the subquery into the join, where it ran the full-text query once per post
  // (rowid = each post's id); kept apart, it runs once and is read through an automatic index.
  return sql<{ id: number; score: number }>`(select rowid as id, -bm25(post_search, 10.0, 1.0, 4.0) as score
    from post_search where post_search match ${query} limit -1)`.as('ranked');
}

// ---- Bounded searches (issue 40 #2) ----------------------------------------------------------------

/**
 * The most matches a bounded search (the public search, API v2's `q`) reads from the index, newest
 * first: a common word then costs what a rarer one does, not its thousands of matches. Past it, the
 * total is a lower bound (said so to the reader) and the page is the best of those candidates. API
 * v1's `keywords` keeps exact totals (its contract) and reads every match.
 */
export const SEARCH_CANDIDATES = 1000;

/**
 * PostgreSQL: the widest first window of newest ids a bounded read looks at, as a multiple of the
 * cap, when a term is a LIKE over trigrams (whose estimates can be several times too low); four
 * times wider when every term is a word of the tsvector (estimated from its statistics, closely).
 */
export const FIRST_WINDOW = 16;

/** PostgreSQL: the expected share of matching posts from which a bounded read walks the primary key. */
export const DENSE_SHARE = 0.1;

/**
 * The cap in force, SEARCH_CANDIDATES, the first window, FIRST_WINDOW, and DENSE_SHARE: tests lower
 * them to see the cap reached and the window widened (walked first, or not) with a few posts.
 */
export const searchBounds = {
  candidates: SEARCH_CANDIDATES,
  firstWindow: FIRST_WINDOW,
  denseShare: DENSE_SHARE,
};

/** The newest matches of a search, at most the cap. */
export interface Candidates {
  /** Post ids, newest (highest id) first. */
  ids: number[];
  /** The cap was reached: more posts may match, and a total counted among these is a lower bound. */
  capped: boolean;
  /**
   * PostgreSQL: those of `ids` whose title has the terms (as the TitleRank asked), read in the same
   * rows as the ids. SQLite: null, the caller's read of the candidates reads their titles (titleRank).
   */
  inTitle: ReadonlySet<number> | null;
}

/** What a bounded search ranks first: `patterns` (likePattern()s) in the title, every one or any. */
export interface TitleRank {
  patterns: readonly string[];
  mode: 'all' | 'any';
}

/** Whether a bounded read serves these terms: every one is looked up in an index (none `slow`). */
export function boundable(planned: readonly PlannedTerm[]): boolean {
  return planned.length > 0 && planned.every((term) => !term.slow);
}

/**
 * The newest posts (highest ids) matching every term (`all`) or any (`any`), at most `cap`, from the
 * search index (status and website are the caller's filters), with their rank on PostgreSQL (whether
 * the title has the terms as `title` asks, read in the same rows; titleRank()). The terms must be
 * boundable().
 * - SQLite: one FTS5 query, `ORDER BY rowid DESC LIMIT n`, which FTS5 answers walking the doclists
 *   from their end and stopping after n rows.
 * - PostgreSQL: the matches among the newest posts, in a window of ids that widens until it holds
 *   more than cap matches or every post: each step is the GIN indexes' bitmap of the terms ANDed
 *   with the primary key's bitmap of the window, so the rows read and checked are about the matches
 *   in the window, however common or rare the terms are. The first window is as wide as the
 *   planner's estimate of the matches says holds the cap (at most FIRST_WINDOW × cap ids); each next
 *   one as the density of matches seen says (2× to 16×); a term expected to be rare is read whole at
 *   once. On a large table the first windows are read through the recent indexes (partial GIN
 *   indexes over the newest posts, db/search-index.ts), whose bitmaps cost what the recent matches do.
 */
export async function readCandidates(
  db: Kysely<Database>,
  dialect: SearchDialect,
  planned: readonly PlannedTerm[],
  mode: 'all' | 'any',
  title: TitleRank,
): Promise<Candidates> {
  const cap = searchBounds.candidates;
  const joiner = mode === 'all' ? ' AND ' : ' OR ';
  if (dialect === 'sqlite') {
    const query = planned.map((term) => `(${term.value})`).join(joiner);
    const ids = (
      await sql<{ id: number }>`select rowid as id from post_search
        where post_search match ${query} order by rowid desc limit ${cap}`.execute(db)
    ).rows.map((row) => Number(row.id));
    return { ids, capped: ids.length >= cap, inTitle: null };
  }
  const condition = sql.join(
    planned.map((term) =>
      term.kind === 'cjk2'
        ? sql`ps.words @@ plainto_tsquery('simple', ${term.value})`
        : sql`ps.doc like ${term.value} escape '\\'`,
    ),
    sql.raw(joiner),
  );
  // The rank, read in the same rows: the search table's lower-cased title, or, for a document written
  // before it had one (migration 0058), the post's own.
  const titleText = sql`coalesce(ps.title, (select lower(${sql.raw(postTitleText(dialect, 'p'))})
    from posts p where p.id = ps.post_id))`;
  const inTitle = sql.join(
    title.patterns.map((pattern) => sql`${titleText} like ${pattern} escape '\\'`),
    sql.raw(title.mode === 'all' ? ' AND ' : ' OR '),
  );
  const read = (from: number | null) => sql<{ id: number; in_title: boolean }>`
    select ps.post_id as id, (${inTitle}) as in_title from post_search ps
    where (${condition}) ${from === null ? sql`` : sql`and ps.post_id > ${from}`}
    order by ps.post_id desc
    limit ${cap + 1}`;
  const expected = await estimatedRows(db, sql`select 1 from post_search ps where (${condition})`);
  /** At most cap + 1 rows, newest first: more than cap, and the cap was reached. */
  const candidatesOf = (rows: ReadonlyArray<{ id: number; in_title: boolean }>): Candidates => {
    const kept = rows.slice(0, cap);
    return {
      ids: kept.map((row) => Number(row.id)),
      capped: rows.length > cap,
      inTitle: new Set(kept.filter((row) => row.in_title).map((row) => Number(row.id))),
    };
  };
  // A term the planner expects to be rare: every match, read at once through the GIN indexes (exact,
  // and still the newest if the estimate was wrong, at the cost of sorting them all).
  if (expected <= cap / 4) return candidatesOf((await read(null).execute(db)).rows);
  const rows: Array<{ id: number; in_title: boolean }> = await db.transaction().execute(async (trx) => {
    // Only bitmap scans are left to the planner, for this transaction: the GIN bitmap of the terms,
    // ANDed with the primary key's bitmap of the window. (Walking the primary key backwards with the
    // condition checked per row, which it may otherwise pick for ORDER BY … LIMIT, reads about
    // cap / the matches' share of the posts, each detoasted: 139 ms for a Chinese word in 1 of 27.)
    // One statement sets both (for this transaction) and reads the newest id: it is planned before
    // the settings change, so max() still walks the primary key's end.
    const newest = Number(
      (
        await sql<{ max: number | null }>`select set_config('enable_indexscan', 'off', true),
          set_config('enable_seqscan', 'off', true), max(post_id) as max from post_search`.execute(trx)
      ).rows[0]?.max ?? 0,
    );
    // As wide as the expected share of matches says holds the cap (with a margin), within bounds.
    const widest = cap * searchBounds.firstWindow * (planned.every((term) => term.kind === 'cjk2') ? 4 : 1);
    let width = Math.ceil(Math.min(widest, Math.max(2 * cap, (1.5 * cap * newest) / Math.max(expected, 1))));
    // Matches expected in 1 post of 10 or more (a common word, or any of two): the first window is
    // read walking the primary key backwards, each post checked, which stops after about cap / their
    // share of posts, where the GIN bitmap of a common trigram costs most (at a million posts, "peba"
    // OR "peto": 450,000 index entries, 100 ms). Later windows, if any, are bitmaps again.
    let walking = expected >= newest * searchBounds.denseShare;
    if (walking) await plannerMay(trx, { bitmaps: false });
    for (;;) {
      // Past half the posts, the primary key's bitmap costs more than it saves.
      if (width >= newest / 2 && !walking) return (await read(null).execute(trx)).rows;
      const found = (await read(newest - width).execute(trx)).rows;
      if (found.length > cap || width >= newest) return found;
      if (walking) await plannerMay(trx, { bitmaps: true });
      walking = false;
      // Too few in this window: widen it by what the matches' density there says is needed (with a
      // margin), at least twice and at most sixteen times, so a rare term takes a few steps.
      const needed = ((cap + 1) / Math.max(found.length, 1)) * 1.25;
      width = Math.ceil(width * Math.min(16, Math.max(2, needed)));
    }
  });
  return candidatesOf(rows);
}

/**
 * PostgreSQL, for the rest of the transaction: bitmap scans only (`bitmaps`), or index scans only
 * (sequential scans stay off).
 */
async function plannerMay(trx: Kysely<Database>, { bitmaps }: { bitmaps: boolean }): Promise<void> {
  await sql`select set_config('enable_bitmapscan', ${bitmaps ? 'on' : 'off'}, true),
    set_config('enable_indexscan', ${bitmaps ? 'off' : 'on'}, true)`.execute(trx);
}

/** PostgreSQL: the rows the planner expects a query to return (EXPLAIN, not run). */
async function estimatedRows(db: Kysely<Database>, query: ReturnType<typeof sql>): Promise<number> {
  const plan = await sql<{
    'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }>;
  }>`explain (format json) ${query}`.execute(db);
  return Number(plan.rows[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0);
}

/**
 * Whether the bounded search's candidate `posts` ranks first: its title (in any locale) has every
 * term (`all`) or any (`any`) of the TitleRank, case folded as the API's match folds it, as WordPress
 * ranks a search (title matches first, then the newest); its `patterns` may be Params of the
 * likePattern()s. PostgreSQL: the post is among the candidates' `inTitle` (`inTitle`:
 * candidatesParam(…, 'inTitle'), or a Param of it), read with them from the search table's titles.
 * SQLite: its title and their translations are read by key, in the read that filters the candidates
 * anyway (reading them in readCandidates cost a second lookup of each post: API v2 "老音" at 200,000
 * posts 4 -> 5 to 8 ms). (SQLite's bm25, which ranked them before, counts every post that has each
 * term for its IDF, 177 ms for two common words at a million posts where the candidates take 2;
 * PostgreSQL's ts_rank detoasted each candidate's tsvector.)
 */
export function titleRank(
  dialect: SearchDialect,
  inTitle: unknown,
  { patterns, mode }: TitleRank,
): Expression<SqlBool> {
  if (dialect === 'postgres') {
    return sql<SqlBool>`posts.id in (select candidate.id from ${candidateTable(dialect, inTitle)})`;
  }
  const title = sql.raw(`(${postTitleText(dialect, 'posts')})`);
  const each = patterns.map((pattern) => containsText(title, pattern));
  return sql<SqlBool>`(${sql.join(each, sql.raw(mode === 'all' ? ' AND ' : ' OR '))})`;
}

/**
 * `column` is one of `ids`. PostgreSQL: bound as one array rather than an IN list of a parameter
 * each, which a thousand candidates take 1.5 ms longer to plan. SQLite: an IN list, as before (each
 * id looked up by key; a json_each() set there was not measured).
 */
export function idAmong(dialect: SearchDialect, column: string, ids: readonly number[]): Expression<SqlBool> {
  if (ids.length === 0) return sql<SqlBool>`1 = 0`;
  return dialect === 'postgres'
    ? sql<SqlBool>`${sql.ref(column)} = any(cast(${ids} as bigint[]))`
    : sql<SqlBool>`${sql.ref(column)} in (${sql.join(ids)})`;
}

/**
 * Candidates as a table `candidate` (id) from one Param holding their ids as JSON (candidatesParam()):
 * the list's compiled queries take any number of them as one value.
 */
export function candidateTable(dialect: SearchDialect, value: unknown) {
  if (dialect === 'postgres') {
    return sql<{ id: number }>`(select e::bigint as id
      from jsonb_array_elements_text(cast(${value} as jsonb)) e)`.as('candidate');
  }
  // LIMIT -1: kept apart (not flattened into the join), read once through an automatic index rather
  // than json_each scanned for every post (see rankedPosts).
  return sql<{ id: number }>`(select value as id from json_each(${value}) limit -1)`.as('candidate');
}

/** The value of candidateTable()'s Param: the candidates' ids, or (`inTitle`) those ranked first. */
export function candidatesParam(candidates: Candidates, which: 'ids' | 'inTitle' = 'ids'): string {
  return JSON.stringify(which === 'ids' ? candidates.ids : [...(candidates.inTitle ?? [])]);
}

// ---- Excerpts ------------------------------------------------------------------------------------

/** Plain text of HTML content (tags out, block boundaries as spaces, common entities decoded). */
export function plainText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(
      /<\/?(?:p|div|h[1-6]|li|ul|ol|br|hr|pre|blockquote|tr|td|th|figure|figcaption|section|article|table)\b[^>]*>/gi,
      ' ',
    )
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * A highlighted excerpt: around the first match of any term in the first of `texts` (plain text)
 * having one, at most about `max` characters, HTML-escaped, every match in `<mark>`. Null when no
 * text has a match (a post found through another locale's text, or by a term in markup).
 */
export function highlightExcerpt(
  texts: readonly string[],
  terms: readonly string[],
  max = 200,
): string | null {
  const wanted = [...new Set(terms.map((term) => term.trim()).filter((term) => term !== ''))].sort(
    (a, b) => b.length - a.length,
  );
  if (wanted.length === 0) return null;
  const pattern = new RegExp(wanted.map(escapeRegExp).join('|'), 'giu');
  for (const text of texts) {
    pattern.lastIndex = 0;
    const first = pattern.exec(text);
    if (!first) continue;
    // A window with the match a third of the way in, cut at spaces where there are some.
    let start = Math.max(0, first.index - Math.floor(max / 3));
    let end = Math.min(text.length, start + max);
    start = Math.max(0, Math.min(start, end - max));
    if (start > 0) {
      const space = text.indexOf(' ', start);
      if (space !== -1 && space < first.index) start = space + 1;
    }
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > first.index + first[0].length) end = space;
    }
    const window = text.slice(start, end);
    let out = start > 0 ? '…' : '';
    let at = 0;
    pattern.lastIndex = 0;
    for (const match of window.matchAll(pattern)) {
      out += escapeHtml(window.slice(at, match.index)) + `<mark>${escapeHtml(match[0])}</mark>`;
      at = match.index + match[0].length;
    }
    out += escapeHtml(window.slice(at)) + (end < text.length ? '…' : '');
    return out;
  }
  return null;
}

// ---- Rebuilding the index ------------------------------------------------------------------------

/** Posts a rebuild refreshes per transaction. */
export const REINDEX_BATCH = 1000;

export interface ReindexProgress {
  done: number;
  total: number;
}

/**
 * The search index's upkeep. Triggers keep it with every write (db/search-index.ts); a rebuild
 * (`folio search:reindex`) is for an index made before a change of its rules, or restored apart from
 * the posts. It replaces the documents in steps of REINDEX_BATCH posts, each in a transaction, so
 * searches keep finding every post meanwhile, then removes documents of posts no longer live.
 */
/** The job queue's queue of the recent indexes' upkeep (one node does it, SearchIndexService). */
export const SEARCH_RECENT_QUEUE = 'search.recent';

export class SearchIndexService {
  constructor(
    private readonly db: Db,
    private readonly jobs?: JobQueue,
  ) {}

  /** Registers the worker of the recent indexes' upkeep (search.recent) on this node. */
  install(): this {
    const jobs = this.jobs;
    jobs?.work(SEARCH_RECENT_QUEUE, async (_payload, job) => {
      await this.maintainRecent(() => jobs.extendLease(job.id));
    });
    return this;
  }

  /**
   * PostgreSQL: the partial indexes over the newest posts are built, or moved on, when the table has
   * grown past them (db/search-index.ts, maintainRecentSearchIndexes). Minutes at most, writes going
   * on; a no-op when nothing is due, and on SQLite.
   */
  maintainRecent(beforeEachBuild?: () => Promise<void>): Promise<RecentSearchIndexes> {
    return maintainRecentSearchIndexes(
      this.db as Kysely<unknown>,
      dialectOf(this.db),
      undefined,
      beforeEachBuild,
    );
  }

  /** Asks one node for maintainRecent() (at most once an hour, whichever node asks). */
  async scheduleRecent(now = new Date()): Promise<void> {
    if (!this.jobs || dialectOf(this.db) !== 'postgres') return;
    const hour = Math.floor(now.getTime() / 3_600_000);
    await this.jobs.enqueue(SEARCH_RECENT_QUEUE, {}, { uniqueKey: `${SEARCH_RECENT_QUEUE}:${hour}` });
  }

  async rebuild(onProgress: (progress: ReindexProgress) => void = () => undefined): Promise<ReindexProgress> {
    const dialect = dialectOf(this.db);
    const total = await livePostCount(this.db as Kysely<unknown>);
    let done = 0;
    onProgress({ done, total });
    for (let after = 0; ;) {
      const ids = await livePostIds(this.db as Kysely<unknown>, after, REINDEX_BATCH);
      if (ids.length === 0) break;
      await this.db
        .transaction()
        .execute((trx) => refreshDocuments(trx as unknown as Kysely<unknown>, dialect, ids));
      done += ids.length;
      after = ids[ids.length - 1]!;
      onProgress({ done, total: Math.max(total, done) });
    }
    await removeStrayDocuments(this.db as Kysely<unknown>, dialect);
    await this.maintainRecent();
    return { done, total: Math.max(total, done) };
  }
}
