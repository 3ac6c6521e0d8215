// Posts: what a post is, as every operation and face sees it (types, statuses, limits, cache tags).
import type { Translatable, TranslationMap } from '../translations.js';
import { USERS_CACHE_TAG } from '../people/users.js';
import { WEBSITES_TAG } from '../websites/store.js';

export const POST_STATUSES = ['draft', 'published', 'scheduled'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/**
 * A post's status as the site sees it at `now` (ISO 8601 UTC, as stored): `published` with a
 * published_at still to come is not public yet, so it is `scheduled` (issue 36 #9).
 */
export function statusAt(status: string, publishedAt: string | null, now: string): string {
  return status === 'published' && publishedAt !== null && publishedAt > now ? 'scheduled' : status;
}
/**
 * Submitted for review (issue 20 #4): a contributor's draft waiting for an editor. Not one of API
 * v1's statuses (spec 3.1): only the review operations (review.ts) put a post in it or take it out.
 */
export const REVIEW_STATUS = 'pending';

/** Fields a list may be sorted by (R-P2); anything else is refused before it reaches SQL. */
export const SORTABLE_POST_FIELDS = [
  'id',
  'title',
  'slug',
  'created_at',
  'updated_at',
  'published_at',
] as const;
export type PostSortField = (typeof SORTABLE_POST_FIELDS)[number];
/** A list's order after its first field: API v2's `?sort=-published_at,title` (at most MAX_SORT_KEYS in all). */
export interface PostSortKey {
  field: PostSortField;
  direction: 'asc' | 'desc';
}
export const MAX_SORT_KEYS = 3;

export const DEFAULT_POST_PAGE_SIZE = 15;
export const MAX_POST_PAGE_SIZE = 100;

export interface PostTag {
  id: number;
  name: string;
  type: string;
}

export interface PostSummary {
  id: number;
  title: string;
  slug: string;
  excerpt: string | null;
  content: string;
  thumbnail: string | null;
  status: string;
  publishedAt: string | null;
  author: { id: number; name: string } | null;
  tags: PostTag[];
  createdAt: string;
  updatedAt: string;
  /** The websites it is on; empty: every website (a global post). */
  websiteIds: number[];
}

/** `any` lists every status (Folio's addition, R-P3); `pending`, posts waiting for review (issue 20). */
export const POST_LIST_STATUSES = [...POST_STATUSES, 'pending', 'any'] as const;
export type PostListStatus = (typeof POST_LIST_STATUSES)[number];

export interface PostListQuery {
  page: number;
  pageSize: number;
  sort: PostSortField;
  direction: 'asc' | 'desc';
  /** The orders that break the first one's ties (before the id, which breaks every tie). */
  thenBy?: PostSortKey[];
  /**
   * Best match of `keywords` first (the search index's rank, issue 40 #2); `sort` and `thenBy` then
   * break its ties. Such a list is paged by number only (no cursors).
   */
  relevance?: boolean;
  /**
   * A search with a bounded cost (API v2, issue 40 #2): the `keywords` are looked for among the newest
   * matches only, at most SEARCH_CANDIDATES; past it the total is a lower bound (Page.totalExact).
   * Absent: every match, an exact total (API v1's contract).
   */
  bounded?: boolean;
  /** The current website: its posts and global posts (bound to no website). Null: every post. */
  websiteId: number | null;
  /** Default `published`. */
  status?: PostListStatus;
  /**
   * Statuses by what the site shows (API v2, issue 36 #9): a `published` post whose published_at is
   * still to come is listed and counted as `scheduled`, not `published`. Absent: the stored status
   * only (API v1, R-P3).
   */
  timed?: boolean;
  /** Terms matched against title, excerpt and content and their translations; any term matches. */
  keywords?: string[];
  /** Posts having any of these tags (of `tagType` when given). */
  tagIds?: number[];
  tagType?: string;
  excludedIds?: number[];
  /** Posts written by this user only (API v2's `filter[author]`; API v1 has no such field). */
  authorId?: number;
  random?: boolean;
  /** The posts after this one in the list's order (keyset pagination; `page` is then ignored). */
  after?: PostCursor;
  /**
   * Who lists, when it is not an administrator: then only posts published and due, and the viewer's
   * own posts of any status, are listed (policy.ts). Absent: every post of the status asked for.
   */
  viewer?: {
    userId: number | null;
    now: string;
    /** An editor (or site admin) of the list's website: its posts of any status are listed too. */
    editsWebsite?: boolean;
  };
}

/** Where a page of a list ends: the last post's sort value and id (see posts/cursor.ts). */
export interface PostCursor {
  value: string | number;
  id: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  /** False when `total` is a lower bound (a bounded search that reached its cap). Absent: exact. */
  totalExact?: boolean;
}

export interface PostDetail extends PostSummary {
  author: { id: number; name: string; email: string } | null;
  /** Tags of type `post_tag`. */
  tagList: Array<{ id: number; name: string }>;
  /** Tags of type `post_category`. */
  categories: Array<{ id: number; name: string }>;
  keywords: string | null;
  metaTitle: string | null;
  metaDescription: string | null;
  metaKeywords: string | null;
  translations: TranslationMap;
  websiteIds: number[];
}

/**
 * What a create or update writes. Absent (undefined) means "not sent": an update leaves it alone.
 * Tag, author and website ids are checked here against the database.
 */
export interface PostWrite {
  title?: Translatable;
  content?: Translatable;
  excerpt?: Translatable | null;
  keywords?: Translatable | null;
  slug?: string;
  status?: PostStatus;
  /** ISO 8601; null clears it. */
  publishedAt?: string | null;
  metaTitle?: string | null;
  metaDescription?: string | null;
  metaKeywords?: string | null;
  authorId?: number;
  /** Whether the policy lets the actor name `authorId` (set by the operations; see the store's check). */
  authorAllowed?: boolean;
  tags?: number[];
  categories?: number[];
  websiteIds?: number[];
  /** An external thumbnail URL (R-P9); null clears the thumbnail. */
  thumbnailUrl?: string | null;
  /** Uploaded thumbnail bytes; wins over thumbnailUrl (R-P9). */
  thumbnailUpload?: Buffer;
  /** The upload was cut off at the request limit: it is too large whatever the setting says. */
  thumbnailTruncated?: boolean;
  /** Download external images of the content (rule 3); default: setting `localize_post_image`. */
  localizeImages?: boolean;
  /** Write only if the post is still at this version (its `updatedAt`): else StaleWriteError. */
  ifUpdatedAt?: string;
}

/** Settings read by the posts service. */
export const POST_SETTINGS = {
  convertToWebp: 'convert_thumbnail_to_webp',
  localizeImages: 'localize_post_image',
  thumbnailMaxKb: 'post_thumbnail_max_kb',
  defaultLocale: 'default_locale',
} as const;
export const DEFAULT_THUMBNAIL_MAX_KB = 5120;

export const POST_MODEL = 'post';
export const TRANSLATABLE_FIELDS = ['title', 'excerpt', 'content', 'keywords'] as const;
/** Cache tag flushed by every post write (the public site caches post pages under it). */
export const POSTS_CACHE_TAG = 'posts';
/** How long a list's total may be served from the cache (writes through this service flush it). */
export const COUNT_CACHE_TTL_SECONDS = 60;

/**
 * The cache tags of anything cached from what list() and findDetail() read: posts and their tags
 * (POSTS_CACHE_TAG: every post write, and every tag change, see the constructor), website bindings
 * and websites (WEBSITES_TAG: a deleted website unbinds and deletes posts), authors' names and
 * emails (USERS_CACHE_TAG). Whatever is cached under all of them is flushed by every change that
 * could alter it.
 */
export const POST_READ_CACHE_TAGS: readonly string[] = [POSTS_CACHE_TAG, WEBSITES_TAG, USERS_CACHE_TAG];
