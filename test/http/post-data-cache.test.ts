// The website data cache (`enabled_data_cache`, on by default) and the theme's fragment cache on a
// post's page when the full-page cache is off: the post (content cleaned once) and an anonymous
// reader's comment thread are read once, and every change that shows on the page (the post, its
// tags, its author's name, its comments, the menus) shows at once. A signed-in reader still sees
// their own comment awaiting moderation. With the switch off, every view reads the data again.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { syncOneMenuLink } from '../support/seed.js';
import { Visitor } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

describe('post page through the website data cache', () => {
  let ctx: TestContext;
  let websiteId: number;
  let authorId: number;
  let postId: number;
  let postReads = 0;
  let threadReads = 0;
  let listReads = 0;

  const view = async (url = '/post/data-cached') => {
    const page = await ctx.request({ method: 'GET', url, headers: { host: 'data.test' } });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['x-folio-cache'], 'bypass', 'the full-page cache is off');
    return page.body;
  };
  const actor = () => ({ userId: authorId, isAdmin: true });

  before(async () => {
    ctx = await createTestContext();
    const { services } = ctx;
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    websiteId = await websiteWrites(services).create({ siteName: 'Data', domain: 'data.test' });
    authorId = (await ctx.createUser({ admin: true })).id;
    await services.accounts.updateProfile(authorId, { name: 'Ada Author', username: 'ada' });
    const tag = await services.tagOps.ensure({
      name: 'Birds',
      type: 'post_tag',
      updateWhenDuplicated: false,
      defaultLocale: 'en',
    });
    postId = (
      await services.posts.create(
        {
          title: 'Data cached',
          content: '<p>Body<script>alert(1)</script></p>',
          tags: [tag.tag.id],
          websiteIds: [websiteId],
        },
        actor(),
      )
    ).id;
    const publicPosts = services.publicPosts;
    const findBySlug = publicPosts.findBySlug.bind(publicPosts);
    publicPosts.findBySlug = async (...args) => {
      postReads++;
      return findBySlug(...args);
    };
    const list = publicPosts.list.bind(publicPosts);
    publicPosts.list = async (...args) => {
      listReads++;
      return list(...args);
    };
    const comments = services.comments;
    const thread = comments.thread.bind(comments);
    comments.thread = async (...args) => {
      threadReads++;
      return thread(...args);
    };
  });
  after(() => ctx.close());
  beforeEach(() => {
    postReads = 0;
    threadReads = 0;
    listReads = 0;
  });

  it('reads the post and the thread once for many views, content cleaned', async () => {
    const first = await view();
    assert.match(first, /<p>Body<\/p>/);
    assert.doesNotMatch(first, /alert\(1\)/);
    assert.equal(await view(), first);
    assert.equal(await view(), first);
    assert.equal(postReads, 1);
    assert.equal(threadReads, 1);
  });

  it('a post change shows at once', async () => {
    await view();
    // Through the operation, which announces the change (the store does not).
    await ctx.services.postOps.update({ ...actor(), websiteId: null }, String(postId), {
      title: 'Data cached, edited',
    });
    assert.match(await view(), /Data cached, edited/);
  });

  it('a change to one of its tags drops the cached post', async () => {
    await view();
    const reads = postReads;
    await view();
    assert.equal(postReads, reads, 'cached');
    await ctx.services.tagOps.ensure({
      name: 'Birds',
      type: 'post_tag',
      description: 'Feathered',
      updateWhenDuplicated: true,
      defaultLocale: 'en',
    });
    await view();
    assert.equal(postReads, reads + 1);
  });

  it("the author's new name shows at once", async () => {
    assert.match(await view(), /Ada Author/);
    await ctx.services.accounts.updateProfile(authorId, { name: 'Ada Lovelace', username: 'ada' });
    assert.match(await view(), /Ada Lovelace/);
  });

  it('a new approved comment shows at once', async () => {
    await view();
    await ctx.services.comments.store({
      postId,
      content: 'Lovely birds',
      name: 'Reader',
      email: 'reader@x.test',
      websiteId,
      ipHash: 'x'.repeat(64),
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0',
      user: { id: authorId, name: 'Ada Lovelace', email: 'ada@x.test' },
    });
    assert.match(await view(), /Lovely birds/);
  });

  it('a menu change shows at once', async () => {
    await view();
    await syncOneMenuLink(ctx.services, websiteId, 'Fresh menu entry');
    assert.match(await view(), /Fresh menu entry/);
  });

  it("a signed-in reader sees their comment awaiting moderation; others don't", async () => {
    const anonymous = await view();
    const reader = await ctx.createUser();
    await ctx.services.settings.set('comments_moderation', 'all');
    try {
      await ctx.services.comments.store({
        postId,
        content: 'Held back for now',
        websiteId,
        ipHash: 'y'.repeat(64),
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0',
        user: { id: reader.id, name: 'Held Reader', email: reader.email },
      });
    } finally {
      await ctx.services.settings.set('comments_moderation', 'anonymous');
    }
    const visitor = new Visitor(ctx, 'data.test');
    await visitor.logIn(reader.email, reader.password);
    const own = await visitor.get('/post/data-cached');
    assert.match(own.body, /Held back for now/);
    assert.match(own.body, /Awaiting moderation/);
    assert.doesNotMatch(await view(), /Held back for now/);
    assert.match(anonymous, /comment-list|No comments yet/);
  });

  it('lists come from the data cache; a new post shows at once', async () => {
    const home = await view('/');
    assert.equal(await view('/'), home);
    assert.equal(listReads, 1);
    await ctx.services.postOps.create(
      { ...actor(), websiteId: null },
      { title: 'Brand new', content: '<p>x</p>', website_id: [websiteId] },
    );
    assert.match(await view('/'), /Brand new/);
  });

  it('with enabled_data_cache off, every view reads again', async () => {
    await websiteWrites(ctx.services).update(websiteId, { enabled_data_cache: false });
    try {
      await view();
      await view();
      assert.equal(postReads, 2);
      assert.equal(threadReads, 2);
      // Changed behind the services' back: only a page rendered from scratch (no fragment) shows it.
      await ctx.services.database.db
        .updateTable('posts')
        .set({ title: 'Renamed in the database' })
        .where('id', '=', postId)
        .execute();
      assert.match(await view(), /<h1>Renamed in the database<\/h1>/);
    } finally {
      await websiteWrites(ctx.services).update(websiteId, { enabled_data_cache: true });
    }
  });
});

// A post published with a later date goes public by its time alone (no change is announced then): a
// cached list must not outlive that moment. The time is a manual clock, and the cache the in-process
// one, which expires entries by that clock (Redis expires its own on its own clock, which a test
// cannot move: on Redis the same time to live is handed to Redis).
describe('a cached list and a post that goes public by its time', () => {
  let ctx: TestContext;
  let websiteId: number;
  let authorId: number;
  const clock = manualClock(new Date('2026-03-01T12:00:00.000Z'));

  const home = async () => {
    const page = await ctx.request({ method: 'GET', url: '/', headers: { host: 'due.test' } });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['x-folio-cache'], 'bypass', 'the full-page cache is off');
    return page.body;
  };

  before(async () => {
    ctx = await createTestContext({ clock, config: { redisUrl: null } });
    await ctx.services.settings.set(INSTALLED_SETTING, clock.now().toISOString());
    websiteId = await websiteWrites(ctx.services).create({ siteName: 'Due', domain: 'due.test' });
    authorId = (await ctx.createUser({ admin: true })).id;
    await ctx.services.posts.create(
      { title: 'Already out', content: '<p>x</p>', websiteIds: [websiteId] },
      { userId: authorId, isAdmin: true },
    );
  });
  after(() => ctx.close());

  it('shows the post once its time comes, not before', async () => {
    await ctx.services.posts.create(
      {
        title: 'Due soon',
        content: '<p>y</p>',
        websiteIds: [websiteId],
        status: 'published',
        publishedAt: new Date(clock.now().getTime() + 90_000).toISOString(),
      },
      { userId: authorId, isAdmin: true },
    );
    const before = await home();
    assert.match(before, /Already out/);
    assert.doesNotMatch(before, /Due soon/);
    clock.advance(89_000);
    assert.equal(await home(), before, 'kept until then');
    clock.advance(1_500);
    assert.match(await home(), /Due soon/);
  });
});
