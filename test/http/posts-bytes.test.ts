// The exact bytes of GET /api/v1/posts and GET /api/v1/posts/{slug} (spec 4.1, R-G2, R-P1, R-P4):
// key order, escaping, nulls, timestamps, pagination links and headers. Pinned so that any change to
// how these answers are built (serialization, caching, compiled queries) must keep them identical.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertPost, insertTag, tagPost } from '../support/seed.js';

const NOW = '2026-02-03T04:05:06.789Z';

describe('posts API answers, byte for byte', () => {
  let ctx: TestContext;
  let user: TestUser;
  const clock = manualClock(new Date(NOW));

  before(async () => {
    ctx = await createTestContext({ clock });
    await ctx.enableApi();
    await ctx.services.settings.setMany({
      svc_api_posts_index_should_auth: 'none',
      svc_api_posts_show_should_auth: 'none',
    });
    // An administrator: these tests are about answers, not permissions (a non-admin writes only on
    // websites they may write to, never global posts: test/http/ownership.test.ts).
    user = await ctx.createUser({ admin: true });
    const { db } = ctx.services.database;
    const news = await insertTag(db, 'News', 'post_tag');
    const guides = await insertTag(db, 'Guides "&" <more>', 'post_category');
    // Created through the API: translations, tags, categories, meta fields, tricky characters.
    const created = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts/store',
      payload: {
        api_token: user.token,
        title: { en: 'Café "quoted" \u2028 line', fr: 'Café français' },
        content: '<p>Ünïcödé </script> & "quotes"\n\ttab \\ backslash 😀</p>',
        excerpt: { en: 'Short', de: 'Kurz' },
        meta_title: 'Meta title',
        meta_keywords: 'a,b',
        tags: [news],
        categories: [guides],
        published_at: '2026-01-15T10:00:00Z',
      },
    });
    assert.equal(created.statusCode, 200, created.body);
    // Inserted directly: no author, a draft, a deleted post, and older posts for a second page.
    for (let i = 1; i <= 3; i++) {
      await insertPost(db, {
        title: `Older ${i}`,
        createdAt: new Date(Date.UTC(2025, 11, i)).toISOString(),
        authorId: i === 2 ? user.id : null,
      });
    }
    await tagPost(db, 2, news);
    await insertPost(db, { title: 'Hidden draft', status: 'draft', createdAt: NOW });
    await insertPost(db, { title: 'Gone', deleted: true, createdAt: NOW });
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.request({ method: 'GET', url });

  const FIRST = `{"id":1,"title":"Café \\"quoted\\" \u2028 line","slug":"cafe-quoted-line","excerpt":"Short","content":"<p>Ünïcödé </script> & \\"quotes\\"\\n\\ttab \\\\ backslash 😀</p>","thumbnail":null,"status":"published","published_at":"2026-01-15T10:00:00.000Z","author":{"id":1,"name":"User NAME"},"tags":[{"id":1,"name":"News","type":"post_tag"},{"id":2,"name":"Guides \\"&\\" <more>","type":"post_category"}],"url":"http://folio.test/post/cafe-quoted-line","created_at":"2026-02-03T04:05:06.789Z","updated_at":"2026-02-03T04:05:06.789Z"}`;
  const older = (i: number, id: number, author: string, tags: string) =>
    `{"id":${id},"title":"Older ${i}","slug":"older-${i}","excerpt":"About Older ${i}","content":"<p>Older ${i}</p>","thumbnail":null,"status":"published","published_at":"2025-12-0${i}T00:00:00.000Z","author":${author},"tags":${tags},"url":"http://folio.test/post/older-${i}","created_at":"2025-12-0${i}T00:00:00.000Z","updated_at":"2025-12-0${i}T00:00:00.000Z"}`;
  const userName = async () => (await ctx.services.users.findById(user.id))!.name;

  it('the list, first page: envelope, items and pagination as they are today', async () => {
    const response = await get('/api/v1/posts?page_size=2&sort=created_at&x=%C3%A9&arr[]=1');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    const name = await userName();
    const expected =
      `{"code":200,"status":"success","message":"Successfully fetched posts","data":{"data":[` +
      FIRST.replace('User NAME', name) +
      ',' +
      older(3, 4, 'null', '[]') +
      `],"pagination":{"total":4,"count":2,"page_size":2,"current_page":1,"last_page":2,"has_more":true,` +
      `"next":"/api/v1/posts?page_size=2&sort=created_at&x=%C3%A9&arr%5B0%5D=1&page=2","previous":null}},"extra":[]}`;
    assert.equal(response.body, expected);
    assert.equal(response.headers['content-length'], String(Buffer.byteLength(expected)));
  });

  it('the list, second page, with a token and a POST body', async () => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/posts?page=2&api_token=${user.token}`,
      payload: { page_size: 2, api_token: user.token },
    });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    const name = await userName();
    const expected =
      `{"code":200,"status":"success","message":"Successfully fetched posts","data":{"data":[` +
      older(2, 3, `{"id":1,"name":"${name}"}`, '[]') +
      ',' +
      older(1, 2, 'null', '[{"id":1,"name":"News","type":"post_tag"}]') +
      `],"pagination":{"total":4,"count":2,"page_size":2,"current_page":2,"last_page":2,"has_more":false,` +
      `"next":null,"previous":"/api/v1/posts?page=1"}},"extra":[]}`;
    assert.equal(response.body, expected);
  });

  it('the list, past the end and empty', async () => {
    const response = await get('/api/v1/posts?page=9&page_size=2');
    assert.equal(
      response.body,
      `{"code":200,"status":"success","message":"Successfully fetched posts","data":{"data":[],` +
        `"pagination":{"total":4,"count":0,"page_size":2,"current_page":9,"last_page":2,"has_more":false,` +
        `"next":null,"previous":"/api/v1/posts?page=2&page_size=2"}},"extra":[]}`,
    );
    const drafts = await get(`/api/v1/posts?status=draft&api_token=${user.token}`);
    assert.equal(
      drafts.body,
      `{"code":200,"status":"success","message":"Successfully fetched posts","data":{"data":[` +
        `{"id":5,"title":"Hidden draft","slug":"hidden-draft","excerpt":"About Hidden draft","content":"<p>Hidden draft</p>","thumbnail":null,"status":"draft","published_at":"${NOW}","author":null,"tags":[],"url":"http://folio.test/post/hidden-draft","created_at":"${NOW}","updated_at":"${NOW}"}` +
        `],"pagination":{"total":1,"count":1,"page_size":15,"current_page":1,"last_page":1,"has_more":false,` +
        `"next":null,"previous":null}},"extra":[]}`,
    );
  });

  it('show, by slug and by id: the whole post with translations (anonymous callers without the author email, issue 21 #11)', async () => {
    const name = await userName();
    const expected =
      `{"code":200,"status":"success","message":"Successfully fetched post","data":` +
      `{"id":1,"title":"Café \\"quoted\\" \u2028 line","slug":"cafe-quoted-line","excerpt":"Short","content":"<p>Ünïcödé </script> & \\"quotes\\"\\n\\ttab \\\\ backslash 😀</p>","thumbnail":null,"status":"published","published_at":"2026-01-15T10:00:00.000Z",` +
      `"author":{"id":1,"name":"${name}"},"tags":[{"id":1,"name":"News"}],"categories":[{"id":2,"name":"Guides \\"&\\" <more>"}],` +
      `"url":"http://folio.test/post/cafe-quoted-line","meta_title":"Meta title","meta_description":null,"meta_keywords":"a,b",` +
      `"translations":{"excerpt":{"de":"Kurz","en":"Short"},"title":{"en":"Café \\"quoted\\" \u2028 line","fr":"Café français"}},"created_at":"2026-02-03T04:05:06.789Z","updated_at":"2026-02-03T04:05:06.789Z"},"extra":[]}`;
    for (const ref of ['cafe-quoted-line', '1']) {
      const response = await get(`/api/v1/posts/${ref}`);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(response.body, expected);
      assert.equal(response.headers['content-length'], String(Buffer.byteLength(expected)));
    }
    // A signed-in caller sees the author's email (R-P4).
    const signedIn = await get(`/api/v1/posts/1?api_token=${user.token}`);
    assert.equal(
      signedIn.body,
      expected.replace(
        `"author":{"id":1,"name":"${name}"}`,
        `"author":{"id":1,"name":"${name}","email":"${user.email}"}`,
      ),
    );
    const older = await get('/api/v1/posts/older-1');
    assert.equal(
      older.body,
      `{"code":200,"status":"success","message":"Successfully fetched post","data":` +
        `{"id":2,"title":"Older 1","slug":"older-1","excerpt":"About Older 1","content":"<p>Older 1</p>","thumbnail":null,"status":"published","published_at":"2025-12-01T00:00:00.000Z",` +
        `"author":null,"tags":[{"id":1,"name":"News"}],"categories":[],"url":"http://folio.test/post/older-1","meta_title":null,"meta_description":null,"meta_keywords":null,` +
        `"translations":{},"created_at":"2025-12-01T00:00:00.000Z","updated_at":"2025-12-01T00:00:00.000Z"},"extra":[]}`,
    );
  });

  it('show: a draft is a 404 without a token and the post with one; unknown is a 404', async () => {
    const notFound = '{"code":404,"status":"fail","message":"Post not found","data":[],"extra":[]}';
    assert.equal((await get('/api/v1/posts/hidden-draft')).body, notFound);
    assert.equal((await get('/api/v1/posts/5')).body, notFound);
    assert.equal((await get('/api/v1/posts/nope')).body, notFound);
    // Beyond the id column's range: no such id, on every dialect (PostgreSQL used to answer a 500).
    assert.equal((await get('/api/v1/posts/999999999999999')).body, notFound);
    const withToken = await get(`/api/v1/posts/hidden-draft?api_token=${user.token}`);
    assert.equal(withToken.statusCode, 200);
    assert.match(
      withToken.body,
      /^\{"code":200,"status":"success","message":"Successfully fetched post","data":\{"id":5,/,
    );
  });

  it('HEAD answers the headers of GET without a body', async () => {
    const head = await ctx.request({ method: 'HEAD', url: '/api/v1/posts?page_size=2' });
    const full = await get('/api/v1/posts?page_size=2');
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers['content-type'], full.headers['content-type']);
  });
});
