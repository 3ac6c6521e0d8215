// Sitemaps (frontend.sitemaps.posts/.pages/.tags) in the sitemaps.org 0.9 format, and robots.txt that
// points to them. Every URL is absolute on the website's primary domain; each page appears once per
// supported locale (the sitemap schema has no room for hreflang annotations without extensions).
// Every sitemap is split into files of at most URLS_PER_FILE URLs, every locale's counted (issue 26
// #5): `/sitemap/{kind}` is the file itself while one is enough, else a sitemap index of
// `/sitemap/{kind}?page=N`. `/sitemap.xml` indexes every file of every kind directly (an index may not
// list another index). The posts' files are read in chunks and written as they come (streamed) unless
// the website's data cache keeps them whole.
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { localizedPath } from '../../domain/locales.js';
import type { SitemapPlace } from '../../domain/public/posts.js';
import type { TagSink } from '../../domain/public/site-reads.js';
import { escapeHtml } from '../../http/html.js';
import type { FrontendState } from '../context.js';
import { DOMAIN_CHECK_PATH } from '../../domain/websites/domain-check.js';
import type { FrontendKit } from '../index.js';
import { honourQuery, pageTagSink } from '../page-cache.js';
import { siteOrigin } from '../seo.js';
import { postTagTypes, shortNameOf } from '../tag-types.js';

/** The default favicon: a rounded square with an "F", in the default theme's accent colour. */
const DEFAULT_FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4e79"/>' +
  '<path d="M11 8h11v3.5h-7v3.5h6v3.5h-6V24h-4z" fill="#fff"/></svg>';
/**
 * URLs per file (posts × locales): about 1.3 MB at usual lengths. The protocol allows 50,000 URLs and
 * 50 MB: even with every URL at its longest (a 255-character slug percent-encoded, a long domain,
 * about 1.2 kB with its lastmod) a file stays near 12 MB.
 */
export const URLS_PER_FILE = 10_000;
/** Posts read per query while a file is written. */
const CHUNK = 1_000;
/** Models whose tags have public pages, and where: `/post/{short}/{slug}`, `/link/{short}/{slug}`. */
const TAG_MODELS = ['post', 'link'] as const;

interface Entry {
  path: string;
  lastModified?: string;
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const URLSET_OPEN = `${XML_HEAD}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n`;
const URLSET_CLOSE = '\n</urlset>\n';

/** The `<url>` elements of entries, one per locale, joined by newlines. */
function urlElements(origin: string, state: FrontendState, entries: Entry[]): string {
  const locales = state.locales.localized ? state.locales.supported : [state.locales.defaultLocale];
  const urls: string[] = [];
  for (const entry of entries) {
    for (const locale of locales) {
      const loc = `${origin}${localizedPath(entry.path, locale, state.locales)}`;
      urls.push(
        `<url><loc>${escapeXml(loc)}</loc>${entry.lastModified ? `<lastmod>${entry.lastModified}</lastmod>` : ''}</url>`,
      );
    }
  }
  return urls.join('\n');
}

/** A whole sitemap file, from batches of entries, as text pieces in order. */
async function* urlsetPieces(
  origin: string,
  state: FrontendState,
  batches: AsyncIterable<Entry[]>,
): AsyncGenerator<string> {
  yield URLSET_OPEN;
  let first = true;
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    yield `${first ? '' : '\n'}${urlElements(origin, state, batch)}`;
    first = false;
  }
  yield URLSET_CLOSE;
}

async function textOf(pieces: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const piece of pieces) text += piece;
  return text;
}

function escapeXml(text: string): string {
  return escapeHtml(text);
}

function sitemapIndex(locations: string[]): string {
  const entries = locations.map((loc) => `<sitemap><loc>${escapeXml(loc)}</loc></sitemap>`);
  return `${XML_HEAD}<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</sitemapindex>\n`;
}

/**
 * A sitemap of `head` entries (the listing pages: at the start of the first file) then `count`
 * items, in files of `perFile` entries: the range of items file `page` holds.
 */
function fileRange(head: number, count: number, perFile: number, page: number) {
  const start = (page - 1) * perFile;
  const end = Math.min(head + count, page * perFile);
  return {
    head: [Math.min(start, head), Math.min(end, head)] as const,
    offset: Math.max(0, start - head),
    limit: Math.max(0, end - Math.max(start, head)),
  };
}

/** How many files a sitemap of `entries` entries takes (at least one: a sitemap lists its listing). */
const filesOf = (entries: number, perFile: number) => Math.max(1, Math.ceil(entries / perFile));

export function sitemapRoutes(kit: FrontendKit): void {
  const { services } = kit;
  const xml = 'application/xml; charset=utf-8';
  const urlsPerFile = services.config.sitemap?.urlsPerFile ?? URLS_PER_FILE;
  const chunk = services.config.sitemap?.rowsPerQuery ?? CHUNK;
  const localeCount = (state: FrontendState) =>
    state.locales.localized ? state.locales.supported.length : 1;
  /** Entries per file: each is a URL per locale. */
  const perFile = (state: FrontendState) => Math.max(1, Math.floor(urlsPerFile / localeCount(state)));
  const origin = (state: FrontendState) => siteOrigin(services, state);

  /** The page a request names: undefined (none), or a number, or null (not a page: 404). */
  const pageOf = (request: FastifyRequest): number | null | undefined => {
    const query = request.query as { page?: unknown };
    if (query.page === undefined) return undefined;
    const text = typeof query.page === 'string' ? query.page : '';
    return /^[1-9]\d{0,6}$/.test(text) ? Number(text) : null;
  };

  /**
   * The answer of a split sitemap: its index when it takes several files and no page is asked for,
   * else the file (`file(page)`); 404 for a page that is not one of its files.
   */
  async function parted(
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    path: string,
    entries: number,
    file: (page: number) => Promise<string | Readable>,
  ) {
    const files = filesOf(entries, perFile(state));
    const page = pageOf(request);
    if (page === undefined && files > 1) {
      reply.type(xml);
      return sitemapIndex(Array.from({ length: files }, (_, i) => `${origin(state)}${path}?page=${i + 1}`));
    }
    if (page === null || (page ?? 1) > files) return kit.notFound(request, reply);
    if (page !== undefined) honourQuery(request, 'page');
    const body = await file(page ?? 1);
    reply.type(xml);
    return body;
  }

  /** A sitemap's route: never localized (every locale's URLs are in it), cacheable as a page. */
  function sitemapPage(
    path: string,
    name: string,
    answer: (
      request: FastifyRequest,
      reply: FastifyReply,
      state: FrontendState,
      sink: TagSink,
    ) => Promise<unknown>,
  ) {
    kit.page('GET', path, { name, localized: false, cacheable: true }, (request, reply, state) =>
      answer(request, reply, state, pageTagSink(request)),
    );
  }

  /** The tag type and URL short name of `/sitemap/tags/{model}/{type}`, or null when there is none. */
  async function tagKind(model: string, type: string) {
    if (!(TAG_MODELS as readonly string[]).includes(model)) return null;
    // `/sitemap/tags/post/category`: the short names of R-F2 for posts, `{model}_{type}` otherwise.
    const types = await postTagTypes(services.settings);
    const tagType =
      model === 'post'
        ? types.get(type)
        : /^[a-z][a-z0-9_]{0,40}$/.test(type)
          ? `${model}_${type}`
          : undefined;
    if (!tagType) return null;
    return { tagType, short: model === 'post' ? (shortNameOf(types, tagType) ?? type) : type };
  }

  sitemapPage('/sitemap/posts', 'sitemaps.posts', async (request, reply, state, sink) => {
    const count = await services.siteReads.postCount(sink, state.website.id);
    const base = origin(state);
    const websiteId = state.website.id;
    return parted(request, reply, state, '/sitemap/posts', 1 + count, async (page) => {
      const range = fileRange(1, count, perFile(state), page);
      // The file's posts in chunks, each after the last post of the one before.
      async function* batches(): AsyncGenerator<Entry[]> {
        let from: number | SitemapPlace = range.offset;
        for (let left = range.limit; left > 0;) {
          const posts = await services.siteReads.postsSitemapChunk(
            sink,
            websiteId,
            Math.min(chunk, left),
            from,
          );
          if (range.head[1] > range.head[0] && from === range.offset) {
            // The listing first: a sitemap needs at least one URL, and the listing is where posts start.
            yield [{ path: '/post', lastModified: posts[0]?.lastModified }];
          }
          yield posts.map((post) => ({
            path: `/post/${encodeURIComponent(post.slug)}`,
            lastModified: post.lastModified,
          }));
          left -= posts.length;
          if (posts.length === 0 || !posts.next) break;
          from = posts.next;
        }
        if (range.limit === 0 && range.head[1] > range.head[0]) yield [{ path: '/post' }];
      }
      const pieces = () => urlsetPieces(base, state, batches());
      // Without the website's data cache the file is written as it is read: never whole in memory.
      if (!state.website.enabledDataCache) return Readable.from(pieces());
      // With it, a file is built once and kept until a post of the website (or a global one) changes
      // or is published, keyed by everything else it shows (the origin and the locales).
      const { locales } = state;
      return services.siteReads.postsSitemapFile(
        sink,
        state.website,
        JSON.stringify([
          page,
          perFile(state),
          base,
          locales.localized,
          locales.defaultLocale,
          locales.supported,
        ]),
        () => textOf(pieces()),
      );
    });
  });

  /** What a sitemap read whole lists: the `head` listing pages, then `count` items. */
  interface ListedSitemap<T> {
    /** The sitemap's own path (its files: `?page=N`). */
    path: string;
    head: Entry[];
    count: number;
    /** Items of one file. */
    read: (limit: number, offset: number) => Promise<T[]>;
    entryOf: (item: T) => Entry;
  }

  /**
   * The route of a sitemap read a file at a time (`/sitemap/pages`, `/sitemap/tags/…`): `listing`
   * says what it lists, or null when the URL names no sitemap (404).
   */
  function listedSitemapRoute<T>(
    path: string,
    name: string,
    listing: (
      request: FastifyRequest,
      state: FrontendState,
      sink: TagSink,
    ) => Promise<ListedSitemap<T> | null>,
  ) {
    sitemapPage(path, name, async (request, reply, state, sink) => {
      const sitemap = await listing(request, state, sink);
      if (!sitemap) return kit.notFound(request, reply);
      const { head, count } = sitemap;
      return parted(request, reply, state, sitemap.path, head.length + count, async (page) => {
        const range = fileRange(head.length, count, perFile(state), page);
        const items = range.limit === 0 ? [] : await sitemap.read(range.limit, range.offset);
        const entries = [...head.slice(...range.head), ...items.map(sitemap.entryOf)];
        return textOf(urlsetPieces(origin(state), state, oneBatch(entries)));
      });
    });
  }

  listedSitemapRoute('/sitemap/pages', 'sitemaps.pages', async (_request, state, sink) => ({
    path: '/sitemap/pages',
    head: [{ path: '/' }, { path: '/blog' }],
    count: await services.siteReads.pageCount(sink, state.website.id),
    read: (limit, offset) => services.siteReads.sitemapPages(sink, state.website.id, limit, offset),
    entryOf: (item) => ({ path: `/page/${encodeURIComponent(item.slug)}`, lastModified: item.lastModified }),
  }));

  listedSitemapRoute('/sitemap/tags/:model/:type', 'sitemaps.tags', async (request, state, sink) => {
    const { model, type } = request.params as { model: string; type: string };
    const kind = await tagKind(model, type);
    if (!kind) return null;
    const websiteId = state.website.id;
    return {
      path: `/sitemap/tags/${model}/${type}`,
      head: [{ path: `/${model}` }],
      count: await services.siteReads.tagCount(sink, websiteId, kind.tagType),
      read: (limit, offset) =>
        services.siteReads.tagsOfTypeNow(sink, websiteId, kind.tagType, state.locale, limit, offset),
      entryOf: (tag) => ({
        path: `/${model}/${kind.short}/${encodeURIComponent(tag.slug)}`,
        lastModified: tag.lastModified,
      }),
    };
  });

  // The conventional place crawlers look first: an index of every file of every sitemap of the
  // website (each kind's own index is left out: an index may only list sitemaps).
  sitemapPage('/sitemap.xml', 'sitemaps.index', async (request, reply, state, sink) => {
    const base = origin(state);
    const websiteId = state.website.id;
    const tagTypes = await postTagTypes(services.settings);
    const files = (path: string, entries: number) => {
      const count = filesOf(entries, perFile(state));
      return count === 1
        ? [`${base}${path}`]
        : Array.from({ length: count }, (_, i) => `${base}${path}?page=${i + 1}`);
    };
    const tagFiles = await Promise.all(
      [...tagTypes].map(async ([short, tagType]) =>
        files(
          `/sitemap/tags/post/${short}`,
          1 + (await services.siteReads.tagCount(sink, websiteId, tagType)),
        ),
      ),
    );
    const locations = [
      ...files('/sitemap/posts', 1 + (await services.siteReads.postCount(sink, websiteId))),
      ...files('/sitemap/pages', 2 + (await services.siteReads.pageCount(sink, websiteId))),
      ...tagFiles.flat(),
    ];
    reply.type(xml);
    return sitemapIndex(locations);
  });

  // A website's favicon (its `site_favicon`), else a small default: browsers ask for /favicon.ico on
  // every site, and a 404 there is an error in every visitor's console.
  kit.page('GET', '/favicon.ico', { name: 'favicon', localized: false }, async (_request, reply, state) => {
    const own = state.website.fields.site_favicon;
    if (typeof own === 'string' && own.trim() !== '') return reply.redirect(own, 302);
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400');
    return DEFAULT_FAVICON;
  });

  // The installation's token, asked for by the admin panel's domain check (domain-check.ts): a
  // domain that answers it leads to this installation, whatever address it resolves to.
  kit.page('GET', DOMAIN_CHECK_PATH, { name: 'domain-check', localized: false }, async (_request, reply) => {
    reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store');
    return services.websiteOps.domainCheckToken();
  });

  kit.page(
    'GET',
    '/robots.txt',
    { name: 'robots', localized: false, cacheable: true },
    async (request, reply, state) => {
      const base = origin(state);
      const tagTypes = await postTagTypes(services.settings);
      const lines = [
        'User-agent: *',
        'Disallow: /api/',
        'Disallow: /post/search',
        'Disallow: /post/create',
        'Disallow: /post/edit/',
        'Disallow: /user/login',
        'Disallow: /user/register',
        'Disallow: /user/password/',
        'Disallow: /user/profile',
        'Disallow: /user/settings',
        '',
        `Sitemap: ${base}/sitemap.xml`,
        `Sitemap: ${base}/sitemap/posts`,
        `Sitemap: ${base}/sitemap/pages`,
        ...[...tagTypes.keys()].map((short) => `Sitemap: ${base}/sitemap/tags/post/${short}`),
        '',
      ];
      reply.type('text/plain; charset=utf-8');
      return lines.join('\n');
    },
  );
}

async function* oneBatch(entries: Entry[]): AsyncGenerator<Entry[]> {
  yield entries;
}
