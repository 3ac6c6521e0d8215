// The conventions every API v2 collection and resource follows, written once (docs/api-v2.md):
// `?page=&per_page=` with a `Link` header and `meta.pagination`; `?sort=field` or `-field` on a
// whitelist; `?fields=` to keep some fields; `?locale=` for one locale's text; versions as ETags, with
// `If-None-Match` (304) on reads and `If-Match` (412 when stale) on writes.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ValidationError } from '../../domain/errors.js';
import { SEARCH_CANDIDATES } from '../../domain/posts/search.js';
import type { Actor } from '../../domain/policy.js';
import { memoized } from '../../lib/memo.js';
import type { FaceServices } from '../../services.js';
import { actorOf, callerOf } from './auth.js';
import { Problem, notFound } from './problem.js';

export const DEFAULT_PER_PAGE = 20;

const parsedQueries = new WeakMap<z.ZodType, Map<string, unknown>>();
const MAX_REMEMBERED_QUERIES = 500;
const MAX_REMEMBERED_QUERY_LENGTH = 512;

/**
 * A route's query string parsed with its schema (it was checked before the handler): a pure function
 * of it, so short ones are remembered by the URL's query string (a list's repeated requests parse
 * nothing).
 */
export function queryOf<S extends z.ZodType>(schema: S, request: FastifyRequest): z.output<S> {
  const at = request.url.indexOf('?');
  const key = at < 0 ? '' : request.url.slice(at + 1);
  if (key.length > MAX_REMEMBERED_QUERY_LENGTH) return schema.parse(request.query);
  let byQuery = parsedQueries.get(schema);
  if (!byQuery) parsedQueries.set(schema, (byQuery = new Map<string, unknown>()));
  return memoized(byQuery, key, MAX_REMEMBERED_QUERIES, () => schema.parse(request.query)) as z.output<S>;
}
export const MAX_PER_PAGE = 100;

const positive = (max?: number) => {
  const base = z.coerce.number().int().min(1);
  return max === undefined ? base : base.max(max);
};

/** The query parameters of every collection. */
export const paginationQuery = {
  page: positive().max(1_000_000).optional().describe('Page number, from 1.'),
  per_page: positive(MAX_PER_PAGE)
    .optional()
    .describe(`Items per page (1–${MAX_PER_PAGE}, default ${DEFAULT_PER_PAGE}).`),
};

export const paginationMeta = z
  .object({
    page: z.int(),
    per_page: z.int(),
    total: z.int(),
    total_pages: z.int(),
  })
  .meta({ id: 'Pagination' });

/** The body of a list that is not paged: `{ data: [item, …] }`. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/** The body of a page of a collection: `{ data: [item, …], meta: { pagination } }` (see paginate). */
export const pagedListOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), meta: z.object({ pagination: paginationMeta }) });

/** `meta.pagination` of a list that can also be walked by cursor (`next_cursor`; no `page` then). */
export const cursorPaginationMeta = z
  .object({
    page: z.int().optional(),
    per_page: z.int(),
    total: z.int(),
    total_pages: z.int(),
    next_cursor: z.string().nullable(),
    total_exact: z
      .boolean()
      .optional()
      .describe(
        'Lists with `q` only: false when `total` (and `total_pages`) is a lower bound. A search reads at ' +
          `most the ${SEARCH_CANDIDATES.toLocaleString('en')} newest matching posts` +
          ' (its cost stays bounded for common words); when there ' +
          'are more, `total` counts those of them the caller may see, and the pages hold the best of ' +
          'them. True: every match was counted.',
      ),
  })
  .meta({ id: 'CursorPagination' });

/** `?cursor=`: the page after the one whose `meta.pagination.next_cursor` it is. */
export const cursorQuery = z
  .string()
  .max(300)
  .optional()
  .describe('The `next_cursor` of the previous page: the page after it (then `page` is not used).');

/**
 * A page reached by cursor: `meta.pagination` without a page number, and a `Link` header with the
 * first page and the next one (by its cursor), built from the request's own URL.
 */
export function paginateByCursor(
  request: FastifyRequest,
  reply: FastifyReply,
  perPage: number,
  total: number,
  next: string | null,
) {
  const url = new URL(request.url, 'http://folio.invalid');
  url.searchParams.delete('page');
  const at = (name: string, value: string) => {
    url.searchParams.set(name, value);
    if (name === 'page') url.searchParams.delete('cursor');
    return `<${url.pathname}${url.search}>`;
  };
  const links = [];
  if (next !== null) links.push(`${at('cursor', next)}; rel="next"`);
  links.unshift(`${at('page', '1')}; rel="first"`);
  reply.header('link', links.join(', '));
  return {
    per_page: perPage,
    total,
    total_pages: Math.max(1, Math.ceil(total / perPage)),
    next_cursor: next,
  };
}

export interface PageRequest {
  page: number;
  perPage: number;
}

export function pageOf(query: { page?: number; per_page?: number }): PageRequest {
  return { page: query.page ?? 1, perPage: query.per_page ?? DEFAULT_PER_PAGE };
}

/** A collection's query string (queryOf) and the page it asks for (pageOf). */
export function pagedQueryOf<S extends z.ZodType<{ page?: number; per_page?: number }>>(
  schema: S,
  request: FastifyRequest,
): { query: z.output<S>; page: PageRequest } {
  const query = queryOf(schema, request);
  return { query, page: pageOf(query) };
}

/**
 * `meta.pagination`, and the `Link` header (RFC 8288: first, prev, next, last) built from the request's
 * own URL, so every other parameter is kept.
 */
export function paginate(request: FastifyRequest, reply: FastifyReply, page: PageRequest, total: number) {
  const totalPages = Math.max(1, Math.ceil(total / page.perPage));
  // A pure function of the URL and the numbers; parsing the URL per request cost a list a few %.
  const key = `${page.page}|${totalPages}|${request.url}`;
  const link =
    key.length > 1000
      ? pageLinks(request.url, page.page, totalPages)
      : memoized(pageLinkTexts, key, 1000, () => pageLinks(request.url, page.page, totalPages));
  reply.header('link', link);
  return { page: page.page, per_page: page.perPage, total, total_pages: totalPages };
}

/** The `meta` of a page of a collection (pagedListOf): `{ pagination }`, with paginate's `Link` header. */
export const pageMeta = (request: FastifyRequest, reply: FastifyReply, page: PageRequest, total: number) => ({
  pagination: paginate(request, reply, page, total),
});

const pageLinkTexts = new Map<string, string>();

function pageLinks(requestUrl: string, current: number, totalPages: number): string {
  const url = new URL(requestUrl, 'http://folio.invalid');
  const at = (n: number) => {
    url.searchParams.set('page', String(n));
    return `<${url.pathname}${url.search}>`;
  };
  const links = [`${at(1)}; rel="first"`];
  if (current > 1) links.push(`${at(Math.min(current - 1, totalPages))}; rel="prev"`);
  if (current < totalPages) links.push(`${at(current + 1)}; rel="next"`);
  links.push(`${at(totalPages)}; rel="last"`);
  return links.join(', ');
}

/**
 * `?sort=-published_at,title`: up to `max` fields of the whitelist, each once, `-` before a field for
 * descending; the first decides the order and the next ones break its ties.
 */
export function sortKeysOf<F extends string>(
  value: string | undefined,
  allowed: readonly F[],
  fallback: { field: F; direction: 'asc' | 'desc' },
  max: number,
): { field: F; direction: 'asc' | 'desc' }[] {
  if (value === undefined || value === '') return [fallback];
  const parts = value.split(',');
  const keys = parts.map((part) => ({
    field: part.replace(/^[-+]/, '') as F,
    direction: part.startsWith('-') ? ('desc' as const) : ('asc' as const),
  }));
  const fields = keys.map((key) => key.field);
  if (
    keys.length > max ||
    fields.some((field) => !allowed.includes(field)) ||
    new Set(fields).size !== fields.length
  ) {
    const list = allowed.join(', ');
    throw new ValidationError({
      sort: [
        max > 1
          ? `The sort must be up to ${max} different fields of ${list}, separated by commas, each optionally preceded by - (descending).`
          : `The sort must be one of ${list}, optionally preceded by - (descending).`,
      ],
    });
  }
  return keys;
}

/** `?sort=-created_at`: one field of the whitelist, `-` for descending. */
export function sortOf<F extends string>(
  value: string | undefined,
  allowed: readonly F[],
  fallback: { field: F; direction: 'asc' | 'desc' },
): { field: F; direction: 'asc' | 'desc' } {
  return sortKeysOf(value, allowed, fallback, 1)[0]!;
}

/** `?fields=id,title`: only these fields of each item (unknown names are a 422). */
export function selectFields<T extends Record<string, unknown>>(
  items: T[],
  fields: string | undefined,
  known: readonly string[],
): Array<Partial<T>> {
  if (fields === undefined || fields === '') return items;
  const wanted = fields.split(',').map((field) => field.trim());
  const unknown = wanted.filter((field) => !known.includes(field));
  if (unknown.length > 0) {
    throw new ValidationError({
      fields: [`Unknown fields: ${unknown.join(', ')}. Fields: ${known.join(', ')}.`],
    });
  }
  return items.map((item) => Object.fromEntries(wanted.map((field) => [field, item[field]])) as Partial<T>);
}

const etags = new Map<string, string>();

/**
 * The ETag of a version (a resource's `updated_at`): strong, quoted. Remembered (bounded): the same
 * versions are read again and again, and encoding one costs two buffers.
 */
export const etagOf = (version: string): string =>
  memoized(etags, version, 10_000, () => `"${Buffer.from(version).toString('base64url')}"`);

/**
 * The version an `If-Match` names: an ETag of etagOf, or the resource's `updated_at` itself;
 * undefined when the header is absent or `*` (any version).
 */
export function ifMatchVersion(request: FastifyRequest): string | undefined {
  const header = request.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const value = header.trim().replace(/^W\//, '');
  if (/^"[A-Za-z0-9_-]{1,200}"$/.test(value)) return Buffer.from(value.slice(1, -1), 'base64url').toString();
  if (!Number.isNaN(Date.parse(value))) return new Date(value).toISOString();
  throw new Problem(
    400,
    'request',
    'Bad If-Match',
    'If-Match must be an ETag of this API or an updated_at time.',
  );
}

/** True (and a 304 is due) when the request's If-None-Match names this ETag. */
export function notModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (header === undefined) return false;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*');
}

/** An id in a path: digits only (anything else is a 422 before the handler), described when given. */
export const pathId = (description?: string) => {
  const digits = z.string().regex(/^\d{1,15}$/);
  return description === undefined ? digits : digits.describe(description);
};

/** The `{id}` of a resource's path (see pathId). */
export const idParams = z.object({ id: pathId('The resource\u2019s id.') });

/** The number of the request's `{id}` (checked by idParams), or of another id in its path (see pathId). */
export const idOf = (request: FastifyRequest, name = 'id'): number =>
  Number((request.params as Record<string, string>)[name]);

/** A website other than the Host's, in a query (`?website=`, `?website_id=`) or a body (`website_id`). */
export const websiteParam = z.coerce
  .number()
  .int()
  .min(1)
  .optional()
  .describe('Default: the Host\u2019s website.');
export const websiteField = z.int().min(1).optional().describe('Default: the Host\u2019s website.');

/**
 * The caller as the policy sees them on a website (`websiteId`, default: the Host's), for the routes
 * that act on one website: 404 when the Host has no website configured.
 */
export async function siteActorOf(
  services: FaceServices,
  request: FastifyRequest,
  websiteId?: number,
): Promise<Actor & { websiteId: number }> {
  const actor = await actorOf(services, request, websiteId);
  if (actor.websiteId === null) throw notFound('No website is configured for this host.');
  return actor as Actor & { websiteId: number };
}

/** `?force=true` on a delete: remove what is in use anyway (409 without it). */
export const forceQuery = z.object({ force: z.enum(['true', 'false']).optional() }).strict();

/** `?force=true` was sent (see forceQuery). */
export const forced = (request: FastifyRequest): boolean => queryOf(forceQuery, request).force === 'true';

/**
 * The handler of a route that answers 204 (no content) once `work` is done. With `missing`: `work`
 * answering false (there was nothing to remove) is a 404 with that detail.
 */
export const noContent =
  (work: (request: FastifyRequest) => Promise<unknown>, missing?: string) =>
  async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const done = await work(request);
    if (done === false && missing !== undefined) throw notFound(missing);
    return reply.code(204).send();
  };

/** What a create answers about the item it made (its `id` and `updated_at` name it and its ETag). */
interface Created {
  id: number;
  updated_at: string;
}

/**
 * A create, with `Idempotency-Key` when the client sends one: the first answer for the key is kept
 * (24 hours) and a retry with the same key and body gets it again (`Idempotent-Replayed: true`)
 * instead of a second item; the same key with another body is a 422. Answers 201 with the item's
 * JSON, `Location` and `ETag`.
 */
export async function createOnce<T>(
  services: Pick<FaceServices, 'idempotency'>,
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    /** Where keys are unique: the kind of item (and its parent). */
    scope: string;
    create: () => Promise<T>;
    json: (item: T) => Created & Record<string, unknown>;
    location: (id: number) => string;
  },
): Promise<FastifyReply> {
  const key = request.headers['idempotency-key'];
  const make = async () => ({
    status: 201,
    body: JSON.stringify({ data: options.json(await options.create()) }),
  });
  const answer =
    typeof key === 'string'
      ? await services.idempotency.run(
          { caller: `user:${callerOf(request).user.id}`, scope: options.scope, key, input: request.body },
          make,
        )
      : { ...(await make()), replayed: false };
  const created = (JSON.parse(answer.body) as { data: Created }).data;
  if (answer.replayed) reply.header('idempotent-replayed', 'true');
  return reply
    .code(answer.status)
    .header('location', options.location(created.id))
    .header('etag', etagOf(created.updated_at))
    .type('application/json; charset=utf-8')
    .send(answer.body);
}
