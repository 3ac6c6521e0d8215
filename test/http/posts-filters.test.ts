// GET|POST /api/v1/posts filters: keywords, tags, tag_type, excluded_post_ids, status, is_random, and the
// current website (spec 4.1 list request, R-P2, R-P3, R-P8).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertPost, insertTag, tagPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

interface ListBody {
  code: number;
  data: { data: Array<{ id: number; title: string; status: string }>; pagination: Record<string, unknown> };
}

describe('posts list filters', () => {
  let ctx: TestContext;
  let user: TestUser;
  const id: Record<string, number> = {};
  const tag: Record<string, number> = {};
  let siteA: number;
  let siteB: number;

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    // An administrator: these tests are about answers, not permissions (a non-admin writes only on
    // websites they may write to, never global posts: test/http/ownership.test.ts).
    user = await ctx.createUser({ admin: true });
    const { db } = ctx.services.database;
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
    id.apple = await insertPost(db, { title: 'Apple pie', createdAt: at(1) });
    id.banana = await insertPost(db, { title: 'Banana bread', createdAt: at(2) });
    id.cherry = await insertPost(db, { title: 'Cherry tart', createdAt: at(3) });
    id.percent = await insertPost(db, { title: '100% rye', slug: 'rye', createdAt: at(4) });
    id.draft = await insertPost(db, { title: 'Draft apple', status: 'draft', createdAt: at(5) });
    id.scheduled = await insertPost(db, { title: 'Scheduled plum', status: 'scheduled', createdAt: at(6) });
    // Content and translations are searched too.
    await db
      .updateTable('posts')
      .set({ content: '<p>Made with CINNAMON</p>' })
      .where('id', '=', id.banana)
      .execute();
    await db.updateTable('posts').set({ excerpt: 'a summer dessert' }).where('id', '=', id.cherry).execute();
    await ctx.services.translations.save(db, 'post', id.apple, 'title', { fr: 'Tarte aux pommes' });

    tag.fruit = await insertTag(db, 'Fruit', 'post_tag');
    tag.baking = await insertTag(db, 'Baking', 'post_category');
    tag.sweet = await insertTag(db, 'Sweet', 'post_tag');
    await tagPost(db, id.apple, tag.fruit);
    await tagPost(db, id.cherry, tag.fruit);
    await tagPost(db, id.banana, tag.baking);
    await tagPost(db, id.cherry, tag.sweet);

    siteA = await websiteWrites(ctx.services).create({ siteName: 'A', domain: 'a.example.test' });
    siteB = await websiteWrites(ctx.services).create({ siteName: 'B', domain: 'b.example.test' });
    await ctx.services.bindings.sync(db, 'post', id.apple, [siteA]);
    await ctx.services.bindings.sync(db, 'post', id.banana, [siteB]);
  });
  after(() => ctx.close());

  const list = async (body: Record<string, unknown> = {}, host?: string) => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: host ? { host } : {},
      payload: { api_token: user.token, ...body },
    });
    return { status: response.statusCode, body: response.json<ListBody>() };
  };
  const ids = async (body: Record<string, unknown>, host?: string) =>
    (await list(body, host)).body.data.data.map((post) => post.id);

  it('R-P3: only published posts by default', async () => {
    assert.deepEqual(await ids({}), [id.percent, id.cherry, id.banana, id.apple]);
  });

  it('R-P3: status picks draft, scheduled, published or any; anything else is 422', async () => {
    assert.deepEqual(await ids({ status: 'draft' }), [id.draft]);
    assert.deepEqual(await ids({ status: 'scheduled' }), [id.scheduled]);
    assert.deepEqual(await ids({ status: 'any', page_size: 100 }), [
      id.scheduled,
      id.draft,
      id.percent,
      id.cherry,
      id.banana,
      id.apple,
    ]);
    const { status, body } = await list({ status: 'deleted' });
    assert.equal(status, 422);
    assert.deepEqual(body, {
      code: 422,
      status: 'fail',
      message: 'Validation failed',
      data: { errors: { status: ['The selected status is invalid.'] } },
      extra: [],
    });
  });

  it('R-P3: a public list (auth none) shows published posts only; status is for users', async () => {
    await ctx.services.settings.set('svc_api_posts_index_should_auth', 'none');
    try {
      const open = await ctx.request({ method: 'POST', url: '/api/v1/posts', payload: {} });
      assert.deepEqual(
        open.json<ListBody>().data.data.map((post) => post.id),
        [id.percent, id.cherry, id.banana, id.apple],
      );
      const drafts = await ctx.request({
        method: 'POST',
        url: '/api/v1/posts',
        payload: { status: 'draft' },
      });
      assert.equal(drafts.statusCode, 422);
      assert.deepEqual(drafts.json<ListBody & { data: unknown }>().data, {
        errors: { status: ['The selected status is invalid.'] },
      });
      // A token still counts on a public endpoint.
      assert.deepEqual(await ids({ status: 'draft' }), [id.draft]);
    } finally {
      await ctx.services.settings.delete('svc_api_posts_index_should_auth');
    }
  });

  it('R-P3: keywords match title, excerpt, content and translations, case-insensitively', async () => {
    assert.deepEqual(await ids({ keywords: 'apple' }), [id.apple]);
    assert.deepEqual(await ids({ keywords: 'cinnamon' }), [id.banana]);
    assert.deepEqual(await ids({ keywords: 'SUMMER' }), [id.cherry]);
    assert.deepEqual(await ids({ keywords: 'pommes' }), [id.apple]);
    assert.deepEqual(await ids({ keywords: 'apple', status: 'any' }), [id.draft, id.apple]);
    assert.deepEqual(await ids({ keywords: 'durian' }), []);
  });

  it('R-P3: a comma separates keyword terms, any of which matches; % and _ are literal', async () => {
    assert.deepEqual(await ids({ keywords: 'apple, cherry' }), [id.cherry, id.apple]);
    assert.deepEqual(await ids({ keywords: '100%' }), [id.percent]);
    assert.deepEqual(await ids({ keywords: '%' }), [id.percent]);
    assert.deepEqual(await ids({ keywords: '_' }), []);
  });

  it('R-P3: tags gives posts having any of the tags, limited to tag_type when given', async () => {
    assert.deepEqual(await ids({ tags: [tag.fruit] }), [id.cherry, id.apple]);
    assert.deepEqual(await ids({ tags: [tag.sweet, tag.baking] }), [id.cherry, id.banana]);
    assert.deepEqual(await ids({ tags: [tag.sweet, tag.baking], tag_type: 'post_category' }), [id.banana]);
    assert.deepEqual(await ids({ tag_type: 'post_category' }), [id.banana]);
    assert.deepEqual(await ids({ tags: [999_999] }), []);
    // Query string arrays work as well.
    const response = await ctx.request({
      method: 'GET',
      url: `/api/v1/posts?api_token=${encodeURIComponent(user.token)}&tags[]=${tag.fruit}&tags[]=${tag.baking}`,
    });
    assert.deepEqual(
      response.json<ListBody>().data.data.map((post) => post.id),
      [id.cherry, id.banana, id.apple],
    );
  });

  it('filters combine: keywords, tags and excluded_post_ids', async () => {
    assert.deepEqual(await ids({ tags: [tag.fruit], keywords: 'tart' }), [id.cherry, id.apple]); // 'Tarte aux pommes'
    assert.deepEqual(await ids({ tags: [tag.fruit], keywords: 'cherry' }), [id.cherry]);
    assert.deepEqual(await ids({ excluded_post_ids: [id.cherry, id.percent] }), [id.banana, id.apple]);
    assert.deepEqual(await ids({ tags: [tag.fruit], excluded_post_ids: [id.cherry] }), [id.apple]);
  });

  it('wrong filter types are 422', async () => {
    const { status, body } = await list({
      tags: 'fruit',
      excluded_post_ids: ['x'],
      is_random: 'often',
      keywords: [1],
    });
    assert.equal(status, 422);
    assert.deepEqual(body.data, {
      errors: {
        keywords: ['The keywords must be a string.'],
        tags: ['The tags must be an array.'],
        'excluded_post_ids.0': ['The excluded post ids.0 must be an integer.'],
        is_random: ['The is random field must be true or false.'],
      },
    });
  });

  it('is_random returns the same posts in some order', async () => {
    const random = await ids({ is_random: true });
    assert.deepEqual(
      [...random].sort((a, b) => a - b),
      [id.apple!, id.banana!, id.cherry!, id.percent!].sort((a, b) => a - b),
    );
    assert.equal((await list({ is_random: 'yes', page_size: 2 })).body.data.data.length, 2);
  });

  it('R-P8: with a website context, the list holds that website posts and global ones', async () => {
    assert.deepEqual(await ids({}, 'a.example.test'), [id.percent, id.cherry, id.apple]);
    assert.deepEqual(await ids({}, 'b.example.test'), [id.percent, id.cherry, id.banana]);
    assert.deepEqual(await ids({}, 'unknown.example.test'), [id.percent, id.cherry, id.banana, id.apple]);
    assert.equal(siteA !== siteB, true);
  });

  it('an empty result has an empty page and no links', async () => {
    const { body } = await list({ keywords: 'nothing matches this' });
    assert.deepEqual(body.data, {
      data: [],
      pagination: {
        total: 0,
        count: 0,
        page_size: 15,
        current_page: 1,
        last_page: 1,
        has_more: false,
        next: null,
        previous: null,
      },
    });
  });
});
