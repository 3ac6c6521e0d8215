// The one map from content changes to the cache tags they flush, and the tags' names. Services
// announce changes (changes.ts); the listener below flushes what each change affects, in the shared
// cache, so one node's flush is seen by every node. A cached page carries the tags of everything it
// shows:
// - every page: `site:{w}` (the website's fields and domains) and the website's menu tag;
// - a page showing posts: `post:{id}` for each of them, `tag:{id}` for each tag it names, `author:{id}`
//   for each author it names;
// - a page listing posts: `post-lists:site:{w}` and `post-lists:global` (a new or changed post
//   bound to website w changes w's lists; a global post changes every website's lists);
// - tag pages and sitemaps of a tag type: `tag-type:{type}`; pages: `page:{id}`, `pages-list`;
// - every page of every website: `pages` (settings that change pages: locales, tag types, the TTL…).
// Data caches flushed by the same changes: `posts` (every cached read of posts, which show their tags'
// names) on post, tag and link changes; `users` on author and account changes; `websites` (and
// `domains`, host resolution) on website changes; `menus` on menu changes; `links` on link changes.
import type { Cache } from '../cache/cache.js';
import type { WebsiteBindings } from './websites/bindings.js';
import type { ContentChange } from './changes.js';
import { LINKS_CACHE_TAG } from './community/links.js';
import { MENUS_CACHE_TAG, websiteMenuCacheTag } from './menus/store.js';
import type { MenuReferences } from './menus/store.js';
import { POSTS_CACHE_TAG } from './posts/model.js';
import { USERS_CACHE_TAG } from './people/users.js';
import { DOMAINS_TAG, WEBSITES_TAG } from './websites/store.js';

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
  /** Every cached page and fragment of the installation. */
  all: 'pages',
} as const;

/**
 * Settings whose change alters rendered pages (or how long they live): these and every `frontend_*`
 * one; a change of one flushes every cached page. API switches, mail and account settings change no page.
 */
const PAGE_SETTINGS = new Set([
  'default_locale',
  'supported_locales',
  'page_cache_ttl',
  'feed_full_content',
  'default_website_id',
  'enable_registration',
]);
export const settingAltersPages = (key: string) => PAGE_SETTINGS.has(key) || key.startsWith('frontend_');

/** The tags a change flushes, with those of the menus that point at what changed. */
export async function tagsForChange(
  change: ContentChange,
  bindings: WebsiteBindings,
  menus?: Pick<MenuReferences, 'websitesPointingAt'>,
): Promise<string[]> {
  const own = await ownTagsForChange(change, bindings);
  const target =
    change.kind === 'post'
      ? { kind: 'post' as const, ids: change.ids }
      : change.kind === 'page' || change.kind === 'tag'
        ? { kind: change.kind, ids: [change.id] }
        : null;
  if (!menus || !target) return own;
  const websites = await menus.websitesPointingAt(target.kind, target.ids);
  if (websites.length === 0) return own;
  return [...own, MENUS_CACHE_TAG, ...websites.map(websiteMenuCacheTag)];
}

async function ownTagsForChange(change: ContentChange, bindings: WebsiteBindings): Promise<string[]> {
  switch (change.kind) {
    case 'post': {
      if (change.ids.length === 0) return [];
      const bound = await bindings.websitesOf('post', change.ids);
      const tags = new Set<string>([POSTS_CACHE_TAG]);
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
      // Posts show their tags' names and types: a tag change is a change of the posts' answers.
      return [pageTags.tag(change.id), pageTags.tagType(change.type), POSTS_CACHE_TAG];
    case 'page':
      return [pageTags.page(change.id), pageTags.pagesList];
    case 'website':
      return [pageTags.site(change.id), WEBSITES_TAG, ...(change.domainsChanged ? [DOMAINS_TAG] : [])];
    case 'menu':
      return [MENUS_CACHE_TAG, websiteMenuCacheTag(change.websiteId)];
    case 'link':
      return [LINKS_CACHE_TAG, POSTS_CACHE_TAG];
    case 'media':
      // Nothing cached shows an item's own fields; pages showing a deleted one change.
      return [...(change.postIds ?? []).map(pageTags.post), ...(change.pageIds ?? []).map(pageTags.page)];
    case 'user':
      return [USERS_CACHE_TAG];
    case 'comments':
      return [pageTags.post(change.postId)];
    case 'author':
      return [pageTags.author(change.id), USERS_CACHE_TAG];
    case 'settings':
      return change.keys.some(settingAltersPages) ? [pageTags.all] : [];
  }
}

/** The listener that keeps the caches right: wire it once, where the services are made. */
export function cacheInvalidator(
  cache: Cache,
  bindings: WebsiteBindings,
  menus: Pick<MenuReferences, 'websitesPointingAt'>,
) {
  return async (change: ContentChange): Promise<void> => {
    const tags = await tagsForChange(change, bindings, menus);
    if (tags.length > 0) await cache.flushTags(tags);
  };
}
