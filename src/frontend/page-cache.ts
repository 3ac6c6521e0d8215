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
//   those. An entry never outlives the moment the next scheduled post goes public. The tag versions
//   are read before the page is rendered, and a page during whose rendering any flush happened is
//   not stored: a change made while a page renders can never be hidden by it.
// - The hottest pages are also kept ready to send in process memory (HotPages): the body as bytes
//   and, once asked for, compressed (br, gzip), keyed by the request's host and URL. Such a hit is
//   answered in the route's onRequest, before any other frontend hook, when the cache can tell
//   without I/O that its tags are current (always in process; on Redis through its mirror of the
//   versions) and the settings have not changed since (locales, the TTL, the installation).
// - ETag (weak: the body may be sent compressed) and Last-Modified, with 304 for conditional GETs.
// - `x-folio-cache: hit | miss | bypass` tells tests and benchmarks what happened.
import { createHash, hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { TagStamp } from '../cache/cache.js';
import { pageTags } from '../domain/cache-tags.js';
import { websiteMenuCacheTag } from '../domain/menus/store.js';
import { DOMAINS_TAG } from '../domain/websites/store.js';
import {
  COMPRESSIBLE_TYPES,
  COMPRESS_THRESHOLD,
  compressForStorage,
  preferredEncoding,
} from '../http/compression.js';
import type { StoredEncoding } from '../http/compression.js';
import { requestSlot } from '../http/request-slots.js';
import type { FaceServices } from '../services.js';
import { SESSION_COOKIE, frontendState, maybeFrontendState } from './context.js';

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
  /** The page's Content-Security-Policy (it depends on the website: frontend/csp.ts). */
  csp?: string;
}

interface Pending {
  key: string;
  tags: Set<string>;
  maxTtl: number;
  /** Versions of the page's first tags, read before rendering. */
  stamp: TagStamp;
  /** The cache's flush count before rendering: if it moved, the page is not stored. */
  flushCount: number;
  settings: ReadonlyMap<string, string>;
}

const pending = requestSlot<Pending>('pageCacheEntry');
const requestTags = requestSlot<Set<string>>('pageTags');

/** The cache tags of what the page being rendered shows (the page cache's and the fragments'). */
export function pageTagsOf(request: FastifyRequest): Set<string> {
  let tags = requestTags.get(request);
  if (!tags) requestTags.set(request, (tags = new Set()));
  return tags;
}

/** Adds cache tags to the page being rendered (what it shows). */
export function tagPage(request: FastifyRequest, ...tags: string[]): void {
  const set = pageTagsOf(request);
  for (const tag of tags) set.add(tag);
}

/** The page's collector of cache tags, handed to the domain's reads (they report what they read). */
export function pageTagSink(request: FastifyRequest): (tags: readonly string[]) => void {
  return (tags) => tagPage(request, ...tags);
}

/** Caps how long the page being rendered may be cached (pages that change without an event). */
export function limitPageTtl(request: FastifyRequest, seconds: number): void {
  const entry = pending.get(request);
  if (entry) entry.maxTtl = Math.min(entry.maxTtl, seconds);
}

export function weakEtag(body: string | Buffer): string {
  return `W/"${hash('sha1', body, 'base64url')}"`;
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

/** The tags of every page of a website: its fields and domains, its menus, and the installation's settings. */
export const baseTags = (websiteId: number) => [
  pageTags.site(websiteId),
  websiteMenuCacheTag(websiteId),
  pageTags.all,
];

const shortUrl = (url: string) => (url.length > 200 ? createHash('sha1').update(url).digest('hex') : url);

/**
 * The query parameters a cached page may read (the list's `page`, the post's `comment` notice, the
 * home page's WordPress ids `p` and `page_id`, which it answers with a redirect when it knows them). Any
 * other parameter changes nothing on a page, so it makes no entry of its own: random query strings
 * cannot fill the cache (issue 21 #4). A page route that starts reading another one adds it here.
 */
export const PAGE_QUERY_PARAMETERS = ['comment', 'page', 'p', 'page_id'] as const;

const honoured = requestSlot<Set<string>>('honouredQuery');

/**
 * The page being rendered used its query parameter `name` (one of PAGE_QUERY_PARAMETERS) with a
 * value that names something (a page of the list that exists, a notice the page knows). A page
 * whose URL carries a page parameter its route did not honour is not stored (issue 34 #12): `?page=N`
 * past the end or on a page without pages, `?comment=X` naming no notice, each made an entry of its own.
 */
export function honourQuery(request: FastifyRequest, name: (typeof PAGE_QUERY_PARAMETERS)[number]): void {
  let names = honoured.get(request);
  if (!names) honoured.set(request, (names = new Set()));
  names.add(name);
}

/** Every page parameter the URL carries was honoured by the route (see honourQuery). */
function queryHonoured(request: FastifyRequest): boolean {
  const at = request.url.indexOf('?');
  if (at < 0) return true;
  const query = new URLSearchParams(request.url.slice(at + 1));
  const names = honoured.get(request);
  return PAGE_QUERY_PARAMETERS.every((name) => !query.has(name) || names?.has(name) === true);
}

/** The path and the page parameters of a URL, in one order: what tells cached pages apart. */
export function pageUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return shortUrl(url);
  const query = new URLSearchParams(url.slice(at + 1));
  const kept = PAGE_QUERY_PARAMETERS.flatMap((name) => {
    const value = query.get(name);
    return value === null ? [] : [[name, value.slice(0, 100)] as [string, string]];
  });
  const path = url.slice(0, at);
  return shortUrl(kept.length === 0 ? path : `${path}?${new URLSearchParams(kept).toString()}`);
}

/**
 * A page is the same on every domain of its website and every port (its links are built from the
 * primary domain: seo.ts), so the key names the website, not the Host.
 */
function cacheKey(request: FastifyRequest, websiteId: number, locale: string): string {
  return `page:${websiteId}:${locale}:${pageUrl(request.url)}`;
}

/** What a request asks for before the website and locale are known: its host name and page URL. */
const hotKey = (request: FastifyRequest) => `${request.hostname.toLowerCase()} ${pageUrl(request.url)}`;

const hasSession = (request: FastifyRequest) => request.cookies[SESSION_COOKIE] !== undefined;

/** A cached page ready to send: its bytes, and the compressed bytes once a client asked for them. */
interface ReadyPage {
  body: Buffer;
  encoded: Partial<Record<StoredEncoding, Buffer>>;
  compressible: boolean;
  type: string;
  etag: string;
  lastModified: string;
  csp?: string;
}

interface HotEntry {
  page: ReadyPage;
  stamp: TagStamp;
  /** Clock milliseconds; 0 for never. */
  expires: number;
  /** The settings snapshot the page was made under: a settings change retires the entry. */
  settings: ReadonlyMap<string, string>;
}

/** `body`: the page's bytes when the caller has them already. */
function readyPage(page: CachedPage, body: Buffer = Buffer.from(page.body)): ReadyPage {
  return {
    body,
    encoded: {},
    compressible: body.length >= COMPRESS_THRESHOLD && COMPRESSIBLE_TYPES.test(page.type),
    type: page.type,
    etag: page.etag,
    lastModified: page.lastModified,
    csp: page.csp,
  };
}

const entrySize = (entry: HotEntry) =>
  entry.page.body.length +
  (entry.page.encoded.br?.length ?? 0) +
  (entry.page.encoded.gzip?.length ?? 0) +
  512;

export async function pageCacheTtl(services: FaceServices): Promise<number> {
  const raw = (await services.settings.get(PAGE_CACHE_TTL_SETTING))?.trim() ?? '';
  const seconds = /^\d{1,9}$/.test(raw) ? Number(raw) : DEFAULT_PAGE_CACHE_TTL;
  return Math.min(Math.max(seconds, 0), MAX_PAGE_CACHE_TTL);
}

/**
 * Bodies this long (characters) are encoded once and sent again as the same bytes while the same text
 * comes back (a sitemap file of 1 MB from the data cache): encoding it for every request cost a
 * megabyte of short-lived memory each, which peaked the process's RSS at about twice the rest.
 */
export const LARGE_BODY_CHARACTERS = 64 * 1024;

/** A large body's UTF-8 bytes, and their ETag once asked for. */
interface EncodedBody {
  bytes: Buffer;
  etag?: string;
}

/** Of the pages' share of the memory budget, the part kept for large bodies' bytes (the rest: hot pages). */
const LARGE_BODIES_SHARE = 1 / 4;

export class PageCache {
  /** Ready-to-send pages, within their share of the memory budget. */
  private readonly hot: LRUCache<string, HotEntry>;
  /**
   * Large bodies' bytes by their text (a Map compares a long string by length first, then by
   * identity or content, so the same text from a cache finds its bytes at once).
   */
  private readonly largeBodies: LRUCache<string, EncodedBody>;

  constructor(private readonly services: FaceServices) {
    const largeBodiesBytes = Math.floor(services.memory.hotPages * LARGE_BODIES_SHARE);
    this.hot = new LRUCache<string, HotEntry>({
      maxSize: services.memory.hotPages - largeBodiesBytes,
      sizeCalculation: entrySize,
    });
    this.largeBodies = new LRUCache<string, EncodedBody>({
      maxSize: largeBodiesBytes,
      // The text is kept as the key: count it with its bytes.
      sizeCalculation: (body, text) => body.bytes.length + text.length + 64,
    });
  }

  /** The UTF-8 bytes of a body (remembered for a large one). */
  private encoded(text: string): EncodedBody {
    if (text.length < LARGE_BODY_CHARACTERS) return { bytes: Buffer.from(text) };
    let body = this.largeBodies.get(text);
    if (!body) {
      body = { bytes: Buffer.from(text) };
      this.largeBodies.set(text, body);
    }
    return body;
  }

  /**
   * The onRequest hook of cacheable routes: answers from a ready page in process memory when it is
   * known to be current, before the website, locale and visitor are resolved. Anything else goes on
   * to the frontend hooks (and lookup()).
   */
  async serveHot(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if ((request.method !== 'GET' && request.method !== 'HEAD') || hasSession(request)) return undefined;
    const key = hotKey(request);
    const entry = this.hot.get(key);
    if (!entry) return undefined;
    const settings = this.services.settings.current() ?? (await this.services.settings.all());
    if (
      !this.services.cachedPages.isCurrent(entry.stamp) ||
      entry.settings !== settings ||
      (entry.expires !== 0 && entry.expires <= this.services.clock.now().getTime())
    ) {
      this.hot.delete(key);
      return undefined;
    }
    return this.send(request, reply, key, entry);
  }

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
      !hasSession(request);
    if (!eligible) {
      reply.header(CACHE_HEADER, 'bypass');
      return undefined;
    }
    const ttl = await pageCacheTtl(this.services);
    if (ttl === 0) {
      reply.header(CACHE_HEADER, 'bypass');
      return undefined;
    }
    const cache = this.services.cachedPages;
    const settings = await this.services.settings.all();
    const key = cacheKey(request, state.website.id, state.locale);
    const hit = await cache.getStamped<CachedPage>(key);
    if (hit) {
      const entry: HotEntry = {
        page: readyPage(hit.value),
        stamp: hit.stamp,
        expires: this.clockExpiry(hit.expires),
        settings,
      };
      // Only pages whose stamp covers domain changes may skip the website lookup (host -> website).
      if (DOMAINS_TAG in hit.stamp) this.hot.set(hotKey(request), entry);
      return this.send(request, reply, null, entry);
    }
    const tags = [...baseTags(state.website.id), DOMAINS_TAG];
    const flushCount = cache.flushCount;
    const stamp = await cache.stamp(tags);
    tagPage(request, ...tags);
    if (stamp)
      pending.set(request, { key, tags: pageTagsOf(request), maxTtl: ttl, stamp, flushCount, settings });
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
    // A website whose page cache is off gets no ETag either: its hash would cost every page a pass over
    // its bytes (issue 26 #6). With the cache on, pages it does not keep (a signed-in visitor's) still
    // carry one for the browser's conditional GETs.
    // The bytes, not the text: a string answer is measured for Content-Length (Buffer.byteLength
    // flattens the rendered page's rope and scans it), then encoded again by the socket.
    if (!entry && !maybeFrontendState(request)?.website.enabledPageCache) return this.encoded(payload).bytes;

    // The page is encoded to UTF-8 once, here: the ETag hashes those bytes and the socket writes them
    // (a string would be encoded once for each).
    const body = this.encoded(payload);
    const bytes = body.bytes;
    const etag = (body.etag ??= weakEtag(bytes));
    reply.header('etag', etag);
    if (entry && !reply.hasHeader('set-cookie') && queryHonoured(request)) {
      const lastModified = new Date(this.services.clock.now().getTime()).toUTCString();
      reply.header('last-modified', lastModified);
      const page: CachedPage = {
        body: payload,
        type: String(reply.getHeader('content-type') ?? 'text/html; charset=utf-8'),
        etag,
        lastModified,
        csp: (reply.getHeader('content-security-policy') as string | undefined) ?? undefined,
      };
      await this.store(request, entry, page, bytes);
    } else if (entry) {
      reply.header(CACHE_HEADER, 'bypass');
    }
    if (notModified(request, etag)) {
      reply.code(304);
      return '';
    }
    return bytes;
  }

  /** Stores a rendered page, unless a flush happened while it rendered (it may show older data). */
  private async store(
    request: FastifyRequest,
    entry: Pending,
    page: CachedPage,
    bytes: Buffer,
  ): Promise<void> {
    const cache = this.services.cachedPages;
    const added = [...entry.tags].filter((tag) => !(tag in entry.stamp));
    const addedStamp = added.length > 0 ? await cache.stamp(added) : {};
    if (!addedStamp || cache.flushCount !== entry.flushCount) return;
    const stamp = { ...entry.stamp, ...addedStamp };
    const ttl = await this.ttlFor(entry);
    await cache.setStamped(entry.key, page, stamp, ttl);
    this.hot.set(hotKey(request), {
      page: readyPage(page, bytes),
      stamp,
      expires: this.services.clock.now().getTime() + ttl * 1000,
      settings: entry.settings,
    });
  }

  /** Sends a cached page: 304 when the client has it, else its bytes in the best stored encoding. */
  private send(
    request: FastifyRequest,
    reply: FastifyReply,
    key: string | null,
    entry: HotEntry,
  ): FastifyReply {
    const { page } = entry;
    reply
      .header(CACHE_HEADER, 'hit')
      .header('etag', page.etag)
      .header('last-modified', page.lastModified)
      .type(page.type);
    if (page.csp) reply.header('content-security-policy', page.csp);
    if (page.compressible) reply.header('vary', 'accept-encoding');
    if (notModified(request, page.etag, page.lastModified)) return reply.code(304).send();
    const encoding = page.compressible ? preferredEncoding(request.headers['accept-encoding']) : null;
    if (encoding === null) return reply.code(200).send(page.body);
    let encoded = page.encoded[encoding];
    if (!encoded) {
      encoded = page.encoded[encoding] = compressForStorage(page.body, encoding);
      if (key !== null && this.hot.peek(key) === entry) this.hot.set(key, entry); // its new size
    }
    return reply.code(200).header('content-encoding', encoding).send(encoded);
  }

  /** A shared entry's expiry (wall-clock ms) on the services' clock, which tests may move. */
  private clockExpiry(expires: number): number {
    if (expires === 0) return 0;
    return this.services.clock.now().getTime() + Math.max(expires - Date.now(), 0);
  }

  /** The entry's TTL, cut short when a scheduled post goes public before it would expire. */
  private async ttlFor(entry: Pending): Promise<number> {
    return this.services.siteReads.untilNextPublication(Math.max(entry.maxTtl, 1));
  }
}
