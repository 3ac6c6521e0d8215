// The posts store: reads and writes of posts with their tags, translations and website bindings,
// each write in one transaction. It knows no actor and no permission: the operations beside it
// (create.ts, update.ts, …) ask the policy first, and every face calls the operations.
import type { ExpressionBuilder, Kysely } from 'kysely';
import { CompiledQueries, param } from '../../db/compiled.js';
import type { Cache } from '../../cache/cache.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Actor as PolicyActor } from '../policy.js';
import { nextVersion, nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import type { WebsiteBindings } from '../websites/bindings.js';
import { StaleWriteError, ValidationError } from '../errors.js';
import { isStorableId } from '../ids.js';
import { localizeImages } from './localize-images.js';
import { MediaUrlRelativizer } from '../media/urls.js';
import { ImageTooLargeError, NotAnImageError } from '../media/files.js';
import type { MediaService } from '../media/files.js';
import type { SafeFetcher } from '../safe-fetch.js';
import type { SettingsService } from '../system/settings.js';
import { randomSlug, slugify, uniqueSlug } from '../text/slugs.js';
import { likePattern } from '../text/text-match.js';
import { DEFAULT_LOCALE, splitTranslatable } from '../translations.js';
import type { Translatable, TranslationMap, TranslationsService } from '../translations.js';
import { toIso } from '../values.js';
import { WEBSITES_TAG } from '../websites/store.js';
import {
  COUNT_CACHE_TTL_SECONDS,
  POST_MODEL,
  POST_SETTINGS,
  POSTS_CACHE_TAG,
  DEFAULT_THUMBNAIL_MAX_KB,
  TRANSLATABLE_FIELDS,
} from './model.js';
import type {
  Page,
  PostDetail,
  PostListQuery,
  PostStatus,
  PostSummary,
  PostTag,
  PostWrite,
} from './model.js';
import { compactPostCounts, keptPostCount, publishedNotDue } from './counts.js';
import { detailQuery, listQueries, livePostsOn } from './queries.js';
import { boundable, candidatesParam, dialectOf, planTerms, rankQuery, readCandidates } from './search.js';
import type { DetailRow, ListRow, ListShape } from './queries.js';

/** Who writes, as the store needs it (the author of a new post; the owner of stored media). */
export type Actor = Pick<PolicyActor, 'userId' | 'isAdmin'>;

export interface PostsDependencies {
  translations: TranslationsService;
  bindings: WebsiteBindings;
  settings: SettingsService;
  media: MediaService;
  fetcher: SafeFetcher;
  cache: Cache;
  appUrl: string;
  warn?: (message: string) => void;
  /** Where keyword searches run: no index serves them (DatabaseHandle.longReads). Default: the db. */
  longReads?: Db;
}

/** The columns every post answer starts with, from a list or detail row. */
function summaryOf(row: ListRow | DetailRow) {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    excerpt: row.excerpt,
    content: row.content,
    thumbnail: row.thumbnail,
    status: row.status,
    publishedAt: toIso(row.published_at),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}

function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || /UNIQUE constraint failed/i.test(e?.message ?? '');
}

export class PostsService {
  /** The list's queries, compiled once per shape (see listQueries). */
  private readonly countQueries = new CompiledQueries<{ total: number | string | bigint }>();
  private readonly pageQueries = new CompiledQueries<ListRow>();
  private readonly detailQueries = new CompiledQueries<DetailRow>();
  private readonly tagQueries = new CompiledQueries<{
    post_id: number;
    id: number;
    name: string;
    type: string;
  }>();

  /** Absolute addresses of Folio's own media on APP_URL, made site-relative as they are stored. */
  private readonly mediaUrls: MediaUrlRelativizer;

  constructor(
    private readonly db: Db,
    protected readonly clock: Clock,
    private readonly deps: PostsDependencies,
  ) {
    this.mediaUrls = new MediaUrlRelativizer(deps.appUrl);
  }

  /**
   * A key naming the answer of list(query), for callers that cache what they make of it under
   * POST_READ_CACHE_TAGS; null when it must not be cached (random order, keyword searches).
   */
  listCacheKey(query: PostListQuery): string | null {
    if (query.random) return null;
    if ((query.keywords ?? []).some((term) => term.trim() !== '')) return null;
    const ids = (list: number[] | undefined) => [...new Set(list ?? [])].sort((a, b) => a - b);
    return JSON.stringify([
      query.viewer === undefined ? 'all' : query.viewer.userId,
      query.viewer?.editsWebsite === true,
      query.websiteId,
      query.status ?? 'published',
      query.timed === true,
      query.sort,
      query.direction,
      query.thenBy ?? [],
      query.page,
      query.pageSize,
      query.after ?? null,
      ids(query.tagIds),
      query.tagType || null,
      ids(query.excludedIds),
      query.authorId ?? null,
    ]);
  }

  async list(query: PostListQuery): Promise<Page<PostSummary>> {
    const status = query.status ?? 'published';
    const terms = (query.keywords ?? []).map((term) => term.trim()).filter((term) => term !== '');
    // Each term looked up in the search index as its kind says (domain/posts/search.ts).
    const planned = planTerms(dialectOf(this.db), terms);
    // Best match first (PostListQuery.relevance): what the index ranks by; null when nothing ranks.
    const ranking = query.relevance === true && !query.random ? rankQuery(dialectOf(this.db), terms) : null;
    // A bounded search (API v2, issue 40 #2): the newest matches, at most SEARCH_CANDIDATES, read from
    // the index first; the count, the rank (by title) and the page are then taken among them.
    const candidates =
      query.bounded === true && !query.random && boundable(planned)
        ? await readCandidates(this.db, dialectOf(this.db), planned, 'any', {
            patterns: terms.map(likePattern),
            mode: 'any',
          })
        : null;
    const totalExact = candidates === null ? undefined : !candidates.capped;
    if (candidates !== null && candidates.ids.length === 0) return { items: [], total: 0, totalExact };
    const candidatesValue = candidates === null ? '' : candidatesParam(candidates);
    const inTitleValue = candidates === null ? '' : candidatesParam(candidates, 'inTitle');
    const tagIds = query.tagIds ?? [];
    const excludedIds = query.excludedIds ?? [];
    const websiteId = query.websiteId;
    // The page's window: a cursor's page starts after it; a numbered page at its offset (see below).
    let limit = query.pageSize;
    let offset = query.after ? 0 : (query.page - 1) * query.pageSize;
    const now = query.viewer?.now ?? nowIso(this.clock);
    const timed = query.timed === true && (status === 'published' || status === 'scheduled') ? status : null;
    // The values of the Params of the list's compiled queries (see listQueries).
    const values = (name: string): unknown => {
      const [kind, index] = name.split(':') as [string, string | undefined];
      switch (kind) {
        case 'status':
          return status;
        case 'term':
          return planned[Number(index)]?.value ?? '';
        case 'tag':
          return tagIds[Number(index)];
        case 'tagType':
          return query.tagType;
        case 'excluded':
          return excludedIds[Number(index)];
        case 'author':
          return query.authorId;
        case 'website':
          return websiteId;
        case 'limit':
          return limit;
        case 'offset':
          return offset;
        case 'after':
          return index === 'id' ? query.after?.id : query.after?.value;
        case 'viewer':
          return query.viewer?.userId ?? 0; // no user has id 0: an anonymous viewer owns nothing
        case 'now':
          return now;
        case 'rank':
          return ranking;
        case 'candidates':
          return candidatesValue;
        case 'in_title':
          return inTitleValue;
        case 'title':
          return likePattern(terms[Number(index)] ?? '');
      }
      throw new Error(`posts list: no value for ${name}`);
    };
    const shape: ListShape = {
      anyStatus: status === 'any',
      timed,
      terms: planned.map((term) => term.kind),
      tags: tagIds.length,
      tagType: Boolean(query.tagType),
      excluded: excludedIds.length,
      author: query.authorId !== undefined,
      onWebsite: websiteId !== null,
      random: query.random === true,
      restricted: query.viewer !== undefined,
      edited: query.viewer?.editsWebsite === true && websiteId !== null,
      sort: query.sort,
      direction: query.direction,
      thenBy: query.thenBy ?? [],
      ranked: ranking !== null,
      candidates: candidates !== null,
      keyset: query.after !== undefined,
      reversed: false,
    };
    const shapeKey = JSON.stringify({ ...shape, keyset: false });
    // A search for a term no index serves reads every post's text: through `longReads`, off the event
    // loop on SQLite.
    const slow = planned.some((term) => term.slow);
    const db = (slow ? (this.deps.longReads ?? this.db) : this.db) as unknown as Kysely<never>;

    // The total is the one part of a page whose cost grows with the data (it counts every match), so
    // it is cached until the next post or website change, or a minute; keyword searches are not.
    // The counters answer the common lists (issue 26 #1); the count query the rest (see keptTotal).
    const count = async () => {
      const kept =
        terms.length === 0 ? await this.keptTotal(query, status, tagIds, excludedIds, timed, now) : null;
      if (kept !== null) return kept;
      const counting = this.countQueries.get(shapeKey, () => listQueries(this.db, shape).count);
      return Number((await counting.execute(db, values))[0]?.total ?? 0);
    };
    const countKey = JSON.stringify([
      // 'all' for an administrator: a visitor's viewer (userId null) must not share their count.
      query.viewer === undefined ? 'all' : query.viewer.userId,
      query.viewer?.editsWebsite === true,
      query.websiteId,
      status,
      timed !== null,
      [...tagIds].sort((a, b) => a - b),
      query.tagType ?? null,
      [...excludedIds].sort((a, b) => a - b),
      query.authorId ?? null,
    ]);
    // A bounded search's first page of rows carries the count of every candidate shown (one read of
    // the candidates for both, listQueries): the count query runs only when that page is empty.
    const readPage = () =>
      this.pageQueries.get(JSON.stringify(shape), () => listQueries(this.db, shape).page).execute(db, values);
    let rows = candidates !== null && !shape.keyset ? await readPage() : null;
    const total =
      rows !== null && rows.length > 0
        ? Number((rows[0] as ListRow & { total: number | string }).total)
        : terms.length > 0
          ? await count()
          : await this.deps.cache.remember(
              `posts:count:${countKey}`,
              { tags: [POSTS_CACHE_TAG, WEBSITES_TAG], ttlSeconds: COUNT_CACHE_TTL_SECONDS },
              count,
            );
    if (total === 0 && candidates?.capped !== true) return { items: [], total, totalExact };
    // Capped candidates that do not fill the page asked for: the newest matches were mostly posts
    // this list does not show (another website's, drafts, another author's), so the page is read
    // among every match instead, exactly (the cost of an unbounded search, but no result is lost).
    // A cursor's page is read so too: its window may run past the candidates.
    if (candidates?.capped === true && (query.after !== undefined || total < offset + limit)) {
      return { ...(await this.list({ ...query, bounded: false })), totalExact: true };
    }

    // A numbered page past the middle is read from the far end (see ListShape.reversed), with a total
    // fresh from the counters (a cached one may lag a change made behind the operations' back, or a
    // post whose time came): the deepest page costs what the first does.
    if (!shape.keyset && !shape.random && offset * 2 > total && terms.length === 0) {
      const fresh = await this.keptTotal(query, status, tagIds, excludedIds, timed, now);
      if (fresh !== null && offset < fresh && offset * 2 > fresh) {
        shape.reversed = true;
        limit = Math.min(query.pageSize, fresh - offset);
        offset = fresh - offset - limit;
      }
    }
    rows ??= await readPage();
    const ids = rows.map((row) => row.id);
    // The websites each post is on: what the policy decides on (API v2's `can`, issue 34 #19).
    const [tagsByPost, websitesByPost] = await Promise.all([
      this.tagsOf(ids),
      this.deps.bindings.websitesOf(POST_MODEL, ids),
    ]);
    const items = rows.map((row) => ({
      ...summaryOf(row),
      author: row.author_id === null ? null : { id: row.author_id, name: row.author_name ?? '' },
      tags: tagsByPost.get(row.id) ?? [],
      websiteIds: websitesByPost.get(row.id) ?? [],
    }));
    return totalExact === undefined ? { items, total } : { items, total, totalExact };
  }

  /**
   * The list's total from the post counters, or null when they cannot tell it: several tags (posts
   * having any of them overlap), a tag type, excluded ids, or a viewer who sees their own posts or
   * their website's besides the public ones. An anonymous viewer's list is the published posts minus
   * those whose time has not come (a read of the due index); so is a timed `published` list, and a
   * timed `scheduled` list is the scheduled posts plus those.
   */
  private async keptTotal(
    query: PostListQuery,
    status: string,
    tagIds: number[],
    excludedIds: number[],
    timed: 'published' | 'scheduled' | null,
    now: string,
  ): Promise<number | null> {
    const tags = [...new Set(tagIds)];
    if (excludedIds.length > 0 || tags.length > 1 || query.tagType || query.authorId !== undefined)
      return null;
    const scope = { tagId: tags[0], websiteId: query.websiteId, status: status === 'any' ? null : status };
    const viewer = query.viewer;
    const notDue = () => publishedNotDue(this.db, scope, now, { nullIsDue: true });
    if (viewer === undefined) {
      if (timed === 'published') return (await keptPostCount(this.db, scope)) - (await notDue());
      if (timed === 'scheduled') return (await keptPostCount(this.db, scope)) + (await notDue());
      return keptPostCount(this.db, scope);
    }
    if (viewer.userId !== null || viewer.editsWebsite === true) return null;
    if (status !== 'published' && status !== 'any') return null;
    const published = await keptPostCount(this.db, { ...scope, status: 'published' });
    return published - (await notDue());
  }

  /** The tags of many posts in one query (no N+1), in a stable order. */
  private async tagsOf(postIds: number[]): Promise<Map<number, PostTag[]>> {
    const byPost = new Map<number, PostTag[]>();
    if (postIds.length === 0) return byPost;
    const query = this.tagQueries.get(String(postIds.length), () =>
      this.db
        .selectFrom('taggables')
        .innerJoin('tags', 'tags.id', 'taggables.tag_id')
        .select(['taggables.taggable_id as post_id', 'tags.id', 'tags.name', 'tags.type'])
        .where('taggables.taggable_type', '=', POST_MODEL)
        .where(
          'taggables.taggable_id',
          'in',
          postIds.map((_, i) => param<number>(`${i}`)),
        )
        .orderBy('tags.id'),
    );
    const rows = await query.execute(this.db as unknown as Kysely<never>, (name) => postIds[Number(name)]);
    for (const row of rows) {
      const list = byPost.get(row.post_id) ?? [];
      list.push({ id: row.id, name: row.name, type: row.type });
      byPost.set(row.post_id, list);
    }
    return byPost;
  }

  // ---- One post ------------------------------------------------------------------------------------

  /** The id of a live post named by a numeric id (tried first) or a slug (R-P6), or null. */
  async resolveId(ref: string): Promise<number | null> {
    const live = this.db
      .selectFrom('posts')
      .select('id')
      .where('deleted_at', 'is', null)
      .where('type', '=', POST_MODEL);
    // An id beyond the column's range cannot exist (and PostgreSQL would fail on it): a slug then.
    if (/^\d{1,15}$/.test(ref) && isStorableId(Number(ref))) {
      const byId = await live.where('id', '=', Number(ref)).executeTakeFirst();
      if (byId) return byId.id;
    }
    const bySlug = await live.where('slug', '=', ref).executeTakeFirst();
    return bySlug?.id ?? null;
  }

  /** A live post with everything show and create answer (R-P4), or null. */
  /**
   * A writer's own posts shown on a website (bound to it, or global), every status, the most
   * recently changed first: the "Your posts" list of their profile.
   */
  async recentOf(
    authorId: number,
    websiteId: number,
    limit: number,
  ): Promise<Array<{ id: number; title: string; slug: string; status: string; updatedAt: string }>> {
    const rows = await livePostsOn(this.db, websiteId)
      .select(['posts.id', 'posts.title', 'posts.slug', 'posts.status', 'posts.updated_at'])
      .where('posts.author_id', '=', authorId)
      .orderBy('posts.updated_at', 'desc')
      .orderBy('posts.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      title: row.title,
      slug: row.slug,
      status: row.status,
      updatedAt: toIso(row.updated_at),
    }));
  }

  async findDetail(id: number): Promise<PostDetail | null> {
    return this.detailOf(await this.detailRow('posts.id', id));
  }

  /**
   * findDetail(resolveId(ref)) without the separate lookup: the post row is read by id (when the
   * reference is numeric, tried first) or by slug (R-P6) directly.
   */
  async findDetailByRef(ref: string): Promise<PostDetail | null> {
    const id = /^\d{1,15}$/.test(ref) ? Number(ref) : null;
    const byId = id !== null && isStorableId(id) ? await this.detailRow('posts.id', id) : undefined;
    return this.detailOf(byId ?? (await this.detailRow('posts.slug', ref)));
  }

  private async detailRow(column: 'posts.id' | 'posts.slug', value: number | string) {
    const query = this.detailQueries.get(column, () => detailQuery(this.db, column));
    return (await query.execute(this.db as unknown as Kysely<never>, () => value))[0];
  }

  private async detailOf(row: DetailRow | undefined): Promise<PostDetail | null> {
    if (!row) return null;
    const id = row.id;
    const [tags, translations, websites] = await Promise.all([
      this.tagsOf([id]),
      this.deps.translations.forModels(POST_MODEL, [id]),
      this.deps.bindings.websitesOf(POST_MODEL, [id]),
    ]);
    const postTags = tags.get(id) ?? [];
    return {
      ...summaryOf(row),
      author:
        row.author_id === null
          ? null
          : { id: row.author_id, name: row.author_name ?? '', email: row.author_email ?? '' },
      tags: postTags,
      tagList: postTags.filter((tag) => tag.type === 'post_tag').map(({ id, name }) => ({ id, name })),
      categories: postTags
        .filter((tag) => tag.type === 'post_category')
        .map(({ id, name }) => ({ id, name })),
      keywords: row.keywords,
      metaTitle: row.meta_title,
      metaDescription: row.meta_description,
      metaKeywords: row.meta_keywords,
      translations: translations.get(id) ?? {},
      websiteIds: websites.get(id) ?? [],
    };
  }

  /** Creates a post with its tags, translations and website bindings in one transaction. */
  async create(input: PostWrite, actor: Actor): Promise<PostDetail> {
    if (input.title === undefined || input.content === undefined) {
      throw new ValidationError({
        ...(input.title === undefined ? { title: ['The title field is required.'] } : {}),
        ...(input.content === undefined ? { content: ['The content field is required.'] } : {}),
      });
    }
    const locale = await this.defaultLocale();
    const title = splitTranslatable(input.title, locale);
    const status = input.status ?? 'published';
    const errors = await this.check(input, actor);
    if (status === 'scheduled' && !input.publishedAt) {
      errors.published_at = ['The published at field is required when status is scheduled.'];
    }
    const slug = await this.requestedSlug(input.slug, null, errors);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);

    const now = nowIso(this.clock);
    const thumbnail = await this.thumbnailOf(input, actor);
    const content = await this.maybeLocalize(this.contentToStore(input.content, locale), input, actor);
    const excerpt = input.excerpt == null ? null : splitTranslatable(input.excerpt, locale);
    const keywords = input.keywords == null ? null : splitTranslatable(input.keywords, locale);
    const publishedAt = input.publishedAt != null ? input.publishedAt : status === 'published' ? now : null;

    for (let attempt = 1; ; attempt++) {
      // A generated slug always succeeds (issue 21 #15): parallel creates of one title all find the
      // same first free candidate, so after a few collisions the candidate gets a random suffix.
      const generated = async () => {
        const free = await uniqueSlug(slugify(title.base), (c) => this.takenSlugs(c));
        return attempt <= 3 ? free : `${free}-${randomSlug().slice(0, 6)}`;
      };
      const finalSlug = slug ?? (await generated());
      try {
        const id = await this.db.transaction().execute(async (trx) => {
          const row = await trx
            .insertInto('posts')
            .values({
              type: POST_MODEL,
              author_id: input.authorId ?? actor.userId,
              title: title.base,
              slug: finalSlug,
              excerpt: excerpt?.base ?? null,
              content: content.base,
              keywords: keywords?.base ?? null,
              thumbnail: thumbnail ?? null,
              status,
              published_at: publishedAt,
              meta_title: input.metaTitle ?? null,
              meta_description: input.metaDescription ?? null,
              meta_keywords: input.metaKeywords ?? null,
              created_at: now,
              updated_at: now,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          await this.writeRelations(trx, row.id, input, {
            title,
            content,
            excerpt: excerpt ?? undefined,
            keywords: keywords ?? undefined,
          });
          return row.id;
        });
        const post = await this.findDetail(id);
        if (!post) throw new Error(`post ${id} vanished after create`);
        return post;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Another request took the slug between our check and our insert.
        if (slug !== undefined) throw new ValidationError({ slug: ['The slug has already been taken.'] });
        if (attempt >= 10) throw error;
      }
    }
  }

  /** Changes only the fields sent (R-P6); returns the post, or null when there is none. */
  async update(id: number, input: PostWrite, actor: Actor): Promise<PostDetail | null> {
    const current = await this.db
      .selectFrom('posts')
      .select(['id', 'status', 'published_at', 'updated_at'])
      .where('id', '=', id)
      .where('type', '=', POST_MODEL)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!current) return null;
    const locale = await this.defaultLocale();
    const errors = await this.check(input, actor);
    const status = input.status ?? (current.status as PostStatus);
    const publishedAtBefore = toIso(current.published_at);
    const publishedAtAfter = input.publishedAt !== undefined ? input.publishedAt : publishedAtBefore;
    if (status === 'scheduled' && !publishedAtAfter) {
      errors.published_at = ['The published at field is required when status is scheduled.'];
    }
    const slug = await this.requestedSlug(input.slug, id, errors);
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);

    const now = nextVersion(this.clock, current.updated_at);
    const thumbnail = await this.thumbnailOf(input, actor);
    const title = input.title === undefined ? undefined : splitTranslatable(input.title, locale);
    const content =
      input.content === undefined
        ? undefined
        : await this.maybeLocalize(this.contentToStore(input.content, locale), input, actor);
    const excerpt = input.excerpt == null ? input.excerpt : splitTranslatable(input.excerpt, locale);
    const keywords = input.keywords == null ? input.keywords : splitTranslatable(input.keywords, locale);

    const changes: Record<string, unknown> = { updated_at: now };
    if (title) changes.title = title.base;
    if (content) changes.content = content.base;
    if (excerpt !== undefined) changes.excerpt = excerpt?.base ?? null;
    if (keywords !== undefined) changes.keywords = keywords?.base ?? null;
    if (slug !== undefined) changes.slug = slug;
    if (input.status !== undefined) changes.status = input.status;
    if (input.publishedAt !== undefined) changes.published_at = input.publishedAt;
    if (status === 'published' && !publishedAtAfter) changes.published_at = now;
    if (input.metaTitle !== undefined) changes.meta_title = input.metaTitle;
    if (input.metaDescription !== undefined) changes.meta_description = input.metaDescription;
    if (input.metaKeywords !== undefined) changes.meta_keywords = input.metaKeywords;
    if (input.authorId !== undefined) changes.author_id = input.authorId;
    if (thumbnail !== undefined) changes.thumbnail = thumbnail;

    try {
      await this.db.transaction().execute(async (trx) => {
        let update = trx
          .updateTable('posts')
          .set(changes)
          .where('id', '=', id)
          .where('deleted_at', 'is', null);
        if (input.ifUpdatedAt !== undefined) update = update.where('updated_at', '=', input.ifUpdatedAt);
        const updated = await update.executeTakeFirst();
        // Changed since the writer read it: nothing of this write is kept (the transaction rolls back).
        if (input.ifUpdatedAt !== undefined && Number(updated.numUpdatedRows) === 0) {
          throw new StaleWriteError();
        }
        await this.writeRelations(trx, id, input, {
          title,
          content,
          excerpt: excerpt ?? undefined,
          keywords: keywords ?? undefined,
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ValidationError({ slug: ['The slug has already been taken.'] });
      throw error;
    }
    return this.findDetail(id);
  }

  /**
   * Soft delete (R-P7): the post disappears everywhere and its slug is free again. With `ifUpdatedAt`,
   * only while the post is at that version (false otherwise).
   */
  async delete(id: number, ifUpdatedAt?: string): Promise<boolean> {
    let update = this.db
      .updateTable('posts')
      .set({ deleted_at: nowIso(this.clock), updated_at: nowIso(this.clock) })
      .where('id', '=', id)
      .where('type', '=', POST_MODEL)
      .where('deleted_at', 'is', null);
    if (ifUpdatedAt !== undefined) update = update.where('updated_at', '=', ifUpdatedAt);
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Publishes every scheduled post whose time has come. One conditional UPDATE: when several app
   * nodes run it at once, each post changes (and is reported) exactly once.
   */
  async publishDue(): Promise<number[]> {
    const now = nowIso(this.clock);
    const rows = await this.db
      .updateTable('posts')
      .set({ status: 'published', updated_at: now })
      .where('status', '=', 'scheduled')
      .where('published_at', 'is not', null)
      .where('published_at', '<=', now)
      .where('deleted_at', 'is', null)
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /** Folds the post counters' delta rows (see compactPostCounts); the scheduler runs it. */
  async compactCounts(): Promise<void> {
    await compactPostCounts(this.db);
  }

  // ---- Helpers -------------------------------------------------------------------------------------

  private async defaultLocale(): Promise<string> {
    return (await this.deps.settings.get(POST_SETTINGS.defaultLocale))?.trim() || DEFAULT_LOCALE;
  }

  /** Rules that need the database: tags, categories, author and websites exist; the thumbnail. */
  private async check(input: PostWrite, actor: Actor): Promise<Record<string, string[]>> {
    const errors: Record<string, string[]> = {};
    for (const field of ['tags', 'categories'] as const) {
      const ids = input[field];
      if (!ids || ids.length === 0) continue;
      // Ids beyond the column's range cannot exist (and PostgreSQL would refuse them in the query).
      const storable = [...new Set(ids)].filter(isStorableId);
      const found = new Set(
        storable.length === 0
          ? []
          : (await this.db.selectFrom('tags').select('id').where('id', 'in', storable).execute()).map(
              (row) => row.id,
            ),
      );
      ids.forEach((tagId, index) => {
        if (!found.has(tagId)) errors[`${field}.${index}`] = [`The selected ${field}.${index} is invalid.`];
      });
    }
    if (input.authorId !== undefined) {
      const author = isStorableId(input.authorId)
        ? await this.db.selectFrom('users').select('id').where('id', '=', input.authorId).executeTakeFirst()
        : undefined;
      // Whom the actor may name is the policy's (the operation asks it: R-P5, issue 34 #13); a write
      // made without asking it names only its actor. An unknown user (or an id beyond the column's
      // range) is invalid for everybody.
      const allowed = input.authorAllowed ?? (actor.userId !== null && actor.userId === input.authorId);
      if (!author || !allowed) errors.author_id = ['The selected author id is invalid.'];
    }
    if (input.websiteIds && input.websiteIds.length > 0) {
      const existing = await this.deps.bindings.existing(input.websiteIds);
      if (existing.length !== new Set(input.websiteIds).size) {
        errors.website_id = ['The selected website id is invalid.'];
      }
    }
    if (input.thumbnailUpload) {
      const maxKb =
        Number(await this.deps.settings.get(POST_SETTINGS.thumbnailMaxKb)) || DEFAULT_THUMBNAIL_MAX_KB;
      if (input.thumbnailTruncated || input.thumbnailUpload.length > maxKb * 1024) {
        errors.thumbnail = [`The thumbnail may not be greater than ${maxKb} kilobytes.`];
      } else {
        try {
          await this.deps.media.inspect(input.thumbnailUpload);
        } catch (error) {
          if (error instanceof ImageTooLargeError)
            errors.thumbnail = ['The thumbnail has invalid image dimensions.'];
          else if (error instanceof NotAnImageError) errors.thumbnail = ['The thumbnail must be an image.'];
          else throw error;
        }
      }
    }
    return errors;
  }

  /** The thumbnail to store: the uploaded image's URL, else the external URL; undefined: unchanged. */
  private async thumbnailOf(input: PostWrite, actor: Actor): Promise<string | null | undefined> {
    if (input.thumbnailUpload) {
      const stored = await this.deps.media.storeImage(input.thumbnailUpload, {
        userId: actor.userId,
        toWebp: await this.deps.settings.flag(POST_SETTINGS.convertToWebp, false),
      });
      return stored.url;
    }
    // Folio's own image by an absolute URL on APP_URL: kept by its site-relative address (issue 36 #5).
    return input.thumbnailUrl == null ? input.thumbnailUrl : this.mediaUrls.url(input.thumbnailUrl);
  }

  /**
   * A write's content by locale, Folio's own images by their site-relative address: absolute URLs on
   * APP_URL (pasted from a page, an older panel) are stored as `/media/…` (issue 36 #5).
   */
  private contentToStore(
    content: Translatable,
    locale: string,
  ): { base: string; translations: Record<string, string> } {
    const { base, translations } = splitTranslatable(content, locale);
    return {
      base: this.mediaUrls.html(base),
      translations: Object.fromEntries(
        Object.entries(translations).map(([code, html]) => [code, this.mediaUrls.html(html)]),
      ),
    };
  }

  /** Whether a write downloads its content's external images (localize_images). */
  async localizes(input: PostWrite): Promise<boolean> {
    if (input.content === undefined) return false;
    return input.localizeImages ?? (await this.deps.settings.flag(POST_SETTINGS.localizeImages, false));
  }

  /**
   * Downloads the content's external images into the media library and points the content at them
   * (the operations call it before their transaction: it takes seconds). The write is marked done.
   */
  async localizeContent(input: PostWrite, actor: Actor): Promise<void> {
    if (input.content === undefined || !(await this.localizes(input))) return;
    const content = input.content;
    const split =
      typeof content === 'string' ? { base: content, translations: {} } : { base: '', translations: content };
    const localized = await this.maybeLocalize(split, { ...input, localizeImages: true }, actor);
    input.content = typeof content === 'string' ? localized.base : localized.translations;
    input.localizeImages = false;
  }

  private async maybeLocalize(
    content: { base: string; translations: Record<string, string> },
    input: PostWrite,
    actor: Actor,
  ): Promise<{ base: string; translations: Record<string, string> }> {
    const wanted =
      input.localizeImages ?? (await this.deps.settings.flag(POST_SETTINGS.localizeImages, false));
    if (!wanted) return content;
    const options = {
      fetcher: this.deps.fetcher,
      media: this.deps.media,
      userId: actor.userId,
      toWebp: await this.deps.settings.flag(POST_SETTINGS.convertToWebp, false),
      appUrl: this.deps.appUrl,
      onFailure: (url: string, reason: string) =>
        this.deps.warn?.(`localize_images: ${url} left as it was: ${reason}`),
    };
    const base = (await localizeImages(content.base, options)).html;
    const translations: Record<string, string> = {};
    for (const [locale, html] of Object.entries(content.translations)) {
      translations[locale] = html === '' ? html : (await localizeImages(html, options)).html;
    }
    return { base, translations };
  }

  /** Tags, translations and website bindings of a post, inside the caller's transaction. */
  private async writeRelations(
    trx: Db,
    postId: number,
    input: PostWrite,
    texts: Partial<Record<(typeof TRANSLATABLE_FIELDS)[number], { translations: Record<string, string> }>>,
  ): Promise<void> {
    for (const field of TRANSLATABLE_FIELDS) {
      const value = texts[field];
      if (value && Object.keys(value.translations).length > 0) {
        await this.deps.translations.save(trx, POST_MODEL, postId, field, value.translations);
      }
    }
    await this.replaceTags(trx, postId, input.tags, input.categories);
    if (input.websiteIds !== undefined) {
      await this.deps.bindings.sync(trx, POST_MODEL, postId, input.websiteIds);
    }
  }

  /**
   * `categories` replace the post's `post_category` tags; `tags` replace all its other tags. A list
   * that was not sent leaves its part alone.
   */
  private async replaceTags(
    trx: Db,
    postId: number,
    tags: number[] | undefined,
    categories: number[] | undefined,
  ): Promise<void> {
    if (tags === undefined && categories === undefined) return;
    const categoryTags = (eb: ExpressionBuilder<Database, 'taggables'>) =>
      eb.selectFrom('tags').select('tags.id').where('tags.type', '=', 'post_category');
    let removal = trx
      .deleteFrom('taggables')
      .where('taggable_type', '=', POST_MODEL)
      .where('taggable_id', '=', postId);
    if (tags === undefined) removal = removal.where('tag_id', 'in', categoryTags);
    else if (categories === undefined) removal = removal.where('tag_id', 'not in', categoryTags);
    await removal.execute();
    const wanted = [...new Set([...(tags ?? []), ...(categories ?? [])])];
    if (wanted.length === 0) return;
    await trx
      .insertInto('taggables')
      .values(wanted.map((tagId) => ({ tag_id: tagId, taggable_type: POST_MODEL, taggable_id: postId })))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  private async takenSlugs(candidates: string[]): Promise<Set<string>> {
    const rows = await this.db
      .selectFrom('posts')
      .select('slug')
      .where('type', '=', POST_MODEL)
      .where('deleted_at', 'is', null)
      .where('slug', 'in', candidates)
      .execute();
    return new Set(rows.map((row) => row.slug));
  }

  /** Every translation of these posts, `id -> { field: { locale: text } }` (one query). */
  translationsOf(ids: readonly number[]): Promise<Map<number, TranslationMap>> {
    return this.deps.translations.forModels(POST_MODEL, ids);
  }

  /**
   * How a slug would be taken for a post (`exceptId`: the post being edited): normalized, whether it
   * is free, and the first free one after it when not (what a create would pick).
   */
  async slugCheck(
    raw: string,
    exceptId: number | null,
  ): Promise<{ slug: string; available: boolean; suggestion: string }> {
    const slug = slugify(raw);
    if (slug === '') return { slug, available: false, suggestion: randomSlug() };
    if (!(await this.slugTaken(slug, exceptId))) return { slug, available: true, suggestion: slug };
    return { slug, available: false, suggestion: await uniqueSlug(slug, (c) => this.takenSlugs(c)) };
  }

  /** The slug the input asks for, normalized (undefined when none); its errors are added to `errors`. */
  private async requestedSlug(
    raw: string | undefined,
    exceptId: number | null,
    errors: Record<string, string[]>,
  ): Promise<string | undefined> {
    if (raw === undefined) return undefined;
    const slug = slugify(raw);
    if (slug === '') errors.slug = ['The slug format is invalid.'];
    else if (await this.slugTaken(slug, exceptId)) errors.slug = ['The slug has already been taken.'];
    return slug;
  }

  private async slugTaken(slug: string, exceptId: number | null): Promise<boolean> {
    let query = this.db
      .selectFrom('posts')
      .select('id')
      .where('type', '=', POST_MODEL)
      .where('deleted_at', 'is', null)
      .where('slug', '=', slug);
    if (exceptId !== null) query = query.where('id', '!=', exceptId);
    return (await query.executeTakeFirst()) !== undefined;
  }
}
