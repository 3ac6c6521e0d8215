// The link directory (spec 4.8, R-F1 `frontend.links.index/.show/.tag`, R-F2): `/link` lists the
// links shown on this website, `/link/{id}` shows one, `/link/{type}/{slug}` lists those under a tag
// of type `link_{type}` (`category` -> `link_category`). Cacheable listings.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_LINK_PAGE_SIZE, httpUrl } from '../../domain/community/links.js';
import type { Link, LinkTag } from '../../domain/community/links.js';
import type { FrontendState } from '../context.js';
import { urlFor } from '../context.js';
import type { FrontendKit } from '../index.js';
import { honourQuery, pageTagSink } from '../page-cache.js';

const MAX_PAGE = 10_000;

/** `?page=N`: a positive integer, else page 1. */
function pageOf(request: FastifyRequest): number {
  const page = (request.query as Record<string, unknown>).page;
  return typeof page === 'string' && /^\d{1,5}$/.test(page)
    ? Math.min(Math.max(1, Number(page)), MAX_PAGE)
    : 1;
}

function tagUrl(state: FrontendState, tag: LinkTag): string {
  const short = tag.type.replace(/^link_/, '');
  return urlFor(state, `/link/${encodeURIComponent(short)}/${encodeURIComponent(tag.slug)}`);
}

/** A link as the templates see it (plain objects; every value is escaped when output). */
function view(state: FrontendState, link: Link) {
  return {
    id: link.id,
    name: link.name,
    // Checked again here: a row written by other means (seed data, SQL) never yields a javascript: URL.
    url: httpUrl(link.url) ?? '#',
    description: link.description,
    icon:
      link.icon === null
        ? null
        : link.icon.startsWith('/') && !link.icon.startsWith('//')
          ? link.icon
          : httpUrl(link.icon),
    created_at: link.createdAt,
    show_url: urlFor(state, `/link/${link.id}`),
    tags: link.tags.map((tag) => ({ id: tag.id, name: tag.name, slug: tag.slug, url: tagUrl(state, tag) })),
  };
}

export function linkRoutes(kit: FrontendKit): void {
  const { services } = kit;

  async function listing(
    request: FastifyRequest,
    reply: FastifyReply,
    state: FrontendState,
    basePath: string,
    tag: LinkTag | null,
  ) {
    const page = pageOf(request);
    const { items, total } = await services.siteReads.links(pageTagSink(request), {
      websiteId: state.website.id,
      locale: state.locale,
      page,
      tagId: tag?.id,
    });
    const pages = Math.max(1, Math.ceil(total / DEFAULT_LINK_PAGE_SIZE));
    if (page > pages) return kit.notFound(request, reply);
    if ((request.query as Record<string, unknown>).page === String(page)) honourQuery(request, 'page');
    const pageUrl = (n: number) => urlFor(state, n === 1 ? basePath : `${basePath}?page=${n}`);
    const tagName = tag ? await services.links.tagName(tag, state.locale) : null;
    return kit.render(request, reply, 'links/index', {
      title: tagName ?? 'Links',
      tag: tag ? { name: tagName, slug: tag.slug } : null,
      links: items.map((link) => view(state, link)),
      links_url: urlFor(state, '/link'),
      pagination: {
        page,
        pages,
        total,
        previous_url: page > 1 ? pageUrl(page - 1) : null,
        next_url: page < pages ? pageUrl(page + 1) : null,
      },
    });
  }

  kit.page('GET', '/link', { name: 'links.index', cacheable: true }, (request, reply, state) => {
    return listing(request, reply, state, '/link', null);
  });

  kit.page('GET', '/link/:id', { name: 'links.show', cacheable: true }, async (request, reply, state) => {
    const { id } = request.params as { id: string };
    const link = /^\d{1,10}$/.test(id)
      ? await services.siteReads.link(pageTagSink(request), Number(id), state.website.id, state.locale)
      : null;
    if (!link) return kit.notFound(request, reply);
    return kit.render(request, reply, 'links/show', {
      title: link.name,
      description: link.description,
      link: view(state, link),
      links_url: urlFor(state, '/link'),
    });
  });

  kit.page(
    'GET',
    '/link/:type/:slug',
    { name: 'links.tag', cacheable: true },
    async (request, reply, state) => {
      const { type, slug } = request.params as { type: string; slug: string };
      const tag = await services.siteReads.linkTag(pageTagSink(request), type, slug);
      if (!tag) return kit.notFound(request, reply);
      return listing(
        request,
        reply,
        state,
        `/link/${encodeURIComponent(type)}/${encodeURIComponent(slug)}`,
        tag,
      );
    },
  );
}
