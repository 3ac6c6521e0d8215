// The full-page cache of the public site (`full_page_cache`, R-F6). A website turns it on with its
// switch `enabled_page_cache`; entries live `page_cache_ttl` seconds (default 3600) in the shared cache
// (Redis when configured: every node serves what one node rendered).
//
// - Only GET and HEAD of routes marked cacheable, only 200 answers, only string bodies.
// - Never for a visitor with a session cookie (or a signed-in user), never for an answer that sets a
//   cookie: such pages may hold what belongs to one person.
// - Keyed by website, locale, host, path and query. A hit is served before the handler: no database
//   query (the website lookup is itself cached) and no template rendering.
// - Each entry carries cache tags of what it shows (page-tags.ts); a content change flushes exactly
//   those. An entry never outlives the moment the next scheduled post goes public.
// - ETag (weak: the body may be sent compressed) and Last-Modified, with 304 for conditional GETs.
// - `x-folio-cache: hit | miss | bypass` tells tests and benchmarks what happened.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pageTags } from '../cache/page-tags.js';
import { websiteMenuCacheTag } from '../domain/menus.js';
import type { Services } from '../services.js';
import { SESSION_COOKIE, frontendState } from './context.js';

export const PAGE_CACHE_TTL_SETTING = 'page_cache_ttl';
export const DEFAULT_PAGE_CACHE_TTL = 3600;
const MAX_PAGE_CACHE_TTL = 30 * 24 * 3600;
export const CACHE_HEADER = 'x-folio-cache';

export interface CachedPage {
  body: string;
  type: string;
  etag: string;
  /** HTTP date of when the page was rendered. */
  lastModified: string;
}

interface Pending {
  key: string;
  tags: Set<string>;
  maxTtl: number;
}

const pending = new WeakMap<FastifyRequest, Pending>();

/** Adds cache tags to the page being rendered (what it shows); a no-op when it will not be cached. */
export function tagPage(request: FastifyRequest, ...tags: string[]): void {
  const entry = pending.get(request);
  if (entry) for (const tag of tags) entry.tags.add(tag);
}

/** Caps how long the page being rendered may be cached (pages that change without an event). */
export function limitPageTtl(request: FastifyRequest, seconds: number): void {
  const entry = pending.get(request);
  if (entry) entry.maxTtl = Math.min(entry.maxTtl, seconds);
}

export function weakEtag(body: string): string {
  return `W/"${createHash('sha1').update(body).digest('base64url')}"`;
}

/** Whether a conditional GET/HEAD may be answered 304 (If-None-Match wins over If-Modified-Since). */
export function notModified(request: FastifyRequest, etag: string, lastModified?: string): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined) {
    const strip = (tag: string) => tag.trim().replace(/^W\//, '');
    return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || strip(tag) === strip(etag));
  }
  const ifModifiedSince = request.headers['if-modified-since'];
  if (ifModifiedSince !== undefined && lastModified !== undefined) {
    const since = Date.parse(ifModifiedSince);
    const modified = Date.parse(lastModified);
    return !Number.isNaN(since) && !Number.isNaN(modified) && modified <= since;
  }
  return false;
}

function cacheKey(request: FastifyRequest, websiteId: number, locale: string): string {
  const url = request.url.length > 200 ? createHash('sha1').update(request.url).digest('hex') : request.url;
  return `page:${websiteId}:${locale}:${request.host.toLowerCase()}:${url}`;
}

export async function pageCacheTtl(services: Services): Promise<number> {
  const raw = (await services.settings.get(PAGE_CACHE_TTL_SETTING))?.trim() ?? '';
  const seconds = /^\d{1,9}$/.test(raw) ? Number(raw) : DEFAULT_PAGE_CACHE_TTL;
  return Math.min(Math.max(seconds, 0), MAX_PAGE_CACHE_TTL);
}

export class PageCache {
  constructor(private readonly services: Services) {}

  /**
   * The `full_page_cache` hook (after the website, locale and visitor are known): answers a hit, or
   * marks the request so that onSend stores its answer.
   */
  async lookup(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const state = frontendState(request);
    const eligible =
      request.routeOptions.config.cacheable === true &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      state.website.enabledPageCache &&
      state.user === null &&
      request.cookies[SESSION_COOKIE] === undefined;
    if (!eligible) {
      reply.header(CACHE_HEADER, 'bypass');
      return undefined;
    }
    const ttl = await pageCacheTtl(this.services);
    if (ttl === 0) {
      reply.header(CACHE_HEADER, 'bypass');
      return undefined;
    }
    const key = cacheKey(request, state.website.id, state.locale);
    const hit = await this.services.cache.get<CachedPage>(key);
    if (hit) {
      reply
        .header(CACHE_HEADER, 'hit')
        .header('etag', hit.etag)
        .header('last-modified', hit.lastModified)
        .type(hit.type);
      if (notModified(request, hit.etag, hit.lastModified)) return reply.code(304).send();
      return reply.code(200).send(hit.body);
    }
    const websiteId = state.website.id;
    pending.set(request, {
      key,
      tags: new Set([pageTags.site(websiteId), websiteMenuCacheTag(websiteId)]),
      maxTtl: ttl,
    });
    reply.header(CACHE_HEADER, 'miss');
    return undefined;
  }

  /** onSend of every frontend route: stores a cacheable answer, and answers conditional GETs. */
  async onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const entry = pending.get(request);
    pending.delete(request);
    if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    if (reply.hasHeader('etag')) return payload; // a hit: headers are set already

    const etag = weakEtag(payload);
    reply.header('etag', etag);
    if (entry && !reply.hasHeader('set-cookie')) {
      const lastModified = new Date(this.services.clock.now().getTime()).toUTCString();
      reply.header('last-modified', lastModified);
      const page: CachedPage = {
        body: payload,
        type: String(reply.getHeader('content-type') ?? 'text/html; charset=utf-8'),
        etag,
        lastModified,
      };
      await this.services.cache.set(entry.key, page, {
        ttlSeconds: await this.ttlFor(entry),
        tags: [...entry.tags],
      });
    } else if (entry) {
      reply.header(CACHE_HEADER, 'bypass');
    }
    if (notModified(request, etag)) {
      reply.code(304);
      return '';
    }
    return payload;
  }

  /** The entry's TTL, cut short when a scheduled post goes public before it would expire. */
  private async ttlFor(entry: Pending): Promise<number> {
    let ttl = entry.maxTtl;
    const next = await this.services.publicPosts.nextPublication();
    if (next) {
      const seconds = Math.ceil((Date.parse(next) - this.services.clock.now().getTime()) / 1000);
      ttl = Math.min(ttl, Math.max(seconds, 1));
    }
    return Math.max(ttl, 1);
  }
}
