// Full-text search at scale (issue 40 #2): a synthetic set of posts in English, Chinese, Japanese and
// Korean (words drawn with a Zipf-like skew, so some are common and most are rare; a French or
// Traditional Chinese translation for 1 in 5), seeded straight into the database: through the index's
// triggers as the rows go in (so seeding measures their cost too), or with `--bulk` with the
// triggers' work deferred and the index built afterwards in one statement (then its GIN indexes, on
// PostgreSQL), as a bulk import would, each step timed. Measures, in process through the services
// the server uses:
// - before: the match the lists used until now (LIKE over every post's title, excerpt, content and
//   translations), its count and first page (not at more than 200,000 posts, or with --skip-before);
// - now, through the index: the public search (every word, ranked, with highlighted excerpts) and API
//   v2's `q` (any word, by relevance), both bounded (at most SEARCH_CANDIDATES matches read, the
//   total then a lower bound), and API v1's `keywords` (any term, newest first, every match counted:
//   its contract);
// - the plain post list (no search) as the baseline of the ratios, and the index's size.
// Writes its section of bench/RESULTS.md (between search markers).
// Usage: npx tsx bench/search.ts [--posts=100000] [--dialects=sqlite,postgres] [--runs=30] [--bulk]
//   [--v1-runs=N (default --runs)] [--skip-before] [--keep]
//   --keep (PostgreSQL): the seeded database is kept, and a later run with --keep and the same
//   --posts measures on it without seeding again (to try a change to the search in minutes).
//   PostgreSQL: BENCH_SEARCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/folio_bench_search),
//   dropped and created anew.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import type { Insertable } from 'kysely';
import type { Database } from '../src/db/schema.js';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/database.js';
import type { Db } from '../src/db/database.js';
import { fillSearchIndex } from '../src/db/search-index.js';
import { FIRST_WINDOW, SEARCH_CANDIDATES, scanMatches } from '../src/domain/posts/search.js';
import { likePattern } from '../src/domain/text/text-match.js';
import { createServices } from '../src/services.js';
import { writeAtomically } from './report.js';
import { dropPostgresDatabase, recreatePostgresDatabase } from './seed.js';

const { values } = parseArgs({
  options: {
    posts: { type: 'string', default: '100000' },
    dialects: { type: 'string', default: 'sqlite,postgres' },
    runs: { type: 'string', default: '30' },
    'v1-runs': { type: 'string' },
    bulk: { type: 'boolean', default: false },
    'skip-before': { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(import.meta.dirname, 'RESULTS.md') },
  },
});
const POSTS = Number(values.posts);
const RUNS = Number(values.runs);
const V1_RUNS = Number(values['v1-runs'] ?? values.runs);
const BULK = values.bulk;
const BEFORE = !values['skip-before'] && POSTS <= 200_000;
const PG_URL =
  process.env.BENCH_SEARCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/folio_bench_search';

// ---- The data set ----------------------------------------------------------------------------------

function generator(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}
let random = generator(40_2);
/** Zipf-like: index 0 is the most common, the tail is rare. */
const skewed = <T>(items: readonly T[]): T => items[Math.floor(items.length * random() ** 3)] as T;

const SYLLABLES = 'ka ri to mo na se lu pe vi da go ha ne so ti ba ru me ko ya'.split(' ');
const ENGLISH = Array.from({ length: 5000 }, (_, i) => {
  let word = '';
  for (let n = i + 7; word.length < 4 || n > 0; n = Math.floor(n / SYLLABLES.length)) {
    word += SYLLABLES[n % SYLLABLES.length];
  }
  return word;
});
// Common Chinese characters: words are pairs of them (the two-character words most text is made of).
const HANZI =
  '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单坐济夜据';
const CHINESE = Array.from({ length: 4000 }, (_, i) => {
  const a = HANZI[(i * 7) % HANZI.length]!;
  const b = HANZI[(i * 13 + Math.floor(i / HANZI.length)) % HANZI.length]!;
  return a + b;
});
const KANA = 'あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわん';
const JAPANESE = Array.from({ length: 1500 }, (_, i) => CHINESE[i]! + KANA[i % KANA.length]!);
const HANGUL = '가나다라마바사아자차카타파하거너더러머버서어저처커터퍼허고노도로모보소오조초';
const KOREAN = Array.from(
  { length: 1500 },
  (_, i) => HANGUL[i % HANGUL.length]! + HANGUL[(i * 7 + 3) % HANGUL.length]! + (i % 3 === 0 ? '에서' : ''),
);

type Language = 'en' | 'zh' | 'ja' | 'ko';
const languageOf = (n: number): Language => (['en', 'en', 'zh', 'zh', 'ja', 'ko'] as const)[n % 6]!;

function text(language: Language, words: number): string {
  const out: string[] = [];
  for (let k = 0; k < words; k++) {
    if (language === 'en') out.push(skewed(ENGLISH));
    else if (language === 'zh') out.push(skewed(CHINESE));
    else if (language === 'ja') out.push(skewed(JAPANESE));
    else out.push(skewed(KOREAN));
  }
  // Chinese and Japanese have no spaces between words; Korean has them between phrases.
  return language === 'zh' || language === 'ja' ? out.join('').replace(/(.{30})/gu, '$1。') : out.join(' ');
}

/** About 1 KB of HTML (3 paragraphs). */
const content = (language: Language, n: number) =>
  [0, 1, 2]
    .map((k) => `<p>${text(language, language === 'en' ? 40 + ((n + k) % 20) : 25 + ((n + k) % 15))}</p>`)
    .join('\n');

/** What seeding took: the rows, and with --bulk the index built afterwards. */
interface Seeding {
  /** --keep: measured on a database seeded by an earlier run. */
  reused?: boolean;
  rows: number;
  index?: number;
  indexSteps?: string;
  /** PostgreSQL: the recent indexes' upkeep, as the server's first hourly job runs it (s, what it did). */
  recent?: { seconds: number; built: string[] };
}

/**
 * --bulk: the index's triggers out of the way while the rows go in (SQLite: dropped and made again;
 * PostgreSQL: disabled, and the GIN indexes dropped), then the index built in one statement and its
 * GIN indexes created (PostgreSQL) or its segments merged (FTS5 'optimize'), each timed.
 */
async function deferIndex(
  db: Db,
  dialect: 'sqlite' | 'postgres',
): Promise<() => Promise<Pick<Seeding, 'index' | 'indexSteps'>>> {
  const time = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    return (performance.now() - started) / 1000;
  };
  if (dialect === 'sqlite') {
    const triggers = (
      await sql<{ name: string; sql: string }>`
        SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'post_search_%'`.execute(db)
    ).rows;
    for (const trigger of triggers) await sql.raw(`DROP TRIGGER ${trigger.name}`).execute(db);
    return async () => {
      const fill = await time(() => fillSearchIndex(db as never, 'sqlite'));
      const optimize = await time(() =>
        sql`INSERT INTO post_search (post_search) VALUES ('optimize')`.execute(db),
      );
      for (const trigger of triggers) await sql.raw(trigger.sql).execute(db);
      return {
        index: fill + optimize,
        indexSteps: `FTS5 filled by one INSERT … SELECT in ${fill.toFixed(0)} s, its segments merged ('optimize') in ${optimize.toFixed(0)} s`,
      };
    };
  }
  const indexes = (
    await sql<{ name: string; def: string }>`
      SELECT indexname AS name, indexdef AS def FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = 'post_search' AND indexdef ILIKE '%using gin%'`.execute(
      db,
    )
  ).rows;
  for (const index of indexes) await sql.raw(`DROP INDEX ${index.name}`).execute(db);
  await sql`ALTER TABLE posts DISABLE TRIGGER post_search_post`.execute(db);
  await sql`ALTER TABLE translations DISABLE TRIGGER post_search_translation`.execute(db);
  return async () => {
    await sql`ALTER TABLE posts ENABLE TRIGGER post_search_post`.execute(db);
    await sql`ALTER TABLE translations ENABLE TRIGGER post_search_translation`.execute(db);
    const fill = await time(() => fillSearchIndex(db as never, 'postgres'));
    const steps = [`post_search filled by one INSERT … SELECT in ${fill.toFixed(0)} s`];
    let total = fill;
    for (const index of indexes) {
      // One connection builds it: a session setting for this statement's sort memory.
      const took = await time(() =>
        db.connection().execute(async (conn) => {
          await sql`SET maintenance_work_mem = '512MB'`.execute(conn);
          await sql.raw(index.def).execute(conn);
        }),
      );
      steps.push(`${index.name} created in ${took.toFixed(0)} s`);
      total += took;
    }
    return { index: total, indexSteps: steps.join(', ') };
  };
}

async function seed(db: Db, dialect: 'sqlite' | 'postgres'): Promise<Seeding> {
  random = generator(40_2); // the same data set on each database
  const buildIndex = BULK ? await deferIndex(db, dialect) : null;
  const started = performance.now();
  const now = Date.now();
  const BATCH = 500;
  for (let start = 0; start < POSTS; start += BATCH) {
    const posts: Array<Insertable<Database['posts']>> = [];
    const translations: Array<Insertable<Database['translations']>> = [];
    for (let n = start; n < Math.min(POSTS, start + BATCH); n++) {
      const language = languageOf(n);
      const at = new Date(now - (POSTS - n) * 60_000).toISOString();
      posts.push({
        id: n + 1,
        title: `${text(language, 4)} ${n}`,
        slug: `post-${n}`,
        excerpt: null,
        content: content(language, n),
        status: 'published',
        type: 'post',
        published_at: at,
        created_at: at,
        updated_at: at,
      });
      if (n % 5 === 0) {
        const other: Language = language === 'en' ? 'zh' : 'en';
        const locale = other === 'zh' ? 'zh-TW' : 'fr';
        translations.push(
          { model_type: 'post', model_id: n + 1, field: 'title', locale, value: text(other, 4) },
          { model_type: 'post', model_id: n + 1, field: 'content', locale, value: content(other, n) },
        );
      }
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('posts').values(posts).execute();
      if (translations.length) await trx.insertInto('translations').values(translations).execute();
    });
    if ((start / BATCH) % 20 === 0) process.stdout.write(`\rseeded ${start + posts.length}/${POSTS}`);
  }
  process.stdout.write('\n');
  const rows = (performance.now() - started) / 1000;
  if (!buildIndex) return { rows };
  console.log(`${dialect}: rows in ${rows.toFixed(0)} s; building the index`);
  return { rows, ...(await buildIndex()) };
}

// ---- Measuring -------------------------------------------------------------------------------------

const percentile = (list: number[], p: number) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
async function measure(work: () => Promise<unknown>, runs = RUNS): Promise<{ p50: number; p99: number }> {
  await work(); // warm
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** The match the lists used before the index: LIKE over every text (and the translations). */
function scanList(db: Db, term: string) {
  const pattern = likePattern(term);
  const base = db
    .selectFrom('posts')
    .where('posts.type', '=', 'post')
    .where('posts.deleted_at', 'is', null)
    .where('posts.status', '=', 'published')
    .where((eb) => scanMatches(eb, pattern));
  return async () => {
    await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    await base.select('posts.id').orderBy('posts.created_at', 'desc').limit(15).execute();
  };
}

interface Row {
  dialect: string;
  seeding: Seeding;
  sizes: string;
  figures: Array<{
    label: string;
    matches: number;
    before?: { p50: number; p99: number };
    v1: { p50: number; p99: number };
    v2: { p50: number; p99: number };
    site: { p50: number; p99: number };
    /** The public search's total, and whether it is exact (false: a lower bound, the cap reached). */
    siteTotal: number;
    siteExact: boolean;
  }>;
  list: { p50: number; p99: number };
}

async function sizes(db: Db, dialect: string, file?: string): Promise<string> {
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  if (dialect === 'postgres') {
    const row = (
      await sql<{ texts: number; search: number; trgm: number; words: number }>`
        SELECT pg_total_relation_size('posts') + pg_total_relation_size('translations') AS texts,
               pg_total_relation_size('post_search') AS search,
               pg_relation_size('post_search_doc') AS trgm, pg_relation_size('post_search_words') AS words`.execute(
        db,
      )
    ).rows[0]!;
    return `posts + translations ${mb(Number(row.texts))}; post_search ${mb(Number(row.search))} (trigram GIN ${mb(Number(row.trgm))}, tsvector GIN ${mb(Number(row.words))})`;
  }
  const row = (
    await sql<{ search: number; texts: number }>`
      SELECT (SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'post_search%') AS search,
             (SELECT sum(pgsize) FROM dbstat WHERE name IN ('posts', 'translations')) AS texts`.execute(db)
  ).rows[0]!;
  return `posts + translations ${mb(Number(row.texts))}; FTS5 post_search ${mb(Number(row.search))}; file ${mb(fs.statSync(file!).size)}`;
}

async function run(dialect: 'sqlite' | 'postgres'): Promise<Row> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-search-'));
  const file = path.join(dir, 'search.sqlite');
  const url = dialect === 'sqlite' ? `sqlite:${file}` : PG_URL;
  const reuse = dialect === 'postgres' && values.keep && (await seededPosts(url)) === POSTS;
  if (dialect === 'postgres' && !reuse) await recreatePostgresDatabase(url);
  const services = createServices(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', MEDIA_DIR: dir }), {
    warn: () => undefined,
  });
  try {
    await migrate(services.database);
    const { db } = services.database;
    console.log(`${dialect}: ${reuse ? 'reusing the kept database of' : 'seeding'} ${POSTS} posts`);
    const seeding: Seeding = reuse ? { reused: true, rows: 0 } : await seed(db, dialect);
    if (dialect === 'postgres') {
      // What the server's search upkeep job does first (db/search-index.ts, the recent indexes).
      const started = performance.now();
      const recent = await services.searchIndex.maintainRecent();
      seeding.recent = { seconds: (performance.now() - started) / 1000, built: recent.built };
      await sql`ANALYZE`.execute(db);
    } else services.database.sqlite!.pragma('optimize=0x10002');
    const count = async (term: string) =>
      (
        await services.posts.list({
          page: 1,
          pageSize: 1,
          sort: 'created_at',
          direction: 'desc',
          websiteId: null,
          keywords: [term],
        })
      ).total;
    // Terms: a mid-frequency English word pair, a mid-frequency two-character Chinese word, a longer
    // Chinese phrase, a Korean word, words no post has.
    const terms: Array<{ label: string; site: string[]; v1: string[]; before: boolean }> = [
      {
        label: `two English words "${ENGLISH[300]} ${ENGLISH[40]}"`,
        site: [ENGLISH[300]!, ENGLISH[40]!],
        v1: [ENGLISH[300]!],
        before: true,
      },
      {
        label: `two Chinese characters "${CHINESE[200]}"`,
        site: [CHINESE[200]!],
        v1: [CHINESE[200]!],
        before: true,
      },
      {
        label: `Chinese, four characters "${CHINESE[30]}${CHINESE[31]}"`,
        site: [CHINESE[30]! + CHINESE[31]!],
        v1: [CHINESE[30]! + CHINESE[31]!],
        before: false,
      },
      { label: `Korean "${KOREAN[120]}"`, site: [KOREAN[120]!], v1: [KOREAN[120]!], before: false },
      { label: 'a word no post has "zquxv"', site: ['zquxv'], v1: ['zquxv'], before: true },
      { label: 'two Chinese characters no post has "鑫鑫"', site: ['鑫鑫'], v1: ['鑫鑫'], before: false },
    ];
    const figures: Row['figures'] = [];
    for (const term of terms) {
      const matches = await count(term.v1[0]!);
      const siteQuery = { websiteId: 1, locale: 'en', page: 1, pageSize: 10, terms: term.site };
      const site = await measure(() => services.publicPosts.list(siteQuery));
      const siteAnswer = await services.publicPosts.list(siteQuery);
      // API v2's `q` as its face asks: any word, by relevance, bounded.
      const v2 = await measure(() =>
        services.posts.list({
          page: 1,
          pageSize: 20,
          sort: 'created_at',
          direction: 'desc',
          websiteId: null,
          keywords: term.site,
          relevance: true,
          timed: true,
          bounded: true,
        }),
      );
      const v1 = await measure(
        () =>
          services.posts.list({
            page: 1,
            pageSize: 15,
            sort: 'created_at',
            direction: 'desc',
            websiteId: null,
            keywords: term.v1,
          }),
        V1_RUNS,
      );
      const before = term.before && BEFORE ? await measure(scanList(db, term.v1[0]!), 3) : undefined;
      figures.push({
        label: term.label,
        matches,
        site,
        v2,
        v1,
        before,
        siteTotal: siteAnswer.total,
        siteExact: siteAnswer.totalExact !== false,
      });
      console.log(dialect, term.label, matches, { site, v2, v1, before, siteTotal: siteAnswer.total });
    }
    if (values.explain && dialect === 'postgres') await explainCandidates(db);
    const list = await measure(() =>
      services.publicPosts.list({ websiteId: 1, locale: 'en', page: 1, pageSize: 10 }),
    );
    return { dialect, seeding, sizes: await sizes(db, dialect, file), figures, list };
  } finally {
    await services.close();
    if (dialect === 'postgres' && !values.keep) await dropPostgresDatabase(url);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** How many posts the bench's PostgreSQL database holds; null when it does not exist. */
async function seededPosts(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM posts`);
    return Number(result.rows[0]!.n);
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * --explain (PostgreSQL): EXPLAIN ANALYZE of the first step readCandidates() takes for the measured
 * terms (the GIN bitmap ANDed with the primary key's bitmap of the newest FIRST_WINDOW × cap ids,
 * newest first), printed to the console.
 */
async function explainCandidates(db: Db): Promise<void> {
  const like = (term: string) => sql`ps.doc like ${likePattern(term)} escape '\\'`;
  const cases = [
    ['"peba peto" (all, the site)', sql`${like(ENGLISH[300]!)} and ${like(ENGLISH[40]!)}`],
    ['"peba peto" (any, API v2)', sql`${like(ENGLISH[300]!)} or ${like(ENGLISH[40]!)}`],
    [`"${CHINESE[200]}"`, sql`ps.words @@ plainto_tsquery('simple', ${CHINESE[200]!})`],
    ['"zquxv"', like('zquxv')],
  ] as const;
  for (const [label, condition] of cases) {
    const plan = await db.transaction().execute(async (trx) => {
      const newest = (await sql<{ max: number }>`select max(post_id) as max from post_search`.execute(trx))
        .rows[0]!.max;
      await sql`set local enable_indexscan = off`.execute(trx);
      await sql`set local enable_seqscan = off`.execute(trx);
      return sql<{ 'QUERY PLAN': string }>`explain (analyze, buffers)
        select ps.post_id from post_search ps
        where (${condition}) and ps.post_id > ${Number(newest) - SEARCH_CANDIDATES * FIRST_WINDOW}
        order by ps.post_id desc limit ${SEARCH_CANDIDATES + 1}`.execute(trx);
    });
    console.log(`\n-- ${label}, the first window\n${plan.rows.map((row) => row['QUERY PLAN']).join('\n')}`);
  }
}

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 0);

function section(rows: Row[]): string {
  const lines = [
    '<!-- search:start -->',
    '## Full-text search (issue 40 #2): the index against reading every text',
    '',
    `_Written by \`npx tsx bench/search.ts --posts=${POSTS}${BULK ? ' --bulk' : ''}${V1_RUNS !== RUNS ? ` --v1-runs=${V1_RUNS}` : ''}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC` +
      ` (${os.cpus().length} CPU cores, load average at the start ${os
        .loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}; other work was running on the machine).` +
      ` Synthetic posts of about 1 KB: 1/3 English, 1/3 Chinese, 1/6 Japanese, 1/6 Korean, words drawn with a` +
      ` Zipf-like skew; 1 in 5 translated (French or Traditional Chinese). In process through the services;` +
      ` p50 / p99 of ${RUNS} runs (API v1: ${V1_RUNS}; before: p50 of 3, the old LIKE match, its count and` +
      ` first page). The public search and API v2's \`q\` are bounded: at most ${SEARCH_CANDIDATES.toLocaleString('en')}` +
      ` matches read, newest first, then ranked; API v1's \`keywords\` counts and reads every match (exact)._`,
    '',
  ];
  for (const row of rows) {
    lines.push(
      `**${row.dialect}**: ${
        row.seeding.reused
          ? 'measured on the database an earlier run seeded (--keep)'
          : row.seeding.index === undefined
            ? `seeded (with the index's triggers) in ${row.seeding.rows.toFixed(0)} s`
            : `seeded in bulk: the rows (the index's triggers deferred) in ${row.seeding.rows.toFixed(0)} s, ` +
              `the index in ${row.seeding.index.toFixed(0)} s (${row.seeding.indexSteps})`
      }${
        row.seeding.recent?.built.length
          ? `; the recent indexes (${row.seeding.recent.built.join(', ')}) built in ${row.seeding.recent.seconds.toFixed(0)} s`
          : ''
      }; sizes: ${row.sizes}.` +
        ` Baseline, the public post list without search: ${ms(row.list.p50)} / ${ms(row.list.p99)} ms.`,
      '',
      '| Query | Posts matching | Before: LIKE over every text | API v1 `keywords` (exact) | Public search, ranked, with excerpts (bounded) | its total | API v2 `q`, by relevance (bounded) | bounded p99 / post list p99 |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...row.figures.map(
        (f) =>
          `| ${f.label} | ${f.matches.toLocaleString('en')} | ${f.before ? `${ms(f.before.p50)} ms` : '–'} | ` +
          `${ms(f.v1.p50)} / ${ms(f.v1.p99)} ms | ${ms(f.site.p50)} / ${ms(f.site.p99)} ms | ` +
          `${f.siteExact ? '' : 'at least '}${f.siteTotal.toLocaleString('en')} | ` +
          `${ms(f.v2.p50)} / ${ms(f.v2.p99)} ms | ` +
          `${(Math.max(f.v2.p99, f.site.p99) / row.list.p99).toFixed(1)}× |`,
      ),
      '',
    );
  }
  lines.push(
    'Repeat: `npx tsx bench/search.ts --posts=N [--bulk]` (`--dialects=sqlite` for one).',
    '<!-- search:end -->',
    '',
  );
  return lines.join('\n');
}

const rows: Row[] = [];
for (const dialect of values.dialects.split(',').filter(Boolean) as Array<'sqlite' | 'postgres'>) {
  rows.push(await run(dialect));
}
const out = section(rows);
const existing = fs.existsSync(values.out) ? fs.readFileSync(values.out, 'utf8') : '';
const kept = existing.replace(/<!-- search:start -->[\s\S]*?<!-- search:end -->\n?/, '');
writeAtomically(values.out, `${kept.trimEnd()}\n\n${out}`);
console.log(out);
