// Shared by the reading routes: the page number, post cards as templates see them, pagination links,
// the sidebar. The cache tags of what a page shows come from the site's reads (domain/public/site-reads.ts).
import type { FastifyRequest } from 'fastify';
import type { PublicCover, PublicListQuery, PublicPage, PublicPost } from '../../domain/public/posts.js';
import type { FaceServices } from '../../services.js';
import { urlFor } from '../context.js';
import type { FrontendState } from '../context.js';
import { honourQuery, pageTagSink } from '../page-cache.js';
import { postTagTypes, shortNameOf } from '../tag-types.js';

export const POSTS_PER_PAGE_SETTING = 'frontend_posts_per_page';
export const DEFAULT_POSTS_PER_PAGE = 10;
const MAX_POSTS_PER_PAGE = 50;
const MAX_PAGE = 100_000;

/** `?page=N`: absent is 1; anything but a positive integer is no page at all (null: a 404). */
export function pageNumber(request: FastifyRequest): number | null {
  const raw = (request.query as Record<string, unknown> | undefined)?.page;
  if (raw === undefined) return 1;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,5}$/.test(raw)) return null;
  const page = Number(raw);
  return page <= MAX_PAGE ? page : null;
}

export async function postsPerPage(services: FaceServices): Promise<number> {
  const raw = (await services.settings.get(POSTS_PER_PAGE_SETTING))?.trim() ?? '';
  const size = /^\d{1,3}$/.test(raw) ? Number(raw) : DEFAULT_POSTS_PER_PAGE;
  return Math.min(Math.max(size, 1), MAX_POSTS_PER_PAGE);
}

export interface PostCard {
  id: number;
  title: string;
  slug: string;
  url: string;
  excerpt: string;
  thumbnail: string | null;
  /** The thumbnail with its sizes (`srcset`), when it is an image Folio stored. */
  cover: CoverImage | null;
  published_at: string;
  updated_at: string;
  author: { name: string; url: string | null } | null;
  /** Tags of types with public pages, with their URLs. */
  tags: Array<{ id: number; name: string; type: string; url: string }>;
  categories: Array<{ id: number; name: string; url: string }>;
  score: number | null;
  /** Search results: the text around the match, HTML already escaped with matches in <mark>; else null. */
  highlight: string | null;
}

/** An image with its sizes, as an `<img>` needs them: `srcset` lists every width. */
export interface CoverImage {
  src: string;
  srcset: string;
  width: number;
  height: number;
}

/** Where a stored media file is served: the site's own path when the store is this app. */
export function mediaUrlOf(services: FaceServices): (path: string) => string {
  return (path) => services.mediaUrl(path);
}

/** A stored image as an `<img>` shows it: the full size in WebP when there is one, every width in `srcset`. */
export function coverImage(cover: PublicCover | null, url: (path: string) => string): CoverImage | null {
  if (!cover) return null;
  const full = cover.variants.find((v) => v.width === cover.width && v.path.endsWith('.webp')) ?? cover;
  const widths = new Map<number, string>();
  for (const variant of cover.variants)
    if (variant.width < cover.width) widths.set(variant.width, variant.path);
  widths.set(cover.width, full.path);
  const srcset = [...widths]
    .sort(([a], [b]) => a - b)
    .map(([width, path]) => `${url(path)} ${width}w`)
    .join(', ');
  return { src: url(full.path), srcset, width: cover.width, height: cover.height };
}

/** What a template gets for a post. */
export function postCards(
  posts: PublicPost[],
  state: FrontendState,
  tagTypes: Map<string, string>,
  mediaUrl: (path: string) => string,
): PostCard[] {
  return posts.map((post) => {
    const tags = post.tags.flatMap((tag) => {
      const short = shortNameOf(tagTypes, tag.type);
      if (!short) return [];
      return [
        {
          id: tag.id,
          name: tag.name,
          type: tag.type,
          url: urlFor(state, `/post/${short}/${encodeURIComponent(tag.slug)}`),
        },
      ];
    });
    return {
      id: post.id,
      title: post.title,
      slug: post.slug,
      url: urlFor(state, `/post/${encodeURIComponent(post.slug)}`),
      excerpt: post.excerpt,
      thumbnail: post.thumbnail,
      cover: coverImage(post.cover, mediaUrl),
      published_at: post.publishedAt,
      updated_at: post.updatedAt,
      author: post.author
        ? {
            name: post.author.name,
            url: post.author.username
              ? urlFor(state, `/user/${encodeURIComponent(post.author.username)}/posts`)
              : null,
          }
        : null,
      tags: tags.filter((tag) => tag.type !== 'post_category'),
      categories: tags
        .filter((tag) => tag.type === 'post_category')
        .map(({ id, name, url }) => ({ id, name, url })),
      score: post.score ?? null,
      highlight: post.highlight ?? null,
    };
  });
}

export interface Pagination {
  current: number;
  last: number;
  total: number;
  previous_url: string | null;
  next_url: string | null;
}

/** Links to the neighbouring pages of a listing at `path` (page 1 has no query). */
export function pagination(
  state: FrontendState,
  path: string,
  page: number,
  pageSize: number,
  total: number,
): Pagination {
  const last = Math.max(1, Math.ceil(total / pageSize));
  const at = (n: number) => urlFor(state, n === 1 ? path : `${path}?page=${n}`);
  return {
    current: page,
    last,
    total,
    previous_url: page > 1 ? at(Math.min(page - 1, last)) : null,
    next_url: page < last ? at(page + 1) : null,
  };
}

/**
 * A page of the website's posts (lists by tag, author or none), through the site's cached reads, which
 * report the page's cache tags.
 */
export async function listPosts(
  services: FaceServices,
  request: FastifyRequest,
  state: FrontendState,
  query: PublicListQuery,
): Promise<PublicPage<PublicPost>> {
  return services.siteReads.postList(pageTagSink(request), state.website, query);
}

/** The categories of the sidebar (the website's `post_category` tags), through the data cache. */
export async function sidebar(services: FaceServices, request: FastifyRequest, state: FrontendState) {
  const tagTypes = await postTagTypes(services.settings);
  const short = shortNameOf(tagTypes, 'post_category');
  const categories = await services.siteReads.tagsOfType(
    pageTagSink(request),
    state.website,
    'post_category',
    state.locale,
    100,
  );
  return {
    categories: short
      ? categories
          .filter((tag) => tag.parentId === null)
          .map((tag) => ({
            name: tag.name,
            url: urlFor(state, `/post/${short}/${encodeURIComponent(tag.slug)}`),
          }))
      : [],
    links: [
      { name: state.t('sidebar.newest'), url: urlFor(state, '/post/list/new') },
      { name: state.t('sidebar.popular_week'), url: urlFor(state, '/post/list/hot/week') },
      { name: state.t('sidebar.rankings'), url: urlFor(state, '/post/rank') },
    ],
  };
}

/** A listing page's data: the cards, pagination and sidebar, with its cache tags set. */
export async function listingData(
  services: FaceServices,
  request: FastifyRequest,
  state: FrontendState,
  result: PublicPage<PublicPost>,
  options: { path: string; page: number; pageSize: number },
) {
  const tagTypes = await postTagTypes(services.settings);
  const pages = pagination(state, options.path, options.page, options.pageSize, result.total);
  // `?page=N` shown as asked, and a page of the list that exists: the page cache may keep it.
  if (pageNumber(request) === options.page && options.page <= pages.last) honourQuery(request, 'page');
  return {
    posts: postCards(result.items, state, tagTypes, mediaUrlOf(services)),
    pagination: pages,
    // False when the total is a lower bound (a search past its cap of matches, issue 40 #2).
    total_exact: result.totalExact !== false,
    sidebar: await sidebar(services, request, state),
  };
}

const TAG_SLUG = /^[a-z0-9-]{1,255}$/;

/**
 * The tag of a `/post/{type}/{slug}` path (R-F2) with the ids of its posts' tags (its subtags
 * included), or null when the type has no pages or the website has no such tag.
 */
export async function tagOfPath(services: FaceServices, request: FastifyRequest, state: FrontendState) {
  const { type, slug } = request.params as { type: string; slug: string };
  const tagType = (await postTagTypes(services.settings)).get(type);
  if (!tagType || !TAG_SLUG.test(slug)) return null;
  const tag = await services.siteReads.tag(
    pageTagSink(request),
    state.website.id,
    tagType,
    slug,
    state.locale,
  );
  if (!tag) return null;
  return { tag, type, tagIds: await services.publicPosts.withDescendants(tag.id, tagType) };
}
