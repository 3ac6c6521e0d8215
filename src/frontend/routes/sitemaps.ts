// Sitemaps (frontend.sitemaps.posts/.pages/.tags) in the sitemaps.org 0.9 format, and robots.txt that
// points to them. Every URL is absolute on the website's primary domain; each page appears once per
// supported locale (the sitemap schema has no room for hreflang annotations without extensions).
// A sitemap holds at most 50,000 URLs, as the protocol requires; the posts' sitemap is split into
// files of URLS_PER_FILE URLs once it outgrows one (`/sitemap/posts` is then a sitemap index of
// `/sitemap/posts?page=N`), so that no post is left out and no file costs more than a moment.
import { localizedPath } from '../../domain/locales.js';
import { escapeHtml } from '../../http/html.js';
import type { FrontendState } from '../context.js';
import type { FrontendKit } from '../index.js';
import { pageTagSink } from '../page-cache.js';
import { siteOrigin } from '../seo.js';
import { postTagTypes, shortNameOf } from '../tag-types.js';

const MAX_URLS = 50_000;
/** The default favicon: a rounded square with an "F", in the default theme's accent colour. */
const DEFAULT_FAVICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f4e79"/>' +
  '<path d="M11 8h11v3.5h-7v3.5h6v3.5h-6V24h-4z" fill="#fff"/></svg>';
/** URLs (posts × locales) per file of the posts' sitemap: about 1.3 MB. */
export const URLS_PER_FILE = 10_000;
/** Models whose tags have public pages, and where: `/post/{short}/{slug}`, `/link/{short}/{slug}`. */
const TAG_MODELS = ['post', 'link'] as const;

interface Entry {
  path: string;
  lastModified?: string;
}

function urlset(origin: string, state: FrontendState, entries: Entry[]): string {
  const locales = state.locales.localized ? state.locales.supported : [state.locales.defaultLocale];
  const urls: string[] = [];
  for (const entry of entries) {
    for (const locale of locales) {
      if (urls.length >= MAX_URLS) break;
      const loc = `${origin}${localizedPath(entry.path, locale, state.locales)}`;
      urls.push(
        `<url><loc>${escapeXml(loc)}</loc>${entry.lastModified ? `<lastmod>${entry.lastModified}</lastmod>` : ''}</url>`,
      );
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

function escapeXml(text: string): string {
  return escapeHtml(text);
}

function sitemapIndex(locations: string[]): string {
  const entries = locations.map((loc) => `<sitemap><loc>${escapeXml(loc)}</loc></sitemap>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('\n')}\n</sitemapindex>\n`;
}

export function sitemapRoutes(kit: FrontendKit): void {
  const { services } = kit;
  const xml = 'application/xml; charset=utf-8';
  const localeCount = (state: FrontendState) =>
    state.locales.localized ? state.locales.supported.length : 1;
  const limit = (state: FrontendState) => Math.floor(MAX_URLS / localeCount(state)) - 1;
  const origin = (state: FrontendState) => siteOrigin(services, state);

  kit.page(
    'GET',
    '/sitemap/posts',
    { name: 'sitemaps.posts', localized: false, cacheable: true },
    async (request, reply, state) => {
      // Posts per file: the listing's URL and each post's, in every locale, within URLS_PER_FILE.
      const perFile = Math.floor(URLS_PER_FILE / localeCount(state)) - 1;
      const count = await services.siteReads.postCount(pageTagSink(request), state.website.id);
      const files = Math.max(1, Math.ceil(count / perFile));
      const query = request.query as { page?: unknown };
      if (query.page === undefined && files > 1) {
        reply.type(xml);
        const base = `${origin(state)}/sitemap/posts?page=`;
        return sitemapIndex(Array.from({ length: files }, (_, i) => `${base}${i + 1}`));
      }
      const pageText = query.page === undefined ? '1' : typeof query.page === 'string' ? query.page : '';
      const page = Number(pageText);
      if (!/^[1-9]\d{0,6}$/.test(pageText) || page > files) return kit.notFound(request, reply);
      const base = origin(state);
      const build = async () => {
        const posts = await services.publicPosts.sitemap(state.website.id, perFile, (page - 1) * perFile);
        // The listing first: a sitemap needs at least one URL, and the listing is where posts start.
        const entries: Entry[] = [
          ...(page === 1 ? [{ path: '/post', lastModified: posts[0]?.lastModified }] : []),
          ...posts.map((post) => ({
            path: `/post/${encodeURIComponent(post.slug)}`,
            lastModified: post.lastModified,
          })),
        ];
        return urlset(base, state, entries);
      };
      // A file costs a query over up to URLS_PER_FILE posts and a megabyte of XML: the website's data
      // cache keeps it until a post of the website (or a global one) changes or is published, keyed by
      // everything else it shows (the origin and the locales).
      const { locales } = state;
      const file = await services.siteReads.postsSitemapFile(
        pageTagSink(request),
        state.website,
        JSON.stringify([page, perFile, base, locales.localized, locales.defaultLocale, locales.supported]),
        build,
      );
      reply.type(xml);
      return file;
    },
  );

  kit.page(
    'GET',
    '/sitemap/pages',
    { name: 'sitemaps.pages', localized: false, cacheable: true },
    async (request, reply, state) => {
      const pages = await services.siteReads.sitemapPages(
        pageTagSink(request),
        state.website.id,
        limit(state),
      );
      const entries: Entry[] = [
        { path: '/' },
        { path: '/blog' },
        ...pages.map((page) => ({
          path: `/page/${encodeURIComponent(page.slug)}`,
          lastModified: page.lastModified,
        })),
      ];
      reply.type(xml);
      return urlset(origin(state), state, entries);
    },
  );

  kit.page(
    'GET',
    '/sitemap/tags/:model/:type',
    { name: 'sitemaps.tags', localized: false, cacheable: true },
    async (request, reply, state) => {
      const { model, type } = request.params as { model: string; type: string };
      if (!(TAG_MODELS as readonly string[]).includes(model)) return kit.notFound(request, reply);
      // `/sitemap/tags/post/category`: the short names of R-F2 for posts, `{model}_{type}` otherwise.
      const tagType =
        model === 'post'
          ? (await postTagTypes(services.settings)).get(type)
          : /^[a-z][a-z0-9_]{0,40}$/.test(type)
            ? `${model}_${type}`
            : undefined;
      if (!tagType) return kit.notFound(request, reply);
      const short =
        model === 'post' ? (shortNameOf(await postTagTypes(services.settings), tagType) ?? type) : type;
      const tags = await services.siteReads.tagsOfTypeNow(
        pageTagSink(request),
        state.website.id,
        tagType,
        state.locale,
        limit(state),
      );
      const entries: Entry[] = [
        { path: `/${model}` },
        ...tags.map((tag) => ({
          path: `/${model}/${short}/${encodeURIComponent(tag.slug)}`,
          lastModified: tag.lastModified,
        })),
      ];
      reply.type(xml);
      return urlset(origin(state), state, entries);
    },
  );

  // The conventional place crawlers look first: an index of every sitemap of the website.
  kit.page(
    'GET',
    '/sitemap.xml',
    { name: 'sitemaps.index', localized: false, cacheable: true },
    async (request, reply, state) => {
      const base = origin(state);
      const tagTypes = await postTagTypes(services.settings);
      reply.type(xml);
      return sitemapIndex([
        `${base}/sitemap/posts`,
        `${base}/sitemap/pages`,
        ...[...tagTypes.keys()].map((short) => `${base}/sitemap/tags/post/${short}`),
      ]);
    },
  );

  // A website's favicon (its `site_favicon`), else a small default: browsers ask for /favicon.ico on
  // every site, and a 404 there is an error in every visitor's console.
  kit.page('GET', '/favicon.ico', { name: 'favicon', localized: false }, async (_request, reply, state) => {
    const own = state.website.fields.site_favicon;
    if (typeof own === 'string' && own.trim() !== '') return reply.redirect(own, 302);
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400');
    return DEFAULT_FAVICON;
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
