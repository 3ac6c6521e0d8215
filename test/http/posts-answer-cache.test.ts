// The posts list and show answers are cached (JSON text under POST_READ_CACHE_TAGS). Every change that
// could alter an answer must flush it: each test here reads an answer (caching it), makes one kind of
// change, and reads again. A missing flush fails the test with the stale answer.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { PostScheduler } from '../../src/domain/posts/scheduler.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertTag } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

interface Post {
  id: number;
  title: string;
  slug: string;
  status: string;
  author: { id: number; name: string; email?: string } | null;
  tags: Array<{ id: number; name: string; type?: string }>;
}
interface ListBody {
  data: { data: Post[]; pagination: { total: number } };
}

describe('cached posts answers are flushed by every change that alters them', () => {
  let ctx: TestContext;
  let user: TestUser;
  const clock = manualClock(new Date('2026-03-01T00:00:00.000Z'));
  let counter = 0;

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
  });
  after(() => ctx.close());
  // Each post is newer than the ones before: the newest is first in the list.
  beforeEach(() => clock.advance(60_000));

  const list = async (query = '', host = 'folio.test') => {
    const response = await ctx.request({ method: 'GET', url: `/api/v1/posts${query}`, headers: { host } });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<ListBody>().data;
  };
  const titles = async (query = '', host?: string) =>
    (await list(query, host)).data.map((post) => post.title);
  const show = async (ref: string | number, token?: string) => {
    const response = await ctx.request({
      method: 'GET',
      url: `/api/v1/posts/${ref}${token ? `?api_token=${token}` : ''}`,
    });
    return { status: response.statusCode, post: response.json<{ data: Post }>().data };
  };
  const store = async (payload: Record<string, unknown>) => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts/store',
      payload: { api_token: user.token, content: 'x', ...payload },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: Post }>().data;
  };
  const update = async (ref: string | number, payload: Record<string, unknown>) => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/posts/update/${ref}`,
      payload: { api_token: user.token, ...payload },
    });
    assert.equal(response.statusCode, 200, response.body);
  };
  const unique = (name: string) => `${name} ${++counter}`;

  it('a created post shows in the list at once, and its total counts it', async () => {
    const before = await list();
    const post = await store({ title: unique('Created') });
    const after = await list();
    assert.equal(after.data[0]?.id, post.id);
    assert.equal(after.pagination.total, before.pagination.total + 1);
  });

  it('an updated post: new title in the list and in show (by slug and by id)', async () => {
    const post = await store({ title: unique('Before') });
    assert.equal((await titles())[0], post.title);
    assert.equal((await show(post.slug)).post.title, post.title);
    assert.equal((await show(post.id)).post.title, post.title);
    await update(post.id, { title: 'After update' });
    assert.equal((await titles())[0], 'After update');
    assert.equal((await show(post.slug)).post.title, 'After update');
    assert.equal((await show(post.id)).post.title, 'After update');
  });

  it('a new slug: the old one is gone from show, the new one answers', async () => {
    const post = await store({ title: unique('Renamed') });
    assert.equal((await show(post.slug)).status, 200);
    await update(post.id, { slug: `${post.slug}-moved` });
    assert.equal((await show(post.slug)).status, 404);
    assert.equal((await show(`${post.slug}-moved`)).post.id, post.id);
  });

  it('a deleted post leaves the list and show', async () => {
    const post = await store({ title: unique('Doomed') });
    assert.equal((await titles())[0], post.title);
    assert.equal((await show(post.slug)).status, 200);
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/posts/delete/${post.id}`,
      payload: { api_token: user.token },
    });
    assert.equal(response.statusCode, 200);
    assert.ok(!(await titles()).includes(post.title));
    assert.equal((await show(post.slug)).status, 404);
    assert.equal((await show(post.id)).status, 404);
  });

  it('a post moved to a draft leaves the public list; its show is hidden from the public only', async () => {
    const post = await store({ title: unique('Unpublished') });
    assert.equal((await titles())[0], post.title);
    await update(post.id, { status: 'draft' });
    assert.ok(!(await titles()).includes(post.title));
    assert.equal((await show(post.id)).status, 404);
    // A caller with a token sees the draft; the public, asking next, still does not.
    assert.equal((await show(post.id, user.token)).post.status, 'draft');
    assert.equal((await show(post.id)).status, 404);
    assert.ok((await titles(`?status=draft&api_token=${user.token}`)).includes(post.title));
    assert.ok(!(await titles()).includes(post.title));
  });

  it('a scheduled post that comes due joins the list', async () => {
    const due = new Date(clock.now().getTime() + 30_000).toISOString();
    const post = await store({ title: unique('Scheduled'), status: 'scheduled', published_at: due });
    assert.ok(!(await titles()).includes(post.title));
    assert.equal((await show(post.id)).status, 404);
    clock.advance(60_000);
    // The server's scheduler: it publishes in an operation that announces the change.
    const { runner, audit, changes } = ctx.services;
    assert.deepEqual(
      await new PostScheduler(ctx.services.posts, { announce: { runner, audit, changes } }).tick(),
      [post.id],
    );
    assert.ok((await titles()).includes(post.title));
    assert.equal((await show(post.id)).post.status, 'published');
  });

  it("an author's new name shows in the list and show; a new email in show (to users: anonymous callers never see emails, issue 21 #11)", async () => {
    const author = await ctx.createUser();
    // An administrator names the author (the operation announces the new post; the store does not).
    const post = await ctx.services.postOps.create(
      { userId: user.id, isAdmin: true, websiteId: null },
      { title: unique('Authored'), content: 'x', author_id: author.id },
    );
    const first = await list();
    assert.equal(first.data[0]?.id, post.id);
    assert.equal((await show(post.id, user.token)).post.author?.email, author.email);
    await ctx.services.accounts.updateProfile(author.id, { name: 'Renamed Author', username: unique('ren') });
    assert.equal((await list()).data[0]?.author?.name, 'Renamed Author');
    assert.equal((await show(post.id)).post.author?.name, 'Renamed Author');
    const account = (await ctx.services.users.findById(author.id))!;
    let token = '';
    await ctx.services.accounts.updateSettings(
      account,
      { email: 'moved@example.test', currentPassword: author.password },
      'no-session',
      { link: (sent) => (token = sent), siteName: 'Site' },
    );
    assert.equal(await ctx.services.accounts.confirmEmailChange(token), true);
    assert.equal((await show(post.id, user.token)).post.author?.email, 'moved@example.test');
  });

  it("a tag change (announced by the tags service) shows in the posts' tags", async () => {
    const { db } = ctx.services.database;
    const tag = await insertTag(db, unique('Old tag'), 'post_tag');
    const post = await store({ title: unique('Tagged'), tags: [tag] });
    assert.equal((await list()).data[0]?.tags[0]?.id, tag);
    assert.equal((await show(post.id)).post.tags[0]?.id, tag);
    // No service renames a tag today; one that does announces it like every tag change.
    await db.updateTable('tags').set({ name: 'New tag name' }).where('id', '=', tag).execute();
    await ctx.services.changes.announce({ kind: 'tag', id: tag, type: 'post_tag' });
    assert.equal((await list()).data[0]?.tags[0]?.name, 'New tag name');
    assert.equal((await show(post.id)).post.tags[0]?.name, 'New tag name');
  });

  it("a post's tags replaced by an update show at once", async () => {
    const { db } = ctx.services.database;
    const tag = await insertTag(db, unique('Replaced tag'), 'post_tag');
    const post = await store({ title: unique('Retagged') });
    assert.deepEqual((await list()).data[0]?.tags, []);
    await update(post.id, { tags: [tag] });
    assert.equal((await list()).data[0]?.tags[0]?.id, tag);
    assert.equal((await show(post.id)).post.tags[0]?.id, tag);
  });

  it('website bindings: a rebound post moves between the lists of the websites', async () => {
    const a = await websiteWrites(ctx.services).create({ siteName: 'A', domain: `a${++counter}.test` });
    const b = await websiteWrites(ctx.services).create({ siteName: 'B', domain: `b${++counter}.test` });
    const hostOf = async (id: number) => (await ctx.services.websites.find(id))!.domain;
    const [hostA, hostB] = [await hostOf(a), await hostOf(b)];
    const post = await store({ title: unique('Bound'), website_id: [a] });
    assert.ok((await titles('', hostA)).includes(post.title));
    assert.ok(!(await titles('', hostB)).includes(post.title));
    await update(post.id, { website_id: [b] });
    assert.ok(!(await titles('', hostA)).includes(post.title));
    assert.ok((await titles('', hostB)).includes(post.title));
  });

  it('a deleted website takes the posts bound to it alone out of every answer', async () => {
    const b = await websiteWrites(ctx.services).create({ siteName: 'Gone', domain: `gone${++counter}.test` });
    const post = await store({ title: unique('Only there'), website_id: [b] });
    assert.ok((await titles()).includes(post.title)); // no website context: every post
    assert.equal((await show(post.id)).status, 200);
    await websiteWrites(ctx.services).delete(b);
    assert.ok(!(await titles()).includes(post.title));
    assert.equal((await show(post.id)).status, 404);
  });
});
