// `/page/{slug}` (frontend.pages.show, R-F4): a theme view named after the slug (`pages/{slug}`)
// wins; else a published page shown on the website renders: a `template` page its theme template
// (`templates/{template}`, the plain view when the theme has none), a `plain` page its content. An
// unknown slug redirects to the home page (302). A website whose `homepage` names a page shows it at
// `/` (the posts stay at `/blog`), and that page's own address redirects there.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cleanContent } from '../content.js';
import { urlFor } from '../context.js';
import type { FrontendState } from '../context.js';
import type { FrontendKit } from '../index.js';
import { pageTagSink } from '../page-cache.js';
import { plainExcerpt } from '../../domain/public-posts.js';

const PAGE_SLUG = /^[a-z0-9][a-z0-9-]{0,189}$/;

/** The slug of the page the website shows as its home (its `homepage` field), or null for the post list. */
export function homepageSlug(state: FrontendState): string | null {
  const value = (state.website.fields.homepage ?? '').trim();
  return PAGE_SLUG.test(value) ? value : null;
}

/** The page named by `slug` rendered as `/page/{slug}` shows it, or null when there is none to show. */
export async function renderSitePage(
  kit: FrontendKit,
  request: FastifyRequest,
  reply: FastifyReply,
  state: FrontendState,
  slug: string,
) {
  const { services, themes } = kit;
  const theme = state.website.fields.theme ?? '';
  const page = PAGE_SLUG.test(slug)
    ? await services.siteReads.page(pageTagSink(request), state.website.id, slug, state.locale)
    : null;
  const customView = PAGE_SLUG.test(slug) && themes.has(theme, `pages/${slug}`);
  if (!page && !customView) return null;

  const data = {
    page: page
      ? {
          id: page.id,
          title: page.title,
          slug: page.slug,
          content: cleanContent(page.content ?? ''),
          type: page.type,
        }
      : { id: null, title: slug, slug, content: '', type: 'view' },
    seo: {
      title: page?.title ?? slug,
      description: page?.content ? plainExcerpt(page.content, 160) : undefined,
    },
  };
  if (customView) return kit.render(request, reply, `pages/${slug}`, data);
  if (page?.type === 'template' && page.template && themes.has(theme, `templates/${page.template}`)) {
    return kit.render(request, reply, `templates/${page.template}`, data);
  }
  return kit.render(request, reply, 'page', data);
}

export function pageRoutes(kit: FrontendKit): void {
  kit.page('GET', '/page/:slug', { name: 'pages.show', cacheable: true }, async (request, reply, state) => {
    const { slug } = request.params as { slug: string };
    // The website's home page has one address: the home's.
    if (slug === homepageSlug(state)) return reply.redirect(urlFor(state, '/'), 301);
    return (
      (await renderSitePage(kit, request, reply, state, slug)) ?? reply.redirect(urlFor(state, '/'), 302)
    );
  });
}
