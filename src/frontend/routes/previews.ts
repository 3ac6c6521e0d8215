// `/preview/{token}` (issue 37 #3): what a shared preview link shows — a draft, scheduled or pending
// post, a draft page, or someone's autosave of either — on the website's real theme, to anyone holding
// the link, signed in or not. Never stored in the page cache (the route is not cacheable and says
// `private, no-store`), never indexed (`X-Robots-Tag` and the meta robots tag), with a visible
// "Preview" ribbon. A malformed, unknown, expired or revoked token, or a post that is gone or not on
// this website, is the site's plain 404: nothing tells whether the post exists.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../domain/errors.js';
import type { PostDetail } from '../../domain/posts/index.js';
import { cleanContent } from '../content.js';
import { urlFor } from '../context.js';
import type { FrontendState } from '../context.js';
import type { FrontendKit } from '../index.js';
import { renderPage } from './pages.js';

export function previewRoutes(kit: FrontendKit): void {
  kit.page(
    'GET',
    '/preview/:token',
    { name: 'previews.show', localized: false },
    async (request, reply, state) => {
      reply.header('cache-control', 'private, no-store');
      reply.header('x-robots-tag', 'noindex, nofollow');
      reply.header('referrer-policy', 'no-referrer');
      const { token } = request.params as { token: string };
      let target;
      try {
        target = await kit.services.previews.resolve(token, state.website.id);
      } catch (error) {
        if (error instanceof NotFoundError) return reply.send(await kit.notFound(request, reply));
        throw error;
      }
      if (target.kind === 'page') {
        const page = target.page;
        const text = (field: 'title' | 'content', base: string) =>
          page.translations[field]?.[state.locale] || base;
        const shown = {
          ...page,
          title: text('title', page.title),
          content: text('content', page.content ?? ''),
        };
        return renderPage(kit, request, reply, state, shown, page.slug, false, {
          noindex: true,
          preview: true,
        });
      }
      const post = target.post;
      return renderPostPreview(kit, request, reply, state, post, urlFor(state, `/preview/${token}`));
    },
  );
}

/**
 * A post's version on the website's real theme with the "Preview" ribbon, for a preview link and for
 * the editor's preview: not indexed, the comment thread and related posts left out by the theme.
 */
export function renderPostPreview(
  kit: FrontendKit,
  request: FastifyRequest,
  reply: FastifyReply,
  state: FrontendState,
  post: PostDetail,
  url: string,
) {
  const text = (field: 'title' | 'content' | 'excerpt', base: string) =>
    post.translations[field]?.[state.locale] || base;
  const title = text('title', post.title);
  return kit.render(request, reply, 'post', {
    post: {
      id: post.id,
      title,
      slug: post.slug,
      url,
      excerpt: text('excerpt', post.excerpt ?? ''),
      thumbnail: post.thumbnail,
      published_at: post.publishedAt ?? post.updatedAt,
      updated_at: post.updatedAt,
      author: post.author ? { name: post.author.name, url: null } : null,
      tags: [],
      categories: [],
      content: cleanContent(text('content', post.content)),
      preview: true,
    },
    preview_ribbon: true,
    seo: { title: state.t('post.preview_prefix', { title }), noindex: true },
  });
}
