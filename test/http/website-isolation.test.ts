// Websites kept apart (issue 34 #1, #3-#7, #13): what an outside attack on two websites found, each
// as a test that failed on the main of 2026-11-26. The route-by-route matrix is authorization-matrix.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ANY_ACCOUNT_WRITES_SETTING } from '../../src/domain/policy.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { Visitor } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

describe('websites kept apart (issue 34)', () => {
  let ctx: TestContext;
  let admin: TestUser;
  let site1: number;
  let site2: number;
  const users = {} as Record<'editor1' | 'contributor1' | 'author1' | 'writer2', TestUser>;

  const v2 = (
    as: TestUser | string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    host = 'one.test',
  ) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host, authorization: `Bearer ${typeof as === 'string' ? as : as.token}` },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  const v1 = (as: TestUser | string, url: string, payload: Record<string, unknown> = {}, host = 'one.test') =>
    ctx.request({
      method: 'POST',
      url: `/api/v1${url}`,
      headers: { host, authorization: `Bearer ${typeof as === 'string' ? as : as.token}` },
      payload,
    });
  const ok = (response: LightMyRequestResponse, status = 200) => {
    assert.equal(response.statusCode, status, response.body);
    if (status === 204) return { data: {} } as { data: Record<string, unknown> & { id: number } };
    return response.json<{ data: Record<string, unknown> & { id: number } }>();
  };

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.services.settings.set('enable_registration', '1');
    site1 = await websiteWrites(ctx.services).create({ siteName: 'One', domain: 'one.test' });
    site2 = await websiteWrites(ctx.services).create({ siteName: 'Two', domain: 'two.test' });
    admin = await ctx.createUser({ admin: true });
    for (const [name, role, site] of [
      ['editor1', 'editor', site1],
      ['contributor1', 'contributor', site1],
      ['author1', 'author', site1],
      ['writer2', 'author', site2],
    ] as const) {
      users[name] = await ctx.createUser();
      await ctx.services.memberships.grant(users[name].id, site, role);
    }
  });
  after(() => ctx.close());

  it('#1: a reader of website two (its registration role) writes nothing on website one; any_account_writes restores WNCMS', async () => {
    const reader = await ctx.createUser();
    await ctx.services.memberships.grant(reader.id, site2, 'reader');
    const store = () => v1(reader, '/posts/store', { title: 'Spam', content: 'x', status: 'published' });
    assert.equal((await store()).statusCode, 403);
    assert.equal((await v2(reader, 'POST', '/posts', { title: 'Spam', content: 'x' })).statusCode, 403);
    const me = ok(await v2(reader, 'GET', '/me')).data as unknown as {
      website: { can: Record<string, boolean> };
    };
    assert.equal(me.website.can.create_posts, false, 'the panel offers no writing there');
    await ctx.services.settings.set(ANY_ACCOUNT_WRITES_SETTING, '1');
    try {
      assert.equal((await store()).statusCode, 200, 'the installation chose WNCMS\u2019s rule');
      // Still nothing on website two, where they are a reader.
      assert.equal(
        (await v1(reader, '/posts/store', { title: 'x', content: 'x' }, 'two.test')).statusCode,
        403,
      );
    } finally {
      await ctx.services.settings.delete(ANY_ACCOUNT_WRITES_SETTING);
    }
  });

  it('#1: the public site offers "Write" only where the account may write', async () => {
    const reader = await ctx.createUser();
    await ctx.services.memberships.grant(reader.id, site2, 'reader');
    const header = async (user: TestUser, host: string) => {
      const visitor = new Visitor(ctx, host, `10.9.0.${user.id % 250}`);
      await visitor.logIn(user.email, user.password);
      return (await visitor.get('/')).body;
    };
    assert.doesNotMatch(await header(reader, 'one.test'), /href="\/post\/create"/);
    assert.match(await header(users.author1, 'one.test'), /href="\/post\/create">Write</);
  });

  it('#3: a key whose websites are all deleted stops working (it never becomes a key of every website)', async () => {
    const doomed = await websiteWrites(ctx.services).create({ siteName: 'Doomed', domain: 'doomed.test' });
    const { secret } = await ctx.services.apiKeys.create(admin.id, { name: 'doomed', websiteIds: [doomed] });
    assert.equal((await v2(secret, 'GET', '/posts', undefined, 'doomed.test')).statusCode, 200);
    assert.equal((await v2(secret, 'GET', '/settings')).statusCode, 403);
    ok(await v2(admin, 'DELETE', `/websites/${doomed}`), 204);
    for (const url of ['/settings', '/posts', '/users']) {
      assert.equal((await v2(secret, 'GET', url)).statusCode, 401, url);
    }
    assert.equal((await v1(secret, '/posts')).statusCode, 401);
  });

  it('#4: only administrators create all-sites tags; anyone else\u2019s tag without websites stays on the request\u2019s website', async () => {
    const author = users.author1;
    const refused = await v2(author, 'POST', '/tags', {
      name: 'Everywhere',
      type: 'post_tag',
      website_ids: [],
    });
    assert.equal(refused.statusCode, 403, refused.body);
    const unnamed = ok(await v2(author, 'POST', '/tags', { name: 'Mine', type: 'post_tag' }), 201).data;
    assert.deepEqual(unnamed.website_ids, [site1]);
    const viaV1 = ok(await v1(author, '/tags/store', { name: 'Mine too', type: 'post_tag' })).data;
    assert.deepEqual(await ctx.services.tags.websitesOf(viaV1.id), [site1]);
    const noRole = await ctx.createUser();
    assert.equal(
      (await v1(noRole, '/tags/store', { name: 'Spam tag', type: 'post_tag' })).statusCode,
      403,
      'no role: no tags',
    );
    const global = ok(
      await v2(admin, 'POST', '/tags', { name: 'Shared', type: 'post_tag', website_ids: [] }),
      201,
    );
    assert.deepEqual(global.data.website_ids, []);
  });

  it('#5: contributors pick tags; authors add them; renaming, merging and deleting is an editor\u2019s', async () => {
    const tag = ok(await v2(admin, 'POST', '/tags', { name: 'Topic', type: 'post_category', website_ids: [site1] }), 201).data; // prettier-ignore
    const other = ok(await v2(admin, 'POST', '/tags', { name: 'Other', type: 'post_category', website_ids: [site1] }), 201).data; // prettier-ignore
    const contributor = users.contributor1;
    assert.equal((await v2(contributor, 'PATCH', `/tags/${tag.id}`, { name: 'Renamed' })).statusCode, 403);
    assert.equal(
      (await v2(contributor, 'POST', `/tags/${other.id}/merge`, { into: tag.id })).statusCode,
      403,
    );
    assert.equal((await v2(contributor, 'DELETE', `/tags/${other.id}?force=true`)).statusCode, 403);
    assert.equal(
      (await v2(contributor, 'POST', '/tags', { name: 'New', type: 'post_category', website_ids: [site1] }))
        .statusCode,
      403,
    );
    assert.equal((await v2(users.author1, 'PATCH', `/tags/${tag.id}`, { name: 'Renamed' })).statusCode, 403);
    ok(await v2(users.editor1, 'PATCH', `/tags/${tag.id}`, { name: 'Renamed' }));
    ok(await v2(users.editor1, 'POST', `/tags/${other.id}/merge`, { into: tag.id }));
    // Picking an existing one is writing a post: allowed.
    ok(await v2(contributor, 'POST', '/posts', { title: 'Tagged', content: 'x', categories: [tag.id] }), 201);
  });

  it('#6: the Tags screen and the post filters of website one do not list website two\u2019s tags', async () => {
    ok(await v2(admin, 'POST', '/tags', { name: 'Only two', type: 'post_tag', website_ids: [site2] }), 201);
    ok(await v2(admin, 'POST', '/tags', { name: 'Only one', type: 'post_tag', website_ids: [site1] }), 201);
    const names = async (host: string) =>
      (
        ok(await v2(users.editor1, 'GET', '/tags?filter[type]=post_tag', undefined, host))
          .data as unknown as Array<{
          name: string;
        }>
      ).map((tag) => tag.name);
    const one = await names('one.test');
    assert.ok(one.includes('Only one'));
    assert.ok(!one.includes('Only two'), one.join(', '));
    assert.ok(one.includes('Shared'), 'all-sites tags show everywhere');
    assert.ok((await names('two.test')).includes('Only two'));
  });

  it('#7: a website\u2019s editors see and moderate the comments made on it, not those made on another website under a shared post', async () => {
    const shared = ok(await v2(admin, 'POST', '/posts', { title: 'Everywhere', content: 'x', website_id: [site1, site2] }), 201).data; // prettier-ignore
    const comment = await ctx.services.comments.store({
      postId: shared.id,
      content: 'Made on two',
      name: 'Ann',
      email: 'ann.two@example.test',
      user: null,
      websiteId: site2,
      ipHash: '7'.padStart(64, '0'),
      userAgent: 'test',
    });
    const listed = await v2(users.editor1, 'GET', `/comments?filter[website]=${site1}`);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.ok(!listed.body.includes('ann.two@example.test'), 'no commenter address of another website');
    const moderated = await v2(users.editor1, 'POST', '/comments/moderate', {
      ids: [comment.id],
      action: 'spam',
      website_id: site1,
    });
    assert.ok(moderated.statusCode === 200 || moderated.statusCode === 404, moderated.body);
    const [row] = await ctx.services.commentModeration.list({ websiteId: site2 });
    assert.equal(row?.id, comment.id);
    assert.equal(row?.status, 'pending', 'left alone');
    // Website two's moderators do see it.
    const editor2 = await ctx.createUser();
    await ctx.services.memberships.grant(editor2.id, site2, 'editor');
    assert.ok((await v2(editor2, 'GET', `/comments?filter[website]=${site2}`, undefined, 'two.test')).body.includes('ann.two@example.test')); // prettier-ignore
  });

  it('#7: an administrator\u2019s content key lists no websites through API v1 (it reads as a visitor)', async () => {
    const { secret } = await ctx.services.apiKeys.create(admin.id, {
      name: 'content',
      websiteIds: [site1],
      contentOnly: true,
    });
    const listed = await v1(secret, '/websites');
    assert.ok(listed.statusCode === 403 || !listed.body.includes('head_code'), listed.body);
    assert.ok(!listed.body.includes('two.test'), listed.body);
  });

  describe('#13: authorship and published posts', () => {
    it('an editor does not make themselves the author of another\u2019s post; an administrator names anyone', async () => {
      const post = ok(
        await v2(users.author1, 'POST', '/posts', { title: 'By author', content: 'x' }),
        201,
      ).data;
      const taken = await v2(users.editor1, 'PATCH', `/posts/${post.id}`, { author_id: users.editor1.id });
      assert.equal(taken.statusCode, 422, taken.body);
      assert.equal((await ctx.services.posts.findDetail(post.id))?.author?.id, users.author1.id);
      ok(await v2(users.editor1, 'PATCH', `/posts/${post.id}`, { title: 'Edited by the editor' }));
      ok(await v2(admin, 'PATCH', `/posts/${post.id}`, { author_id: users.editor1.id }));
      assert.equal((await ctx.services.posts.findDetail(post.id))?.author?.id, users.editor1.id);
    });

    it('a contributor neither unpublishes nor deletes their post once an editor published it (as in WordPress)', async () => {
      const contributor = users.contributor1;
      const draft = ok(await v2(contributor, 'POST', '/posts', { title: 'Mine', content: 'x' }), 201).data;
      ok(await v2(contributor, 'POST', `/posts/${draft.id}/submit`));
      ok(await v2(users.editor1, 'POST', `/posts/${draft.id}/approve`, {}));
      assert.equal(
        (await v2(contributor, 'PATCH', `/posts/${draft.id}`, { status: 'draft' })).statusCode,
        403,
      );
      assert.equal((await v1(contributor, `/posts/update/${draft.id}`, { status: 'draft' })).statusCode, 403);
      assert.equal((await v2(contributor, 'DELETE', `/posts/${draft.id}`)).statusCode, 403);
      assert.equal((await ctx.services.posts.findDetail(draft.id))?.status, 'published');
      // Their own drafts they still delete.
      const other = ok(await v2(contributor, 'POST', '/posts', { title: 'Scrap', content: 'x' }), 201).data;
      ok(await v2(contributor, 'DELETE', `/posts/${other.id}`), 204);
    });
  });
});
