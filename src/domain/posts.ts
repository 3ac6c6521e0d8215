// Posts: the domain service shared by the API and the public website. It knows nothing of HTTP.
import type { Db } from '../db/database.js';
import type { Clock } from './clock.js';
import { visibleOnWebsite } from './bindings.js';
import { toIso } from './values.js';

export const POST_STATUSES = ['draft', 'published', 'scheduled'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

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
}

export interface PostListQuery {
  page: number;
  pageSize: number;
  sort: PostSortField;
  direction: 'asc' | 'desc';
  /** The current website: its posts and global posts (bound to no website). Null: every post. */
  websiteId: number | null;
}

export interface Page<T> {
  items: T[];
  total: number;
}

const POST_MODEL = 'post';

export class PostsService {
  constructor(
    private readonly db: Db,
    // Creation and scheduling (next issue) stamp times with it.
    protected readonly clock: Clock,
  ) {}

  async list(query: PostListQuery): Promise<Page<PostSummary>> {
    let base = this.db
      .selectFrom('posts')
      .where('posts.deleted_at', 'is', null)
      .where('posts.type', '=', POST_MODEL)
      .where('posts.status', '=', 'published');
    if (query.websiteId !== null) {
      const websiteId = query.websiteId;
      base = base.where((eb) => visibleOnWebsite(eb, POST_MODEL, eb.ref('posts.id'), websiteId));
    }

    const countRow = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
    const total = Number(countRow?.total ?? 0);
    if (total === 0) return { items: [], total };

    const rows = await base
      .leftJoin('users', 'users.id', 'posts.author_id')
      .select([
        'posts.id',
        'posts.title',
        'posts.slug',
        'posts.excerpt',
        'posts.content',
        'posts.thumbnail',
        'posts.status',
        'posts.published_at',
        'posts.created_at',
        'posts.updated_at',
        'users.id as author_id',
        'users.name as author_name',
      ])
      .orderBy(`posts.${query.sort}`, query.direction)
      .orderBy('posts.id', 'desc')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute();

    const tagsByPost = await this.tagsOf(rows.map((row) => row.id));
    const items = rows.map((row) => ({
      id: row.id,
      title: row.title,
      slug: row.slug,
      excerpt: row.excerpt,
      content: row.content,
      thumbnail: row.thumbnail,
      status: row.status,
      publishedAt: toIso(row.published_at),
      author: row.author_id === null ? null : { id: row.author_id, name: row.author_name ?? '' },
      tags: tagsByPost.get(row.id) ?? [],
      createdAt: toIso(row.created_at),
      updatedAt: toIso(row.updated_at),
    }));
    return { items, total };
  }

  /** The tags of many posts in one query (no N+1), in a stable order. */
  private async tagsOf(postIds: number[]): Promise<Map<number, PostTag[]>> {
    const byPost = new Map<number, PostTag[]>();
    if (postIds.length === 0) return byPost;
    const rows = await this.db
      .selectFrom('taggables')
      .innerJoin('tags', 'tags.id', 'taggables.tag_id')
      .select(['taggables.taggable_id as post_id', 'tags.id', 'tags.name', 'tags.type'])
      .where('taggables.taggable_type', '=', POST_MODEL)
      .where('taggables.taggable_id', 'in', postIds)
      .orderBy('tags.id')
      .execute();
    for (const row of rows) {
      const list = byPost.get(row.post_id) ?? [];
      list.push({ id: row.id, name: row.name, type: row.type });
      byPost.set(row.post_id, list);
    }
    return byPost;
  }
}
