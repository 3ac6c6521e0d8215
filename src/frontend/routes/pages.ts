// `/page/{slug}` (frontend.pages.show, R-F4): a theme view named after the slug (`pages/{slug}`)
// wins; else a published page shown on the website renders: a `template` page its theme template
// (`templates/{template}`, the plain view when the theme has none), a `plain` page its content. An
// unknown slug redirects to the home page (302).
import { cleanContent } from '../content.js';
import { urlFor } from '../context.js';
import type { FrontendKit } from '../index.js';
import { pageTagSink } from '../page-cache.js';
import { plainExcerpt } from '../../domain/public-posts.js';

const PAGE_SLUG = /^[a-z0-9][a-z0-9-]{0,189}$/;

export function pageRoutes(kit: FrontendKit): void {
  const { services, themes } = kit;

  kit.page('GET', '/page/:slug', { name: 'pages.show', cacheable: true }, async (request, reply, state) => {
    const { slug } = request.params as { slug: string };
    const theme = state.website.fields.theme ?? '';
    const page = PAGE_SLUG.test(slug)
      ? await services.siteReads.page(pageTagSink(request), state.website.id, slug, state.locale)
      : null;
    const customView = PAGE_SLUG.test(slug) && themes.has(theme, `pages/${slug}`);
    if (!page && !customView) return reply.redirect(urlFor(state, '/'), 302);

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
  });
}
