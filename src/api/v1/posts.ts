// Posts API (spec 4.1): a face over the posts operations (src/domain/posts/). A route turns the
// request into (actor, input), calls one operation, and shapes the answer in the spec's envelope;
// permissions, validation and caching are the operations' (domain errors become envelopes in
// errors.ts, once for the whole API).
import type { FastifyRequest } from 'fastify';
import type { AnswerView, ListPostsInput, Page, PostDetail, PostSummary } from '../../domain/posts/index.js';
import { LIST_FIELDS } from '../../domain/posts/index.js';
import { absoluteMediaIn, absoluteMediaUrl } from '../../domain/media/urls.js';
import type { TranslationMap } from '../../domain/translations.js';
import type { FaceServices } from '../../services.js';
import { hasMultipartBody } from '../../http/multipart.js';
import { memoized } from '../../lib/memo.js';
import { actorOf } from './actor.js';
import { JsonText, success, successText } from './envelope.js';
import type { Json } from './envelope.js';
import { requestInput } from './input.js';
import { paginate } from './pagination.js';
import type { ApiRouter } from './router.js';

/** Parsed list inputs by the JSON of their fields: parsing is a pure function of them. */
const listInputs = new Map<string, ListPostsInput>();
const MAX_REMEMBERED_INPUTS = 500;
/** Inputs longer than this are parsed every time, never remembered (they would fill the memo). */
const MAX_REMEMBERED_INPUT_LENGTH = 512;

/**
 * The list's parsed input, remembered for small input that JSON states faithfully (query strings, JSON
 * and form bodies; never multipart, whose files JSON cannot tell apart). Only the schema's fields make
 * the key: the schema strips the others, and an api_token is never kept.
 */
function listInput(services: FaceServices, request: FastifyRequest): ListPostsInput {
  const raw = requestInput(request);
  if (hasMultipartBody(request)) return services.postOps.parseList(raw);
  const fields: Record<string, unknown> = {};
  for (const field of LIST_FIELDS) if (raw[field] !== undefined) fields[field] = raw[field];
  const key = JSON.stringify(fields);
  if (key.length > MAX_REMEMBERED_INPUT_LENGTH) return services.postOps.parseList(raw);
  return memoized(listInputs, key, MAX_REMEMBERED_INPUTS, () => services.postOps.parseList(raw));
}

// ---- JSON ------------------------------------------------------------------------------------------

/** Translations whose content has its `/media/…` addresses absolute on `baseUrl`. */
function withAbsoluteMedia(translations: TranslationMap, baseUrl: string): TranslationMap {
  const content = translations.content;
  if (!content) return translations;
  const absolute: Record<string, string> = {};
  for (const [locale, html] of Object.entries(content)) absolute[locale] = absoluteMediaIn(html, baseUrl);
  return { ...translations, content: absolute };
}

const postUrl = (baseUrl: string, slug: string) => `${baseUrl}/post/${encodeURIComponent(slug)}`;

/**
 * The fields every post JSON starts with, in the order of R-P4. Folio's own images are stored by
 * their site-relative address (issue 36 #5): an API client gets them absolute, on `baseUrl`.
 */
function postHeadJson(post: PostSummary | PostDetail, baseUrl: string) {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    content: absoluteMediaIn(post.content, baseUrl),
    thumbnail: absoluteMediaUrl(post.thumbnail, baseUrl),
    status: post.status,
    published_at: post.publishedAt,
    author: post.author,
  };
}

/** A post as lists show it (R-P4). */
export function postListJson(post: PostSummary, baseUrl: string): Json {
  return {
    ...postHeadJson(post, baseUrl),
    tags: post.tags.map((tag) => ({ id: tag.id, name: tag.name, type: tag.type })),
    url: postUrl(baseUrl, post.slug),
    created_at: post.createdAt,
    updated_at: post.updatedAt,
  };
}

/** A post as show and create answer it (R-P4). */
export function postDetailJson(post: PostDetail, baseUrl: string): Json {
  return {
    ...postHeadJson(post, baseUrl),
    tags: post.tagList,
    categories: post.categories,
    url: postUrl(baseUrl, post.slug),
    meta_title: post.metaTitle,
    meta_description: post.metaDescription,
    meta_keywords: post.metaKeywords,
    translations: withAbsoluteMedia(post.translations, baseUrl),
    created_at: post.createdAt,
    updated_at: post.updatedAt,
  };
}

// ---- Views: how the operations' reads become this API's answers (cached with them) -------------

/** A page of the list as JSON text, with what its pagination needs. */
interface ListPage {
  /** The JSON text of the `data.data` array. */
  items: string;
  count: number;
  total: number;
}

/** A post as show answers it, as JSON text. */
interface ShownPost {
  text: string;
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

export function registerPostRoutes(router: ApiRouter, services: FaceServices): void {
  const { config } = services;
  // Each string's text and, at most, its encoded answer (3 bytes per character in all, roughly).
  const listView: AnswerView<Page<PostSummary>, ListPage> = {
    name: 'v1',
    build: (result) => ({
      items: JSON.stringify(result.items.map((post) => postListJson(post, config.appUrl))),
      count: result.items.length,
      total: result.total,
    }),
    size: (page) => page.items.length * 3,
  };
  const showView: AnswerView<PostDetail, ShownPost> = {
    name: 'v1',
    build: (post) => ({ text: JSON.stringify(postDetailJson(post, config.appUrl)) }),
    size: (post) => post.text.length * 3,
  };

  router.route(
    ['GET', 'POST'],
    '/posts',
    { switchKey: 'svc_api_posts_index', read: true },
    async (request) => {
      const input = listInput(services, request);
      const { query, answer } = await services.postOps.list(
        await actorOf(services, request),
        input,
        listView,
      );
      const pagination = paginate(request, query.page, query.pageSize, answer.count, answer.total);
      // The bytes of success(message, {data: items, pagination}), the items serialized once per page.
      const paginationText = JSON.stringify(pagination);
      return answerOf(answer, paginationText, () =>
        successText('Successfully fetched posts', `{"data":${answer.items},"pagination":${paginationText}}`),
      );
    },
  );

  router.route(
    ['POST'],
    '/posts/store',
    { switchKey: 'svc_api_posts_store' },
    async (request, reply) => {
      const actor = await actorOf(services, request);
      const input = requestInput(request);
      const create = async () => {
        const post = await services.postOps.create(actor, input);
        return success(`Post #${post.id} created successfully`, postDetailJson(post, config.appUrl));
      };
      // A signed caller's retry with the same Idempotency-Key gets the first answer, not a second
      // post (issue 21 #16). Anonymous callers (auth mode none) have no key space of their own.
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string' || actor.userId === null) return create();
      const { api_token: _token, ...fingerprinted } = input;
      const answer = await services.idempotency.run(
        { caller: `user:${actor.userId}`, scope: 'api.v1.posts.store', key, input: fingerprinted },
        async () => ({ status: 200, body: JSON.stringify(await create()) }),
      );
      if (answer.replayed) reply.header('idempotent-replayed', 'true');
      return new JsonText(answer.status, answer.body);
    },
    { acceptsFiles: true },
  );

  router.route(
    ['POST'],
    '/posts/update/:slug',
    { switchKey: 'svc_api_posts_update' },
    async (request) => {
      const actor = await actorOf(services, request);
      const post = await services.postOps.update(actor, slugParam(request), requestInput(request));
      return success(`Post #${post.id} updated successfully`, {
        id: post.id,
        title: post.title,
        slug: post.slug,
        status: post.status,
        updated_at: post.updatedAt,
      });
    },
    { acceptsFiles: true },
  );

  router.route(['POST'], '/posts/delete/:slug', { switchKey: 'svc_api_posts_delete' }, async (request) => {
    await services.postOps.delete(await actorOf(services, request), slugParam(request));
    return success('Post deleted successfully', null);
  });

  router.route(
    ['GET', 'POST'],
    '/posts/:slug',
    { switchKey: 'svc_api_posts_show', read: true },
    async (request): Promise<JsonText> => {
      const post = await services.postOps.show(
        await actorOf(services, request),
        slugParam(request),
        showView,
      );
      return answerOf(post, '', () => successText('Successfully fetched post', post.text));
    },
  );
}
