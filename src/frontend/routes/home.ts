// The home page (frontend.pages.home) and the blog (frontend.pages.blog, paginated).
import type { FastifyRequest } from 'fastify';
import type { FrontendState } from '../context.js';
import type { FrontendKit } from '../index.js';
import { pageTagSink } from '../page-cache.js';
import { coverImage, listPosts, listingData, mediaUrlOf, pageNumber, postsPerPage } from './listing.js';
import { homepageSlug, renderSitePage } from './pages.js';

/**
 * The website's cover for the home (`site_cover`): an image of the media library with its sizes, or an
 * external address as it is; null when the website has none.
 */
async function homeCover(kit: FrontendKit, request: FastifyRequest, state: FrontendState) {
  const url = state.website.fields.site_cover?.trim() ?? '';
  if (url === '') return null;
  const sizes = await kit.services.siteReads.homeCover(pageTagSink(request), state.website, url);
  return coverImage(sizes, mediaUrlOf(kit.services)) ?? { src: url };
}

export function homeRoutes(kit: FrontendKit): void {
  const { services } = kit;

  kit.page('GET', '/', { name: 'pages.home', cacheable: true }, async (request, reply, state) => {
    // An imported WordPress site's links by id (`/?p=12`) answer with a 301 to what they became.
    if (request.url.includes('?')) {
      const moved = await services.redirects.resolve(state.website.id, request.url);
      if (moved) return reply.code(301).header('location', moved).send();
    }
    const homepage = homepageSlug(state);
    if (homepage !== null) {
      const shown = await renderSitePage(kit, request, reply, state, homepage);
      if (shown !== null) return shown;
    }
    const pageSize = await postsPerPage(services);
    const result = await listPosts(services, request, state, {
      websiteId: state.website.id,
      locale: state.locale,
      page: 1,
      pageSize,
    });
    const data = await listingData(services, request, state, result, { path: '/blog', page: 1, pageSize });
    // The newest post is featured (the spec has no pinned posts), with its cover; the list goes on
    // after it. One read: the list's, whose cache tags already name it.
    const [featured = null, ...rest] = data.posts;
    return kit.render(request, reply, 'home', {
      ...data,
      home_cover: await homeCover(kit, request, state),
      featured,
      posts: rest,
      empty_text: state.t(featured ? 'home.empty_other' : 'home.empty'),
      seo: { sloganAsDescription: true },
    });
  });

  kit.page('GET', '/blog', { name: 'pages.blog', cacheable: true }, async (request, reply, state) => {
    const page = pageNumber(request);
    if (page === null) return kit.notFound(request, reply);
    const pageSize = await postsPerPage(services);
    const result = await listPosts(services, request, state, {
      websiteId: state.website.id,
      locale: state.locale,
      page,
      pageSize,
    });
    if (page > 1 && result.items.length === 0) return kit.notFound(request, reply);
    const data = await listingData(services, request, state, result, { path: '/blog', page, pageSize });
    return kit.render(request, reply, 'blog', {
      ...data,
      heading: state.t('home.blog'),
      empty_text: state.t('listing.no_posts'),
      seo: {
        title:
          page > 1
            ? state.t('listing.title_page', { heading: state.t('home.blog'), page })
            : state.t('home.blog'),
        canonicalQuery: { page: page > 1 ? page : undefined },
      },
    });
  });
}
