// The read side of the public website (spec 4.8): what a reader may see. Only live posts of type
// `post` whose status is `published` and whose `published_at` has come, shown on the website (bound
// to it, or global). Texts in the reader's locale (R-T3). Every list is one count, one page query,
// and one query each for tags, translations of the posts and translations of the tag names: no N+1.
import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { Cache } from '../../cache/cache.js';
import { pageTags } from '../cache-tags.js';
import { CompiledQueries, param } from '../../db/compiled.js';
import type { Db } from '../../db/database.js';
import type { PostsTable } from '../../db/schema.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import { nowIso } from '../clock.js';
import { parseVariants } from '../media/files.js';
import { keptPostCount, publishedNotDue } from '../posts/index.js';
import { hasAnyTag } from '../posts/queries.js';
import {
  dialectOf,
  highlightExcerpt,
  planTerms,
  plainText,
  boundable,
  candidatesParam,
  rankQuery,
  rankedPosts,
  idAmong,
  readCandidates,
  titleRank,
  termsMatch,
} from '../posts/search.js';
import type { Clock } from '../clock.js';
import { TAG_MODEL } from '../tags/store.js';
import { likePattern } from '../text/text-match.js';
import { normalizeLocale } from '../translations.js';
import { toIso } from '../values.js';
import { WEBSITES_TAG } from '../websites/store.js';

const POST_MODEL = 'post';
const PAGE_MODEL = 'page';

/** Click kinds that rankings count (R-F5). */
export const RANK_KINDS = ['view', 'like', 'fav'] as const;
export type RankKind = (typeof RANK_KINDS)[number];

export interface PublicTag {
  id: number;
  name: string;
  slug: string;
  type: string;
}

export interface PublicAuthor {
  id: number;
  name: string;
  username: string | null;
}

/** A stored image's sizes: the file and its smaller copies (paths in the media store). */
export interface PublicCover {
  path: string;
  width: number;
  height: number;
  /** The file's bytes and type, as the media library stored them (the feeds' enclosures, issue 36 #11). */
  size: number;
  mimeType: string;
  /** Copies of other sizes or formats, narrowest first. */
  variants: Array<{ path: string; width: number; height: number }>;
}

export interface PublicPost {
  id: number;
  title: string;
  slug: string;
  /** The excerpt, else the start of the content as plain text. */
  excerpt: string;
  thumbnail: string | null;
  /** The thumbnail's sizes when it is an image of the media store; null for an external URL. */
  cover: PublicCover | null;
  publishedAt: string;
  updatedAt: string;
  author: PublicAuthor | null;
  tags: PublicTag[];
  /** Clicks counted by a ranking, else absent. */
  score?: number;
  /**
   * In search results: the text around the first match in the reader's locale, as HTML (escaped,
   * matches in <mark>); null when the match is in another locale's text. Absent elsewhere.
   */
  highlight?: string | null;
}

export interface PublicPostDetail extends PublicPost {
  content: string;
  metaTitle: string | null;
  metaDescription: string | null;
  metaKeywords: string | null;
  /** Locales with a translation of the title (for hreflang alternates), besides the base text. */
  translatedLocales: string[];
}

/** A link to a post: its title in the locale, slug and publication time. */
export interface PostLink {
  id: number;
  title: string;
  slug: string;
  publishedAt: string;
}

/** The posts shown around a post: the one before it, the one after, and related ones. */
export interface PostsAround {
  previous: PostLink | null;
  next: PostLink | null;
  related: PostLink[];
}

export interface Period {
  /** Inclusive ISO lower bound. */
  from: string;
  /** Exclusive ISO upper bound. */
  to: string;
}

export interface PublicListQuery {
  websiteId: number;
  locale: string;
  page: number;
  pageSize: number;
  /** Posts having any of these tags. */
  tagIds?: number[];
  authorId?: number;
  /** Every term must match the title, excerpt or content, or one of their translations. */
  terms?: string[];
  /** Only posts published within the period. */
  publishedWithin?: Period;
}

export interface RankQuery {
  websiteId: number;
  locale: string;
  page: number;
  pageSize: number;
  kinds: readonly RankKind[];
  /** Only clicks within the period; absent: all time. */
  period?: Period;
}

export interface PublicPage<T> {
  items: T[];
  total: number;
  /**
   * False when `total` is a lower bound: a search whose matches reached the cap of what it reads
   * (SEARCH_CANDIDATES, issue 40 #2). Absent: exact.
   */
  totalExact?: boolean;
}

export interface SitemapEntry {
  slug: string;
  lastModified: string;
}

/** Where a chunk of the posts' sitemap ended: the last post's publication time (as stored) and id. */
export interface SitemapPlace {
  publishedAt: string;
  id: number;
}

/**
 * Plain text of HTML content, shortened at a word boundary: the excerpt of a post without one. It is
 * made of the text's prose (issue 36 #2): headings, code blocks and tables are left out, unless the
 * content is nothing else.
 */
export function plainExcerpt(html: string, max = 220): string {
  const prose = plainText(html.replace(/<(h[1-6]|pre|table|figcaption)\b[\s\S]*?<\/\1\s*>/gi, ' '));
  return shorten(prose || plainText(html), max);
}

function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** How long a list's total may be served from the cache (content changes flush it sooner). */
const LIST_TOTAL_TTL_SECONDS = 60;

export class PublicPostsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Keeps list totals (a count reads every matching row) until a post or website change. */
    private readonly cache?: Cache,
    /** Where searches run: no index serves them (DatabaseHandle.longReads). */
    private readonly longReads: Db = db,
  ) {}

  /**
   * Searches for a term no index serves (domain/posts/search.ts) read through `longReads`; every other list
   * through the server's connection.
   */
  private readerOf(query: PublicListQuery): Db {
    const terms = query.terms ?? [];
    return terms.length > 0 && planTerms(dialectOf(this.db), terms).some((term) => term.slow)
      ? this.longReads
      : this.db;
  }

  /**
   * Live, published, due posts of type `post` shown on the website; `from`/`upTo` narrow the
   * publication times (`upTo` no later than now), so that the index starts where they say.
   */
  private live(
    websiteId: number,
    options: { perRow?: boolean; from?: string; upTo?: string } = {},
    db: Db = this.db,
  ) {
    const now = nowIso(this.clock);
    const upTo = options.upTo !== undefined && options.upTo < now ? options.upTo : now;
    return db
      .selectFrom('posts')
      .where('posts.type', '=', POST_MODEL)
      .where('posts.status', '=', 'published')
      .where('posts.deleted_at', 'is', null)
      .where('posts.published_at', options.from === undefined ? 'is not' : '>=', options.from ?? null)
      .where('posts.published_at', '<=', upTo)
      .where((eb) => visibleOnWebsite(eb, POST_MODEL, eb.ref('posts.id'), websiteId, options));
  }

  async list(query: PublicListQuery): Promise<PublicPage<PublicPost>> {
    if ((query.terms ?? []).length > 0) {
      const bounded = await this.boundedSearch(query);
      if (bounded) return bounded;
    }
    const total = await this.total(query);
    if (total === 0) return { items: [], total };
    if ((query.terms ?? []).length > 0) return { items: await this.searchPage(query), total };
    let offset = (query.page - 1) * query.pageSize;
    let limit = query.pageSize;
    let reversed = false;
    // A page past the middle is read from the far end (order reversed, offset counted from there), with
    // a total fresh from the counters: the last page costs what the first does (issue 26 #2).
    if (offset * 2 > total) {
      const fresh = await this.keptTotal(query);
      if (fresh !== null && offset < fresh && offset * 2 > fresh) {
        reversed = true;
        limit = Math.min(query.pageSize, fresh - offset);
        offset = fresh - offset - limit;
      }
    }
    const order = reversed ? 'asc' : 'desc';
    // A deferred join: the page's ids first, in index order (skipped rows are index entries, not
    // posts), then those rows in full.
    const reader = this.readerOf(query);
    const ids = this.filtered(this.live(query.websiteId, { perRow: true }, reader), query)
      .select('posts.id')
      .orderBy('posts.published_at', order)
      .orderBy('posts.id', order)
      .limit(limit)
      .offset(offset);
    const rows = await reader
      .selectFrom('posts')
      .innerJoin(ids.as('page_ids'), 'page_ids.id', 'posts.id')
      .leftJoin('users', 'users.id', 'posts.author_id')
      .select(SUMMARY_COLUMNS)
      .orderBy('posts.published_at', 'desc')
      .orderBy('posts.id', 'desc')
      .execute();
    return { items: await this.hydrate(rows, query.locale), total };
  }

  /**
   * A search whose terms the index serves, bounded (issue 40 #2): the newest matches, at most
   * SEARCH_CANDIDATES, read from the index with their ranks; those the website shows are the results,
   * best match first (then the newest). When the cap was reached the total is a lower bound
   * (`totalExact: false`). Null when a term has no index (a short term: searchPage reads every text).
   */
  private async boundedSearch(query: PublicListQuery): Promise<PublicPage<PublicPost> | null> {
    const terms = query.terms ?? [];
    const dialect = dialectOf(this.db);
    const planned = planTerms(dialect, terms);
    if (!boundable(planned)) return null;
    const rank = { patterns: terms.map(likePattern), mode: 'all' } as const;
    const candidates = await readCandidates(this.db, dialect, planned, 'all', rank);
    if (candidates.ids.length === 0) return { items: [], total: 0 };
    // Which candidates the website shows, and which have the terms in their title (their rank):
    // primary-key lookups, at most the cap of them, in one read.
    const shown = await this.filtered(this.live(query.websiteId, { perRow: true }), query, false)
      .select(['posts.id', 'posts.published_at'])
      .select(
        sql<number>`case when ${titleRank(dialect, candidatesParam(candidates, 'inTitle'), rank)} then 1 else 0 end`.as(
          'title_hit',
        ),
      )
      .where(idAmong(dialect, 'posts.id', candidates.ids))
      .execute();
    const hits = new Map(shown.map((row) => [row.id, Number(row.title_hit)]));
    const score = (id: number) => hits.get(id) ?? 0;
    // published_at: a string on SQLite, a Date on PostgreSQL.
    const time = (value: unknown) =>
      value instanceof Date ? value.getTime() : Date.parse(String(value)) || 0;
    shown.sort(
      (a, b) => score(b.id) - score(a.id) || time(b.published_at) - time(a.published_at) || b.id - a.id,
    );
    const start = (query.page - 1) * query.pageSize;
    // Capped candidates that do not fill this page (the newest matches were mostly other websites'
    // posts, or not yet public): every match is read instead (null), so that no result is lost.
    if (candidates.capped && shown.length < start + query.pageSize) return null;
    const ids = shown.slice(start, start + query.pageSize).map((row) => row.id);
    const totalExact = !candidates.capped;
    if (ids.length === 0) return { items: [], total: shown.length, totalExact };
    return {
      items: await this.postsInOrder(this.db, ids, query.locale, terms),
      total: shown.length,
      totalExact,
    };
  }

  /** The posts `ids` hydrated, in that order. */
  private async postsInOrder(reader: Db, ids: number[], locale: string, terms: string[]) {
    const order = new Map(ids.map((id, i) => [id, i]));
    const rows = await reader
      .selectFrom('posts')
      .leftJoin('users', 'users.id', 'posts.author_id')
      .select(SUMMARY_COLUMNS)
      .where('posts.id', 'in', ids)
      .execute();
    rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    return this.hydrate(rows, locale, terms);
  }

  /**
   * A page of search results, best match first (then the newest), each with its highlighted excerpt
   * in the reader's locale (issue 40 #2). Reads every match: for terms no index serves.
   */
  private async searchPage(query: PublicListQuery): Promise<PublicPost[]> {
    const terms = query.terms ?? [];
    const reader = this.readerOf(query);
    const ranking = rankQuery(dialectOf(this.db), terms);
    const live = this.filtered(this.live(query.websiteId, { perRow: true }, reader), query);
    const window = { limit: query.pageSize, offset: (query.page - 1) * query.pageSize };
    const page =
      ranking === null
        ? await live
            .select('posts.id')
            .orderBy('posts.published_at', 'desc')
            .orderBy('posts.id', 'desc')
            .limit(window.limit)
            .offset(window.offset)
            .execute()
        : await live
            .leftJoin(rankedPosts(dialectOf(this.db), ranking), 'ranked.id', 'posts.id')
            .select('posts.id')
            .orderBy(sql`coalesce(ranked.score, 0)`, 'desc')
            .orderBy('posts.published_at', 'desc')
            .orderBy('posts.id', 'desc')
            .limit(window.limit)
            .offset(window.offset)
            .execute();
    if (page.length === 0) return [];
    return this.postsInOrder(
      reader,
      page.map((row) => row.id),
      query.locale,
      terms,
    );
  }

  /**
   * The list's total from the post counters (issue 26 #1) when they can tell it: a list by one tag or
   * none, without search terms, author or period. Its published posts minus those not public yet
   * (time still to come, or none), a read of the due index. Null otherwise.
   */
  private async keptTotal(query: PublicListQuery): Promise<number | null> {
    const tags = [...new Set(query.tagIds ?? [])];
    if (
      (query.terms ?? []).length > 0 ||
      query.authorId !== undefined ||
      query.publishedWithin ||
      tags.length > 1
    ) {
      return null;
    }
    const scope = { tagId: tags[0], websiteId: query.websiteId };
    const published = await keptPostCount(this.db, { ...scope, status: 'published' });
    return published - (await publishedNotDue(this.db, scope, nowIso(this.clock), { nullIsDue: false }));
  }

  /** How many posts the website shows (what its sitemap lists). */
  async count(websiteId: number): Promise<number> {
    return this.total({ websiteId, locale: '', page: 1, pageSize: 1 });
  }

  /** How many posts a list has in all (its pages aside). */
  private async total(query: PublicListQuery): Promise<number> {
    const counted = async () => {
      const kept = await this.keptTotal(query);
      if (kept !== null) return kept;
      const row = await this.filtered(this.live(query.websiteId, {}, this.readerOf(query)), query)
        .select((eb) => eb.fn.countAll<number>().as('total'))
        .executeTakeFirst();
      return Number(row?.total ?? 0);
    };
    // The total of a list without search terms is kept for a minute at most, and dropped at once when a
    // post or website changes (the page cache's list tags); a search's total is always counted.
    const key = JSON.stringify([
      query.websiteId,
      query.tagIds ?? [],
      query.authorId ?? null,
      query.publishedWithin ?? null,
    ]);
    const total: number =
      this.cache && (query.terms ?? []).length === 0
        ? await this.cache.remember(
            `public-posts:count:${key}`,
            {
              tags: [pageTags.postLists(query.websiteId), pageTags.globalPostLists, WEBSITES_TAG],
              ttlSeconds: LIST_TOTAL_TTL_SECONDS,
            },
            counted,
          )
        : await counted();
    return total;
  }

  /** The list's filters: tags, author, search terms (unless `withTerms` is false), publication period. */
  private filtered(base: ReturnType<PublicPostsService['live']>, query: PublicListQuery, withTerms = true) {
    const tagIds = query.tagIds ?? [];
    if (tagIds.length > 0) {
      base = base.where((eb) => hasAnyTag(eb, tagIds));
    }
    if (query.authorId !== undefined) base = base.where('posts.author_id', '=', query.authorId);
    // Every term, through the search index (domain/posts/search.ts).
    const terms = withTerms ? (query.terms ?? []) : [];
    if (terms.length > 0) {
      const dialect = dialectOf(this.db);
      const planned = planTerms(dialect, terms);
      base = base.where((eb) => termsMatch(eb, dialect, planned, 'all'));
    }
    if (query.publishedWithin) {
      base = base
        .where('posts.published_at', '>=', query.publishedWithin.from)
        .where('posts.published_at', '<', query.publishedWithin.to);
    }

    return base;
  }

  /** Posts ranked by the clicks of these kinds (within the period), most first; posts without any are left out (R-F5). */
  async ranked(query: RankQuery): Promise<PublicPage<PublicPost>> {
    // Scores count every click of the period (no index answers a count per post): a long read.
    let scores = this.longReads
      .selectFrom('clicks')
      .select(['clicks.model_id', (eb) => eb.fn.countAll<number>().as('score')])
      .where('clicks.model_type', '=', POST_MODEL)
      .where('clicks.kind', 'in', [...query.kinds])
      .groupBy('clicks.model_id');
    if (query.period) {
      scores = scores
        .where('clicks.created_at', '>=', query.period.from)
        .where('clicks.created_at', '<', query.period.to);
    }
    const base = this.live(query.websiteId, {}, this.longReads).innerJoin(scores.as('scores'), (join) =>
      join.onRef('scores.model_id', '=', 'posts.id'),
    );
    const countRow = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const total = Number(countRow?.total ?? 0);
    if (total === 0) return { items: [], total };
    const rows = await base
      .leftJoin('users', 'users.id', 'posts.author_id')
      .select([...SUMMARY_COLUMNS, 'scores.score'])
      .orderBy('scores.score', 'desc')
      .orderBy('posts.published_at', 'desc')
      .orderBy('posts.id', 'desc')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute();
    const items = await this.hydrate(rows, query.locale);
    rows.forEach((row, index) => {
      const item = items[index];
      if (item) item.score = Number(row.score);
    });
    return { items, total };
  }

  /** One post a reader may see, by slug, in the locale; null when there is none. */
  async findBySlug(websiteId: number, slug: string, locale: string): Promise<PublicPostDetail | null> {
    const row = await this.live(websiteId)
      .leftJoin('users', 'users.id', 'posts.author_id')
      .select([...SUMMARY_COLUMNS, 'posts.meta_title', 'posts.meta_description', 'posts.meta_keywords'])
      .where('posts.slug', '=', slug)
      .executeTakeFirst();
    if (!row) return null;
    const [summary] = await this.hydrate([row], locale);
    if (!summary) return null;
    const translations = await this.db
      .selectFrom('translations')
      .select(['field', 'locale', 'value'])
      .where('model_type', '=', POST_MODEL)
      .where('model_id', '=', row.id)
      .where('field', 'in', ['title', 'content'])
      .execute();
    const wanted = normalizeLocale(locale);
    const content = translations.find(
      (t) => t.field === 'content' && t.locale === wanted && t.value !== '',
    )?.value;
    return {
      ...summary,
      content: content ?? row.content,
      metaTitle: row.meta_title,
      metaDescription: row.meta_description,
      metaKeywords: row.meta_keywords,
      translatedLocales: [
        ...new Set(translations.filter((t) => t.field === 'title' && t.value !== '').map((t) => t.locale)),
      ],
    };
  }

  /**
   * The posts around one on the website (issue 22): the one published just before it (`previous`),
   * the one just after (`next`), and up to `relatedLimit` others sharing a tag or category with it,
   * newest first (neither of the first two). Links only (title in the locale, slug, date), in one
   * query: the three reads as one UNION ALL, their titles' translations joined to it.
   */
  async around(
    websiteId: number,
    post: { id: number; publishedAt: string; tagIds: readonly number[] },
    locale: string,
    relatedLimit: number,
  ): Promise<PostsAround> {
    const tagIds = [...new Set(post.tagIds)];
    const withRelated = tagIds.length > 0 && relatedLimit > 0;
    const now = nowIso(this.clock);
    const query = this.aroundQueries.get(`${withRelated ? tagIds.length : 0}`, () =>
      this.aroundQuery(withRelated ? tagIds.length : 0),
    );
    const values: Record<string, unknown> = {
      website: websiteId,
      now,
      at: post.publishedAt,
      // The previous post's upper bound: the post's own time, so that the index starts there.
      upTo: post.publishedAt < now ? post.publishedAt : now,
      id: post.id,
      relatedLimit: relatedLimit + 2,
      locale: normalizeLocale(locale),
    };
    tagIds.forEach((tagId, i) => (values[`tag:${i}`] = tagId));
    const rows = await query.execute(this.db as never, (name) => values[name]);
    const link = (row: AroundRow): PostLink => ({
      id: row.id,
      title: row.translated || row.title,
      slug: row.slug,
      publishedAt: toIso(row.published_at as Date | string),
    });
    const previousRow = rows.find((row) => row.kind === 'previous');
    const nextRow = rows.find((row) => row.kind === 'next');
    const aside = new Set([previousRow?.id, nextRow?.id]);
    const related = rows
      .filter((row) => row.kind === 'related' && !aside.has(row.id))
      .map(link)
      // The union's order is not kept: newest first, as the branch read them.
      .sort((a, b) =>
        a.publishedAt === b.publishedAt ? b.id - a.id : a.publishedAt < b.publishedAt ? 1 : -1,
      )
      .slice(0, relatedLimit);
    return {
      previous: previousRow ? link(previousRow) : null,
      next: nextRow ? link(nextRow) : null,
      related,
    };
  }

  /** Compiled `around` queries by how many tags the related posts may share (0: no related posts). */
  private readonly aroundQueries = new CompiledQueries<AroundRow>(50);

  /**
   * The query of `around`, built once per shape with Params: the previous post, the next one and the
   * related ones as one UNION ALL, with their titles' translations joined to it. Building a query
   * this size costs more than running it.
   */
  private aroundQuery(tags: number) {
    const at = param<string>('at');
    const id = param<number>('id');
    const branch = (kind: string) =>
      this.db
        .selectFrom('posts')
        .select(['posts.id', 'posts.title', 'posts.slug', 'posts.published_at', sql.lit(kind).as('kind')])
        .where('posts.type', '=', POST_MODEL)
        .where('posts.status', '=', 'published')
        .where('posts.deleted_at', 'is', null)
        .where((eb) =>
          visibleOnWebsite(eb, POST_MODEL, eb.ref('posts.id'), param<number>('website'), { perRow: true }),
        );
    // Each branch is wrapped (select * from (…)): a member of a compound select may have no ORDER BY
    // or LIMIT of its own on SQLite, and needs parentheses on PostgreSQL.
    const wrap = (query: ReturnType<typeof branch>) => this.db.selectFrom(query.as('branch')).selectAll();
    // The bounds let the index start at the post (the OR alone would scan from the newest).
    const previous = branch('previous')
      .where('posts.published_at', 'is not', null)
      .where('posts.published_at', '<=', param<string>('upTo'))
      // A row value, not `a < x OR (a = x AND id < y)`: SQLite starts the index there for it (three
      // to four times faster on 2,000 posts); PostgreSQL too.
      .where((eb) => eb(eb.refTuple('posts.published_at', 'posts.id'), '<', eb.tuple(at, id)))
      .orderBy('posts.published_at', 'desc')
      .orderBy('posts.id', 'desc')
      .limit(1);
    const next = branch('next')
      .where('posts.published_at', '>=', at)
      .where('posts.published_at', '<=', param<string>('now'))
      .where((eb) => eb(eb.refTuple('posts.published_at', 'posts.id'), '>', eb.tuple(at, id)))
      .orderBy('posts.published_at', 'asc')
      .orderBy('posts.id', 'asc')
      .limit(1);
    let around = wrap(previous).unionAll(wrap(next));
    if (tags > 0) {
      const related = branch('related')
        .where('posts.published_at', 'is not', null)
        .where('posts.published_at', '<=', param<string>('now'))
        .where((eb) =>
          hasAnyTag(
            eb,
            Array.from({ length: tags }, (_, i) => param<number>(`tag:${i}`)),
          ),
        )
        .where('posts.id', '!=', id)
        .orderBy('posts.published_at', 'desc')
        .orderBy('posts.id', 'desc')
        .limit(param<number>('relatedLimit'));
      around = around.unionAll(wrap(related));
    }
    return this.db
      .selectFrom(around.as('around'))
      .leftJoin('translations', (join) =>
        join
          .onRef('translations.model_id', '=', 'around.id')
          .on('translations.model_type', '=', POST_MODEL)
          .on('translations.locale', '=', param<string>('locale'))
          .on('translations.field', '=', 'title'),
      )
      .select([
        'around.kind',
        'around.id',
        'around.title',
        'around.slug',
        'around.published_at',
        'translations.value as translated',
      ]);
  }

  /**
   * When the next post becomes public by its time alone (published, `published_at` still to come), or
   * null: a cached page must not outlive that moment.
   */
  async nextPublication(): Promise<string | null> {
    const row = await this.db
      .selectFrom('posts')
      .select((eb) => eb.fn.min('published_at').as('next'))
      .where('status', '=', 'published')
      .where('published_at', '>', nowIso(this.clock))
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row?.next ? toIso(row.next) : null;
  }

  /**
   * Slugs and last changes of the website's public posts, newest first (a sitemap), `limit` of them
   * from `offset`, or after the post a previous chunk ended with (keyset: a file is read in chunks
   * without skipping its start again for each). `next`: where this chunk ended.
   */
  async sitemap(
    websiteId: number,
    limit: number,
    from: number | SitemapPlace = 0,
  ): Promise<SitemapEntry[] & { next?: SitemapPlace }> {
    let query = this.live(websiteId, { perRow: true })
      .select(['posts.id', 'posts.slug', 'posts.published_at', 'posts.updated_at'])
      .orderBy('posts.published_at', 'desc')
      .orderBy('posts.id', 'desc')
      .limit(limit);
    if (typeof from === 'number') query = query.offset(from);
    else {
      const { publishedAt, id } = from;
      query = query.where((eb) =>
        eb.or([
          eb('posts.published_at', '<', publishedAt),
          eb.and([eb('posts.published_at', '=', publishedAt), eb('posts.id', '<', id)]),
        ]),
      );
    }
    const rows = await query.execute();
    const entries: SitemapEntry[] & { next?: SitemapPlace } = rows.map((row) => ({
      slug: row.slug,
      lastModified: toIso(row.updated_at),
    }));
    const last = rows[rows.length - 1];
    // The stored value itself (a Date on PostgreSQL, the stored text on SQLite) compares exactly.
    if (last?.published_at) entries.next = { publishedAt: last.published_at as string, id: last.id };
    return entries;
  }

  /** Published pages shown on the website (a sitemap), by id, `limit` from `offset`. */
  async sitemapPages(websiteId: number, limit: number, offset = 0): Promise<SitemapEntry[]> {
    const rows = await this.publishedPages(websiteId)
      .select(['pages.slug', 'pages.updated_at'])
      .orderBy('pages.id')
      .limit(limit)
      .offset(offset)
      .execute();
    return rows.map((row) => ({ slug: row.slug, lastModified: toIso(row.updated_at) }));
  }

  /** How many published pages the website shows (its pages' sitemap). */
  async countPages(websiteId: number): Promise<number> {
    const row = await this.publishedPages(websiteId)
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  private publishedPages(websiteId: number) {
    return this.db
      .selectFrom('pages')
      .where('pages.deleted_at', 'is', null)
      .where('pages.status', '=', 'published')
      .where((eb) => visibleOnWebsite(eb, PAGE_MODEL, eb.ref('pages.id'), websiteId));
  }

  /** How many tags of a type the website shows (a tags' sitemap). */
  async countTagsOfType(websiteId: number, type: string): Promise<number> {
    const row = await this.db
      .selectFrom('tags')
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .where('type', '=', type)
      .where((eb) => visibleOnWebsite(eb, TAG_MODEL, eb.ref('tags.id'), websiteId))
      .executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /** A tag of a type shown on the website, by slug, its name in the locale; null when there is none. */
  async findTag(websiteId: number, type: string, slug: string, locale: string) {
    const row = await this.db
      .selectFrom('tags')
      .select(['id', 'name', 'slug', 'type', 'description', 'parent_id', 'updated_at'])
      .where('type', '=', type)
      .where('slug', '=', slug)
      .where((eb) => visibleOnWebsite(eb, TAG_MODEL, eb.ref('tags.id'), websiteId))
      .executeTakeFirst();
    if (!row) return null;
    const names = await this.tagNames([row.id], locale);
    return {
      id: row.id,
      name: names.get(row.id) ?? row.name,
      slug: row.slug,
      type: row.type,
      description: row.description,
      parentId: row.parent_id,
    };
  }

  /** The tag and every tag below it in its type's tree (a category page shows its subcategories' posts). */
  async withDescendants(tagId: number, type: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('tags')
      .select(['id', 'parent_id'])
      .where('type', '=', type)
      .execute();
    const children = new Map<number, number[]>();
    for (const row of rows) {
      if (row.parent_id !== null)
        children.set(row.parent_id, [...(children.get(row.parent_id) ?? []), row.id]);
    }
    const result: number[] = [];
    const queue = [tagId];
    const seen = new Set<number>();
    while (queue.length > 0) {
      const id = queue.shift() as number;
      if (seen.has(id)) continue;
      seen.add(id);
      result.push(id);
      queue.push(...(children.get(id) ?? []));
    }
    return result;
  }

  /** Tags of a type shown on the website, sorted like the API's tree (sort desc, id asc), names in the locale. */
  async tagsOfType(websiteId: number, type: string, locale: string, limit = 50_000, offset = 0) {
    const rows = await this.db
      .selectFrom('tags')
      .select(['id', 'name', 'slug', 'type', 'parent_id', 'updated_at'])
      .where('type', '=', type)
      .where((eb) => visibleOnWebsite(eb, TAG_MODEL, eb.ref('tags.id'), websiteId))
      .orderBy('sort', 'desc')
      .orderBy('id', 'asc')
      .limit(limit)
      .offset(offset)
      .execute();
    const names = await this.tagNames(
      rows.map((row) => row.id),
      locale,
    );
    return rows.map((row) => ({
      id: row.id,
      name: names.get(row.id) ?? row.name,
      slug: row.slug,
      type: row.type,
      parentId: row.parent_id,
      lastModified: toIso(row.updated_at),
    }));
  }

  /** An active user by username, for `/user/{username}/posts`. */
  async findAuthor(username: string): Promise<PublicAuthor | null> {
    const row = await this.db
      .selectFrom('users')
      .select(['id', 'name', 'username'])
      .where('username', '=', username)
      .where('is_active', '=', true)
      .executeTakeFirst();
    return row ? { id: row.id, name: row.name, username: row.username } : null;
  }

  // ---- Helpers -------------------------------------------------------------------------------------

  /** Summaries of post rows: titles and excerpts in the locale, tags, in the rows' order. */
  /** Posts of rows in the locale; with search `terms`, each with its highlighted excerpt. */
  private async hydrate(
    rows: SummaryRow[],
    locale: string,
    terms?: readonly string[],
  ): Promise<PublicPost[]> {
    const ids = rows.map((row) => row.id);
    const wanted = normalizeLocale(locale);
    const thumbnails = [...new Set(rows.flatMap((row) => (row.thumbnail ? [row.thumbnail] : [])))];
    const [texts, tagRows, covers] = await Promise.all([
      ids.length === 0
        ? []
        : this.db
            .selectFrom('translations')
            .select(['model_id', 'field', 'value'])
            .where('model_type', '=', POST_MODEL)
            .where('model_id', 'in', ids)
            .where('locale', '=', wanted)
            .where('field', 'in', ['title', 'excerpt', 'content'])
            .execute(),
      ids.length === 0
        ? []
        : this.db
            .selectFrom('taggables')
            .innerJoin('tags', 'tags.id', 'taggables.tag_id')
            .select(['taggables.taggable_id as post_id', 'tags.id', 'tags.name', 'tags.slug', 'tags.type'])
            .where('taggables.taggable_type', '=', POST_MODEL)
            .where('taggables.taggable_id', 'in', ids)
            .orderBy('tags.type')
            .orderBy('tags.sort', 'desc')
            .orderBy('tags.id')
            .execute(),
      this.imagesByUrl(thumbnails),
    ]);
    const tagNames = await this.tagNames([...new Set(tagRows.map((row) => row.id))], locale);
    const text = (id: number, field: string) =>
      texts.find((t) => t.model_id === id && t.field === field && t.value !== '')?.value;
    return rows.map((row) => {
      const excerpt = text(row.id, 'excerpt') ?? row.excerpt ?? '';
      const title = text(row.id, 'title') ?? row.title;
      const found = terms
        ? {
            highlight: highlightExcerpt(
              [title, excerpt, plainText(text(row.id, 'content') ?? row.content ?? '')],
              terms,
            ),
          }
        : {};
      return {
        ...found,
        id: row.id,
        title,
        slug: row.slug,
        excerpt: excerpt.trim() !== '' ? excerpt : plainExcerpt(text(row.id, 'content') ?? row.content ?? ''),
        thumbnail: row.thumbnail,
        cover: (row.thumbnail && covers.get(row.thumbnail)) || null,
        publishedAt: toIso(row.published_at as Date | string),
        updatedAt: toIso(row.updated_at),
        author:
          row.author_id === null
            ? null
            : { id: row.author_id, name: row.author_name ?? '', username: row.author_username },
        tags: tagRows
          .filter((tag) => tag.post_id === row.id)
          .map((tag) => ({
            id: tag.id,
            name: tagNames.get(tag.id) ?? tag.name,
            slug: tag.slug,
            type: tag.type,
          })),
      };
    });
  }

  /**
   * The sizes of images of the media store, by URL (what a post's thumbnail or a website's cover holds):
   * the image and its copies (made once, when it was stored). External URLs have none.
   */
  async imagesByUrl(urls: string[]): Promise<Map<string, PublicCover>> {
    const covers = new Map<string, PublicCover>();
    if (urls.length === 0) return covers;
    const rows = await this.db
      .selectFrom('media')
      .select(['url', 'path', 'width', 'height', 'variants', 'size', 'mime_type'])
      .where('url', 'in', urls)
      .where('mime_type', 'like', 'image/%')
      .execute();
    for (const row of rows) {
      if (!row.width || !row.height) continue;
      const variants = parseVariants(row.variants)
        .flatMap((variant) =>
          variant.width && variant.height
            ? [{ path: variant.path, width: variant.width, height: variant.height }]
            : [],
        )
        .sort((a, b) => a.width - b.width);
      covers.set(row.url, {
        path: row.path,
        width: row.width,
        height: row.height,
        size: Number(row.size),
        mimeType: row.mime_type,
        variants,
      });
    }
    return covers;
  }

  /** Names of tags in the locale, where translated. */
  private async tagNames(ids: number[], locale: string): Promise<Map<number, string>> {
    const names = new Map<number, string>();
    if (ids.length === 0) return names;
    const rows = await this.db
      .selectFrom('translations')
      .select(['model_id', 'value'])
      .where('model_type', '=', TAG_MODEL)
      .where('model_id', 'in', ids)
      .where('field', '=', 'name')
      .where('locale', '=', normalizeLocale(locale))
      .execute();
    for (const row of rows) if (row.value !== '') names.set(row.model_id, row.value);
    return names;
  }
}

const SUMMARY_COLUMNS = [
  'posts.id',
  'posts.title',
  'posts.slug',
  'posts.excerpt',
  'posts.content',
  'posts.thumbnail',
  'posts.published_at',
  'posts.updated_at',
  'users.id as author_id',
  'users.name as author_name',
  'users.username as author_username',
] as const;

interface AroundRow {
  kind: string;
  id: number;
  title: string;
  slug: string;
  published_at: Date | string | null;
  translated: string | null;
}

/** A row of SUMMARY_COLUMNS: the post's columns, and its author's (left-joined: null without one). */
type SummaryRow = Pick<Selectable<PostsTable>, PostColumn<(typeof SUMMARY_COLUMNS)[number]>> & {
  author_id: number | null;
  author_name: string | null;
  author_username: string | null;
};
type PostColumn<Column> = Column extends `posts.${infer Name}` ? Name : never;
