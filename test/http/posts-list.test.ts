// GET|POST /api/v1/posts through the whole stack: envelope, pagination, sorting (spec 4.1, 2.2, R-P1..R-P4).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertPost, insertTag, tagPost } from '../support/seed.js';

interface ListBody {
  code: number;
  status: string;
  message: string;
  data: { data: Array<Record<string, unknown>>; pagination: Record<string, unknown> };
  extra: unknown;
}

describe('posts list', () => {
  let ctx: TestContext;
  let user: TestUser;
  const ids: number[] = [];

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    // An administrator: these tests are about answers, not permissions (a non-admin writes only on
    // websites they may write to, never global posts: test/http/ownership.test.ts).
    user = await ctx.createUser({ admin: true });
    const author = await ctx.services.users.findById(user.id);
    const { db } = ctx.services.database;
    // 20 published posts, one a minute, the newest last; plus posts the list must never show.
    for (let i = 1; i <= 20; i++) {
      const createdAt = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
      ids.push(
        await insertPost(db, {
          title: `Post ${String(i).padStart(2, '0')}`,
          authorId: author?.id,
          createdAt,
        }),
      );
    }
    await insertPost(db, { title: 'A draft', status: 'draft' });
    await insertPost(db, { title: 'Deleted', deleted: true });
    await insertPost(db, { title: 'A link', type: 'link' });
    const news = await insertTag(db, 'News', 'post_tag');
    const guides = await insertTag(db, 'Guides', 'post_category');
    await tagPost(db, ids[19]!, guides);
    await tagPost(db, ids[19]!, news);
  });
  after(() => ctx.close());

  const list = async (query = '', body: Record<string, unknown> = {}) => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/posts${query}`,
      payload: { api_token: user.token, ...body },
    });
    return { status: response.statusCode, body: response.json<ListBody>() };
  };

  it('answers the list envelope with the first page of 15, newest first', async () => {
    const { status, body } = await list();
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body), ['code', 'status', 'message', 'data', 'extra']);
    assert.equal(body.code, 200);
    assert.equal(body.status, 'success');
    assert.equal(body.message, 'Successfully fetched posts');
    assert.deepEqual(body.extra, []);
    assert.equal(body.data.data.length, 15);
    assert.deepEqual(
      body.data.data.map((post) => post.id),
      [...ids].reverse().slice(0, 15),
    );
    assert.deepEqual(body.data.pagination, {
      total: 20,
      count: 15,
      page_size: 15,
      current_page: 1,
      last_page: 2,
      has_more: true,
      next: '/api/v1/posts?page=2',
      previous: null,
    });
  });

  it('R-P4: a post in the list has the list fields, its author and every tag', async () => {
    const { body } = await list('', { page_size: 1 });
    const post = body.data.data[0]!;
    assert.deepEqual(Object.keys(post), [
      'id',
      'title',
      'slug',
      'excerpt',
      'content',
      'thumbnail',
      'status',
      'published_at',
      'author',
      'tags',
      'url',
      'created_at',
      'updated_at',
    ]);
    assert.equal(post.title, 'Post 20');
    assert.equal(post.slug, 'post-20');
    assert.equal(post.status, 'published');
    assert.deepEqual(post.author, { id: user.id, name: (await ctx.services.users.findById(user.id))?.name });
    assert.deepEqual(
      post.tags,
      [
        { id: (post.tags as Array<{ id: number }>)[0]!.id, name: 'News', type: 'post_tag' },
        { id: (post.tags as Array<{ id: number }>)[1]!.id, name: 'Guides', type: 'post_category' },
      ].sort((a, b) => a.id - b.id),
    );
    assert.equal(post.url, 'http://folio.test/post/post-20');
    assert.equal(post.created_at, '2026-01-01T00:20:00.000Z');
    assert.equal(post.published_at, '2026-01-01T00:20:00.000Z');
  });

  it('R-P1: the second page links back, keeps other query parameters, and never repeats api_token', async () => {
    const response = await ctx.request({
      method: 'GET',
      url: `/api/v1/posts?api_token=${encodeURIComponent(user.token)}&page_size=5&page=2&direction=asc`,
    });
    const body = response.json<ListBody>();
    assert.deepEqual(body.data.pagination, {
      total: 20,
      count: 5,
      page_size: 5,
      current_page: 2,
      last_page: 4,
      has_more: true,
      next: '/api/v1/posts?page_size=5&page=3&direction=asc',
      previous: '/api/v1/posts?page_size=5&page=1&direction=asc',
    });
    assert.deepEqual(
      body.data.data.map((post) => post.id),
      ids.slice(5, 10),
    );
  });

  it('the last page has no next; a page past the end is empty', async () => {
    const last = await list('', { page: 2 });
    assert.equal(last.body.data.data.length, 5);
    assert.equal(last.body.data.pagination.next, null);
    assert.equal(last.body.data.pagination.has_more, false);
    const past = await list('', { page: 9 });
    assert.equal(past.status, 200);
    assert.deepEqual(past.body.data.data, []);
    assert.equal(past.body.data.pagination.count, 0);
  });

  it('R-P2: page_size is clamped to 1..100 and page to at least 1', async () => {
    assert.equal((await list('', { page_size: 1000 })).body.data.pagination.page_size, 100);
    assert.equal((await list('', { page_size: 0 })).body.data.pagination.page_size, 1);
    assert.equal((await list('', { page: -3 })).body.data.pagination.current_page, 1);
  });

  it('R-P2: sorts by a whitelisted field in either direction, ties by id desc', async () => {
    const byTitle = await list('', { sort: 'title', direction: 'asc', page_size: 3 });
    assert.deepEqual(
      byTitle.body.data.data.map((post) => post.title),
      ['Post 01', 'Post 02', 'Post 03'],
    );
    const byId = await list('', { sort: 'id', direction: 'DESC', page_size: 2 });
    assert.deepEqual(
      byId.body.data.data.map((post) => post.id),
      [ids[19], ids[18]],
    );
  });

  it('R-P2: an unknown sort field or direction is a 422, never SQL', async () => {
    const { status, body } = await list('', {
      sort: 'password_hash; drop table posts',
      direction: 'sideways',
    });
    assert.equal(status, 422);
    assert.deepEqual(body, {
      code: 422,
      status: 'fail',
      message: 'Validation failed',
      data: {
        errors: {
          sort: ['The selected sort is invalid.'],
          direction: ['The selected direction is invalid.'],
        },
      },
      extra: [],
    });
  });

  it('wrong types are 422 with the spec messages', async () => {
    const { status, body } = await list('', { page: 'two', page_size: [1] });
    assert.equal(status, 422);
    assert.deepEqual(body.data, {
      errors: { page_size: ['The page size must be an integer.'], page: ['The page must be an integer.'] },
    });
  });

  it('works with GET and with a form body', async () => {
    const get = await ctx.request({
      method: 'GET',
      url: `/api/v1/posts?api_token=${encodeURIComponent(user.token)}`,
    });
    assert.equal(get.statusCode, 200);
    const form = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `api_token=${encodeURIComponent(user.token)}&page_size=2`,
    });
    assert.equal(form.json<ListBody>().data.data.length, 2);
  });

  it('HEAD answers like GET without a body', async () => {
    const head = await ctx.request({
      method: 'HEAD',
      url: `/api/v1/posts?api_token=${encodeURIComponent(user.token)}`,
    });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });
});
