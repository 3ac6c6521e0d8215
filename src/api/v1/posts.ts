// Posts API (spec 4.1). Routes parse input, call the posts service, and shape the response.
import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { Cache, CacheOptions, TagStamp } from '../../cache/cache.js';
import { memoized } from '../../cache/memo.js';
import { isCopyCurrent } from '../../cache/near-cache.js';
import {
  DEFAULT_POST_PAGE_SIZE,
  MAX_POST_PAGE_SIZE,
  POST_LIST_STATUSES,
  POST_READ_CACHE_TAGS,
  POST_STATUSES,
  PostInputError,
  SORTABLE_POST_FIELDS,
} from '../../domain/posts.js';
import type { Actor, PostDetail, PostListQuery, PostSummary, PostWrite } from '../../domain/posts.js';
import { MAX_SLUG_LENGTH } from '../../domain/slugs.js';
import { isValidLocale } from '../../domain/translations.js';
import type { Translatable } from '../../domain/translations.js';
import { currentWebsiteId } from '../../http/website-context.js';
import { UploadedFile } from '../../http/multipart.js';
import type { Services } from '../../services.js';
import { ApiError, success, successText, validationFailed } from './envelope.js';
import type { Json, JsonText } from './envelope.js';
import { requestInput } from './input.js';
import { paginate } from './pagination.js';
import type { ApiRouter } from './router.js';
import { boolean, integer, integerArray, isoDateTime, optional, validate } from './validation.js';

const listSchema = z.object({
  keywords: optional(z.string()),
  tags: optional(integerArray()),
  tag_type: optional(z.string().max(50)),
  excluded_post_ids: optional(integerArray()),
  status: optional(z.enum(POST_LIST_STATUSES)),
  sort: optional(z.enum(SORTABLE_POST_FIELDS)).default('created_at'),
  direction: optional(
    z.preprocess(
      (value) => (typeof value === 'string' ? value.toLowerCase() : value),
      z.enum(['asc', 'desc']),
    ),
  ).default('desc'),
  page_size: optional(integer()).default(DEFAULT_POST_PAGE_SIZE),
  page: optional(integer()).default(1),
  is_random: optional(boolean()).default(false),
});

const LIST_FIELDS = Object.keys(listSchema.shape);
type ListInput = z.output<typeof listSchema>;
/** Validated list inputs by the JSON of their fields: validation is a pure function of them. */
const listInputs = new Map<string, ListInput>();
const MAX_REMEMBERED_INPUTS = 500;

/**
 * validate(listSchema, raw), remembered for input that JSON states faithfully (query strings, JSON
 * and form bodies; never multipart, whose files JSON cannot tell apart). Only the schema's fields
 * make the key: the schema strips the others, and an api_token is never kept.
 */
function listInput(request: FastifyRequest): ListInput {
  const raw = requestInput(request);
  if (request.isMultipart()) return validate(listSchema, raw);
  const fields: Record<string, unknown> = {};
  for (const field of LIST_FIELDS) if (raw[field] !== undefined) fields[field] = raw[field];
  return memoized(listInputs, JSON.stringify(fields), MAX_REMEMBERED_INPUTS, () => validate(listSchema, raw));
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

// ---- Write input -----------------------------------------------------------------------------------

/**
 * A translatable text: a string, or a map of locale to text (rule 1). `required`: a blank string, or
 * a map without one non-blank value, is `field is required`.
 */
const translatable = (required: boolean) =>
  z.unknown().transform((value, ctx): Translatable => {
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message, input: value });
      return z.NEVER;
    };
    if (value === undefined || value === null) return fail('The :attribute field is required.');
    if (typeof value === 'string') {
      if (required && value.trim() === '') return fail('The :attribute field is required.');
      return value;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return fail('The :attribute must be a string.');
    }
    const map: Record<string, string> = {};
    for (const [locale, text] of Object.entries(value as Record<string, unknown>)) {
      if (!isValidLocale(locale))
        return fail(`The :attribute has an invalid locale: ${locale.slice(0, 20)}.`);
      if (text !== null && typeof text !== 'string') return fail('The :attribute must be a string.');
      map[locale] = text ?? '';
    }
    if (Object.keys(map).length === 0) return fail('The :attribute field is required.');
    if (required && Object.values(map).every((text) => text.trim() === '')) {
      return fail('The :attribute field is required.');
    }
    return map;
  });

/** Present and blank (`null` or `''`) means "clear it"; absent means "not sent". */
const nullable = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (value === '' ? null : value), schema.nullable().optional());

/** `website_id`: an integer, an array of them, or a comma-separated string (R-P8). */
const websiteIds = z.unknown().transform((value, ctx): number[] => {
  const items =
    typeof value === 'string'
      ? value.split(',').map((item) => item.trim())
      : Array.isArray(value)
        ? value
        : [value];
  const ids: number[] = [];
  for (const item of items) {
    const id =
      typeof item === 'number'
        ? item
        : typeof item === 'string' && /^\d{1,15}$/.test(item)
          ? Number(item)
          : NaN;
    if (!Number.isInteger(id) || id < 1) {
      ctx.addIssue({ code: 'custom', message: 'The selected :attribute is invalid.', input: value });
      return z.NEVER;
    }
    ids.push(id);
  }
  return ids;
});

const httpUrl = z
  .string()
  .trim()
  .max(2048)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'The :attribute format is invalid.' },
  );

function writeSchema(creating: boolean) {
  // On update a title or content that is sent must not be blank; absent leaves it unchanged.
  const text = creating ? translatable(true) : translatable(true).optional();
  return z.object({
    title: text,
    content: text,
    slug: optional(z.string().max(MAX_SLUG_LENGTH)),
    excerpt: nullable(translatable(false)),
    keywords: nullable(translatable(false)),
    thumbnail: z.unknown().optional(),
    thumbnail_url: nullable(httpUrl),
    author_id: optional(integer()),
    status: optional(z.enum(POST_STATUSES)),
    published_at: nullable(isoDateTime()),
    meta_title: nullable(z.string()),
    meta_description: nullable(z.string()),
    meta_keywords: nullable(z.string()),
    tags: optional(integerArray()),
    categories: optional(integerArray()),
    website_id: optional(websiteIds),
    localize_images: optional(boolean()),
  });
}

const createSchema = writeSchema(true);
const updateSchema = writeSchema(false);

/** The uploaded thumbnail; a thumbnail that is not a file is a 422 (its content is checked later). */
function thumbnailUpload(value: unknown): UploadedFile | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  // A form whose file input was left empty sends a nameless, empty file: nothing was uploaded.
  if (value instanceof UploadedFile && value.filename === '' && value.data.length === 0) return undefined;
  if (!(value instanceof UploadedFile) || value.data.length === 0) {
    throw validationFailed({ thumbnail: ['The thumbnail must be an image.'] });
  }
  return value;
}

function toWrite(input: z.output<typeof updateSchema>, upload: UploadedFile | undefined): PostWrite {
  return {
    title: input.title,
    content: input.content,
    excerpt: input.excerpt,
    keywords: input.keywords,
    slug: input.slug,
    status: input.status,
    publishedAt:
      input.published_at === undefined || input.published_at === null
        ? input.published_at
        : new Date(input.published_at.trim()).toISOString(),
    metaTitle: input.meta_title,
    metaDescription: input.meta_description,
    metaKeywords: input.meta_keywords,
    authorId: input.author_id,
    tags: input.tags,
    categories: input.categories,
    websiteIds: input.website_id,
    thumbnailUrl: input.thumbnail_url,
    thumbnailUpload: upload?.data,
    thumbnailTruncated: upload?.truncated,
    localizeImages: input.localize_images,
  };
}

function actorOf(request: FastifyRequest): Actor {
  return { userId: request.apiUser?.id ?? null, isAdmin: request.apiUser?.isAdmin ?? false };
}

const notFound = () => ApiError.fail(404, 'Post not found');

/** Domain rule failures are 422s like any validation error. */
async function orInputError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof PostInputError) throw validationFailed(error.errors);
    throw error;
  }
}

// ---- JSON ------------------------------------------------------------------------------------------

const postUrl = (baseUrl: string, slug: string) => `${baseUrl}/post/${encodeURIComponent(slug)}`;

/** The fields every post JSON starts with, in the order of R-P4. */
function postHeadJson(post: PostSummary | PostDetail) {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    content: post.content,
    thumbnail: post.thumbnail,
    status: post.status,
    published_at: post.publishedAt,
    author: post.author,
  };
}

/** A post as lists show it (R-P4). */
export function postListJson(post: PostSummary, baseUrl: string): Json {
  return {
    ...postHeadJson(post),
    tags: post.tags.map((tag) => ({ id: tag.id, name: tag.name, type: tag.type })),
    url: postUrl(baseUrl, post.slug),
    created_at: post.createdAt,
    updated_at: post.updatedAt,
  };
}

/** A post as show and create answer it (R-P4). */
export function postDetailJson(post: PostDetail, baseUrl: string): Json {
  return {
    ...postHeadJson(post),
    tags: post.tagList,
    categories: post.categories,
    url: postUrl(baseUrl, post.slug),
    meta_title: post.metaTitle,
    meta_description: post.metaDescription,
    meta_keywords: post.metaKeywords,
    translations: post.translations,
    created_at: post.createdAt,
    updated_at: post.updatedAt,
  };
}

// ---- Cached answers --------------------------------------------------------------------------------

/**
 * How long a cached list page or post may be served. Every change that could alter one flushes it
 * sooner (POST_READ_CACHE_TAGS); this bounds what a change made behind the services' back could do.
 */
const ANSWER_TTL_SECONDS = 60;

/** A page of the list as JSON text, with what its pagination needs. */
interface ListPage {
  /** The JSON text of the `data.data` array. */
  items: string;
  count: number;
  total: number;
}

/** A post as show answers it, as JSON text, with the status that decides who may see it. */
interface ShownPost {
  status: string;
  text: string;
}

/** How much answer text one process keeps (LocalAnswers), in bytes: text and its encoded answer. */
const LOCAL_ANSWERS_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Cached answers kept in this process. The shared cache (Redis on several nodes) holds only a token
 * per key, stamped with the tag versions like any entry, so flushes and expiry work as they do for
 * every entry, on every node. The answer itself stays here under the token it was made for: a request
 * reads the token (small), and uses the local answer only when it was made for that very token. A
 * token this process has no answer for (another node made it, or it was evicted here) gets one made
 * now: made after the token was read, it is at least as new as the token; a flush since then makes
 * the token unreadable, so the answer is never used again.
 *
 * Once a local answer's token has been read back with its stamp (the tag versions it was stored
 * under), the answer is used without asking the shared cache at all while the cache can tell without
 * I/O that the stamp is current (Cache.isCurrent: always in process; on Redis through its mirror of
 * the versions) and the token has not expired.
 */
export class LocalAnswers<T extends object> {
  private readonly entries: LRUCache<string, LocalAnswer<T>>;

  constructor(size: (value: T) => number) {
    this.entries = new LRUCache({
      maxSize: LOCAL_ANSWERS_MAX_BYTES,
      sizeCalculation: (entry) => Math.max(1, size(entry.value)),
    });
  }

  async remember(cache: Cache, key: string, options: CacheOptions, compute: () => Promise<T>): Promise<T>;
  async remember(
    cache: Cache,
    key: string,
    options: CacheOptions,
    compute: () => Promise<T | undefined>,
  ): Promise<T | undefined>;
  async remember(
    cache: Cache,
    key: string,
    options: CacheOptions,
    compute: () => Promise<T | undefined>,
  ): Promise<T | undefined> {
    const known = this.entries.get(key);
    if (known?.stamp && isCopyCurrent(cache, known.stamp, known.expires ?? -1)) return known.value;
    let made: T | undefined;
    const token = await cache.remember<string | undefined>(key, options, async () => {
      made = await compute();
      if (made === undefined) return undefined; // never cached: unknown names cannot fill the cache
      const fresh = randomUUID();
      this.entries.set(key, { token: fresh, value: made });
      return fresh;
    });
    if (token === undefined) return made;
    let value = made;
    if (value === undefined) {
      const local = this.entries.get(key);
      if (local?.token === token) value = local.value;
      else {
        value = await compute();
        if (value !== undefined) this.entries.set(key, { token, value });
      }
    }
    await this.learnStamp(cache, key, token);
    return value;
  }

  /** Reads back the stamp of the token this process holds the answer for (see above). */
  private async learnStamp(cache: Cache, key: string, token: string): Promise<void> {
    const entry = this.entries.get(key);
    if (!entry || entry.token !== token || entry.stamp) return;
    const stored = await cache.getStamped<string>(key);
    if (stored?.value === token && entry === this.entries.get(key)) {
      entry.stamp = stored.stamp;
      entry.expires = stored.expires;
    }
  }
}

interface LocalAnswer<T> {
  token: string;
  value: T;
  /** The tag versions the token was stored under, once read back. */
  stamp?: TagStamp;
  /** Epoch milliseconds when the token expires (0: never), with the stamp. */
  expires?: number;
}

/**
 * The bytes of the last answer made from a cached value, by what else went into it (the pagination
 * of a list page). LocalAnswers answers the same object until its entry changes, so a repeated
 * request reuses the bytes.
 */
const answers = new WeakMap<object, { variant: string; answer: JsonText }>();
function answerOf(owner: object, variant: string, build: () => JsonText): JsonText {
  let memo = answers.get(owner);
  if (memo?.variant !== variant) {
    memo = { variant, answer: build() };
    answers.set(owner, memo);
  }
  return memo.answer;
}

// ---- Routes ----------------------------------------------------------------------------------------

function slugParam(request: FastifyRequest): string {
  return String((request.params as { slug?: string }).slug ?? '');
}

export function registerPostRoutes(router: ApiRouter, services: Services): void {
  const { config } = services;
  const answerCache = { tags: POST_READ_CACHE_TAGS, ttlSeconds: ANSWER_TTL_SECONDS };
  // Answers hold post URLs: nodes sharing a cache with another APP_URL must not share them.
  const keyPrefix = `api:posts:${config.appUrl}:`;
  // Each string's text and, at most, its encoded answer (3 bytes per character in all, roughly).
  const listPages = new LocalAnswers<ListPage>((page) => page.items.length * 3);
  const shownPosts = new LocalAnswers<ShownPost>((post) => post.text.length * 3);

  /** A page of the list: the same for every caller who may ask for it (status is in the query). */
  async function listPage(query: PostListQuery): Promise<ListPage> {
    const compute = async (): Promise<ListPage> => {
      const result = await services.posts.list(query);
      return {
        items: JSON.stringify(result.items.map((post) => postListJson(post, config.appUrl))),
        count: result.items.length,
        total: result.total,
      };
    };
    const key = services.posts.listCacheKey(query);
    if (key === null) return compute();
    return listPages.remember(services.cache, `${keyPrefix}list:${key}`, answerCache, compute);
  }

  /** The post named by an id or slug, whatever its status; undefined when there is none. */
  async function shownPost(ref: string): Promise<ShownPost | undefined> {
    const compute = async (): Promise<ShownPost | undefined> => {
      const post = await services.posts.findDetailByRef(ref);
      return post
        ? { status: post.status, text: JSON.stringify(postDetailJson(post, config.appUrl)) }
        : undefined;
    };
    if (ref.length > MAX_SLUG_LENGTH) return compute();
    return shownPosts.remember(services.cache, `${keyPrefix}show:${ref}`, answerCache, compute);
  }

  router.route(['GET', 'POST'], '/posts', { switchKey: 'svc_api_posts_index' }, async (request) => {
    const input = listInput(request);
    // A caller without a user (a public list) sees published posts only.
    if (request.apiUser === null && input.status !== undefined && input.status !== 'published') {
      throw validationFailed({ status: ['The selected status is invalid.'] });
    }
    const page = Math.max(1, input.page);
    const pageSize = clamp(input.page_size, 1, MAX_POST_PAGE_SIZE);
    const result = await listPage({
      page,
      pageSize,
      sort: input.sort,
      direction: input.direction,
      websiteId: await currentWebsiteId(services, request),
      status: input.status,
      keywords: input.keywords === undefined ? undefined : input.keywords.split(','),
      tagIds: input.tags,
      tagType: input.tag_type,
      excludedIds: input.excluded_post_ids,
      random: input.is_random,
    });
    const pagination = paginate(request, page, pageSize, result.count, result.total);
    // The bytes of success(message, {data: items, pagination}), the items serialized once per page.
    const paginationText = JSON.stringify(pagination);
    return answerOf(result, paginationText, () =>
      successText('Successfully fetched posts', `{"data":${result.items},"pagination":${paginationText}}`),
    );
  });

  router.route(['POST'], '/posts/store', { switchKey: 'svc_api_posts_store' }, async (request) => {
    const raw = requestInput(request);
    const input = validate(createSchema, raw);
    const upload = thumbnailUpload(raw.thumbnail);
    const write = toWrite(input, upload);
    if (write.websiteIds === undefined) {
      // R-P8: none given, the website of the request's Host; none resolved, a global post.
      const current = await currentWebsiteId(services, request);
      if (current !== null) write.websiteIds = [current];
    }
    const post = await orInputError(() => services.posts.create(write, actorOf(request)));
    return success(`Post #${post.id} created successfully`, postDetailJson(post, config.appUrl));
  });

  router.route(['POST'], '/posts/update/:slug', { switchKey: 'svc_api_posts_update' }, async (request) => {
    const raw = requestInput(request);
    const input = validate(updateSchema, raw);
    const upload = thumbnailUpload(raw.thumbnail);
    const id = await services.posts.resolveId(slugParam(request));
    if (id === null) throw notFound();
    const post = await orInputError(() =>
      services.posts.update(id, toWrite(input, upload), actorOf(request)),
    );
    if (!post) throw notFound();
    return success(`Post #${post.id} updated successfully`, {
      id: post.id,
      title: post.title,
      slug: post.slug,
      status: post.status,
      updated_at: post.updatedAt,
    });
  });

  router.route(['POST'], '/posts/delete/:slug', { switchKey: 'svc_api_posts_delete' }, async (request) => {
    const id = await services.posts.resolveId(slugParam(request));
    if (id === null || !(await services.posts.delete(id))) throw notFound();
    return success('Post deleted successfully', null);
  });

  router.route(
    ['GET', 'POST'],
    '/posts/:slug',
    { switchKey: 'svc_api_posts_show' },
    async (request): Promise<JsonText> => {
      const post = await shownPost(slugParam(request));
      // A caller without a user (a public endpoint) sees published posts only.
      if (!post || (request.apiUser === null && post.status !== 'published')) throw notFound();
      return answerOf(post, '', () => successText('Successfully fetched post', post.text));
    },
  );
}
