// Deep pages of post lists (issue 26 #2): numbered pages read by a deferred join (and past the middle
// from the far end) give exactly the posts a plain ORDER BY … LIMIT … OFFSET gives, in every order,
// ties and NULLs included; API v2 lists walked by cursor give the same posts as walked by page number.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { visibleOnWebsite } from '../../src/domain/websites/bindings.js';
import { SORTABLE_POST_FIELDS } from '../../src/domain/posts/index.js';
import type { PostListQuery } from '../../src/domain/posts/index.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertPost, insertTag, tagPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

describe('deep pages of post lists', () => {
  let ctx: TestContext;
  let admin: TestUser;
  let site: number;
  let other: number;
  let tag: number;
  const now = '2026-06-01T00:00:00.000Z';

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    admin = await ctx.createUser({ admin: true });
    site = await websiteWrites(ctx.services).create({ siteName: 'Pages', domain: 'pages.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    const { db } = ctx.services.database;
    tag = await insertTag(db, 'Deep', 'post_tag');
    // 47 posts: statuses mixed, timestamps with ties (three posts a minute), some without a publication
    // time, some not due yet, some bound to a website, some tagged.
    for (let i = 0; i < 47; i++) {
      const createdAt = new Date(Date.UTC(2026, 0, 1, 0, Math.floor(i / 3))).toISOString();
      const id = await insertPost(db, {
        title: `Post ${String(i % 10)} ${i}`,
        slug: `post-${i}`,
        status: i % 5 === 0 ? 'draft' : 'published',
        createdAt,
      });
      if (i % 7 === 0)
        await db.updateTable('posts').set({ published_at: null }).where('id', '=', id).execute();
      if (i % 11 === 0) {
        await db
          .updateTable('posts')
          .set({ published_at: '2030-01-01T00:00:00.000Z' })
          .where('id', '=', id)
          .execute();
      }
      if (i % 3 === 0) await ctx.services.bindings.sync(db, 'post', id, [site]);
      if (i % 4 === 1) await ctx.services.bindings.sync(db, 'post', id, [other]);
      if (i % 2 === 0) await tagPost(db, id, tag);
    }
  });
  after(() => ctx.close());

  /** The page as a plain OFFSET query reads it (the list query before issue 26). */
  async function reference(query: PostListQuery): Promise<number[]> {
    const { db } = ctx.services.database;
    let q = db
      .selectFrom('posts')
      .select('posts.id')
      .where('posts.deleted_at', 'is', null)
      .where('posts.type', '=', 'post');
    const status = query.status ?? 'published';
    if (status !== 'any') q = q.where('posts.status', '=', status);
    if (query.viewer) {
      const at = query.viewer.now;
      q = q.where((eb) =>
        eb.and([
          eb('posts.status', '=', 'published'),
          eb.or([eb('posts.published_at', 'is', null), eb('posts.published_at', '<=', at)]),
        ]),
      );
    }
    const websiteId = query.websiteId;
    if (websiteId !== null) q = q.where((eb) => visibleOnWebsite(eb, 'post', eb.ref('posts.id'), websiteId));
    const tagIds = query.tagIds ?? [];
    if (tagIds.length > 0) {
      q = q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('taggables')
            .select('taggables.tag_id')
            .where('taggables.taggable_type', '=', 'post')
            .whereRef('taggables.taggable_id', '=', 'posts.id')
            .where('taggables.tag_id', 'in', tagIds),
        ),
      );
    }
    const rows = await q
      .orderBy(`posts.${query.sort}`, query.direction)
      .orderBy('posts.id', 'desc')
      .limit(query.pageSize)
      .offset((query.page - 1) * query.pageSize)
      .execute();
    return rows.map((row) => row.id);
  }

  it('numbered pages equal a plain OFFSET query, every page, order, filter and viewer', async () => {
    const filters: Array<Partial<PostListQuery>> = [
      { websiteId: null },
      { websiteId: site },
      { websiteId: site, status: 'any' },
      { websiteId: null, status: 'draft' },
      { websiteId: other, tagIds: [tag] },
      { websiteId: site, viewer: { userId: null, now } },
    ];
    let compared = 0;
    for (const filter of filters) {
      for (const sort of SORTABLE_POST_FIELDS) {
        for (const direction of ['asc', 'desc'] as const) {
          for (const pageSize of [4, 15]) {
            const base = { sort, direction, pageSize, websiteId: null, ...filter };
            const first = await ctx.services.posts.list({ ...base, page: 1 });
            const pages = Math.ceil(first.total / pageSize) + 1; // and one past the end
            for (let page = 1; page <= pages; page++) {
              const query = { ...base, page };
              const got = (await ctx.services.posts.list(query)).items.map((post) => post.id);
              assert.deepEqual(got, await reference(query), JSON.stringify(query));
              compared++;
            }
          }
        }
      }
    }
    assert.ok(compared > 300, `${compared} pages compared`);
  });

  it('the public lists: every page equals a plain OFFSET query, by tag and without', async () => {
    const { db } = ctx.services.database;
    const at = new Date().toISOString();
    for (const tagIds of [undefined, [tag]]) {
      for (const pageSize of [3, 10]) {
        const first = await ctx.services.publicPosts.list({
          websiteId: site,
          locale: 'en',
          page: 1,
          pageSize,
          tagIds,
        });
        assert.ok(first.total > pageSize);
        for (let page = 1; page <= Math.ceil(first.total / pageSize) + 1; page++) {
          const got = await ctx.services.publicPosts.list({
            websiteId: site,
            locale: 'en',
            page,
            pageSize,
            tagIds,
          });
          let q = db
            .selectFrom('posts')
            .select('posts.id')
            .where('posts.type', '=', 'post')
            .where('posts.status', '=', 'published')
            .where('posts.deleted_at', 'is', null)
            .where('posts.published_at', 'is not', null)
            .where('posts.published_at', '<=', at)
            .where((eb) => visibleOnWebsite(eb, 'post', eb.ref('posts.id'), site));
          if (tagIds) {
            q = q.where((eb) =>
              eb.exists(
                eb
                  .selectFrom('taggables')
                  .select('taggables.tag_id')
                  .where('taggables.taggable_type', '=', 'post')
                  .whereRef('taggables.taggable_id', '=', 'posts.id')
                  .where('taggables.tag_id', 'in', tagIds),
              ),
            );
          }
          const expected = await q
            .orderBy('posts.published_at', 'desc')
            .orderBy('posts.id', 'desc')
            .limit(pageSize)
            .offset((page - 1) * pageSize)
            .execute();
          assert.deepEqual(
            got.items.map((post) => post.id),
            expected.map((row) => row.id),
            JSON.stringify({ tagIds, pageSize, page }),
          );
        }
      }
    }
  });

  const call = (url: string) =>
    ctx.request({
      method: 'GET',
      url: `/api/v2${url}`,
      headers: { host: 'pages.test', authorization: `Bearer ${admin.token}` },
    });

  interface ListAnswer {
    data: Array<{ id: number }>;
    meta: { pagination: { page?: number; total: number; total_pages: number; next_cursor: string | null } };
  }

  it('API v2: walking by cursor gives the pages walking by number gives', async () => {
    for (const sort of ['-created_at', 'created_at', 'title', '-slug', 'id', '-updated_at']) {
      for (const filter of ['', '&filter[status]=any', `&filter[tag]=${tag}`]) {
        const byNumber: number[] = [];
        const first = (await call(`/posts?per_page=4&sort=${sort}${filter}`)).json<ListAnswer>();
        for (let page = 1; page <= first.meta.pagination.total_pages; page++) {
          const answer = (
            await call(`/posts?per_page=4&page=${page}&sort=${sort}${filter}`)
          ).json<ListAnswer>();
          byNumber.push(...answer.data.map((post) => post.id));
        }
        const byCursor: number[] = [...first.data.map((post) => post.id)];
        let next = first.meta.pagination.next_cursor;
        let steps = 0;
        while (next !== null && steps++ < 50) {
          const response = await call(`/posts?per_page=4&sort=${sort}${filter}&cursor=${next}`);
          assert.equal(response.statusCode, 200, response.body);
          const answer = response.json<ListAnswer>();
          assert.equal(answer.meta.pagination.page, undefined);
          assert.equal(answer.meta.pagination.total, first.meta.pagination.total);
          const link = String(response.headers.link);
          assert.match(link, /rel="first"/);
          if (answer.meta.pagination.next_cursor !== null) {
            assert.ok(link.includes(`cursor=${answer.meta.pagination.next_cursor}`), link);
          }
          byCursor.push(...answer.data.map((post) => post.id));
          next = answer.meta.pagination.next_cursor;
        }
        assert.deepEqual(byCursor, byNumber, `${sort}${filter}`);
        assert.equal(byNumber.length, first.meta.pagination.total);
      }
    }
  });

  it('API v2: a cursor of another order, or not a cursor, is refused; a nullable order has none', async () => {
    const first = (await call('/posts?per_page=2&sort=-created_at')).json<ListAnswer>();
    const cursor = first.meta.pagination.next_cursor;
    assert.ok(cursor);
    assert.equal((await call(`/posts?per_page=2&sort=title&cursor=${cursor}`)).statusCode, 422);
    assert.equal((await call('/posts?per_page=2&cursor=bm90LWEtY3Vyc29y')).statusCode, 422);
    assert.equal((await call('/posts?per_page=2&cursor=%%%')).statusCode, 422);
    const byPublication = (await call('/posts?per_page=2&sort=-published_at')).json<ListAnswer>();
    assert.equal(byPublication.meta.pagination.next_cursor, null);
    assert.equal((await call(`/posts?per_page=2&sort=-published_at&cursor=${cursor}`)).statusCode, 422);
    // The last page has no next cursor.
    const last = (
      await call(`/posts?per_page=2&page=${first.meta.pagination.total_pages}`)
    ).json<ListAnswer>();
    assert.equal(last.meta.pagination.next_cursor, null);
  });
});
