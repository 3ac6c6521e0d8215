// Issue 22, dead end 5: held comments on the post page. Those who may moderate the website (its
// editors and site admins, and administrators) see "N comments waiting" with approve / spam / delete
// forms (the site's form token); nobody else does, and the full-page cache never keeps the notice.
// A held comment is mailed to the website's administrators (the mailer: the log without SMTP).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { NOTICE_LIMIT } from '../../src/domain/community/comment-notices.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import { insertPost } from '../support/seed.js';
import { Visitor, tokenIn } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const NOTICE = /comments? waiting for approval/;

describe('held comments on the post page', () => {
  let ctx: TestContext;
  let mailer: RecordingMailer;
  let websiteId: number;
  let postId: number;
  let admin: TestUser;
  let editor: TestUser;
  let siteAdmin: TestUser;
  let otherSiteAdmin: TestUser;
  let writer: TestUser;
  let ipCounter = 0;

  before(async () => {
    ctx = await createTestContext();
    mailer = new RecordingMailer();
    ctx.services.mailer = mailer;
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    websiteId = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    const otherWebsite = await websiteWrites(ctx.services).create({
      siteName: 'Other',
      domain: 'other.test',
    });
    // The page cache on: the notice must never reach a cached page.
    await websiteWrites(ctx.services).update(websiteId, { enabled_page_cache: true });
    postId = await insertPost(ctx.services.database.db, { title: 'Held post', slug: 'held-post' });
    admin = await ctx.createUser({ admin: true });
    editor = await ctx.createUser();
    siteAdmin = await ctx.createUser();
    otherSiteAdmin = await ctx.createUser();
    writer = await ctx.createUser();
    await ctx.services.memberships.grant(editor.id, websiteId, 'editor');
    await ctx.services.memberships.grant(siteAdmin.id, websiteId, 'site_admin');
    await ctx.services.memberships.grant(otherSiteAdmin.id, otherWebsite, 'site_admin');
    await ctx.services.memberships.grant(writer.id, websiteId, 'author');
  });
  after(() => ctx.close());
  beforeEach(() => {
    ipCounter += 1;
  });

  /** An anonymous comment from an address of its own (rate limits are per address). */
  async function comment(content: string, name = 'Ann'): Promise<number> {
    const response = await ctx.request({
      method: 'POST',
      url: '/comments/store',
      remoteAddress: `198.51.100.${ipCounter}`,
      headers: {
        host: 'site.test',
        origin: 'http://site.test',
        'user-agent': BROWSER,
        accept: 'application/json',
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({
        post_id: String(postId),
        content,
        name,
        email: 'ann@example.test',
      }).toString(),
    });
    assert.equal(response.statusCode, 202, response.body);
    assert.equal(response.json().data.status, 'pending');
    return response.json().data.id as number;
  }

  const anonymous = () =>
    ctx.request({ method: 'GET', url: '/post/held-post', headers: { host: 'site.test' } });

  async function signedIn(user: TestUser): Promise<Visitor> {
    const visitor = new Visitor(ctx, 'site.test', `192.0.2.${ipCounter}`);
    await visitor.logIn(user.email, user.password);
    return visitor;
  }

  async function status(id: number): Promise<string | undefined> {
    const row = await ctx.services.database.db
      .selectFrom('comments')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.status;
  }

  it('mails the website’s administrators and site admins when a comment is held, not others', async () => {
    mailer.sent.length = 0;
    await comment('Please <b>approve</b> me &amp; my <script>alert(1)</script>friends', 'Mallory');
    await ctx.services.commentNotices.drain();
    const recipients = mailer.sent.map((mail) => mail.to).sort();
    assert.deepEqual(recipients, [admin.email, siteAdmin.email].sort());
    const mail = mailer.sent[0]!;
    assert.match(mail.subject, /A comment waits for approval on Site/);
    assert.equal(mail.siteDomain, 'site.test');
    assert.match(mail.text, /From: Mallory/);
    assert.match(mail.text, /Please approve me & my friends/);
    assert.doesNotMatch(mail.text, /<script>|<b>/);
    // From the website's primary domain with APP_URL's scheme and port, never the request's Host.
    assert.match(mail.text, /http:\/\/site\.test\/post\/held-post#moderation/);
  });

  it('mails nobody for a comment that is published at once', async () => {
    mailer.sent.length = 0;
    const visitor = await signedIn(writer);
    const page = await visitor.get('/post/held-post');
    const response = await visitor.post(
      '/comments/store',
      { _token: tokenIn(page.body)!, post_id: String(postId), content: 'Signed in, shown at once' },
      { origin: 'http://site.test', 'user-agent': BROWSER },
    );
    assert.equal(response.statusCode, 303);
    assert.match(String(response.headers.location), /comment=approved/);
    await ctx.services.commentNotices.drain();
    assert.deepEqual(mailer.sent, []);
  });

  it('shows the notice with a form per held comment to an administrator, never cached', async () => {
    const id = await comment('Waiting for the admin');
    const visitor = await signedIn(admin);
    const page = await visitor.get('/post/held-post');
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['x-folio-cache'], 'bypass');
    assert.match(String(page.headers['cache-control']), /private, no-store/);
    assert.match(page.body, /\d+ comments? waiting for approval/);
    assert.match(page.body, new RegExp(`<form method="post" action="/comments/${id}/moderate"`));
    assert.match(page.body, /Waiting for the admin/);
    assert.match(page.body, /name="_token" value="[^"]+"/);
    for (const action of ['approve', 'spam', 'delete']) {
      assert.match(page.body, new RegExp(`name="action" value="${action}"`));
    }
  });

  it('shows it to the website’s editors and site admins, not to an author or a site admin elsewhere', async () => {
    await comment('Who sees me?');
    for (const user of [editor, siteAdmin]) {
      const page = await (await signedIn(user)).get('/post/held-post');
      assert.match(page.body, NOTICE, `user ${user.id}`);
    }
    for (const user of [writer, otherSiteAdmin]) {
      const page = await (await signedIn(user)).get('/post/held-post');
      assert.equal(page.statusCode, 200);
      assert.doesNotMatch(page.body, NOTICE, `user ${user.id}`);
      assert.doesNotMatch(page.body, /\/moderate"/);
    }
  });

  it('never shows it to an anonymous visitor, and the cached page never holds it', async () => {
    await comment('Hidden from readers');
    const moderator = await signedIn(admin);
    // A moderator's visit first: it must not leave its page in the cache for the readers.
    assert.match((await moderator.get('/post/held-post')).body, NOTICE);
    const first = await anonymous();
    const second = await anonymous();
    assert.equal(second.headers['x-folio-cache'], 'hit');
    for (const response of [first, second]) {
      assert.equal(response.statusCode, 200);
      assert.doesNotMatch(response.body, NOTICE);
      assert.doesNotMatch(response.body, /Hidden from readers/);
      assert.doesNotMatch(response.body, /\/moderate"/);
    }
    // And the moderator still sees it after the readers filled the cache.
    assert.match((await moderator.get('/post/held-post')).body, NOTICE);
    const cached = await ctx.services.cache.get<{ body: string }>(`page:${websiteId}:en:/post/held-post`);
    if (cached) assert.doesNotMatch(cached.body, NOTICE);
  });

  it('approves from the page: the comment is shown to readers (the cached page is flushed)', async () => {
    const id = await comment('Approve me from the page');
    await anonymous();
    assert.equal((await anonymous()).headers['x-folio-cache'], 'hit');
    const visitor = await signedIn(editor);
    const page = await visitor.get('/post/held-post');
    const response = await visitor.post(
      `/comments/${id}/moderate`,
      { _token: tokenIn(page.body)!, back: '/post/held-post', action: 'approve' },
      { origin: 'http://site.test' },
    );
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/post/held-post?comment=moderated-approve#comments');
    assert.equal(await status(id), 'approved');
    const reader = await anonymous();
    assert.notEqual(reader.headers['x-folio-cache'], 'hit');
    assert.match(reader.body, /Approve me from the page/);
    const after = await visitor.get('/post/held-post?comment=moderated-approve');
    assert.match(after.body, /The comment is approved and shown under the post\./);
    assert.doesNotMatch(after.body, new RegExp(`/comments/${id}/moderate`));
  });

  it('marks as spam and deletes; an unknown comment is told as moderated already', async () => {
    const spam = await comment('Buy now');
    const gone = await comment('Delete me');
    const visitor = await signedIn(admin);
    const token = tokenIn((await visitor.get('/post/held-post')).body)!;
    const moderate = (id: number, action: string) =>
      visitor.post(
        `/comments/${id}/moderate`,
        { _token: token, back: '/post/held-post', action },
        { origin: 'http://site.test' },
      );
    assert.equal((await moderate(spam, 'spam')).statusCode, 303);
    assert.equal(await status(spam), 'spam');
    assert.equal((await moderate(gone, 'delete')).statusCode, 303);
    assert.equal(await status(gone), undefined);
    const again = await moderate(gone, 'delete');
    assert.match(String(again.headers.location), /comment=moderated-none/);
    assert.equal((await moderate(spam, 'publish')).statusCode, 422);
    // The audit log has the decisions, from the site.
    const entries = await ctx.services.database.db
      .selectFrom('audit_log')
      .select(['action', 'surface'])
      .where('resource_type', '=', 'comment')
      .where('resource_id', 'in', [String(spam), String(gone)])
      .where('action', '!=', 'comment.create')
      .execute();
    assert.deepEqual(entries.map((entry) => entry.action).sort(), ['comment.delete', 'comment.spam']);
    assert.deepEqual([...new Set(entries.map((entry) => entry.surface))], ['site']);
  });

  it('refuses the decision without the form token, to a visitor who may not moderate, and anonymously', async () => {
    const id = await comment('Still held');
    const author = await signedIn(writer);
    const token = tokenIn((await author.get('/post/held-post')).body)!;
    const noToken = await author.post(
      `/comments/${id}/moderate`,
      { back: '/post/held-post', action: 'approve' },
      { origin: 'http://site.test' },
    );
    assert.equal(noToken.statusCode, 403);
    const refused = await author.post(
      `/comments/${id}/moderate`,
      { _token: token, back: '/post/held-post', action: 'approve' },
      { origin: 'http://site.test' },
    );
    assert.equal(refused.statusCode, 403);
    const stranger = await ctx.request({
      method: 'POST',
      url: `/comments/${id}/moderate`,
      headers: {
        host: 'site.test',
        origin: 'http://site.test',
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'action=approve',
    });
    assert.equal(stranger.statusCode, 403);
    assert.equal(await status(id), 'pending');
  });

  it('sends the moderator back to a path of this site only', async () => {
    const id = await comment('Redirect check');
    const visitor = await signedIn(admin);
    const token = tokenIn((await visitor.get('/post/held-post')).body)!;
    const response = await visitor.post(
      `/comments/${id}/moderate`,
      { _token: token, back: '//evil.example/x', action: 'approve' },
      { origin: 'http://site.test' },
    );
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/?comment=moderated-approve#comments');
  });
});

describe('held-comment mail under a wave of comments', () => {
  let ctx: TestContext;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
  });
  after(() => ctx.close());

  it(`mails each administrator at most ${NOTICE_LIMIT.max} times an hour per website, with the count waiting`, async () => {
    const mailer = new RecordingMailer();
    ctx.services.mailer = mailer;
    const websiteId = await websiteWrites(ctx.services).create({ siteName: 'Busy', domain: 'busy.test' });
    const admin = await ctx.createUser({ admin: true });
    const postId = await insertPost(ctx.services.database.db, { title: 'Busy post', slug: 'busy-post' });
    for (let i = 0; i < NOTICE_LIMIT.max + 3; i += 1) {
      await ctx.services.comments.store({
        postId,
        content: `Comment ${i}`,
        name: 'Spammer',
        email: 'spam@example.test',
        user: null,
        websiteId,
        ipHash: `ip-${i}`,
        userAgent: 'test',
      });
      await ctx.services.commentNotices.drain();
    }
    const mails = mailer.sent.filter((mail) => mail.to === admin.email);
    assert.equal(mails.length, NOTICE_LIMIT.max);
    assert.match(mails.at(-1)!.text, new RegExp(`\\(${NOTICE_LIMIT.max} comments wait on this website\\)`));
  });
});
