// Rows inserted straight into the database, for tests of endpoints that read them.
import type { Db } from '../../src/db/database.js';
import type { Services } from '../../src/services.js';

export interface SeedPost {
  title: string;
  slug?: string;
  status?: 'draft' | 'published' | 'scheduled';
  authorId?: number | null;
  createdAt?: string;
  deleted?: boolean;
  type?: string;
}

export async function insertPost(db: Db, post: SeedPost): Promise<number> {
  const createdAt = post.createdAt ?? new Date().toISOString();
  const row = await db
    .insertInto('posts')
    .values({
      title: post.title,
      slug: post.slug ?? post.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      content: `<p>${post.title}</p>`,
      excerpt: `About ${post.title}`,
      status: post.status ?? 'published',
      type: post.type ?? 'post',
      author_id: post.authorId ?? null,
      published_at: createdAt,
      created_at: createdAt,
      updated_at: createdAt,
      deleted_at: post.deleted ? createdAt : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertTag(db: Db, name: string, type = 'post_tag'): Promise<number> {
  const now = new Date().toISOString();
  const row = await db
    .insertInto('tags')
    .values({ name, slug: name.toLowerCase(), type, created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function tagPost(db: Db, postId: number, tagId: number): Promise<void> {
  await db
    .insertInto('taggables')
    .values({ tag_id: tagId, taggable_type: 'post', taggable_id: postId })
    .execute();
}

/** Replaces a website's menu with one link entry (a menu change, announced like the API's). */
export async function syncOneMenuLink(services: Services, websiteId: number, name: string): Promise<void> {
  // Through the operation, which announces the change (the store does not), as the system's administrator.
  await services.menuOps.sync(
    { userId: null, isAdmin: true, websiteId: null },
    { website_id: websiteId, menu_items: [{ order: 1, name, type: 'link', url: '/blog' }] },
  );
}
