// POST /api/v1/posts/store, /update/{slug}, /delete/{slug} and GET|POST /posts/{slug} through the whole
// stack (spec 4.1, R-P4..R-P9, R-T1, R-T2, R-A7).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertTag } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

type Body = Record<string, unknown> & { data: Record<string, unknown> & { errors?: unknown } };

const NOW = '2026-01-01T00:00:00.000Z';
const DETAIL_KEYS = [
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
  'categories',
  'url',
  'meta_title',
  'meta_description',
  'meta_keywords',
  'translations',
  'created_at',
  'updated_at',
];

const invalid = (errors: Record<string, string[]>) => ({
  code: 422,
  status: 'fail',
  message: 'Validation failed',
  data: { errors },
  extra: [],
});
const NOT_FOUND = { code: 404, status: 'fail', message: 'Post not found', data: [], extra: [] };

describe('posts create, update, delete, show', () => {
  let ctx: TestContext;
  let user: TestUser;
  let admin: TestUser;
  let newsTag: number;
  let guidesCategory: number;
  const clock = manualClock(new Date(NOW));

  before(async () => {
    ctx = await createTestContext({ clock });
    await ctx.enableApi();
    user = await ctx.createUser();
    admin = await ctx.createUser({ admin: true });
    // The requests' Host (localhost) is a website the user owns: a non-admin writes only on websites
    // they may write to, never global posts (test/http/ownership.test.ts).
    await websiteWrites(ctx.services).create({ siteName: 'Home', domain: 'localhost', userId: user.id });
    newsTag = await insertTag(ctx.services.database.db, 'News', 'post_tag');
    guidesCategory = await insertTag(ctx.services.database.db, 'Guides', 'post_category');
  });
  after(() => ctx.close());

  const call = async (
    url: string,
    payload: Record<string, unknown> = {},
    token: string | null = user.token,
  ) => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/posts${url}`,
      payload: token === null ? payload : { api_token: token, ...payload },
    });
    return { status: response.statusCode, body: response.json<Body>() };
  };
  const store = (payload: Record<string, unknown>, token?: string | null) => call('/store', payload, token);
  const show = (ref: string | number) => call(`/${ref}`);

  it('R-P5, R-P4: creates a post and answers it whole, with defaults', async () => {
    const { status, body } = await store({
      title: 'First steps',
      content: '<p>Hello <b>world</b></p>',
      excerpt: 'An intro',
      meta_title: 'Meta',
      tags: [newsTag],
      categories: [guidesCategory],
    });
    assert.equal(status, 200);
    const id = body.data.id as number;
    const me = await ctx.services.users.findById(user.id);
    assert.deepEqual(body, {
      code: 200,
      status: 'success',
      message: `Post #${id} created successfully`,
      data: {
        id,
        title: 'First steps',
        slug: 'first-steps',
        excerpt: 'An intro',
        content: '<p>Hello <b>world</b></p>',
        thumbnail: null,
        status: 'published',
        published_at: NOW,
        author: { id: user.id, name: me?.name, email: user.email },
        tags: [{ id: newsTag, name: 'News' }],
        categories: [{ id: guidesCategory, name: 'Guides' }],
        url: 'http://folio.test/post/first-steps',
        meta_title: 'Meta',
        meta_description: null,
        meta_keywords: null,
        translations: {},
        created_at: NOW,
        updated_at: NOW,
      },
      extra: [],
    });
    assert.deepEqual(Object.keys(body.data), DETAIL_KEYS);

    // Show answers the same post by id and by slug.
    const byId = await show(id);
    assert.equal(byId.status, 200);
    assert.equal(byId.body.message, 'Successfully fetched post');
    assert.deepEqual(byId.body.data, body.data);
    assert.deepEqual((await show('first-steps')).body.data, body.data);
  });

  it('rule 1, R-T1, R-T2: a locale map gives the base value and normalized translations', async () => {
    const { body } = await store({
      title: { 'zh-TW': '你好', en: 'Hello there', FR: 'Bonjour' },
      content: { en: '<p>Body</p>', 'zh-tw': '<p>內容</p>' },
      excerpt: { de: 'Kurz' },
    });
    assert.equal(body.data.title, 'Hello there');
    assert.equal(body.data.content, '<p>Body</p>');
    assert.equal(body.data.excerpt, 'Kurz');
    assert.equal(body.data.slug, 'hello-there');
    assert.deepEqual(body.data.translations, {
      content: { en: '<p>Body</p>', zh_TW: '<p>內容</p>' },
      excerpt: { de: 'Kurz' },
      title: { en: 'Hello there', fr: 'Bonjour', zh_TW: '你好' },
    });
  });

  it('R-T2: the default_locale setting picks the base value of a map', async () => {
    await ctx.services.settings.set('default_locale', 'zh_TW');
    try {
      const { body } = await store({ title: { en: 'English', 'zh-TW': '中文標題' }, content: 'x' });
      assert.equal(body.data.title, '中文標題');
      assert.equal(body.data.slug, 'zhong-wen-biao-ti');
    } finally {
      await ctx.services.settings.delete('default_locale');
    }
  });

  it('R-P5: slugs are generated, transliterated, never empty, and made unique with -2, -3', async () => {
    const slugs: unknown[] = [];
    for (const title of ['Same Title', 'Same title!', 'same  TITLE', '你好世界', 'Ünïcödé café']) {
      slugs.push((await store({ title, content: 'x' })).body.data.slug);
    }
    assert.deepEqual(slugs, ['same-title', 'same-title-2', 'same-title-3', 'ni-hao-shi-jie', 'unicode-cafe']);
    const emoji = await store({ title: '🎉🎉', content: 'x' });
    assert.match(String(emoji.body.data.slug), /^[a-z0-9]{8}$/);
  });

  it('R-P5: a given slug that is taken is a 422; a given slug is normalized', async () => {
    assert.deepEqual(await store({ title: 'Other', content: 'x', slug: 'same-title' }), {
      status: 422,
      body: invalid({ slug: ['The slug has already been taken.'] }),
    });
    const custom = await store({ title: 'Other', content: 'x', slug: 'My Custom Slug' });
    assert.equal(custom.body.data.slug, 'my-custom-slug');
    assert.deepEqual(
      (await store({ title: 'Other', content: 'x', slug: '!!!' })).body,
      invalid({ slug: ['The slug format is invalid.'] }),
    );
  });

  it('R-P5: required fields and wrong types are 422 with the spec messages', async () => {
    assert.deepEqual(await store({}), {
      status: 422,
      body: invalid({ title: ['The title field is required.'], content: ['The content field is required.'] }),
    });
    const { body } = await store({
      title: '   ',
      content: 42,
      status: 'archived',
      published_at: 'yesterday',
      tags: 'news',
      author_id: 'me',
      localize_images: 'maybe',
      thumbnail_url: 'javascript:alert(1)',
    });
    assert.deepEqual(
      body,
      invalid({
        title: ['The title field is required.'],
        content: ['The content must be a string.'],
        thumbnail_url: ['The thumbnail url format is invalid.'],
        author_id: ['The author id must be an integer.'],
        status: ['The selected status is invalid.'],
        published_at: ['The published at is not a valid date.'],
        tags: ['The tags must be an array.'],
        localize_images: ['The localize images field must be true or false.'],
      }),
    );
    assert.deepEqual(
      (await store({ title: { en: '' }, content: 'x' })).body,
      invalid({ title: ['The title field is required.'] }),
    );
  });

  it('R-P5: unknown tag and category ids are 422 per item', async () => {
    assert.deepEqual(
      await store({ title: 'T', content: 'x', tags: [newsTag, 999_999], categories: [999_998] }),
      {
        status: 422,
        body: invalid({
          'tags.1': ['The selected tags.1 is invalid.'],
          'categories.0': ['The selected categories.0 is invalid.'],
        }),
      },
    );
    assert.deepEqual(
      (await store({ title: 'T', content: 'x', tags: [999_999] })).body,
      invalid({ 'tags.0': ['The selected tags.0 is invalid.'] }),
    );
  });

  it('R-P5: scheduled posts need published_at; drafts have none by default', async () => {
    assert.deepEqual(
      (await store({ title: 'Later', content: 'x', status: 'scheduled' })).body,
      invalid({ published_at: ['The published at field is required when status is scheduled.'] }),
    );
    const scheduled = await store({
      title: 'Later',
      content: 'x',
      status: 'scheduled',
      published_at: '2026-02-01T10:00:00+02:00',
    });
    assert.equal(scheduled.body.data.status, 'scheduled');
    assert.equal(scheduled.body.data.published_at, '2026-02-01T08:00:00.000Z');
    const draft = await store({ title: 'Draft', content: 'x', status: 'draft' });
    assert.equal(draft.body.data.published_at, null);
  });

  it('R-P5: author_id must exist, and only an admin may name another user', async () => {
    const mine = await store({ title: 'Mine', content: 'x', author_id: user.id });
    assert.equal((mine.body.data.author as { id: number }).id, user.id);
    assert.deepEqual(
      (await store({ title: 'Theirs', content: 'x', author_id: admin.id })).body,
      invalid({ author_id: ['The selected author id is invalid.'] }),
    );
    const byAdmin = await store({ title: 'For user', content: 'x', author_id: user.id }, admin.token);
    assert.equal(byAdmin.status, 200);
    assert.equal((byAdmin.body.data.author as { id: number }).id, user.id);
    assert.deepEqual(
      (await store({ title: 'Ghost', content: 'x', author_id: 999_999 }, admin.token)).body,
      invalid({ author_id: ['The selected author id is invalid.'] }),
    );
  });

  it('R-P8: website_id binds the post (single, array or comma string); unknown ids are 422 (as an administrator: only they make global posts)', async () => {
    const a = await websiteWrites(ctx.services).create({ siteName: 'A', domain: 'a.example.test' });
    const b = await websiteWrites(ctx.services).create({ siteName: 'B', domain: 'b.example.test' });
    const websitesOf = async (id: unknown) =>
      (await ctx.services.bindings.websitesOf('post', [id as number])).get(id as number) ?? [];

    const single = await store({ title: 'One site', content: 'x', website_id: a }, admin.token);
    assert.deepEqual(await websitesOf(single.body.data.id), [a]);
    const many = await store({ title: 'Two sites', content: 'x', website_id: [b, a] }, admin.token);
    assert.deepEqual(
      await websitesOf(many.body.data.id),
      [a, b].sort((x, y) => x - y),
    );
    const comma = await store({ title: 'Comma sites', content: 'x', website_id: `${a},${b}` }, admin.token);
    assert.deepEqual(
      await websitesOf(comma.body.data.id),
      [a, b].sort((x, y) => x - y),
    );

    assert.deepEqual(
      (await store({ title: 'Nowhere', content: 'x', website_id: [a, 999_999] }, admin.token)).body,
      invalid({ website_id: ['The selected website id is invalid.'] }),
    );
    assert.deepEqual(
      (await store({ title: 'Nowhere', content: 'x', website_id: 'abc' }, admin.token)).body,
      invalid({ website_id: ['The selected website id is invalid.'] }),
    );

    // None given: the website of the Host; none resolved: global.
    const viaHost = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts/store',
      headers: { host: 'b.example.test:8080' },
      payload: { api_token: admin.token, title: 'Via host', content: 'x' },
    });
    assert.deepEqual(await websitesOf(viaHost.json<Body>().data.id), [b]);
    const global = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts/store',
      headers: { host: 'unknown.example.test' },
      payload: { api_token: admin.token, title: 'Global', content: 'x' },
    });
    assert.deepEqual(await websitesOf(global.json<Body>().data.id), []);

    // R-P8: an update that sends website_id replaces the bindings.
    await call(`/update/${many.body.data.id as number}`, { website_id: [b] }, admin.token);
    assert.deepEqual(await websitesOf(many.body.data.id), [b]);
    await call(`/update/${many.body.data.id as number}`, { title: 'Still two' }, admin.token);
    assert.deepEqual(await websitesOf(many.body.data.id), [b]);
  });

  it('R-P6: update changes only the fields sent, translations included, and answers the short form', async () => {
    const created = await store({
      title: { en: 'Before', de: 'Vorher' },
      content: '<p>Keep me</p>',
      excerpt: 'Old excerpt',
      tags: [newsTag],
      categories: [guidesCategory],
    });
    const id = created.body.data.id as number;
    clock.advance(60_000);
    const { status, body } = await call(`/update/${id}`, { title: { de: 'Nachher' }, excerpt: '' });
    assert.equal(status, 200);
    assert.deepEqual(body, {
      code: 200,
      status: 'success',
      message: `Post #${id} updated successfully`,
      data: {
        id,
        title: 'Nachher',
        slug: 'before',
        status: 'published',
        updated_at: '2026-01-01T00:01:00.000Z',
      },
      extra: [],
    });
    const after = (await show(id)).body.data;
    assert.equal(after.content, '<p>Keep me</p>');
    assert.equal(after.excerpt, null);
    assert.deepEqual(after.translations, { title: { de: 'Nachher', en: 'Before' } });
    assert.deepEqual(after.tags, [{ id: newsTag, name: 'News' }]);
    assert.deepEqual(after.categories, [{ id: guidesCategory, name: 'Guides' }]);
    assert.equal(after.created_at, NOW);

    // Sending categories alone leaves the tags; an empty list clears.
    await call(`/update/${id}`, { categories: [] });
    const cleared = (await show(id)).body.data;
    assert.deepEqual(cleared.tags, [{ id: newsTag, name: 'News' }]);
    assert.deepEqual(cleared.categories, []);

    // Status change to draft, by slug.
    const draft = await call('/update/before', { status: 'draft', slug: 'renamed' });
    assert.deepEqual([draft.body.data.status, draft.body.data.slug], ['draft', 'renamed']);
  });

  it('R-P6: update validates like create: taken slug, blank title, unknown tags', async () => {
    const one = (await store({ title: 'Upd one', content: 'x' })).body.data;
    await store({ title: 'Upd two', content: 'x' });
    assert.deepEqual(await call(`/update/${one.id as number}`, { slug: 'upd-two' }), {
      status: 422,
      body: invalid({ slug: ['The slug has already been taken.'] }),
    });
    // Its own slug is not "taken".
    assert.equal((await call(`/update/${one.id as number}`, { slug: 'upd-one' })).status, 200);
    assert.deepEqual(
      (await call(`/update/${one.id as number}`, { title: '', tags: [424_242] })).body,
      invalid({ title: ['The title field is required.'] }),
    );
    assert.deepEqual(
      (await call(`/update/${one.id as number}`, { tags: [424_242] })).body,
      invalid({ 'tags.0': ['The selected tags.0 is invalid.'] }),
    );
  });

  it('R-P6: {slug} is a numeric id first, then a slug', async () => {
    const first = (await store({ title: 'Numeric target', content: 'x' })).body.data;
    const shadow = (await store({ title: 'Shadow', content: 'x', slug: String(first.id) })).body.data;
    assert.equal(shadow.slug, String(first.id));
    assert.equal((await show(first.id as number)).body.data.id, first.id);
    assert.equal((await show('shadow')).body.data.id, undefined);
    assert.equal((await show(String(shadow.slug))).body.data.id, first.id);
  });

  it('404 Post not found for update, delete and show of an unknown post', async () => {
    assert.deepEqual(await show('no-such-post'), { status: 404, body: NOT_FOUND });
    assert.deepEqual(await show(987_654), { status: 404, body: NOT_FOUND });
    assert.deepEqual(await call('/update/no-such-post', { title: 'x' }), { status: 404, body: NOT_FOUND });
    assert.deepEqual(await call('/delete/no-such-post'), { status: 404, body: NOT_FOUND });
  });

  it('R-P7: delete is soft, hides the post everywhere and frees its slug', async () => {
    const post = (await store({ title: 'Short lived', content: 'x' })).body.data;
    assert.deepEqual(await call(`/delete/${post.slug as string}`), {
      status: 200,
      body: { code: 200, status: 'success', message: 'Post deleted successfully', data: null, extra: [] },
    });
    assert.deepEqual(await show(post.id as number), { status: 404, body: NOT_FOUND });
    assert.deepEqual(await call(`/delete/${post.id as number}`), { status: 404, body: NOT_FOUND });
    const list = await call('', { keywords: 'Short lived' });
    assert.deepEqual(list.body.data.data, []);
    const row = await ctx.services.database.db
      .selectFrom('posts')
      .select('deleted_at')
      .where('id', '=', post.id as number)
      .executeTakeFirst();
    assert.ok(row?.deleted_at, 'the row is kept with deleted_at');
    const again = await store({ title: 'Short lived', content: 'x' });
    assert.equal(again.body.data.slug, 'short-lived');
  });

  it('R-A6, R-A2: 401 without a valid token and 403 when switched off, before validation', async () => {
    for (const url of ['/store', '/update/x', '/delete/x', '/x']) {
      assert.deepEqual(await call(url, {}, null), {
        status: 401,
        body: { status: 'fail', message: 'Invalid token' },
      });
      assert.deepEqual(await call(url, {}, 'folio_wrong'), {
        status: 401,
        body: { status: 'fail', message: 'Invalid token' },
      });
    }
    for (const key of ['store', 'update', 'delete', 'show']) {
      await ctx.services.settings.set(`svc_api_posts_${key}`, '0');
    }
    try {
      for (const url of ['/store', '/update/x', '/delete/x', '/x']) {
        assert.deepEqual(await call(url, {}), {
          status: 403,
          body: { status: 403, message: 'API access is disabled' },
        });
      }
    } finally {
      await ctx.enableApi();
    }
  });

  it('R-A3: show can be public with svc_api_posts_show_should_auth = none', async () => {
    const post = (await store({ title: 'Public show', content: 'x' })).body.data;
    await ctx.services.settings.set('svc_api_posts_show_should_auth', 'none');
    try {
      const response = await ctx.request({ method: 'GET', url: `/api/v1/posts/${post.slug as string}` });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json<Body>().data.id, post.id);
      // Without a user, drafts stay hidden.
      const draft = (await store({ title: 'Public draft', content: 'x', status: 'draft' })).body.data;
      const hidden = await ctx.request({ method: 'GET', url: `/api/v1/posts/${draft.id as number}` });
      assert.deepEqual([hidden.statusCode, hidden.json()], [404, NOT_FOUND]);
      // With a token, the same endpoint shows it.
      assert.equal((await show(draft.id as number)).body.data.status, 'draft');
    } finally {
      await ctx.services.settings.delete('svc_api_posts_show_should_auth');
    }
  });

  it('R-G4: mutating endpoints are POST only; show accepts GET', async () => {
    const store405 = await ctx.request({ method: 'GET', url: '/api/v1/posts/store' });
    assert.equal(store405.statusCode, 405);
    assert.deepEqual(store405.json(), {
      code: 405,
      status: 'fail',
      message: 'Method not allowed',
      data: [],
      extra: [],
    });
    assert.equal((await ctx.request({ method: 'GET', url: '/api/v1/posts/delete/x' })).statusCode, 405);
    assert.equal((await ctx.request({ method: 'PUT', url: '/api/v1/posts/update/x' })).statusCode, 405);
  });

  it('consistency: a failure while writing relations leaves nothing half-written', async () => {
    const { db } = ctx.services.database;
    const count = async (table: 'posts' | 'taggables' | 'translations') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirst()
        )?.n,
      );
    const before = [await count('posts'), await count('taggables'), await count('translations')];
    const original = ctx.services.bindings.sync.bind(ctx.services.bindings);
    ctx.services.bindings.sync = async () => {
      throw new Error('bindings store unavailable');
    };
    try {
      const website = await websiteWrites(ctx.services).create({ siteName: 'C', domain: 'c.example.test' });
      const response = await store(
        {
          title: { en: 'Half', fr: 'Moitié' },
          content: 'x',
          tags: [newsTag],
          website_id: website,
        },
        admin.token,
      );
      assert.equal(response.status, 500);
      assert.match(String(response.body.message), /^Server Error: internal error, request \S+$/);
    } finally {
      ctx.services.bindings.sync = original;
    }
    assert.deepEqual([await count('posts'), await count('taggables'), await count('translations')], before);
  });
});
