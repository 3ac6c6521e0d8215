// Cursors of post lists (keyset pagination, issue 26 #2): an opaque token naming where a page ended
// (the last post's sort value and id) and the order it belongs to. The next page is then read from
// that point on the index, never by skipping (OFFSET) every post before it.
import { ValidationError } from '../errors.js';
import type { Page, PostCursor, PostListQuery, PostSortField, PostSummary } from './model.js';

const INVALID = () => new ValidationError({ cursor: ['The cursor is invalid.'] });

/** A sort value of a post as the cursor keeps it; published_at may be null and has no cursor. */
function sortValue(post: PostSummary, sort: PostSortField): string | number | null {
  switch (sort) {
    case 'id':
      return post.id;
    case 'title':
      return post.title;
    case 'slug':
      return post.slug;
    case 'created_at':
      return post.createdAt;
    case 'updated_at':
      return post.updatedAt;
    case 'published_at':
      return null;
  }
}

/**
 * Whether lists in this order can be walked by cursor: not a random one, not one by a nullable field,
 * not one by several fields.
 */
export function hasCursors(query: Pick<PostListQuery, 'sort' | 'random' | 'thenBy' | 'relevance'>): boolean {
  return (
    query.random !== true &&
    query.relevance !== true &&
    query.sort !== 'published_at' &&
    (query.thenBy ?? []).length === 0
  );
}

/** The cursor of the page after this one, or null when it is the last (or the order has none). */
export function nextCursor(query: PostListQuery, page: Page<PostSummary>): string | null {
  const last = page.items[page.items.length - 1];
  if (!hasCursors(query) || !last || page.items.length < query.pageSize) return null;
  if (query.after === undefined && query.page * query.pageSize >= page.total) return null;
  const value = sortValue(last, query.sort);
  if (value === null) return null;
  return Buffer.from(JSON.stringify([query.sort, query.direction, value, last.id])).toString('base64url');
}

/** The place a cursor names, for a list in this order; a cursor of another order is invalid. */
export function decodeCursor(
  text: string,
  query: Pick<PostListQuery, 'sort' | 'direction' | 'random' | 'thenBy' | 'relevance'>,
): PostCursor {
  if (!hasCursors(query)) throw INVALID();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw INVALID();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) throw INVALID();
  const [sort, direction, value, id] = parsed as unknown[];
  if (sort !== query.sort || direction !== query.direction) throw INVALID();
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) throw INVALID();
  const numeric = sort === 'id';
  if (numeric ? typeof value !== 'number' || !Number.isSafeInteger(value) : typeof value !== 'string') {
    throw INVALID();
  }
  if (
    typeof value === 'string' &&
    (value.length > 1000 || (sort !== 'title' && sort !== 'slug' && Number.isNaN(Date.parse(value))))
  ) {
    throw INVALID();
  }
  return { value: value as string | number, id };
}
