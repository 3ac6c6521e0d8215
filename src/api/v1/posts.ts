// Posts API (spec 4.1). Routes parse input, call the posts service, and shape the response.
import { z } from 'zod';
import { DEFAULT_POST_PAGE_SIZE, MAX_POST_PAGE_SIZE, SORTABLE_POST_FIELDS } from '../../domain/posts.js';
import type { PostSummary } from '../../domain/posts.js';
import type { Services } from '../../services.js';
import { success } from './envelope.js';
import type { Json } from './envelope.js';
import { requestInput } from './input.js';
import { paginate } from './pagination.js';
import type { ApiRouter } from './router.js';
import { integer, optional, validate } from './validation.js';

const listSchema = z.object({
  sort: optional(z.enum(SORTABLE_POST_FIELDS)).default('created_at'),
  direction: optional(
    z.preprocess(
      (value) => (typeof value === 'string' ? value.toLowerCase() : value),
      z.enum(['asc', 'desc']),
    ),
  ).default('desc'),
  page_size: optional(integer()).default(DEFAULT_POST_PAGE_SIZE),
  page: optional(integer()).default(1),
});

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** A post as lists show it (R-P4). */
export function postListJson(post: PostSummary, baseUrl: string): Json {
  return {
    id: post.id,
    title: post.title,
    slug: post.slug,
    excerpt: post.excerpt,
    content: post.content,
    thumbnail: post.thumbnail,
    status: post.status,
    published_at: post.publishedAt,
    author: post.author,
    tags: post.tags.map((tag) => ({ id: tag.id, name: tag.name, type: tag.type })),
    url: `${baseUrl}/post/${encodeURIComponent(post.slug)}`,
    created_at: post.createdAt,
    updated_at: post.updatedAt,
  };
}

export function registerPostRoutes(router: ApiRouter, services: Services): void {
  router.route(['GET', 'POST'], '/posts', { switchKey: 'svc_api_posts_index' }, async (request) => {
    const input = validate(listSchema, requestInput(request));
    const page = Math.max(1, input.page);
    const pageSize = clamp(input.page_size, 1, MAX_POST_PAGE_SIZE);
    const result = await services.posts.list({
      page,
      pageSize,
      sort: input.sort,
      direction: input.direction,
      websiteId: null,
    });
    return success('Successfully fetched posts', {
      data: result.items.map((post) => postListJson(post, services.config.appUrl)),
      pagination: paginate(request, page, pageSize, result.items.length, result.total),
    });
  });
}
