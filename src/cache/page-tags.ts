// Cache tags of the public site's full-page cache, and the listener that maps a content change to
// the tags it flushes. A cached page carries the tags of everything it shows:
// - every page: `site:{w}` (the website's fields and domains) and the website's menu tag;
// - a page showing posts: `post:{id}` for each of them, `tag:{id}` for each tag it names, `author:{id}`
//   for each author it names;
// - a page listing posts: `post-lists:site:{w}` and `post-lists:global` (a new or changed post
//   bound to website w changes w's lists; a global post changes every website's lists);
// - tag pages and sitemaps of a tag type: `tag-type:{type}`; pages: `page:{id}`, `pages-list`.
import type { WebsiteBindings } from '../domain/bindings.js';
import type { ContentChange } from '../domain/changes.js';
import type { Cache } from './cache.js';

export const pageTags = {
  site: (websiteId: number) => `site:${websiteId}`,
  post: (postId: number) => `post:${postId}`,
  postLists: (websiteId: number) => `post-lists:site:${websiteId}`,
  globalPostLists: 'post-lists:global',
  tag: (tagId: number) => `tag:${tagId}`,
  tagType: (type: string) => `tag-type:${type}`,
  page: (pageId: number) => `page:${pageId}`,
  author: (userId: number) => `author:${userId}`,
  pagesList: 'pages-list',
} as const;

/** The tags a change flushes. */
export async function tagsForChange(change: ContentChange, bindings: WebsiteBindings): Promise<string[]> {
  switch (change.kind) {
    case 'post': {
      if (change.ids.length === 0) return [];
      const bound = await bindings.websitesOf('post', change.ids);
      const tags = new Set<string>();
      for (const id of change.ids) {
        tags.add(pageTags.post(id));
        const websites = bound.get(id) ?? [];
        if (websites.length === 0) tags.add(pageTags.globalPostLists);
        for (const websiteId of websites) tags.add(pageTags.postLists(websiteId));
      }
      // Moved posts leave the lists of the websites they were on (or, when they were global, of all).
      if (change.formerWebsiteIds !== undefined) {
        if (change.formerWebsiteIds.length === 0) tags.add(pageTags.globalPostLists);
        for (const websiteId of change.formerWebsiteIds) tags.add(pageTags.postLists(websiteId));
      }
      return [...tags];
    }
    case 'tag':
      return [pageTags.tag(change.id), pageTags.tagType(change.type)];
    case 'page':
      return [pageTags.page(change.id), pageTags.pagesList];
    case 'website':
      return [pageTags.site(change.id)];
    case 'comments':
      return [pageTags.post(change.postId)];
    case 'author':
      return [pageTags.author(change.id)];
  }
}

/** The listener that keeps the full-page cache right: wire it once, where the services are made. */
export function pageCacheInvalidator(cache: Cache, bindings: WebsiteBindings) {
  return async (change: ContentChange): Promise<void> => {
    const tags = await tagsForChange(change, bindings);
    if (tags.length > 0) await cache.flushTags(tags);
  };
}
