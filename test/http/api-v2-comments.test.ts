// Comment moderation through API v2 (issue 25 #4, issue 23's reply): the website's moderation rules
// (mode and held words) decide what a new comment's status is; the reported queue; replies published
// at once and shown threaded on the post's page (its cached page follows); who may do what (a writer
// is refused, a site admin of another website does not see this one's comments: 404).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

describe('API v2 comments: moderation rules, the reported queue, replies', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  let admin: TestUser;
  let siteAdmin: TestUser;
  let editor: TestUser;
  let author: TestUser;
  let otherAdmin: TestUser;
  let postId: number;
  let postSlug: string;
  let ipCounter = 0;

  type Call = { method?: 'GET' | 'POST' | 'PUT'; as?: TestUser | null; body?: unknown; host?: string };
  const call = (url: string, { method = 'GET', as = admin, body, host = 'site.test' }: Call = {}) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host, ...(as ? { authorization: `Bearer ${as.token}` } : {}) },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  const problem = (response: LightMyRequestResponse, status: number) => {
    assert.equal(response.statusCode, status, response.body);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    return response.json<{ status: number; errors?: Record<string, string[]> }>();
  };
  /** A visitor's comment (or a signed-in user's) stored as the public site stores it. */
  const comment = async (
    content: string,
    who: { email: string; userId?: number } = { email: 'ann@example.test' },
  ) => {
    ipCounter += 1;
    return ctx.services.comments.store({
      postId,
      content,
      name: 'Ann',
      email: who.email,
      user: who.userId ? { id: who.userId, name: 'Member', email: who.email } : null,
      websiteId: site,
      ipHash: String(ipCounter).padStart(64, '0'),
      userAgent: 'test',
    });
  };
  const settings = (body: Record<string, unknown>, as: TestUser = siteAdmin) =>
    call('/comments/settings', { method: 'PUT', as, body });

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    admin = await ctx.createUser({ admin: true });
    siteAdmin = await ctx.createUser();
    editor = await ctx.createUser();
    author = await ctx.createUser();
    otherAdmin = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    await ctx.services.memberships.grant(editor.id, site, 'editor');
    await ctx.services.memberships.grant(author.id, site, 'author');
    await ctx.services.memberships.grant(otherAdmin.id, other, 'site_admin');
    const { db } = ctx.services.database;
    postSlug = 'commented';
    postId = await insertPost(db, { title: 'Commented', slug: postSlug });
    await db
      .insertInto('website_bindings')
      .values({ website_id: site, model_type: 'post', model_id: postId })
      .execute();
  });
  after(() => ctx.close());

  it('the moderation rules: a website\u2019s own mode, or the installation\u2019s; editors read them, site admins change them', async () => {
    const initial = await call('/comments/settings', { as: editor });
    assert.equal(initial.statusCode, 200, initial.body);
    assert.deepEqual(initial.json().data, { mode: 'anonymous', inherited: true, held_words: [] });
    problem(await settings({ mode: 'all' }, editor), 403);
    problem(await call('/comments/settings', { as: author }), 403);
    const changed = await settings({
      mode: 'first',
      held_words: ['Casino', ' viagra ', 'casino', 'fake news'],
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(changed.json().data, {
      mode: 'first',
      inherited: false,
      held_words: ['Casino', 'viagra', 'casino', 'fake news'],
    });
    // The other website keeps the installation's mode.
    const elsewhere = (await call('/comments/settings', { as: otherAdmin, host: 'other.test' })).json().data;
    assert.deepEqual(elsewhere, { mode: 'anonymous', inherited: true, held_words: [] });
    // Bad input: problem details with the field paths.
    let bad = problem(await settings({ mode: 'sometimes' }), 422);
    assert.ok(bad.errors?.mode, JSON.stringify(bad));
    bad = problem(await settings({ held_words: ['fine', ''] }), 422);
    assert.ok(bad.errors?.['held_words.1'], JSON.stringify(bad));
    bad = problem(await settings({ held_words: 'casino' }), 422);
    assert.ok(bad.errors?.held_words, JSON.stringify(bad));
    problem(await settings({ colour: 'red' }), 422);
    // Outsiders do not see this website.
    problem(await call(`/comments/settings?website_id=${site}`, { as: otherAdmin, host: 'other.test' }), 404);
    problem(await settings({ mode: 'none', website_id: site }, otherAdmin), 404);
  });

  it('first comment held: a commenter\u2019s first comment waits, later ones are published once one was approved (by email or user)', async () => {
    await settings({ mode: 'first', held_words: [] });
    const first = await comment('Hello there', { email: 'bea@example.test' });
    assert.equal(first.status, 'pending');
    const again = await comment('Hello again', { email: 'bea@example.test' });
    assert.equal(again.status, 'pending', 'nothing of hers approved yet');
    const approved = await call('/comments/moderate', {
      method: 'POST',
      as: editor,
      body: { ids: [first.id], action: 'approve' },
    });
    assert.deepEqual(approved.json().data.ids, [first.id]);
    assert.equal((await comment('Third', { email: 'BEA@example.test' })).status, 'approved');
    assert.equal((await comment('Someone new', { email: 'cy@example.test' })).status, 'pending');
    // A signed-in user: by user id.
    const member = await ctx.createUser();
    const mine = await comment('Member speaking', { email: member.email, userId: member.id });
    assert.equal(mine.status, 'pending');
    await ctx.services.commentModeration.setStatus([mine.id], 'approved');
    assert.equal(
      (await comment('Member again', { email: member.email, userId: member.id })).status,
      'approved',
    );
  });

  it('the held words hold a comment that would be published: whole words, any case, any script', async () => {
    await settings({ mode: 'none', held_words: ['casino', 'fake news', 'Ärger', 'дурак'] });
    assert.equal((await comment('<p>Best CASINO in town</p>')).status, 'pending');
    assert.equal((await comment('This is <b>fake   news</b>?')).status, 'approved', 'spaces differ');
    assert.equal((await comment('This is fake news!')).status, 'pending');
    assert.equal((await comment('Casinos are not the word')).status, 'approved');
    assert.equal((await comment('ärger')).status, 'pending');
    assert.equal((await comment('Ärgernis')).status, 'approved');
    assert.equal((await comment('ты ДУРАК')).status, 'pending');
    assert.equal((await comment('<p>casi</p><p>no</p>')).status, 'approved');
    await settings({ mode: 'all', held_words: [] });
    assert.equal((await comment('Anything')).status, 'pending');
    const reset = await settings({ mode: null });
    assert.deepEqual(reset.json().data, { mode: 'anonymous', inherited: true, held_words: [] });
  });

  it('the reported queue: reported comments, the most reported first; approving answers the reports', async () => {
    await settings({ mode: 'none' });
    const once = await comment('Reported once');
    const twice = await comment('Reported twice');
    await ctx.services.comments.vote(once.id, 'report', 'v:1', site);
    await ctx.services.comments.vote(twice.id, 'report', 'v:1', site);
    await ctx.services.comments.vote(twice.id, 'report', 'v:2', site);
    const queue = await call('/comments?filter[reported]=true', { as: editor });
    assert.equal(queue.statusCode, 200, queue.body);
    const rows = queue.json().data as { id: number; reports: number }[];
    assert.deepEqual(
      rows.map((row) => [row.id, row.reports]),
      [
        [twice.id, 2],
        [once.id, 1],
      ],
    );
    await call('/comments/moderate', {
      method: 'POST',
      as: editor,
      body: { ids: [twice.id], action: 'approve' },
    });
    const after = (await call('/comments?filter[reported]=true', { as: editor })).json().data as {
      id: number;
    }[];
    assert.deepEqual(
      after.map((row) => row.id),
      [once.id],
    );
    problem(await call('/comments?filter[reported]=maybe', { as: editor }), 422);
  });

  it('a reply: the caller\u2019s, published at once under the same post, approving a held comment it answers, shown threaded', async () => {
    await settings({ mode: 'all' });
    const held = await comment('A question for the author');
    assert.equal(held.status, 'pending');
    // The post's page is cached before the reply; the reply must show on it after.
    const page = () =>
      ctx.request({ method: 'GET', url: `/post/${postSlug}`, headers: { host: 'site.test' } });
    const before = await page();
    assert.equal(before.statusCode, 200, before.body.slice(0, 300));
    assert.doesNotMatch(before.body, /The answer, from the desk/);

    const response = await call(`/comments/${held.id}/replies`, {
      method: 'POST',
      as: editor,
      body: { content: 'The answer, <script>alert(1)</script>from the desk' },
    });
    assert.equal(response.statusCode, 201, response.body);
    const reply = response.json().data as Record<string, unknown>;
    assert.equal(reply.parent_id, held.id);
    assert.equal(reply.post_id, postId);
    assert.equal(reply.status, 'approved');
    assert.equal(reply.user_id, editor.id);
    assert.equal(reply.content, 'The answer, from the desk');
    const parent = await ctx.services.database.db
      .selectFrom('comments')
      .select('status')
      .where('id', '=', held.id)
      .executeTakeFirstOrThrow();
    assert.equal(parent.status, 'approved');

    const shown = await page();
    assert.match(shown.body, /The answer, from the desk/);
    assert.match(shown.body, /A question for the author/);
    // Threaded: the reply is inside the parent's element.
    const thread = await ctx.services.comments.thread(postId, null);
    const node = thread.comments.find((entry) => entry.id === held.id);
    assert.equal(node?.children[0]?.id, reply.id);
  });

  it('replies: who may, and bad input', async () => {
    const target = await comment('Another one');
    problem(
      await call(`/comments/${target.id}/replies`, { method: 'POST', as: author, body: { content: 'x' } }),
      403,
    );
    problem(
      await call(`/comments/${target.id}/replies`, {
        method: 'POST',
        as: otherAdmin,
        host: 'other.test',
        body: { content: 'x', website_id: site },
      }),
      404,
    );
    // Asked on their own website, another website's comment is not there.
    problem(
      await call(`/comments/${target.id}/replies`, {
        method: 'POST',
        as: otherAdmin,
        host: 'other.test',
        body: { content: 'x' },
      }),
      404,
    );
    problem(
      await call('/comments/99999999/replies', { method: 'POST', as: editor, body: { content: 'x' } }),
      404,
    );
    let bad = problem(
      await call(`/comments/${target.id}/replies`, { method: 'POST', as: editor, body: {} }),
      422,
    );
    assert.ok(bad.errors?.content, JSON.stringify(bad));
    bad = problem(
      await call(`/comments/${target.id}/replies`, {
        method: 'POST',
        as: editor,
        body: { content: '<script>x</script>' },
      }),
      422,
    );
    assert.ok(bad.errors?.content, JSON.stringify(bad));
    problem(
      await call(`/comments/${target.id}/replies`, {
        method: 'POST',
        as: editor,
        body: { content: 'x'.repeat(5001) },
      }),
      422,
    );
    problem(await call('/comments/abc/replies', { method: 'POST', as: editor, body: { content: 'x' } }), 422);
    await ctx.services.commentModeration.setStatus([target.id], 'spam');
    problem(
      await call(`/comments/${target.id}/replies`, { method: 'POST', as: editor, body: { content: 'x' } }),
      409,
    );
  });

  it('a site admin of another website neither sees nor moderates this website\u2019s comments (404)', async () => {
    problem(await call(`/comments?filter[website]=${site}`, { as: otherAdmin, host: 'other.test' }), 404);
    problem(await call('/comments', { as: otherAdmin }), 404);
    const target = await comment('Keep me');
    problem(
      await call('/comments/moderate', {
        method: 'POST',
        as: otherAdmin,
        host: 'other.test',
        body: { ids: [target.id], action: 'delete', website_id: site },
      }),
      404,
    );
    // On their own website, this website's comment is not among theirs.
    const own = await call('/comments/moderate', {
      method: 'POST',
      as: otherAdmin,
      host: 'other.test',
      body: { ids: [target.id], action: 'delete' },
    });
    assert.deepEqual(own.json().data.ids, []);
    assert.ok(
      await ctx.services.database.db
        .selectFrom('comments')
        .select('id')
        .where('id', '=', target.id)
        .executeTakeFirst(),
    );
  });
});
