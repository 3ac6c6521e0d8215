// Feeds (issue 22 #12): RSS 2.0, Atom 1.0 and JSON Feed 1.1 of a website's newest posts, of a tag's
// (`/post/{type}/{slug}/feed`) and of an author's (`/user/{username}/posts/feed`), each in the
// visitor's locale (`/fr/feed`): `…/feed` is RSS, `…/feed/atom` Atom, `…/feed/json` JSON Feed. Written
// by the `feed` package, every URL absolute on the website's primary domain, the excerpt or (setting
// `feed_full_content`) the whole cleaned content. Held in the full-page cache like the pages they
// mirror, and flushed by the same content changes (the reads report their tags).
import type * as FeedPackage from 'feed';
import { lazyModule } from '../../lib/lazy-module.js';
import type { Feed, Item } from 'feed';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { absoluteMediaIn } from '../../domain/media/urls.js';
import type { PublicCover, PublicListQuery, PublicPost } from '../../domain/public/posts.js';
import { cleanContent } from '../content.js';
import { urlFor } from '../context.js';
import type { FrontendState } from '../context.js';
import type { FrontendKit } from '../index.js';
import { pageTagSink } from '../page-cache.js';
import { siteOrigin } from '../seo.js';
import { tagOfPath } from './listing.js';

const feedWriter = lazyModule<typeof FeedPackage>('feed');

export const FEED_ITEMS = 20;
export const FULL_CONTENT_SETTING = 'feed_full_content';

const FORMATS = {
  rss: { suffix: '', type: 'application/rss+xml; charset=utf-8', render: (feed: Feed) => rss2(feed) },
  atom: {
    suffix: '/atom',
    type: 'application/atom+xml; charset=utf-8',
    render: (feed: Feed) => atom1(feed),
  },
  json: {
    suffix: '/json',
    type: 'application/feed+json; charset=utf-8',
    render: (feed: Feed) => jsonFeed11(feed),
  },
} as const;

interface JsonFeedAuthor {
  name?: string;
  url?: string;
}
type JsonFeedObject = { author?: JsonFeedAuthor; authors?: JsonFeedAuthor[] } & Record<string, unknown>;

/**
 * JSON Feed 1.1 from the `feed` package's version 1 output: the version, `authors` (a list) in place
 * of the deprecated `author`, and the feed's `language`.
 */
function jsonFeed11(feed: Feed): string {
  const json = JSON.parse(feed.json1()) as JsonFeedObject & { items?: JsonFeedObject[] };
  const withAuthors = (object: JsonFeedObject) => {
    if (object.author) object.authors = [object.author];
    delete object.author;
  };
  json.version = 'https://jsonfeed.org/version/1.1';
  json.language = feed.options.language;
  withAuthors(json);
  for (const item of json.items ?? []) withAuthors(item);
  return JSON.stringify(json);
}

const DC_NAMESPACE = 'http://purl.org/dc/elements/1.1/';

/**
 * RSS 2.0 from the `feed` package, with the Dublin Core namespace its `dc:creator` elements need (the
 * package declares it only when items carry full content).
 */
function rss2(feed: Feed): string {
  const xml = feed.rss2();
  if (!xml.includes('<dc:creator>') || xml.includes('xmlns:dc=')) return xml;
  return xml.replace('<rss version="2.0"', `<rss version="2.0" xmlns:dc="${DC_NAMESPACE}"`);
}

const xmlAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Atom 1.0 from the `feed` package, with each enclosure's type the one its item gives (the package
 * writes `image/` and the file's extension: `image/jpg`, issue 36 #11).
 */
function atom1(feed: Feed): string {
  const types = new Map<string, string>();
  for (const item of feed.items) {
    if (typeof item.image === 'object' && item.image.type) {
      types.set(xmlAttribute(item.image.url), xmlAttribute(item.image.type));
    }
  }
  return feed
    .atom1()
    .replace(
      /(<link rel="enclosure" href="([^"]*)"[^>]*? type=")([^"]*)"/g,
      (whole, start: string, href: string) => {
        const type = types.get(href);
        return type === undefined ? whole : `${start}${type}"`;
      },
    );
}

/** What a feed is of: its title, the page it mirrors, and which posts. */
interface FeedSubject {
  title: string;
  description: string;
  /** The HTML page of the same posts (`/`, `/post/category/news`, `/user/ann/posts`). */
  pagePath: string;
  /** The feed's own path, without the format's suffix. */
  feedPath: string;
  query: Partial<PublicListQuery>;
}

/** The feed links of a page for the layout's `<link rel="alternate">` (the website's own feeds). */
export function feedLinks(origin: string, state: FrontendState) {
  const base = `${origin}${urlFor(state, '/feed')}`;
  return { rss: base, atom: `${base}/atom`, json: `${base}/json` };
}

export function feedRoutes(kit: FrontendKit): void {
  const { services } = kit;

  const answer = async (
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    format: keyof typeof FORMATS,
    subject: FeedSubject,
  ) => {
    const origin = siteOrigin(services, state);
    const sink = pageTagSink(request);
    const page = await services.siteReads.postList(sink, state.website, {
      websiteId: state.website.id,
      locale: state.locale,
      page: 1,
      pageSize: FEED_ITEMS,
      ...subject.query,
    });
    const full = await services.settings.flag(FULL_CONTENT_SETTING, false);
    const absolute = (path: string) =>
      /^https?:\/\//i.test(path) ? path : `${origin}${path.startsWith('/') ? '' : '/'}${path}`;
    const pageUrl = absolute(urlFor(state, subject.pagePath));
    const feedUrl = absolute(urlFor(state, subject.feedPath));
    const site = state.website.fields;
    const updated = page.items.reduce<string | null>(
      (latest, post) => (latest === null || post.updatedAt > latest ? post.updatedAt : latest),
      null,
    );
    const feed = new (feedWriter().Feed)({
      title: subject.title,
      description: subject.description,
      id: pageUrl,
      link: pageUrl,
      language: state.locale,
      updated: updated ? new Date(updated) : new Date(0),
      generator: 'Folio',
      copyright: site.license ?? '',
      ...(site.site_favicon ? { favicon: absolute(site.site_favicon) } : {}),
      feedLinks: { rss: feedUrl, atom: `${feedUrl}/atom`, json: `${feedUrl}/json` },
    });
    for (const post of page.items) {
      const url = absolute(urlFor(state, `/post/${encodeURIComponent(post.slug)}`));
      // A feed reader resolves no site-relative address: Folio's own images made absolute (issue 36 #5).
      const html = full ? await fullContent(request, state, post) : undefined;
      const content = html ? absoluteMediaIn(html, origin) : undefined;
      feed.addItem({
        title: post.title,
        id: url,
        link: url,
        description: post.excerpt,
        ...(content ? { content } : {}),
        date: new Date(post.updatedAt),
        published: new Date(post.publishedAt),
        ...(post.author ? authorOf(format, post.author.name) : {}),
        category: post.tags.map((tag) => ({ name: tag.name })),
        ...(post.thumbnail ? imageOf(format, absolute(post.thumbnail), post.cover) : {}),
      });
    }
    reply.type(FORMATS[format].type);
    return FORMATS[format].render(feed);
  };

  /**
   * An item's author (issue 36 #11): RSS's `<author>` is an email address, which Folio does not
   * publish, so RSS names the author in `dc:creator`; Atom and JSON Feed take a name.
   */
  const authorOf = (format: keyof typeof FORMATS, name: string): Partial<Item> =>
    format === 'rss'
      ? { extensions: [{ name: 'dc:creator', objects: { _text: name } }] }
      : { author: [{ name }] };

  /**
   * An item's image (issue 36 #11). An enclosure (RSS, Atom) must say its length and type: both are
   * known for an image of the media library (what it stored); an external image has no enclosure (the
   * package would write `length="0"` and a type guessed from the extension, `image/jpg`). Atom's type
   * is the package's guess too, so it is set right after rendering (see atom1). JSON Feed's image is
   * a URL.
   */
  const imageOf = (format: keyof typeof FORMATS, url: string, cover: PublicCover | null): Partial<Item> => {
    if (format === 'json') return { image: url };
    if (!cover || cover.size <= 0) return {};
    return { image: { url, length: cover.size, type: cover.mimeType } };
  };

  /** The post's cleaned content, through the same cached read as its page. */
  const fullContent = async (request: FastifyRequest, state: FrontendState, post: PublicPost) => {
    const detail = await services.siteReads.post(
      pageTagSink(request),
      state.website,
      state.locale,
      post.slug,
      (found) => ({
        ...found,
        content: cleanContent(found.content),
      }),
    );
    return detail?.content;
  };

  const siteName = (state: FrontendState) => state.website.fields.site_name ?? state.website.domain;

  for (const [format, { suffix }] of Object.entries(FORMATS) as Array<
    [keyof typeof FORMATS, { suffix: string }]
  >) {
    kit.page('GET', `/feed${suffix}`, { name: `feeds.${format}`, cacheable: true }, (request, reply, state) =>
      answer(request, reply, state, format, {
        title: siteName(state),
        description:
          state.website.fields.site_slogan ?? state.website.fields.site_seo_description ?? siteName(state),
        pagePath: '/',
        feedPath: '/feed',
        query: {},
      }),
    );

    kit.page(
      'GET',
      `/post/:type/:slug/feed${suffix}`,
      { name: `feeds.tag.${format}`, cacheable: true },
      async (request, reply, state) => {
        const found = await tagOfPath(services, request, state);
        if (!found) return kit.notFound(request, reply);
        const { tag, type, tagIds } = found;
        const pagePath = `/post/${type}/${encodeURIComponent(tag.slug)}`;
        return answer(request, reply, state, format, {
          title: `${tag.name} · ${siteName(state)}`,
          description: tag.description ?? tag.name,
          pagePath,
          feedPath: `${pagePath}/feed`,
          query: { tagIds },
        });
      },
    );

    kit.page(
      'GET',
      `/user/:username/posts/feed${suffix}`,
      { name: `feeds.author.${format}`, cacheable: true },
      async (request, reply, state) => {
        const { username } = request.params as { username: string };
        if (username.length > 255) return kit.notFound(request, reply);
        const author = await services.publicPosts.findAuthor(username);
        if (!author) return kit.notFound(request, reply);
        const pagePath = `/user/${encodeURIComponent(username)}/posts`;
        return answer(request, reply, state, format, {
          title: `${author.name} · ${siteName(state)}`,
          description: `Posts by ${author.name}`,
          pagePath,
          feedPath: `${pagePath}/feed`,
          query: { authorId: author.id },
        });
      },
    );
  }
}
