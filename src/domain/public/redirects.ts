// Old URLs that keep answering (issue 39 #3): a website's redirect from a path it no longer serves (a
// WordPress permalink) to the post, page or URL it became. The public site asks only for paths no
// route matched; the answer is a 301 to the post's or page's current address.
import type { Db } from '../../db/database.js';

/** WordPress's links by id, which it answers whatever its permalinks: `/?p=12`, `/?page_id=5`. */
export const WORDPRESS_ID_PARAMETERS = ['p', 'page_id'] as const;

/**
 * The path a redirect is stored and looked up by: no query, no fragment, no trailing slash; but the
 * home page with a WordPress id (`/?p=12`) is kept as that, so that old links by id keep answering.
 */
export function redirectPath(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://x.invalid');
  } catch {
    return null;
  }
  if (parsed.pathname.length > 2048) return null;
  const trimmed = parsed.pathname.replace(/\/+$/, '');
  if (trimmed !== '') return trimmed;
  for (const name of WORDPRESS_ID_PARAMETERS) {
    const id = parsed.searchParams.get(name);
    if (id !== null && /^[1-9]\d{0,18}$/.test(id)) return `/?${name}=${id}`;
  }
  return '/';
}

export class RedirectsService {
  constructor(private readonly db: Db) {}

  /** Where an unknown path of a website now is (a path of this site or a URL), or null. */
  async resolve(websiteId: number, url: string): Promise<string | null> {
    const path = redirectPath(url);
    if (!path || path === '/') return null;
    const row = await this.db
      .selectFrom('redirects')
      .leftJoin('posts', (join) =>
        join.onRef('posts.id', '=', 'redirects.post_id').on('posts.deleted_at', 'is', null),
      )
      .leftJoin('pages', (join) =>
        join.onRef('pages.id', '=', 'redirects.page_id').on('pages.deleted_at', 'is', null),
      )
      .select(['redirects.to_url', 'posts.slug as post_slug', 'pages.slug as page_slug'])
      .where('redirects.website_id', '=', websiteId)
      .where('redirects.from_path', '=', path)
      .executeTakeFirst();
    if (!row) return null;
    if (row.post_slug) return `/post/${encodeURIComponent(row.post_slug)}`;
    if (row.page_slug) return `/page/${encodeURIComponent(row.page_slug)}`;
    return row.to_url ?? null;
  }
}
