// `/page/{slug}` (frontend.pages.show, R-F4): a theme view named after the slug (`pages/{slug}`)
// wins; else a published page shown on the website renders: a `template` page its theme template
// (`templates/{template}`, the plain view when the theme has none), a `plain` page its content. An
// unknown slug redirects to the home page (302). A website whose `homepage` names a page shows it at
// `/` (the posts stay at `/blog`), and that page's own address redirects there.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../domain/errors.js';
import { cleanContent } from '../content.js';
import { siteActor, urlFor } from '../context.js';
import { redirectToLogin } from '../session.js';
import type { FrontendState } from '../context.js';
import type { FrontendKit } from '../index.js';
import { pageTagSink } from '../page-cache.js';
import { plainExcerpt } from '../../domain/public/posts.js';
import type { Page } from '../../domain/pages/store.js';

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
  return renderPage(kit, request, reply, state, page, slug, customView);
}

/** What the theme shows of a page (a saved page, or a draft's preview). */
type RenderedPage = Pick<Page, 'id' | 'title' | 'slug' | 'content' | 'type' | 'template'> &
  Partial<Pick<Page, 'metaTitle' | 'metaDescription'>>;

/** A page (or, without one, a theme's own view named after the slug) through the theme. */
export function renderPage(
  kit: FrontendKit,
  request: FastifyRequest,
  reply: FastifyReply,
  state: FrontendState,
  page: RenderedPage | null,
  slug: string,
  customView: boolean,
  seo: { noindex?: boolean; preview?: boolean } = {},
) {
  const { themes } = kit;
  const theme = state.website.fields.theme ?? '';
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
      title: seo.preview
        ? state.t('post.preview_prefix', { title: page?.metaTitle || page?.title || slug })
        : page?.metaTitle || page?.title || slug,
      description: page?.metaDescription || (page?.content ? plainExcerpt(page.content, 160) : undefined),
      ...(seo.noindex ? { noindex: true } : {}),
    },
    // The layout's "Preview" ribbon: this is not what readers see (issue 37 #3).
    ...(seo.preview ? { preview_ribbon: true } : {}),
  };
  if (customView) return kit.render(request, reply, `pages/${slug}`, data);
  if (page?.type === 'template' && page.template && themes.has(theme, `templates/${page.template}`)) {
    return kit.render(request, reply, `templates/${page.template}`, data);
  }
  return kit.render(request, reply, 'page', data);
}

export function pageRoutes(kit: FrontendKit): void {
  // A page of any status on the site's real theme, for those who may write it: the page editor's
  // "Preview" (issue 34 #20). Never cached, never indexed.
  kit.page('GET', '/page/preview/:id', { name: 'pages.preview' }, async (request, reply, state) => {
    if (redirectToLogin(request, reply, state)) return reply;
    reply.header('cache-control', 'private, no-store');
    const id = Number((request.params as { id: string }).id);
    let page;
    try {
      if (!Number.isSafeInteger(id) || id < 1) throw new NotFoundError('Page not found');
      page = await kit.services.pageOps.preview(siteActor(request, state), id);
    } catch (error) {
      if (error instanceof NotFoundError) return reply.send(await kit.notFound(request, reply));
      throw error;
    }
    const text = (field: 'title' | 'content', base: string) =>
      page.translations[field]?.[state.locale] || base;
    const shown = { ...page, title: text('title', page.title), content: text('content', page.content ?? '') };
    return renderPage(kit, request, reply, state, shown, page.slug, false, {
      noindex: true,
      preview: true,
    });
  });

  kit.page('GET', '/page/:slug', { name: 'pages.show', cacheable: true }, async (request, reply, state) => {
    const { slug } = request.params as { slug: string };
    // The website's home page has one address: the home's.
    if (slug === homepageSlug(state)) return reply.redirect(urlFor(state, '/'), 301);
    return (
      (await renderSitePage(kit, request, reply, state, slug)) ?? reply.redirect(urlFor(state, '/'), 302)
    );
  });
}
