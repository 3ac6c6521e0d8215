// Cached reads of the public site: each read goes through the website's data cache and reports the
// cache tags of what it read to the page being rendered (a TagSink), so the full-page cache and the
// data cache are flushed by the changes that alter them (the one map: cache-tags.ts). Routes never
// name a cache tag for these reads; they hand over the page's sink.
import { rememberDiscovered, rememberForWebsite } from '../../cache/data-cache.js';
import type { DataCacheWebsite } from '../../cache/data-cache.js';
import type { Cache } from '../../cache/cache.js';
import type { Clock } from '../clock.js';
import { pageTags } from '../cache-tags.js';
import type { CommentsService } from '../community/comments.js';
import { LINKS_CACHE_TAG } from '../community/links.js';
import type { LinkListQuery, LinksService } from '../community/links.js';
import type { PagesService } from '../pages/store.js';
import type {
  PublicCover,
  PublicListQuery,
  PublicPage,
  PublicPost,
  PublicPostsService,
  PostsAround,
  RankQuery,
  SitemapPlace,
} from './posts.js';

/** Receives the cache tags of what a read read (the page being rendered collects them). */
export type TagSink = (tags: readonly string[]) => void;

/** How long cached site data may live without a change (changes flush it sooner). */
const DATA_TTL_SECONDS = 600;

/** Cache tags of what a post shows: the post, its tags and its author. */
export function publicPostTags(post: PublicPost): string[] {
  return [
    pageTags.post(post.id),
    ...post.tags.map((tag) => pageTags.tag(tag.id)),
    ...(post.author ? [pageTags.author(post.author.id)] : []),
  ];
}

/** The tags of every list of a website's posts (its own posts and global ones). */
const listTags = (websiteId: number) => [pageTags.postLists(websiteId), pageTags.globalPostLists];

export class SiteReads {
  constructor(
    private readonly deps: {
      cache: Cache;
      clock: Clock;
      publicPosts: PublicPostsService;
      comments: CommentsService;
      pages: PagesService;
      links: LinksService;
    },
  ) {}

  /**
   * `seconds`, or less when a scheduled post goes public by its time alone before then (at least 1):
   * nothing cached from the public posts (pages, data) may outlive that moment, as no change is
   * announced then.
   */
  async untilNextPublication(seconds: number): Promise<number> {
    const next = await this.deps.publicPosts.nextPublication();
    if (!next) return seconds;
    const left = Math.ceil((Date.parse(next) - this.deps.clock.now().getTime()) / 1000);
    return Math.max(1, Math.min(seconds, left));
  }

  /**
   * A page of a website's published posts. Kept until a post of the website (or a global post)
   * changes, as do changes to the tags and authors it names; keyword and date searches are not kept.
   */
  async postList(
    sink: TagSink,
    website: DataCacheWebsite,
    query: PublicListQuery,
  ): Promise<PublicPage<PublicPost>> {
    const result =
      (query.terms ?? []).length > 0 || query.publishedWithin
        ? await this.deps.publicPosts.list(query)
        : await rememberDiscovered(
            this.deps.cache,
            website,
            `posts:${JSON.stringify([query.locale, query.page, query.pageSize, query.tagIds ?? [], query.authorId ?? null])}`,
            { tags: [...listTags(website.id), pageTags.site(website.id)], ttlSeconds: DATA_TTL_SECONDS },
            async () => {
              const page = await this.deps.publicPosts.list(query);
              return {
                value: page,
                tags: page.items.flatMap(publicPostTags),
                ttlSeconds: await this.untilNextPublication(DATA_TTL_SECONDS),
              };
            },
          );
    this.postsShown(sink, website.id, result.items);
    return result;
  }

  /** Posts ranked by clicks (read every time: clicks announce nothing; pages keep them briefly). */
  async ranked(sink: TagSink, query: RankQuery): Promise<PublicPage<PublicPost>> {
    const result = await this.deps.publicPosts.ranked(query);
    this.postsShown(sink, query.websiteId, result.items);
    return result;
  }

  /** Reports the posts a page lists: its website's lists, and each post, tag and author shown. */
  private postsShown(sink: TagSink, websiteId: number, posts: readonly PublicPost[]): void {
    sink(listTags(websiteId));
    for (const post of posts) sink(publicPostTags(post));
  }

  /** One published post by slug, made ready for showing by `prepare` (kept prepared), or null. */
  async post<T extends PublicPost>(
    sink: TagSink,
    website: DataCacheWebsite,
    locale: string,
    slug: string,
    prepare: (post: NonNullable<Awaited<ReturnType<PublicPostsService['findBySlug']>>>) => T,
  ): Promise<T | null> {
    const post = await rememberDiscovered(
      this.deps.cache,
      website,
      `post:${locale}:${slug}`,
      { tags: [...listTags(website.id), pageTags.site(website.id)], ttlSeconds: DATA_TTL_SECONDS },
      async () => {
        const found = await this.deps.publicPosts.findBySlug(website.id, slug, locale);
        return found && { value: prepare(found), tags: publicPostTags(found) };
      },
    );
    if (post) sink(publicPostTags(post));
    return post;
  }

  /**
   * The posts shown around a post (previous, next, related: PublicPostsService.around). The data is
   * kept until a post of the website changes (any may become a neighbour); the page that shows them
   * is told only the posts shown.
   */
  async postsAround(
    sink: TagSink,
    website: DataCacheWebsite,
    locale: string,
    post: PublicPost,
    relatedLimit = 3,
  ): Promise<PostsAround> {
    const linked = (around: PostsAround) =>
      [around.previous, around.next, ...around.related].flatMap((shown) =>
        shown ? [pageTags.post(shown.id)] : [],
      );
    const around = await rememberDiscovered(
      this.deps.cache,
      website,
      `post-around:${locale}:${post.id}:${relatedLimit}`,
      { tags: [...listTags(website.id), pageTags.site(website.id)], ttlSeconds: DATA_TTL_SECONDS },
      async () => {
        const value = await this.deps.publicPosts.around(
          website.id,
          { id: post.id, publishedAt: post.publishedAt, tagIds: post.tags.map((tag) => tag.id) },
          locale,
          relatedLimit,
        );
        return {
          value,
          tags: [...publicPostTags(post), ...linked(value)],
          // A scheduled post may become the next one by its time alone: kept no longer than that (not
          // worked out where nothing is kept).
          ttlSeconds: website.enabledDataCache
            ? await this.untilNextPublication(DATA_TTL_SECONDS)
            : undefined,
        };
      },
    );
    // The page depends on the posts it shows, not on every post of the website: a write elsewhere
    // leaves cached post pages alone (issue 26). A post that becomes a neighbour shows once the page
    // expires (the face bounds its lifetime, NEIGHBOURS_PAGE_TTL in routes/posts.ts).
    sink(linked(around));
    return around;
  }

  /**
   * The website's home cover (its `site_cover`) with its sizes when it is an image of the media library;
   * null for an external address. Kept until the website changes.
   */
  async homeCover(sink: TagSink, website: DataCacheWebsite, url: string): Promise<PublicCover | null> {
    const tags = [pageTags.site(website.id)];
    sink(tags);
    return rememberForWebsite(
      this.deps.cache,
      website,
      `cover:${url}`,
      { tags, ttlSeconds: DATA_TTL_SECONDS },
      async () => (await this.deps.publicPosts.imagesByUrl([url])).get(url) ?? null,
    );
  }

  /** A website's tags of one type (the sidebar's categories), kept until a tag of the type changes. */
  async tagsOfType(sink: TagSink, website: DataCacheWebsite, type: string, locale: string, limit: number) {
    sink([pageTags.tagType(type)]);
    return rememberForWebsite(
      this.deps.cache,
      website,
      `tags:${type}:${locale}:${limit}`,
      { tags: [pageTags.tagType(type)], ttlSeconds: 3600 },
      () => this.deps.publicPosts.tagsOfType(website.id, type, locale, limit),
    );
  }

  /** The thread a reader who is not signed in sees (approved comments), kept until it changes. */
  async publicThread(sink: TagSink, website: DataCacheWebsite, postId: number) {
    sink([pageTags.post(postId)]);
    return rememberForWebsite(
      this.deps.cache,
      website,
      `comments:${postId}`,
      { tags: [pageTags.post(postId)], ttlSeconds: DATA_TTL_SECONDS },
      () => this.deps.comments.thread(postId, null),
    );
  }

  /**
   * A file of the posts' sitemap, built by `build` (keyed by everything else it shows): kept until a
   * post of the website (or a global one) changes or is published.
   */
  async postsSitemapFile(
    sink: TagSink,
    website: DataCacheWebsite,
    key: string,
    build: () => Promise<string>,
  ) {
    sink(listTags(website.id));
    return rememberDiscovered(
      this.deps.cache,
      website,
      `sitemap:posts:${key}`,
      { tags: [...listTags(website.id), pageTags.site(website.id)], ttlSeconds: DATA_TTL_SECONDS },
      async () => ({
        value: await build(),
        tags: [],
        ttlSeconds: await this.untilNextPublication(DATA_TTL_SECONDS),
      }),
    );
  }

  /** How many posts the website shows (its sitemap's size). */
  async postCount(sink: TagSink, websiteId: number): Promise<number> {
    sink(listTags(websiteId));
    return this.deps.publicPosts.count(websiteId);
  }

  /** A chunk of the posts' sitemap, read now (see PublicPostsService.sitemap). */
  async postsSitemapChunk(sink: TagSink, websiteId: number, limit: number, from: number | SitemapPlace) {
    sink(listTags(websiteId));
    return this.deps.publicPosts.sitemap(websiteId, limit, from);
  }

  /** The pages of the website's sitemap. */
  async sitemapPages(sink: TagSink, websiteId: number, limit: number, offset = 0) {
    sink([pageTags.pagesList]);
    return this.deps.publicPosts.sitemapPages(websiteId, limit, offset);
  }

  /** How many pages the website's sitemap lists. */
  async pageCount(sink: TagSink, websiteId: number): Promise<number> {
    sink([pageTags.pagesList]);
    return this.deps.publicPosts.countPages(websiteId);
  }

  /** A website's tags of one type, read now (sitemaps: large and rarely asked for). */
  async tagsOfTypeNow(
    sink: TagSink,
    websiteId: number,
    type: string,
    locale: string,
    limit: number,
    offset = 0,
  ) {
    sink([pageTags.tagType(type)]);
    return this.deps.publicPosts.tagsOfType(websiteId, type, locale, limit, offset);
  }

  /** How many tags of a type the website's sitemap of them lists. */
  async tagCount(sink: TagSink, websiteId: number, type: string): Promise<number> {
    sink([pageTags.tagType(type)]);
    return this.deps.publicPosts.countTagsOfType(websiteId, type);
  }

  /** A tag of the website by type and slug (its page lists its posts), or null. */
  async tag(sink: TagSink, websiteId: number, type: string, slug: string, locale: string) {
    const tag = await this.deps.publicPosts.findTag(websiteId, type, slug, locale);
    if (tag) sink([pageTags.tag(tag.id), pageTags.tagType(type)]);
    return tag;
  }

  /** A published page of the website by slug, or null (the pages' list is read either way). */
  async page(sink: TagSink, websiteId: number, slug: string, locale: string) {
    sink([pageTags.pagesList]);
    const page = await this.deps.pages.findBySlug(slug, { websiteId, locale, publishedOnly: true });
    if (page) sink([pageTags.page(page.id)]);
    return page;
  }

  /** A page of the link directory. */
  async links(sink: TagSink, query: LinkListQuery) {
    sink([LINKS_CACHE_TAG]);
    return this.deps.links.list(query);
  }

  /** One link of the directory shown on the website, or null. */
  async link(sink: TagSink, id: number, websiteId: number, locale: string) {
    sink([LINKS_CACHE_TAG]);
    return this.deps.links.find(id, websiteId, locale);
  }

  /** A tag of the link directory by its short type and slug, or null. */
  async linkTag(sink: TagSink, type: string, slug: string) {
    sink([LINKS_CACHE_TAG]);
    const tag = await this.deps.links.tagBySlug(type, slug);
    if (tag) sink([pageTags.tag(tag.id), pageTags.tagType(tag.type)]);
    return tag;
  }
}
