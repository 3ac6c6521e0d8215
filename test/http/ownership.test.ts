// Who may do what to posts and tags through API v1 (issue 19): one policy (src/domain/policy.ts) asked
// by the operations, so the API and the public site refuse alike. Each case was reproduced from outside
// on the main of 2026-11-24, where every one of them succeeded.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ANY_ACCOUNT_WRITES_SETTING } from '../../src/domain/policy.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { Visitor } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

type Body = { code?: number; status: string | number; message: string; data: Record<string, unknown> | null };
const UNAUTHORIZED = {
  code: 403,
  status: 'fail',
  message: 'This action is unauthorized.',
  data: [],
  extra: [],
};
const NOT_FOUND = { code: 404, status: 'fail', message: 'Post not found', data: [], extra: [] };

describe('ownership of posts and tags (policy.ts)', () => {
  let ctx: TestContext;
  let admin: TestUser;
  let alice: TestUser; // owns site1
  let bob: TestUser; // no website at all
  let site1: number;
  let site2: number;

  const api = async (
    url: string,
    payload: Record<string, unknown>,
    user: TestUser | null,
    host = 'site1.test',
  ) => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1${url}`,
      headers: { host },
      payload: user ? { api_token: user.token, ...payload } : payload,
    });
    return { status: response.statusCode, body: response.json<Body>() };
  };
  const createAs = async (user: TestUser, payload: Record<string, unknown>, host = 'site1.test') => {
    const created = await api('/posts/store', payload, user, host);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    return created.body.data!.id as number;
  };
  const post = (id: number) => ctx.services.posts.findDetail(id);

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    admin = await ctx.createUser({ admin: true });
    alice = await ctx.createUser();
    bob = await ctx.createUser();
    site1 = await websiteWrites(ctx.services).create({
      siteName: 'One',
      domain: 'site1.test',
      userId: alice.id,
    });
    site2 = await websiteWrites(ctx.services).create({ siteName: 'Two', domain: 'site2.test' });
  });
  after(() => ctx.close());

  it("a non-admin cannot read another user's draft by id (404, nothing revealed); their own they can", async () => {
    const draft = await createAs(admin, { title: 'Admin draft', content: 'x', status: 'draft' });
    assert.deepEqual((await api(`/posts/${draft}`, {}, alice)).body, NOT_FOUND);
    assert.equal((await api(`/posts/${draft}`, {}, admin)).status, 200);
    const own = await createAs(alice, { title: 'Alice draft', content: 'x', status: 'draft' });
    assert.equal((await api(`/posts/${own}`, {}, alice)).status, 200);
  });

  it("a non-admin's list never shows other users' drafts, whatever the Host", async () => {
    await createAs(admin, { title: 'Site two draft', content: 'x', status: 'draft', website_id: site2 });
    const own = await createAs(alice, { title: 'Alice second draft', content: 'x', status: 'draft' });
    for (const status of ['draft', 'any']) {
      for (const host of ['site1.test', 'site2.test']) {
        const listed = await api('/posts', { status, page_size: 100 }, alice, host);
        const titles = (listed.body.data!.data as Array<{ title: string; id: number }>).map((p) => p.title);
        assert.ok(!titles.includes('Site two draft'), `${status} on ${host}: ${titles.join(', ')}`);
        assert.ok(!titles.includes('Admin draft'), `${status} on ${host}`);
        if (host === 'site1.test')
          assert.ok(titles.includes('Alice second draft'), `${status}: own drafts show`);
      }
    }
    const adminList = await api('/posts', { status: 'draft', page_size: 100 }, admin, 'site2.test');
    assert.ok(
      (adminList.body.data!.data as Array<{ title: string }>).some((p) => p.title === 'Site two draft'),
    );
    assert.ok(own > 0);
  });

  it("a non-admin cannot edit or publish another user's post (403); the post is unchanged", async () => {
    const id = await createAs(admin, { title: 'Editorial', content: 'x', status: 'draft' });
    // A post they can read (published) is refused with 403; one they cannot read is not revealed.
    const published = await createAs(admin, { title: 'Published editorial', content: 'x' });
    assert.deepEqual(
      (await api(`/posts/update/${published}`, { title: 'Defaced' }, alice)).body,
      UNAUTHORIZED,
    );
    assert.deepEqual((await api(`/posts/update/${id}`, { status: 'published' }, alice)).body, NOT_FOUND);
    assert.equal((await post(published))?.title, 'Published editorial');
    assert.equal((await post(id))?.status, 'draft');
  });

  it("a user with no website cannot delete the admin's post (403); it stays", async () => {
    const id = await createAs(admin, { title: 'Keep me', content: 'x' });
    assert.deepEqual((await api(`/posts/delete/${id}`, {}, bob, 'localhost')).body, UNAUTHORIZED);
    assert.ok(await post(id));
  });

  it('a non-admin cannot post to a website they may not write to, nor to every website at once (issue 34 #1: no role, no writing)', async () => {
    assert.deepEqual(
      (await api('/posts/store', { title: 'Spam', content: 'x', website_id: site2 }, bob, 'localhost')).body,
      UNAUTHORIZED,
    );
    assert.deepEqual(
      (await api('/posts/store', { title: 'Spam', content: 'x', website_id: [] }, bob, 'localhost')).body,
      UNAUTHORIZED,
    );
    assert.deepEqual(
      (await api('/posts/store', { title: 'Spam', content: 'x' }, bob, 'localhost')).body,
      UNAUTHORIZED,
      'no Host website: global',
    );
    assert.deepEqual(
      (await api('/posts/store', { title: 'Spam', content: 'x', website_id: [site1, site2] }, alice)).body,
      UNAUTHORIZED,
    );
    // Their own website they may write to; the website the request is on, without a role there, not
    // (issue 34 #1) unless the installation's setting any_account_writes restores WNCMS's rule.
    const mine = await createAs(alice, { title: 'On my site', content: 'x', website_id: site1 });
    assert.deepEqual((await post(mine))?.websiteIds, [site1]);
    assert.deepEqual(
      (await api('/posts/store', { title: 'Here', content: 'x' }, bob, 'site2.test')).body,
      UNAUTHORIZED,
    );
    await ctx.services.settings.set(ANY_ACCOUNT_WRITES_SETTING, '1');
    try {
      const here = await createAs(bob, { title: 'On the site I am on', content: 'x' }, 'site2.test');
      assert.deepEqual((await post(here))?.websiteIds, [site2]);
    } finally {
      await ctx.services.settings.delete(ANY_ACCOUNT_WRITES_SETTING);
    }
    // …and may not move a post of theirs to a website they may not write to.
    assert.deepEqual((await api(`/posts/update/${mine}`, { website_id: site2 }, alice)).body, UNAUTHORIZED);
    assert.deepEqual((await api(`/posts/update/${mine}`, { website_id: [] }, alice)).body, UNAUTHORIZED);
  });

  it("a non-admin cannot re-slug or move the admin's category through update_when_duplicated", async () => {
    const stored = await api(
      '/tags/store',
      { name: 'Guides', type: 'post_category', website_id: site2 },
      admin,
    );
    assert.equal(stored.status, 200);
    const tagId = stored.body.data!.id as number;
    const attempt = await api(
      '/tags/store',
      {
        name: 'Guides',
        type: 'post_category',
        slug: 'hijacked',
        website_id: site1,
        update_when_duplicated: true,
      },
      alice,
    );
    assert.deepEqual(attempt.body, UNAUTHORIZED);
    const tag = await ctx.services.tags.findById(tagId);
    assert.equal(tag?.slug, 'guides');
    assert.deepEqual((await ctx.services.bindings.websitesOf('tag', [tagId])).get(tagId), [site2]);
    // A tag bound to her own website she may change (and only keep on websites she may write to).
    const hers = await api(
      '/tags/store',
      { name: 'Recipes', type: 'post_category', website_id: site1 },
      alice,
    );
    assert.equal(hers.status, 200);
    const renamed = await api(
      '/tags/store',
      { name: 'Recipes', type: 'post_category', slug: 'food', update_when_duplicated: true },
      alice,
    );
    assert.equal(renamed.body.message, 'Existing tag updated');
    const moved = await api(
      '/tags/store',
      { name: 'Recipes', type: 'post_category', website_id: site2, update_when_duplicated: true },
      alice,
    );
    assert.deepEqual(moved.body, UNAUTHORIZED);
    // Without update_when_duplicated the duplicate is reported, untouched (spec 4.2).
    const skipped = await api('/tags/store', { name: 'Guides', type: 'post_category' }, alice);
    assert.equal(skipped.body.message, 'Skipped. Duplicated tag found');
  });

  it('HTML a non-admin sends through the API is sanitized as on the public site; an admin’s is kept', async () => {
    const html = '<p onclick="steal()">Hi<script>alert(1)</script> <a href="javascript:alert(2)">x</a></p>';
    const mine = await createAs(alice, { title: 'Sanitized', content: html, excerpt: '<b>bold</b> words' });
    const saved = await post(mine);
    assert.ok(!/script|onclick|javascript:/.test(saved!.content), saved!.content);
    assert.equal(saved!.excerpt, 'bold words');
    const byAdmin = await createAs(admin, { title: 'Trusted', content: html });
    assert.equal((await post(byAdmin))?.content, html);
  });

  it('one rule, every surface: the public site refuses what the API refuses, and allows what it allows', async () => {
    const theirs = await createAs(admin, { title: 'Not alice’s', content: 'x' });
    const own = await createAs(alice, { title: 'Alice’s', content: 'x' });
    // API
    assert.equal((await api(`/posts/update/${theirs}`, { title: 'API edit' }, alice)).status, 403);
    assert.equal((await api(`/posts/update/${own}`, { title: 'API edit' }, alice)).status, 200);
    // Public site, same user, same website
    const visitor = new Visitor(ctx, 'site1.test', '10.9.0.1');
    await visitor.logIn(alice.email, alice.password);
    const refused = await visitor.get(`/post/edit/${theirs}`);
    assert.equal(refused.statusCode, 403);
    const form = { title: 'Site edit', content: '<p>y</p>', excerpt: '', status: 'published' };
    const allowed = await visitor.submit(`/post/edit/${own}`, `/post/update/${own}`, form);
    assert.equal(allowed.statusCode, 303);
    assert.equal((await post(own))?.title, 'Site edit');
    assert.equal((await post(theirs))?.title, 'Not alice’s');
  });

  it('an anonymous caller (auth mode none) sees published, due posts only and never an email, and names no author', async () => {
    await ctx.services.settings.setMany({
      svc_api_posts_show_should_auth: 'none',
      svc_api_posts_index_should_auth: 'none',
      svc_api_posts_store_should_auth: 'none',
    });
    try {
      const future = new Date(Date.now() + 86_400_000).toISOString();
      const embargoed = await createAs(admin, { title: 'Embargoed', content: 'x', published_at: future });
      const open = await createAs(admin, { title: 'Open', content: 'x', author_id: alice.id });
      assert.deepEqual((await api(`/posts/${embargoed}`, {}, null)).body, NOT_FOUND);
      const shown = await api(`/posts/${open}`, {}, null);
      assert.deepEqual(shown.body.data!.author, {
        id: alice.id,
        name: (await ctx.services.users.findById(alice.id))!.name,
      });
      const listed = await api('/posts', { page_size: 100 }, null);
      const titles = (listed.body.data!.data as Array<{ title: string }>).map((p) => p.title);
      assert.ok(titles.includes('Open') && !titles.includes('Embargoed'));
      const named = await api('/posts/store', { title: 'Anon', content: 'x', author_id: admin.id }, null);
      assert.equal(named.status, 422);
      const anon = await api('/posts/store', { title: 'Anon', content: 'x' }, null);
      assert.equal(anon.status, 200);
      assert.equal((await post(anon.body.data!.id as number))?.author, null);
      assert.deepEqual(
        (await api('/posts/store', { title: 'Anon', content: 'x', website_id: site2 }, null)).body,
        UNAUTHORIZED,
      );
    } finally {
      await ctx.services.settings.setMany({
        svc_api_posts_show_should_auth: 'simple',
        svc_api_posts_index_should_auth: 'simple',
        svc_api_posts_store_should_auth: 'simple',
      });
    }
  });
});
