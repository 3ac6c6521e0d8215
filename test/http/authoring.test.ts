// Writing posts on the public site over real HTTP (spec 4.8 `/post/create`, `/post/store`,
// `/post/edit/{post}`, `/post/update/{post}`, R-F1 `frontend.posts.*`): the posts service of the API
// does the work; a user edits only their own posts unless admin; a non-admin's HTML is sanitized.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext, exposeRouteNames } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { Visitor } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

describe('post authoring', () => {
  let ctx: TestContext;
  let websiteId: number;
  let author: TestUser;
  let other: TestUser;
  let admin: TestUser;
  let categoryId: number;
  const signedIn = new Map<number, Visitor>();

  const as = async (user: TestUser) => {
    let client = signedIn.get(user.id);
    if (!client) {
      client = new Visitor(ctx, 'site.test', `10.1.0.${user.id % 250}`);
      await client.logIn(user.email, user.password);
      signedIn.set(user.id, client);
    }
    return client;
  };

  const store = async (user: TestUser, form: Record<string, string | string[]>) =>
    (await as(user)).submit('/post/create', '/post/store', form);

  const everyPost = {
    page: 1,
    pageSize: 100,
    sort: 'id',
    direction: 'desc',
    websiteId: null,
    status: 'any',
  } as const;
  const idFrom = (location: unknown) => Number(/\/post\/edit\/(\d+)\?saved=1$/.exec(String(location))?.[1]);

  before(async () => {
    ctx = await createTestContext({ extend: exposeRouteNames });
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    websiteId = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    author = await ctx.createUser();
    other = await ctx.createUser();
    // Writers hold a role on the website (issue 34 #1: no role, no writing).
    await ctx.services.memberships.grant(author.id, websiteId, 'author');
    await ctx.services.memberships.grant(other.id, websiteId, 'author');
    admin = await ctx.createUser({ admin: true });
    const { tag } = await ctx.services.tagOps.ensure({
      name: 'News',
      type: 'post_category',
      updateWhenDuplicated: false,
      defaultLocale: 'en',
    });
    categoryId = tag.id;
  });
  after(() => ctx.close());

  it('anonymous visitors are sent to the login form from every authoring route', async () => {
    const client = new Visitor(ctx);
    const create = await client.get('/post/create');
    assert.equal(create.statusCode, 302);
    assert.equal(create.headers.location, '/user/login?redirect=%2Fpost%2Fcreate');
    assert.equal((await client.get('/post/edit/1')).statusCode, 302);
    const token = await client.token('/user/login');
    for (const url of ['/post/store', '/post/update/1']) {
      const response = await client.post(url, { _token: token, title: 't', content: 'c', status: 'draft' });
      assert.equal(response.statusCode, 302, url);
    }
  });

  it('R-F1 posts.create: the form lists the categories, is private and carries a token', async () => {
    const response = await (await as(author)).get('/post/create');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-test-route-name'], 'frontend.posts.create');
    assert.equal(response.headers['cache-control'], 'private, no-store');
    assert.match(response.body, /name="categories\[\]" value="\d+"> News/);
    assert.match(response.body, /action="\/post\/store"/);
    assert.match(response.body, /<option value="draft" selected>Draft<\/option>/);
  });

  it('posts.store creates the post through the posts service: author, website, categories, tags by name', async () => {
    const response = await store(author, {
      title: 'My first post',
      content: '<p>Hello <strong>world</strong></p>',
      excerpt: 'Short',
      status: 'published',
      'categories[]': [String(categoryId)],
      tags: 'travel, Food , travel',
      thumbnail_url: 'https://images.test/a.png',
    });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers['x-test-route-name'], 'frontend.posts.store');
    const id = idFrom(response.headers.location);
    const post = await ctx.services.posts.findDetail(id);
    assert.ok(post);
    assert.equal(post.title, 'My first post');
    assert.equal(post.slug, 'my-first-post');
    assert.equal(post.content, '<p>Hello <strong>world</strong></p>');
    assert.equal(post.excerpt, 'Short');
    assert.equal(post.status, 'published');
    assert.equal(post.thumbnail, 'https://images.test/a.png');
    assert.equal(post.author?.id, author.id);
    assert.deepEqual(post.websiteIds, [websiteId]);
    assert.deepEqual(post.categories, [{ id: categoryId, name: 'News' }]);
    assert.deepEqual(post.tagList.map((tag) => tag.name).sort(), ['Food', 'travel']);
    // The API sees the same post.
    await ctx.enableApi();
    const api = await ctx.request({
      method: 'POST',
      url: `/api/v1/posts/${id}`,
      headers: { host: 'site.test' },
      payload: { api_token: author.token },
    });
    assert.equal(api.json().data.title, 'My first post');
    const edit = await (await as(author)).get(String(response.headers.location));
    assert.match(edit.body, /Your post has been saved\./);
    assert.match(edit.body, /value="travel, Food"|value="Food, travel"/);
    assert.match(edit.body, new RegExp(`value="${categoryId}" checked`));
  });

  it("issue 37: a save through the site's forms keeps a revision, recorded as the site's", async () => {
    const created = await store(author, {
      title: 'Kept in history',
      content: '<p>First words</p>',
      status: 'draft',
    });
    assert.equal(created.statusCode, 303, created.body);
    const id = idFrom(created.headers.location);
    const updated = await (
      await as(author)
    ).submit(`/post/edit/${id}`, `/post/update/${id}`, {
      title: 'Kept in history',
      content: '<p>Second words</p>',
      status: 'draft',
    });
    assert.equal(updated.statusCode, 303, updated.body);
    const revisions = await ctx.services.database.db
      .selectFrom('revisions')
      .select(['action', 'surface', 'user_id'])
      .where('resource_type', '=', 'post')
      .where('resource_id', '=', id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      revisions.map((revision) => [revision.action, revision.surface, Number(revision.user_id)]),
      [
        ['post.create', 'site', author.id],
        ['post.update', 'site', author.id],
      ],
    );
  });

  it('validation errors re-render the form (422) with the messages and the values entered', async () => {
    const response = await store(author, {
      title: '',
      content: 'Kept <content>',
      excerpt: 'An excerpt',
      status: 'scheduled',
      tags: 'a, b',
      thumbnail_url: 'javascript:alert(1)',
    });
    assert.equal(response.statusCode, 422);
    assert.match(response.body, /The title field is required\./);
    assert.match(response.body, /The thumbnail url must be an http or https URL\./);
    assert.match(response.body, /Kept &lt;content&gt;<\/textarea>/);
    assert.match(response.body, /value="a, b"/);
    const status = await store(author, { title: 'T', content: 'C', status: 'scheduled' });
    assert.equal(status.statusCode, 422);
    assert.match(status.body, /The selected status is invalid\./);
    const category = await store(author, {
      title: 'T',
      content: 'C',
      status: 'draft',
      'categories[]': ['999999'],
    });
    assert.equal(category.statusCode, 422);
    assert.match(category.body, /The selected categories\.0 is invalid\./);
    const tags = await store(author, {
      title: 'T',
      content: 'C',
      status: 'draft',
      tags: 'a,b,c,d,e,f,g,h,i,j,k',
    });
    assert.equal(tags.statusCode, 422);
    assert.match(tags.body, /The tags may not have more than 10 items\./);
  });

  it('a form without its token is refused (403) and writes nothing', async () => {
    const client = await as(author);
    const before = (await ctx.services.posts.list(everyPost)).total;
    const response = await client.post('/post/store', { title: 'Forged', content: 'x', status: 'published' });
    assert.equal(response.statusCode, 403);
    const crossSite = await client.post(
      '/post/store',
      { _token: await client.token('/post/create'), title: 'Forged', content: 'x', status: 'published' },
      { origin: 'http://evil.test' },
    );
    assert.equal(crossSite.statusCode, 403);
    assert.equal((await ctx.services.posts.list(everyPost)).total, before);
  });

  it('XSS payloads in a non-admin post are neutralized; the title is escaped on the page', async () => {
    const response = await store(author, {
      title: '<script>alert("t")</script>',
      content:
        '<p onclick="alert(1)">Hi</p><script>alert(2)</script><img src="x" onerror="alert(3)">' +
        '<a href="javascript:alert(4)">link</a><iframe src="https://evil.test"></iframe>' +
        '<svg onload="alert(5)"></svg><a href="https://ok.test">ok</a><style>body{}</style>',
      excerpt: '<b onmouseover="alert(6)">bold</b> & more',
      status: 'draft',
    });
    assert.equal(response.statusCode, 303);
    const post = await ctx.services.posts.findDetail(idFrom(response.headers.location));
    assert.ok(post);
    assert.equal(
      post.content,
      '<p>Hi</p><img src="x" /><a rel="nofollow ugc noopener noreferrer">link</a>' +
        '<a href="https://ok.test" rel="nofollow ugc noopener noreferrer">ok</a>',
    );
    assert.equal(post.excerpt, 'bold & more');
    const edit = await (await as(author)).get(`/post/edit/${post.id}`);
    assert.doesNotMatch(edit.body, /<script>alert/);
    assert.match(edit.body, /value="&lt;script&gt;alert\(&#34;t&#34;\)&lt;\/script&gt;"/);
  });

  it('a post whose content is only a script is empty after sanitizing (422)', async () => {
    const response = await store(author, {
      title: 'Empty',
      content: '<script>alert(1)</script>',
      status: 'draft',
    });
    assert.equal(response.statusCode, 422);
    assert.match(response.body, /The content field is required\./);
  });

  it('an admin’s content is kept as written (trusted)', async () => {
    const html = '<p>Embed</p><iframe src="https://video.test/embed"></iframe>';
    const response = await store(admin, { title: 'Admin post', content: html, status: 'draft' });
    assert.equal(response.statusCode, 303);
    assert.equal((await ctx.services.posts.findDetail(idFrom(response.headers.location)))?.content, html);
  });

  it('posts.edit/posts.update: the author edits their post by id or slug; fields change, author stays', async () => {
    const created = await store(author, { title: 'Draft to publish', content: '<p>v1</p>', status: 'draft' });
    const id = idFrom(created.headers.location);
    const client = await as(author);
    const bySlug = await client.get('/post/edit/draft-to-publish');
    assert.equal(bySlug.statusCode, 200);
    assert.equal(bySlug.headers['x-test-route-name'], 'frontend.posts.edit');
    assert.match(bySlug.body, new RegExp(`action="/post/update/${id}"`));
    const updated = await client.submit(`/post/edit/${id}`, `/post/update/${id}`, {
      title: 'Published now',
      content: '<p>v2</p>',
      status: 'published',
      tags: 'fresh',
    });
    assert.equal(updated.statusCode, 303);
    assert.equal(updated.headers['x-test-route-name'], 'frontend.posts.update');
    const post = await ctx.services.posts.findDetail(id);
    assert.equal(post?.title, 'Published now');
    assert.equal(post?.content, '<p>v2</p>');
    assert.equal(post?.status, 'published');
    assert.ok(post?.publishedAt);
    assert.equal(post?.slug, 'draft-to-publish', 'the slug stays');
    assert.deepEqual(
      post?.tagList.map((tag) => tag.name),
      ['fresh'],
    );
    const invalid = await client.submit(`/post/edit/${id}`, `/post/update/${id}`, {
      title: 'x',
      content: '',
      status: 'draft',
    });
    assert.equal(invalid.statusCode, 422);
    assert.match(invalid.body, /The content field is required\./);
  });

  it("another user's post: edit and update are refused (403) and nothing changes", async () => {
    const created = await store(author, { title: 'Mine only', content: '<p>mine</p>', status: 'published' });
    const id = idFrom(created.headers.location);
    const intruder = await as(other);
    const edit = await intruder.get(`/post/edit/${id}`);
    assert.equal(edit.statusCode, 403);
    assert.match(edit.body, /You can only edit posts you wrote\./);
    const update = await intruder.submit('/post/create', `/post/update/${id}`, {
      title: 'Hijacked',
      content: '<p>hijacked</p>',
      status: 'draft',
    });
    assert.equal(update.statusCode, 403);
    const post = await ctx.services.posts.findDetail(id);
    assert.equal(post?.title, 'Mine only');
    assert.equal(post?.status, 'published');
  });

  it("an admin may edit another user's post; the author stays", async () => {
    const created = await store(author, { title: 'Moderated', content: '<p>x</p>', status: 'draft' });
    const id = idFrom(created.headers.location);
    const response = await (
      await as(admin)
    ).submit(`/post/edit/${id}`, `/post/update/${id}`, {
      title: 'Moderated (edited)',
      content: '<p>x</p>',
      status: 'draft',
    });
    assert.equal(response.statusCode, 303);
    const post = await ctx.services.posts.findDetail(id);
    assert.equal(post?.title, 'Moderated (edited)');
    assert.equal(post?.author?.id, author.id);
  });

  it('preview: a draft on the real theme for who may edit it, never cached or indexed; others 404, visitors to login', async () => {
    const response = await store(author, {
      title: 'Preview me',
      content: '<p>Draft body</p>',
      status: 'draft',
    });
    const id = idFrom(response.headers.location);
    const seen = await (await as(author)).get(`/post/preview/${id}`);
    assert.equal(seen.statusCode, 200);
    assert.match(seen.body, /Draft body/);
    assert.match(seen.body, /<meta name="robots" content="noindex/);
    assert.match(String(seen.headers['cache-control']), /no-store/);
    // Another writer cannot tell a draft exists (R: reads refused answer "not found").
    assert.equal((await (await as(other)).get(`/post/preview/${id}`)).statusCode, 404);
    const anonymous = await new Visitor(ctx, 'site.test').get(`/post/preview/${id}`);
    assert.equal(anonymous.statusCode, 302);
    assert.equal((await (await as(admin)).get(`/post/preview/${id}`)).statusCode, 200);
  });

  it('delete: asked first on its own page, then done with the form token; the post page links edit, visitors see no link', async () => {
    const response = await store(author, { title: 'Delete me', content: '<p>Bye</p>', status: 'published' });
    const id = idFrom(response.headers.location);
    const post = await ctx.services.posts.findDetail(id);
    const client = await as(author);
    const page = await client.get(`/post/${post?.slug}`);
    assert.match(page.body, new RegExp(`href="/post/edit/${id}"`));
    assert.match(page.body, new RegExp(`href="/admin/posts/${id}"`));
    const visitor = await new Visitor(ctx, 'site.test').get(`/post/${post?.slug}`);
    assert.doesNotMatch(visitor.body, /Edit this post/);
    assert.doesNotMatch((await (await as(other)).get(`/post/${post?.slug}`)).body, /Edit this post/);

    const ask = await client.get(`/post/delete/${id}`);
    assert.equal(ask.statusCode, 200);
    assert.match(ask.body, /Delete the post\?/);
    assert.ok(await ctx.services.posts.findDetail(id), 'asking deletes nothing');
    // Without the token: refused. Someone else: refused, and the post stays.
    assert.equal((await client.post(`/post/delete/${id}`, {})).statusCode, 403);
    const theirs = await (
      await as(other)
    )
      .submit(`/post/edit/${id}`, `/post/delete/${id}`, {})
      .catch(() => null);
    assert.notEqual(theirs?.statusCode, 303);
    assert.ok(await ctx.services.posts.findDetail(id));
    const done = await client.submit(`/post/delete/${id}`, `/post/delete/${id}`, {});
    assert.equal(done.statusCode, 303);
    assert.match(String(done.headers.location), /\/user\/profile\?deleted=1$/);
    assert.equal(await ctx.services.posts.findDetail(id), null);
  });

  it('an unknown post is the themed 404', async () => {
    const client = await as(author);
    assert.equal((await client.get('/post/edit/999999')).statusCode, 404);
    assert.equal((await client.get('/post/edit/no-such-post')).statusCode, 404);
    const response = await client.submit('/post/create', '/post/update/999999', {
      title: 'x',
      content: 'y',
      status: 'draft',
    });
    assert.equal(response.statusCode, 404);
  });
});
