// Reading posts (spec 4.8): the listing, search, rankings and lists by clicks (R-F5), posts under a
// tag (R-F2), a user's posts, and a single post, registered last of the `/post/…` routes (static
// segments such as `create`, `search`, `rank` and `list` always win in the router).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Period, PostLink, PublicPage, PublicPost, RankKind } from '../../domain/public/posts.js';
import { urlFor } from '../context.js';
import type { FrontendState } from '../context.js';
import { cleanContent } from '../content.js';
import { readingMinutes } from '../../domain/posts/reading-time.js';
import { TooManyRequestsError } from '../../domain/errors.js';
import { checkCsrf } from '../../http/csrf.js';
import { localizeMessage } from '../site-messages.js';
import type { FrontendKit } from '../index.js';
import { limitPageTtl, pageTagSink } from '../page-cache.js';
import { postTagTypes } from '../tag-types.js';
import {
  listPosts,
  listingData,
  mediaUrlOf,
  pageNumber,
  postCards,
  postsPerPage,
  tagOfPath,
} from './listing.js';

export const PERIODS = ['today', 'yesterday', 'week', 'month'] as const;
export type PeriodName = (typeof PERIODS)[number];
export const LIST_NAMES = ['hot', 'new', 'like', 'fav'] as const;
export type ListName = (typeof LIST_NAMES)[number];

/** Clicks each list counts; `new` counts none (newest first). */
const LIST_KINDS: Record<ListName, RankKind[]> = { hot: ['view'], new: [], like: ['like'], fav: ['fav'] };
/** Rankings count views, likes and favourites together. */
const RANK_KINDS: RankKind[] = ['view', 'like', 'fav'];
/** Lists by clicks change with every click, which announces nothing: cached briefly only. */
const CLICK_LIST_TTL = 300;
/** How long a post page may show yesterday's neighbours (previous, next, related) at most. */
const NEIGHBOURS_PAGE_TTL = 600;

const MAX_KEYWORD_LENGTH = 100;
const MAX_TERMS = 5;
const POST_SLUG = /^[a-z0-9-]{1,190}$/;

const DAY = 24 * 3600 * 1000;

/** R-F5: today and yesterday are UTC calendar days; week and month the last 7 and 30 days. */
export function periodRange(period: PeriodName, now: Date): Period {
  const startOfToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const end = new Date(now.getTime() + 1).toISOString();
  switch (period) {
    case 'today':
      return { from: new Date(startOfToday).toISOString(), to: end };
    case 'yesterday':
      return { from: new Date(startOfToday - DAY).toISOString(), to: new Date(startOfToday).toISOString() };
    case 'week':
      return { from: new Date(now.getTime() - 7 * DAY).toISOString(), to: end };
    case 'month':
      return { from: new Date(now.getTime() - 30 * DAY).toISOString(), to: end };
  }
}

// The words of the lists and periods are the theme's (`lists.{name}`, `period.{name}`, and
// `period.lower.{name}` inside a sentence: "Rankings this week").
/** The empty text of each listing template (the theme's key). */
const EMPTY_TEXT: Record<string, string> = {
  posts: 'listing.no_posts',
  user_posts: 'listing.no_posts',
  tag: 'listing.no_posts_here',
  list: 'listing.list_empty',
  rank: 'rank.empty',
  search: 'search.empty',
};

/** Search terms of a keyword: words, at most five, the keyword cut at 100 characters. */
export function searchTerms(keyword: string): string[] {
  return keyword
    .slice(0, MAX_KEYWORD_LENGTH)
    .split(/\s+/)
    .filter((term) => term !== '')
    .slice(0, MAX_TERMS);
}

export function postRoutes(kit: FrontendKit): void {
  const { services } = kit;

  /** Renders a listing template, or the 404 for a page number past the end. */
  async function listing(
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    template: string,
    load: (page: number, pageSize: number) => Promise<PublicPage<PublicPost>>,
    options: {
      path: string;
      heading: string;
      data?: Record<string, unknown>;
      noindex?: boolean;
      description?: string;
    },
  ) {
    const page = pageNumber(request);
    if (page === null) return kit.notFound(request, reply);
    const pageSize = await postsPerPage(services);
    const result = await load(page, pageSize);
    if (page > 1 && result.items.length === 0) return kit.notFound(request, reply);
    const data = await listingData(services, request, state, result, { path: options.path, page, pageSize });
    return kit.render(request, reply, template, {
      ...data,
      heading: options.heading,
      empty_text: state.t(EMPTY_TEXT[template] ?? 'listing.empty'),
      lists_label: state.t('listing.tabs.lists'),
      periods_label: state.t('listing.tabs.period'),
      ...options.data,
      seo: {
        title: page > 1 ? state.t('listing.title_page', { heading: options.heading, page }) : options.heading,
        description: options.description,
        canonicalQuery: { page: page > 1 ? page : undefined },
        noindex: options.noindex,
      },
    });
  }

  const list = (state: FrontendState, page: number, pageSize: number) => ({
    websiteId: state.website.id,
    locale: state.locale,
    page,
    pageSize,
  });

  // ---- /post ----------------------------------------------------------------------------------------

  kit.page('GET', '/post', { name: 'posts.index', cacheable: true }, (request, reply, state) =>
    listing(
      request,
      reply,
      state,
      'posts',
      (page, size) => listPosts(services, request, state, list(state, page, size)),
      {
        path: '/post',
        heading: state.t('listing.all_posts'),
      },
    ),
  );

  // ---- Search ---------------------------------------------------------------------------------------

  kit.page('POST', '/post/search', { name: 'posts.search' }, async (request, reply, state) => {
    const refusal = await checkCsrf(services, request, { requireToken: () => false });
    if (refusal) {
      reply.code(403);
      return kit.render(request, reply, 'error', {
        heading: state.t('search.refused'),
        message: localizeMessage(refusal, state.t),
        seo: { title: state.t('search.refused'), noindex: true },
      });
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    const raw = typeof body.keyword === 'string' ? body.keyword : typeof body.q === 'string' ? body.q : '';
    const keyword = raw.replace(/\s+/g, ' ').trim().slice(0, MAX_KEYWORD_LENGTH).trim();
    const target = keyword === '' ? '/post' : `/post/search/${encodeURIComponent(keyword)}`;
    return reply.redirect(urlFor(state, target), 302);
  });

  kit.page(
    'GET',
    '/post/search/:keyword',
    { name: 'posts.search.result', cacheable: true },
    async (request, reply, state) => {
      const keyword = (request.params as { keyword: string }).keyword.replace(/\s+/g, ' ').trim();
      const terms = searchTerms(keyword);
      if (terms.length === 0) return reply.redirect(urlFor(state, '/post'), 302);
      try {
        return await listing(
          request,
          reply,
          state,
          'search',
          // A search the page cache did not answer runs a long read: counted per client (issue 34 #11).
          (page, size) =>
            services.searchLimit.run(request.ip, () =>
              listPosts(services, request, state, { ...list(state, page, size), terms }),
            ),
          {
            path: `/post/search/${encodeURIComponent(keyword)}`,
            heading: state.t('search.title', { keyword: keyword.slice(0, MAX_KEYWORD_LENGTH) }),
            // Kept out of search engines (noindex), but described all the same (issue 36 #3).
            description: state.t('search.description', {
              site: state.website.fields.site_name ?? state.website.domain,
              keyword: keyword.slice(0, MAX_KEYWORD_LENGTH),
            }),
            data: { keyword: keyword.slice(0, MAX_KEYWORD_LENGTH) },
            noindex: true,
          },
        );
      } catch (error) {
        if (!(error instanceof TooManyRequestsError)) throw error;
        reply.code(429).header('retry-after', String(error.retryAfter));
        return kit.render(request, reply, 'error', {
          heading: state.t('search.too_many'),
          message: localizeMessage(error.message, state.t),
          seo: { title: state.t('search.too_many'), noindex: true },
        });
      }
    },
  );

  // ---- Rankings and lists by clicks (R-F5) ----------------------------------------------------------

  const periodLinks = (state: FrontendState, base: string, current: string | null) => [
    { name: state.t('period.all'), url: urlFor(state, base), current: current === null },
    ...PERIODS.map((period) => ({
      name: state.t(`period.${period}`),
      url: urlFor(state, `${base}/${period}`),
      current: current === period,
    })),
  ];

  const rank =
    (period: PeriodName | null) => (request: FastifyRequest, reply: FastifyReply, state: FrontendState) => {
      limitPageTtl(request, CLICK_LIST_TTL);
      const range = period ? periodRange(period, services.clock.now()) : undefined;
      return listing(
        request,
        reply,
        state,
        'rank',
        (page, size) =>
          services.siteReads.ranked(pageTagSink(request), {
            ...list(state, page, size),
            kinds: RANK_KINDS,
            period: range,
          }),
        {
          path: period ? `/post/rank/${period}` : '/post/rank',
          heading: period
            ? state.t('rank.heading_period', { period: state.t(`period.lower.${period}`) })
            : state.t('rank.heading'),
          data: {
            period,
            period_name: period ? state.t(`period.lower.${period}`) : null,
            periods: periodLinks(state, '/post/rank', period),
          },
        },
      );
    };
  kit.page('GET', '/post/rank', { name: 'posts.rank', cacheable: true }, rank(null));
  kit.page(
    'GET',
    '/post/rank/:period',
    { name: 'posts.rank.period', cacheable: true },
    (request, reply, state) => {
      const { period } = request.params as { period: string };
      if (!(PERIODS as readonly string[]).includes(period)) return kit.notFound(request, reply);
      return rank(period as PeriodName)(request, reply, state);
    },
  );

  const namedList = async (request: FastifyRequest, reply: FastifyReply, state: FrontendState) => {
    const params = request.params as { name?: string; period?: string };
    const name = params.name ?? 'hot';
    const period = params.period ?? null;
    if (!(LIST_NAMES as readonly string[]).includes(name)) return kit.notFound(request, reply);
    if (period !== null && !(PERIODS as readonly string[]).includes(period))
      return kit.notFound(request, reply);
    const listName = name as ListName;
    const range = period ? periodRange(period as PeriodName, services.clock.now()) : undefined;
    if (listName !== 'new') limitPageTtl(request, CLICK_LIST_TTL);
    const heading = period
      ? state.t('list.heading_period', {
          list: state.t(`lists.${listName}`),
          period: state.t(`period.lower.${period}`),
        })
      : state.t(`lists.${listName}`);
    return listing(
      request,
      reply,
      state,
      'list',
      (page, size) =>
        listName === 'new'
          ? listPosts(services, request, state, { ...list(state, page, size), publishedWithin: range })
          : services.siteReads.ranked(pageTagSink(request), {
              ...list(state, page, size),
              kinds: LIST_KINDS[listName],
              period: range,
            }),
      {
        path: `/post/list/${listName}${period ? `/${period}` : ''}`,
        heading,
        data: {
          name: listName,
          period,
          lists: LIST_NAMES.map((other) => ({
            name: state.t(`lists.${other}`),
            url: urlFor(state, `/post/list/${other}${period ? `/${period}` : ''}`),
            current: other === listName,
          })),
          periods: periodLinks(state, `/post/list/${listName}`, period),
        },
      },
    );
  };
  kit.page('GET', '/post/list', { name: 'posts.list', cacheable: true }, namedList);
  kit.page('GET', '/post/list/:name', { name: 'posts.list', cacheable: true }, namedList);
  kit.page('GET', '/post/list/:name/:period', { name: 'posts.list', cacheable: true }, namedList);

  // ---- A user's posts -------------------------------------------------------------------------------

  kit.page(
    'GET',
    '/user/:username/posts',
    { name: 'users.posts', cacheable: true },
    async (request, reply, state) => {
      const { username } = request.params as { username: string };
      if (username.length > 255) return kit.notFound(request, reply);
      const author = await services.publicPosts.findAuthor(username);
      if (!author) return kit.notFound(request, reply);
      return listing(
        request,
        reply,
        state,
        'user_posts',
        (page, size) =>
          listPosts(services, request, state, { ...list(state, page, size), authorId: author.id }),
        {
          path: `/user/${encodeURIComponent(username)}/posts`,
          heading: state.t('listing.by_author', { name: author.name }),
          data: { author: { name: author.name, username: author.username } },
        },
      );
    },
  );

  // ---- Posts under a tag (R-F2) ---------------------------------------------------------------------

  kit.page(
    'GET',
    '/post/:type/:slug',
    { name: 'posts.tag', cacheable: true },
    async (request, reply, state) => {
      const found = await tagOfPath(services, request, state);
      if (!found) return kit.notFound(request, reply);
      const { tag, type, tagIds } = found;
      return listing(
        request,
        reply,
        state,
        'tag',
        (page, size) => listPosts(services, request, state, { ...list(state, page, size), tagIds }),
        {
          path: `/post/${type}/${encodeURIComponent(tag.slug)}`,
          heading: tag.name,
          description:
            tag.description?.trim() ||
            state.t(type === 'category' ? 'listing.category_description' : 'listing.tag_description', {
              name: tag.name,
            }),
          data: {
            tag: {
              id: tag.id,
              name: tag.name,
              slug: tag.slug,
              type: tag.type,
              kind: type,
              description: tag.description,
            },
          },
        },
      );
    },
  );

  // ---- A single post: last ---------------------------------------------------------------------------

  kit.page('GET', '/post/:slug', { name: 'posts.show', cacheable: true }, async (request, reply, state) => {
    const { slug } = request.params as { slug: string };
    if (!POST_SLUG.test(slug)) return kit.notFound(request, reply);
    // Through the website's data cache, content cleaned once: any change to a post of the website (or
    // to a global post), to one of its tags or to its author's name drops it.
    const post = await services.siteReads.post(
      pageTagSink(request),
      state.website,
      state.locale,
      slug,
      (found) => {
        const content = cleanContent(found.content);
        return { ...found, content, readingMinutes: readingMinutes(content) };
      },
    );
    if (!post) return kit.notFound(request, reply);
    // The posts before and after it, and related ones: through the site's reads, as the post itself.
    // A new neighbour flushes nothing (writes elsewhere keep post pages cached), so the page is kept
    // no longer than NEIGHBOURS_PAGE_TTL.
    limitPageTtl(request, NEIGHBOURS_PAGE_TTL);
    const around = await services.siteReads.postsAround(
      pageTagSink(request),
      state.website,
      state.locale,
      post,
    );
    const tagTypes = await postTagTypes(services.settings);
    const [card] = postCards([post], state, tagTypes, mediaUrlOf(services));
    const link = (other: PostLink | null) =>
      other && {
        title: other.title,
        url: urlFor(state, `/post/${encodeURIComponent(other.slug)}`),
        published_at: other.publishedAt,
      };
    // Alternates: the base text serves every locale, so the post exists in all of them.
    return kit.render(request, reply, 'post', {
      post: {
        ...card,
        content: post.content,
        reading_minutes: post.readingMinutes,
      },
      previous_post: link(around.previous),
      next_post: link(around.next),
      related_posts: around.related.map(link),
      seo: {
        title: post.metaTitle?.trim() || post.title,
        description: post.metaDescription?.trim() || post.excerpt,
        image: post.thumbnail,
        type: 'article',
        publishedTime: post.publishedAt,
        modifiedTime: post.updatedAt,
        article: { headline: post.title, author: card?.author },
      },
      meta_keywords: post.metaKeywords,
    });
  });
}
