// The pagination object of spec 2.2, shared by every paginated list (posts, websites).
import type { FastifyRequest } from 'fastify';
import qs from 'qs';

export interface Pagination {
  [key: string]: number | boolean | string | null;
  total: number;
  count: number;
  page_size: number;
  current_page: number;
  last_page: number;
  has_more: boolean;
  next: string | null;
  previous: string | null;
}

/**
 * `next`/`previous` are the request's path with its query, `page` replaced (or appended), and
 * `api_token` never repeated (R-P1).
 */
export function paginate(
  request: FastifyRequest,
  page: number,
  pageSize: number,
  count: number,
  total: number,
): Pagination {
  const lastPage = Math.max(1, Math.ceil(total / pageSize));
  const path = request.url.split('?')[0] ?? '/';
  const query = { ...((request.query ?? {}) as Record<string, unknown>) };
  delete query.api_token;
  const link = (target: number) => `${path}?${qs.stringify({ ...query, page: target })}`;
  return {
    total,
    count,
    page_size: pageSize,
    current_page: page,
    last_page: lastPage,
    has_more: page < lastPage,
    next: page < lastPage ? link(page + 1) : null,
    previous: page > 1 ? link(Math.min(page - 1, lastPage)) : null,
  };
}
