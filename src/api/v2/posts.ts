// Posts through API v2: a thin face over the same post operations as API v1 and the site (one schema
// per input, one policy, one transaction). Lists: `?page=&per_page=` (or `?cursor=`) `&sort=&q=&filter[status]=
// &filter[tag]=&filter[website]=&fields=&include=`; one post: `?locale=&fields=&include=` with an
// ETag; writes take `If-Match`; creates take `Idempotency-Key`.
import { highlightExcerpt, plainText } from '../../domain/posts/search.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ValidationError } from '../../domain/errors.js';
import type { Actor } from '../../domain/policy.js';
import type { AnswerView, Page, PostDetail, PostSummary } from '../../domain/posts/index.js';
import {
  approveInput,
  bulkPostInput,
  MAX_SORT_KEYS,
  nextPostCursor,
  POST_LIST_STATUSES,
  returnInput,
  SORTABLE_POST_FIELDS,
  statusAt,
} from '../../domain/posts/index.js';
import { createPostInput, updatePostInput } from '../../domain/posts/input.js';
import { normalizeLocale } from '../../domain/translations.js';
import type { PostAbilities } from '../../domain/resource-abilities.js';
import { memoized } from '../../lib/memo.js';
import type { FaceServices } from '../../services.js';
import { WEBHOOK_READER } from '../../domain/webhooks/index.js';
import { actorOf } from './auth.js';
import {
  pathId,
  listOf,
  createOnce,
  etagOf,
  ifMatchVersion,
  notModified,
  pageOf,
  cursorQuery,
  paginate,
  paginateByCursor,
  paginationQuery,
  selectFields,
  sortKeysOf,
  queryOf,
  websiteParam,
  noContent,
} from './conventions.js';
import type { PageRequest } from './conventions.js';
import type { V2Router } from './router.js';
import { pendingPostSchema, postListSchema, postOneSchema, reviewStepSchema } from './schemas.js';

type Json = Record<string, unknown>;
const INCLUDES = ['tags', 'categories', 'author'] as const;
const LIST_FIELDS = [
  'id',
  'title',
  'slug',
  'excerpt',
  'content',
  'thumbnail',
  'status',
  'published_at',
  'author_id',
  'created_at',
  'updated_at',
  'tags',
  'author',
  'can',
  'highlight',
];
const DETAIL_FIELDS = [
  ...LIST_FIELDS,
  'website_ids',
  'keywords',
  'meta_title',
  'meta_description',
  'meta_keywords',
  'translations',
  'categories',
];
const TRANSLATABLE = ['title', 'excerpt', 'content', 'keywords'] as const;

const includeParam = z
  .string()
  .regex(/^[a-z,]{0,40}$/)
  .optional()
  .describe(`Related data to embed: ${INCLUDES.join(', ')} (comma-separated).`);
const fieldsParam = z.string().max(500).optional().describe('Only these fields (comma-separated).');

const listQuery = z
  .object({
    ...paginationQuery,
    sort: z
      .string()
      .max(120)
      .optional()
      .describe(
        `Up to ${MAX_SORT_KEYS} of ${SORTABLE_POST_FIELDS.join(', ')}, comma-separated (the next break the ` +
          `first's ties); \`-\` before a field for descending (default -created_at). With \`q\`, ` +
          '`relevance` first puts the best match first (title above the rest; the fields after it break ' +
          'ties). A list sorted by several fields, by relevance, or by published_at, is paged by number ' +
          'only (no next_cursor).',
      ),
    q: z.string().max(100).optional().describe('Words to search in titles, excerpts and contents.'),
    filter: z
      .object({
        status: z
          .enum(POST_LIST_STATUSES)
          .optional()
          .describe(
            'Default `published`; `any` for every status. Statuses are what the site shows: a post stored ' +
              '`published` with a `published_at` still to come is listed, counted and answered as ' +
              '`scheduled` (`filter[status]=scheduled` finds it, `published` does not); API v1 keeps the stored status.',
          ),
        tag: z
          .string()
          .regex(/^\d{1,15}(,\d{1,15}){0,99}$/)
          .optional()
          .describe('Tag ids (any of them).'),
        website: z.coerce.number().int().min(1).optional().describe('Default: the website of the Host.'),
        author: z.coerce.number().int().min(1).optional().describe('Posts written by this user only.'),
      })
      .strict()
      .optional(),
    cursor: cursorQuery,
    fields: fieldsParam,
    include: includeParam,
    locale: z
      .string()
      .max(20)
      .optional()
      .describe('Titles, excerpts and contents in this locale where translated.'),
  })
  .strict();

const showQuery = z
  .object({
    locale: z.string().max(20).optional().describe('One locale\u2019s text instead of the translation maps.'),
    fields: fieldsParam,
    include: includeParam,
  })
  .strict();

const slugCheckQuery = z
  .object({
    slug: z.string().min(1).max(190).describe('The slug (or a title) to check.'),
    post_id: z
      .string()
      .regex(/^\d{1,15}$/)
      .optional()
      .describe('The post being edited.'),
  })
  .strict();
const slugCheckSchema = z
  .object({ data: z.object({ slug: z.string(), available: z.boolean(), suggestion: z.string() }) })
  .meta({ id: 'SlugCheck' });

const bulkResultSchema = z
  .object({
    data: z.array(
      z.object({
        id: z.int(),
        outcome: z.enum(['done', 'forbidden', 'not_found', 'invalid', 'conflict']),
        message: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'BulkPostResult' });

const idParams = z.object({
  id: pathId('The post id.'),
});
/** A post's fields as JSON: the operation's own schema, strict (uploads: API v1's multipart). */
const createBody = createPostInput.omit({ thumbnail: true }).strict();
const updateBody = updatePostInput.omit({ thumbnail: true }).strict();

function includesOf(value: string | undefined): Set<string> {
  const names = (value ?? '').split(',').filter((name) => name !== '');
  const unknown = names.filter((name) => !(INCLUDES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ValidationError({
      include: [`Unknown includes: ${unknown.join(', ')}. Includes: ${INCLUDES.join(', ')}.`],
    });
  }
  return new Set(names);
}

/** A post's text in one locale (a blank or missing one falls back to the base text). */
type LocaleText = Partial<Record<'title' | 'excerpt' | 'content', string>>;

/**
 * A post of a list as v2 shows it (what the list read holds); its status as the site sees it at `now`
 * (a published post not due yet is scheduled, issue 36 #9).
 */
function summaryJson(post: PostSummary, include: Set<string>, now: string, text?: LocaleText): Json {
  return {
    id: post.id,
    title: text?.title || post.title,
    slug: post.slug,
    excerpt: text?.excerpt || post.excerpt,
    content: text?.content || post.content,
    thumbnail: post.thumbnail,
    status: statusAt(post.status, post.publishedAt, now),
    published_at: post.publishedAt,
    author_id: post.author?.id ?? null,
    created_at: post.createdAt,
    updated_at: post.updatedAt,
    ...(include.has('tags') ? { tags: post.tags } : {}),
    ...(include.has('author')
      ? { author: post.author && { id: post.author.id, name: post.author.name } }
      : {}),
  };
}

/** One post as v2 shows it: in one locale, or with its translation maps. */
function detailJson(post: PostDetail, include: Set<string>, locale: string | undefined, now: string): Json {
  const json: Json = {
    ...summaryJson(post, new Set(), now),
    website_ids: post.websiteIds,
    keywords: post.keywords,
    meta_title: post.metaTitle,
    meta_description: post.metaDescription,
    meta_keywords: post.metaKeywords,
  };
  if (locale === undefined) json.translations = post.translations;
  else {
    for (const field of TRANSLATABLE) {
      const text = post.translations[field]?.[locale];
      if (text !== undefined && text !== '') json[field] = text;
    }
  }
  if (include.has('tags')) json.tags = post.tagList;
  if (include.has('categories')) json.categories = post.categories;
  if (include.has('author')) json.author = post.author;
  return json;
}

/**
 * What a list request asks for, parsed once per URL (parsing is a pure function of the query string,
 * which the route's schema has checked): a repeated request parses nothing.
 */
interface ListRequest {
  query: z.output<typeof listQuery>;
  include: Set<string>;
  page: PageRequest;
  thenBy: ReturnType<typeof sortKeysOf<(typeof SORTABLE_POST_FIELDS)[number]>>;
  /** `sort=relevance` (with `q`): best match first, then the fields after it. */
  relevance: boolean;
  input: ReturnType<FaceServices['postOps']['parseList']>;
}
const listRequests = new Map<string, ListRequest>();
/**
 * The answers made from each cached page, by the URL they answered (the URL fixes everything else
 * that goes into it: fields, locale, includes, the page links) and the caller's `can` of each post
 * (issue 34 #19: the page is the same for every caller, what they may do to its posts is not, so an
 * answer is reused only for a caller with the same abilities on every post of it), with its Link
 * header, as bytes: encoding a 30 KB text per request (twice: its length, then the write) was a tenth
 * of a list's cost. A few variants per page (callers of different roles) are kept.
 */
const listAnswers = new WeakMap<object, Map<string, { body: Buffer; link: string }>>();
const postAnswers = new WeakMap<object, { variant: string; body: Buffer }>();
const LIST_VARIANTS = 8;

/** A post's abilities in a few characters, for the answer caches' keys. */
const canKey = (can: PostAbilities) =>
  String((can.update ? 4 : 0) + (can.publish ? 2 : 0) + (can.delete ? 1 : 0));

/** Whether `?fields=` leaves `can` in (absent: every field). */
const wantsCan = (fields: string | undefined) =>
  fields === undefined || fields === '' || fields.split(',').some((field) => field.trim() === 'can');

export function registerPostRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.postOps;
  // The operations' cached reads hand these views the store's values; the rest is per request.
  const listView: AnswerView<Page<PostSummary>, Page<PostSummary>> = {
    name: 'v2',
    build: (page) => page,
    size: (page) =>
      64 + page.items.reduce((sum, post) => sum + (post.content.length + post.title.length) * 3, 0),
  };
  const showView: AnswerView<PostDetail, PostDetail> = {
    name: 'v2',
    build: (post) => post,
    size: (post) => 256 + (post.content.length + JSON.stringify(post.translations).length) * 3,
  };

  /** What the caller may do to each post (the policy's answers, from the facts already read). */
  const abilitiesOf = (actor: Actor, posts: readonly PostSummary[]) =>
    services.abilities.ofPosts(actor, posts);
  const now = () => services.clock.now().toISOString();
  const answerPost = async (reply: FastifyReply, actor: Actor, post: PostDetail, status = 200) => {
    const [can] = await abilitiesOf(actor, [post]);
    reply.header('etag', etagOf(post.updatedAt));
    return reply
      .code(status)
      .send({ data: { ...detailJson(post, new Set(INCLUDES), undefined, now()), can } });
  };
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

  router.route({
    method: 'GET',
    url: '/posts',
    summary: 'List posts',
    description:
      'Posts of a website (the Host\u2019s, or `filter[website]`) the caller may see: published ones, ' +
      'their own of any status, and every status for editors of that website.',
    tags: ['posts'],
    querystring: listQuery,
    response: { 200: postListSchema },
    handler: async (request, reply) => {
      const parse = (): ListRequest => {
        const query = queryOf(listQuery, request);
        const page = pageOf(query);
        // `relevance` first: best match of `q`; the fields after it (default -created_at) break ties.
        const keys = (query.sort ?? '').split(',').map((key) => key.trim());
        const relevance = keys[0] === 'relevance';
        if (relevance && !query.q?.trim()) {
          throw new ValidationError({ sort: ['The sort relevance needs a search (q).'] });
        }
        const [sort, ...thenBy] = sortKeysOf(
          relevance ? keys.slice(1).join(',') || undefined : query.sort,
          SORTABLE_POST_FIELDS,
          { field: 'created_at', direction: 'desc' },
          MAX_SORT_KEYS,
        );
        const input = ops.parseList({
          status: query.filter?.status,
          tags: query.filter?.tag?.split(',').map(Number),
          keywords: query.q,
          sort: sort!.field,
          direction: sort!.direction,
          page: page.page,
          page_size: page.perPage,
        });
        return { query, include: includesOf(query.include), page, thenBy, relevance, input };
      };
      const { query, include, page, thenBy, relevance, input } =
        request.url.length > 1000 ? parse() : memoized(listRequests, request.url, 500, parse);
      const actor = await actorOf(services, request, query.filter?.website);
      const { query: listed, answer } = await ops.list(actor, input, listView, {
        cursor: query.cursor,
        authorId: query.filter?.author,
        thenBy,
        timed: true,
        relevance,
        // `q` reads at most SEARCH_CANDIDATES matches (issue 40 #2): `total_exact` says when it stopped.
        bounded: true,
      });
      const cans = wantsCan(query.fields) ? await abilitiesOf(actor, answer.items) : null;
      const variant = cans === null ? request.url : `${request.url}\n${cans.map(canKey).join('')}`;
      let variants = listAnswers.get(answer);
      if (!variants) listAnswers.set(answer, (variants = new Map<string, { body: Buffer; link: string }>()));
      let text = variants.get(variant);
      if (!text) {
        const next = nextPostCursor(listed, answer);
        const paged =
          query.cursor === undefined
            ? { ...paginate(request, reply, page, answer.total), next_cursor: next }
            : paginateByCursor(request, reply, page.perPage, answer.total, next);
        // Only a search (`q`) says whether its total is exact (a lower bound past its cap).
        const pagination =
          answer.totalExact === undefined ? paged : { ...paged, total_exact: answer.totalExact };
        const locale = query.locale === undefined ? undefined : normalizeLocale(query.locale);
        const terms = (input.keywords ?? '').split(',').filter((term) => term.trim() !== '');
        const translations = locale === undefined ? null : await ops.translationsOf(answer.items);
        const items = answer.items.map((post, index) => {
          const map = translations?.get(post.id);
          const inLocale = map && {
            title: map.title?.[locale!],
            excerpt: map.excerpt?.[locale!],
            content: map.content?.[locale!],
          };
          const json = summaryJson(post, include, now(), inLocale);
          if (cans) json.can = cans[index];
          // A search (`q`): the text around the first match, escaped, matches in <mark> (issue 40 #2).
          if (terms.length > 0) {
            const text = (value: unknown) => (typeof value === 'string' ? value : '');
            json.highlight = highlightExcerpt(
              [text(json.title), text(json.excerpt), plainText(text(json.content))],
              terms,
            );
          }
          return json;
        });
        text = {
          link: String(reply.getHeader('link')),
          body: Buffer.from(
            JSON.stringify({
              data: selectFields(items, query.fields, LIST_FIELDS),
              meta: { pagination },
            }),
          ),
        };
        if (variants.size >= LIST_VARIANTS) variants.delete(variants.keys().next().value!);
        variants.set(variant, text);
      } else {
        reply.header('link', text.link);
      }
      return reply.type('application/json; charset=utf-8').send(text.body);
    },
  });

  router.route({
    method: 'POST',
    url: '/posts/bulk',
    summary: 'One action on many posts',
    description:
      'Publish, unpublish (back to draft), delete, or move to websites, each post through the same ' +
      'rules as a single call; one post refused does not stop the others. The answer says, per post, ' +
      '`done`, `forbidden`, `not_found`, `invalid` or `conflict`.',
    tags: ['posts'],
    body: bulkPostInput,
    response: { 200: bulkResultSchema },
    handler: async (request) => ({
      data: await ops.bulk(await actorOf(services, request), request.body),
    }),
  });

  router.route({
    method: 'GET',
    url: '/posts/slug-check',
    summary: 'Is a slug free?',
    description:
      'The slug normalized as a write would store it, whether it is free (for the post `post_id` ' +
      'when editing one), and the free slug a create would pick instead.',
    tags: ['posts'],
    querystring: slugCheckQuery,
    response: { 200: slugCheckSchema },
    handler: async (request) => ({
      data: await ops.checkSlug(await actorOf(services, request), queryOf(slugCheckQuery, request)),
    }),
  });

  router.route({
    method: 'GET',
    url: '/posts/:id',
    summary: 'Get a post',
    description: 'With an ETag: send it back as `If-None-Match` (304) or as `If-Match` on a write.',
    tags: ['posts'],
    params: idParams,
    querystring: showQuery,
    response: { 200: postOneSchema },
    handler: async (request, reply) => {
      const query = queryOf(showQuery, request);
      const actor = await actorOf(services, request);
      const post = await ops.show(actor, idOf(request), showView);
      const etag = etagOf(post.updatedAt);
      reply.header('etag', etag);
      if (notModified(request, etag)) return reply.code(304).send();
      // `can` is the caller's (issue 34 #19): part of the variant, never served to another caller.
      const [can] = wantsCan(query.fields) ? await abilitiesOf(actor, [post]) : [];
      const variant = `${query.include ?? ''}|${query.fields ?? ''}|${query.locale ?? ''}|${can ? canKey(can) : ''}`;
      let answer = postAnswers.get(post);
      if (answer?.variant !== variant) {
        const locale = query.locale === undefined ? undefined : normalizeLocale(query.locale);
        const json = detailJson(post, includesOf(query.include), locale, now());
        if (can) json.can = can;
        const data = selectFields([json], query.fields, DETAIL_FIELDS)[0];
        answer = { variant, body: Buffer.from(JSON.stringify({ data })) };
        postAnswers.set(post, answer);
      }
      return reply.type('application/json; charset=utf-8').send(answer.body);
    },
  });

  router.route({
    method: 'POST',
    url: '/posts',
    summary: 'Create a post',
    description:
      'On the Host\u2019s website unless `website_id` says otherwise. `Idempotency-Key` makes a retry ' +
      'answer the first result instead of creating a second post.',
    tags: ['posts'],
    body: createBody,
    response: { 201: postOneSchema },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      return createOnce(services, request, reply, {
        scope: 'api.v2.posts.create',
        create: () => ops.create(actor, request.body as Json),
        json: (post) =>
          detailJson(post, new Set(INCLUDES), undefined, now()) as { id: number; updated_at: string },
        location: (id) => `/api/v2/posts/${id}`,
      });
    },
  });

  router.route({
    method: 'PATCH',
    url: '/posts/:id',
    summary: 'Change a post',
    description:
      'Only the fields sent change. `If-Match` (its ETag or `updated_at`): 412 when it changed since.',
    tags: ['posts'],
    params: idParams,
    body: updateBody,
    response: { 200: postOneSchema },
    handler: async (request, reply) => {
      const actor = await actorOf(services, request);
      const post = await ops.update(actor, idOf(request), request.body as Json, {
        ifVersion: ifMatchVersion(request),
      });
      return answerPost(reply, actor, post);
    },
  });

  router.route({
    method: 'DELETE',
    url: '/posts/:id',
    summary: 'Delete a post',
    description: 'Moves it out of every list and page; its slug is free again. Takes `If-Match`.',
    tags: ['posts'],
    params: idParams,
    response: { 204: z.null().describe('Deleted.') },
    handler: noContent(async (request) =>
      ops.delete(await actorOf(services, request), idOf(request), { ifVersion: ifMatchVersion(request) }),
    ),
  });

  // ---- Review (issue 20 #4) -----------------------------------------------------------------------

  const approveBody = approveInput
    .extend({ published_at: approveInput.shape.published_at.describe('Later than now: scheduled.') })
    .strict();
  const returnBody = returnInput
    .extend({ note: returnInput.shape.note.describe('What the writer should change.') })
    .strict();
  /** The steps of a review: each a POST on the post, answering it as it is after the step. */
  const steps: Array<{
    step: string;
    summary: string;
    description?: string;
    body?: z.ZodType;
    run: (actor: Actor, id: string, body: unknown) => Promise<PostDetail>;
  }> = [
    { step: 'submit', summary: 'Submit a draft for review', run: (actor, id) => ops.submit(actor, id) },
    {
      step: 'approve',
      summary: 'Approve a post waiting for review',
      description: 'Editors and site admins of every website it is on: published now, or scheduled.',
      body: approveBody,
      run: (actor, id, body) => ops.approve(actor, id, body ?? {}),
    },
    {
      step: 'return',
      summary: 'Send a post back to its writer',
      description: 'It becomes a draft again; the note is what its writer reads (GET …/review).',
      body: returnBody,
      run: (actor, id, body) => ops.sendBack(actor, id, body),
    },
  ];
  for (const { step, summary, description, body, run } of steps) {
    router.route({
      method: 'POST',
      url: `/posts/:id/${step}`,
      summary,
      description,
      tags: ['review'],
      params: idParams,
      body,
      response: { 200: postOneSchema },
      handler: async (request, reply) => {
        const actor = await actorOf(services, request);
        return answerPost(reply, actor, await run(actor, idOf(request), request.body));
      },
    });
  }

  router.route({
    method: 'GET',
    url: '/posts/:id/review',
    summary: 'The newest review step of a post',
    tags: ['review'],
    params: idParams,
    response: { 200: z.object({ data: reviewStepSchema.nullable() }) },
    handler: async (request) => {
      const step = await ops.reviewOf(await actorOf(services, request), idOf(request));
      return {
        data: step && {
          decision: step.decision,
          note: step.note,
          user_id: step.userId,
          user_name: step.userName,
          at: step.at,
        },
      };
    },
  });

  const queueQuery = z
    .object({
      website: websiteParam,
    })
    .strict();
  router.route({
    method: 'GET',
    url: '/reviews',
    summary: 'Posts waiting for review on a website',
    description: 'For its editors and site admins; the longest waiting first.',
    tags: ['review'],
    querystring: queueQuery,
    response: { 200: listOf(pendingPostSchema) },
    handler: async (request) => {
      const query = queryOf(queueQuery, request);
      const actor = await actorOf(services, request, query.website);
      if (actor.websiteId === null) return { data: [] };
      const pending = await ops.reviewQueue(actor, actor.websiteId);
      return {
        data: pending.map((post) => ({
          id: post.id,
          title: post.title,
          slug: post.slug,
          author_id: post.authorId,
          author_name: post.authorName,
          submitted_at: post.submittedAt,
        })),
      };
    },
  });
}

/** A post as this API shows it, for webhook payloads (issue 38): read as the installation sees it. */
export async function postResource(services: FaceServices, id: string): Promise<Json> {
  const post = await services.postOps.show(WEBHOOK_READER, id, {
    name: 'v2',
    build: (found: PostDetail) => found,
    size: (found: PostDetail) => 256 + (found.content.length + JSON.stringify(found.translations).length) * 3,
  });
  return detailJson(post, new Set(INCLUDES), undefined, services.clock.now().toISOString());
}
