// Comments on the public site (spec 4.8, R-F1 frontend.comments.store/.like/.report): storing with
// moderation, threaded replies, sanitizing, the honeypot, CSRF (cross-site) refusal, rate limits, and
// likes and reports once per visitor. The thread's rendering is checked through the theme partial.
import assert from 'node:assert/strict';
import { Visitor } from '../support/visitor.js';
import { after, before, beforeEach, describe, it } from 'node:test';
import { postCacheTag } from '../../src/domain/community/comments.js';
import { ForbiddenError, ValidationError } from '../../src/domain/errors.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import type { FrontendState } from '../../src/frontend/context.js';
import type { FrontendKit, TemplateDataProvider } from '../../src/frontend/index.js';
import { commentRoutes } from '../../src/frontend/routes/comments.js';
import { ThemeRenderer } from '../../src/frontend/themes.js';
import { createTestContext, exposeRouteNames } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

describe('comments', () => {
  let ctx: TestContext;
  let websiteId: number;
  let postId: number;
  let otherPostId: number;
  let foreignPostId: number;
  let ipCounter = 0;
  /** Every test posts from an address of its own, so rate limits of one test do not touch another. */
  let ip = '';

  before(async () => {
    ctx = await createTestContext({ extend: exposeRouteNames });
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    websiteId = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    const otherWebsite = await websiteWrites(ctx.services).create({
      siteName: 'Other',
      domain: 'other.test',
    });
    const { db } = ctx.services.database;
    postId = await insertPost(db, { title: 'Hello world', slug: 'hello-world' });
    otherPostId = await insertPost(db, { title: 'Second post', slug: 'second-post' });
    foreignPostId = await insertPost(db, { title: 'Elsewhere', slug: 'elsewhere' });
    await db
      .insertInto('website_bindings')
      .values({ website_id: otherWebsite, model_type: 'post', model_id: foreignPostId })
      .execute();
  });
  after(() => ctx.close());
  beforeEach(() => {
    ipCounter += 1;
    ip = `203.0.113.${ipCounter}`;
  });

  function send(
    url: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
    remoteAddress = ip,
  ) {
    const all: Record<string, string> = {
      host: 'site.test',
      origin: 'http://site.test',
      'user-agent': BROWSER,
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    };
    // An empty value leaves the header out.
    for (const [name, value] of Object.entries(all)) if (value === '') delete all[name];
    return ctx.request({
      method: 'POST',
      url,
      remoteAddress,
      headers: all,
      payload: new URLSearchParams(fields).toString(),
    });
  }
  const json = { accept: 'application/json' };
  const comment = (fields: Record<string, string> = {}) => ({
    post_id: String(postId),
    content: 'A fine post.',
    name: 'Ann',
    email: 'ann@example.test',
    ...fields,
  });
  const rows = () => ctx.services.database.db.selectFrom('comments').selectAll().orderBy('id').execute();

  it('comments.store: an anonymous comment is held as pending and the form is redirected back (303)', async () => {
    const response = await send('/comments/store', comment({ content: 'First!' }));
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/post/hello-world?comment=pending#comments');
    assert.equal(response.headers['x-test-route-name'], 'frontend.comments.store');
    const stored = (await rows()).at(-1)!;
    assert.equal(stored.status, 'pending');
    assert.equal(stored.content, 'First!');
    assert.equal(stored.author_name, 'Ann');
    assert.equal(stored.author_email, 'ann@example.test');
    assert.equal(stored.post_id, postId);
    // The IP is stored only as a keyed hash.
    assert.match(stored.ip_hash ?? '', /^[0-9a-f]{64}$/);
    assert.ok(!JSON.stringify(stored).includes(ip));
  });

  it('comments.store answers JSON when asked: 202 pending, 201 approved when moderation is off', async () => {
    const held = await send('/comments/store', comment(), json);
    assert.equal(held.statusCode, 202);
    assert.equal(held.json().data.status, 'pending');
    await ctx.services.settings.set('comments_moderation', 'none');
    try {
      const published = await send('/comments/store', comment(), json);
      assert.equal(published.statusCode, 201);
      const body = published.json();
      assert.equal(body.status, 'success');
      assert.equal(body.data.status, 'approved');
      assert.equal(body.data.post_id, postId);
      const form = await send('/comments/store', comment());
      assert.equal(form.statusCode, 303);
      assert.match(form.headers.location as string, /^\/post\/hello-world\?comment=approved#comment-\d+$/);
    } finally {
      await ctx.services.settings.set('comments_moderation', 'anonymous');
    }
  });

  it("comments_moderation=all holds a signed-in user's comment too; the default publishes it", async () => {
    const user = await ctx.createUser();
    const author = { id: user.id, name: 'Signed In', email: user.email };
    const base = {
      postId,
      content: 'Mine',
      websiteId,
      ipHash: 'x'.repeat(64),
      userAgent: BROWSER,
      user: author,
    };
    assert.equal((await ctx.services.comments.store(base)).status, 'approved');
    await ctx.services.settings.set('comments_moderation', 'all');
    try {
      assert.equal((await ctx.services.comments.store(base)).status, 'pending');
    } finally {
      await ctx.services.settings.set('comments_moderation', 'anonymous');
    }
  });

  it('a published comment flushes the cached pages of its post; a held one does not', async () => {
    const { cache } = ctx.services;
    await cache.set('page:hello-world', 'cached', { tags: [postCacheTag(postId)] });
    await send('/comments/store', comment(), json);
    assert.equal(await cache.get('page:hello-world'), 'cached', 'pending: the page shows nothing new');
    await ctx.services.settings.set('comments_moderation', 'none');
    try {
      await send('/comments/store', comment(), json);
      assert.equal(await cache.get('page:hello-world'), undefined);
    } finally {
      await ctx.services.settings.set('comments_moderation', 'anonymous');
    }
  });

  it('validation: missing and malformed fields are a 422 with R-V2 messages', async () => {
    const response = await send('/comments/store', { post_id: 'abc', content: '  ' }, json);
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      status: 'fail',
      message: 'Validation failed',
      errors: {
        post_id: ['The post id must be an integer.'],
        content: ['The content field is required.'],
        name: ['The name field is required.'],
        email: ['The email field is required.'],
      },
    });
    const bad = await send(
      '/comments/store',
      comment({ email: 'not-an-email', content: 'x'.repeat(5001), name: 'n'.repeat(101) }),
      json,
    );
    assert.deepEqual(bad.json().errors, {
      content: ['The content may not be greater than 5000 characters.'],
      name: ['The name may not be greater than 100 characters.'],
      email: ['The email must be a valid email address.'],
    });
  });

  it('validation: the post must be published and shown on this website', async () => {
    const draft = await insertPost(ctx.services.database.db, { title: 'Draft', status: 'draft' });
    for (const id of [foreignPostId, draft, 999999, 99999999999]) {
      const response = await send('/comments/store', comment({ post_id: String(id) }), json);
      assert.equal(response.statusCode, 422, `post ${id}`);
      assert.deepEqual(response.json().errors, { post_id: ['The selected post id is invalid.'] });
    }
  });

  it('a form with errors is shown again (422), filled in, with every value escaped', async () => {
    const response = await send(
      '/comments/store',
      comment({
        email: 'bad',
        name: '"><script>alert(1)</script>',
        content: '</textarea><script>x()</script>',
      }),
    );
    assert.equal(response.statusCode, 422);
    assert.match(response.headers['content-type'] as string, /text\/html/);
    assert.match(response.body, /The email must be a valid email address\./);
    assert.ok(!response.body.includes('<script>'), 'no markup from the visitor');
    assert.match(response.body, /value="&#34;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;"/);
    assert.match(response.body, /&lt;\/textarea&gt;&lt;script&gt;x\(\)&lt;\/script&gt;<\/textarea>/);
    assert.match(response.body, /href="\/post\/hello-world"/);
  });

  it('XSS payloads in comments are neutralized: scripts, handlers and javascript: links removed', async () => {
    await ctx.services.settings.set('comments_moderation', 'none');
    try {
      const payload =
        '<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">click</a>' +
        '<b onclick="alert(4)">bold</b> <a href="https://example.test/">ok</a> <iframe src="https://evil.test"></iframe>' +
        '<svg onload=alert(5)></svg> 1 < 2 & 3';
      const response = await send('/comments/store', comment({ content: payload }), json);
      assert.equal(response.statusCode, 201);
      const stored = (await rows()).at(-1)!;
      assert.ok(
        !/<script|onerror|onclick|onload|javascript:|<iframe|<svg|<img/i.test(stored.content),
        stored.content,
      );
      assert.match(stored.content, /<b>bold<\/b>/);
      assert.match(
        stored.content,
        /<a href="https:\/\/example\.test\/" rel="nofollow ugc noopener noreferrer">ok<\/a>/,
      );
      assert.match(stored.content, /1 &lt; 2 &amp; 3/);
      assert.ok(!stored.content.includes('alert(1)'), 'script content is dropped, not shown as text');
    } finally {
      await ctx.services.settings.set('comments_moderation', 'anonymous');
    }
  });

  it('honeypot: a filled trap field looks like success to the bot and stores nothing', async () => {
    const before = (await rows()).length;
    const form = await send('/comments/store', comment({ website: 'http://spam.test' }));
    assert.equal(form.statusCode, 303);
    assert.equal(form.headers.location, '/post/hello-world?comment=pending#comments');
    const ajax = await send('/comments/store', comment({ website: 'x' }), json);
    assert.equal(ajax.statusCode, 202);
    assert.equal(ajax.json().data.status, 'pending');
    assert.equal((await rows()).length, before);
  });

  it('CSRF: a cross-site post is refused (403) and stores nothing', async () => {
    const before = (await rows()).length;
    const fromElsewhere = await send('/comments/store', comment(), { origin: 'https://evil.test' });
    assert.equal(fromElsewhere.statusCode, 403);
    assert.match(fromElsewhere.body, /Cross-site form submission refused/);
    const fetchSite = await send('/comments/store', comment(), { 'sec-fetch-site': 'cross-site' }, ip);
    assert.equal(fetchSite.statusCode, 403);
    const referer = await send('/comments/store', comment(), {
      origin: '',
      referer: 'https://evil.test/page',
    });
    assert.equal(referer.statusCode, 403);
    const like = await send('/comments/1/like', {}, { origin: 'https://evil.test', ...json });
    assert.equal(like.statusCode, 403);
    assert.equal(like.json().status, 'fail');
    assert.equal((await rows()).length, before);
  });

  it('CSRF: a visitor with a session must send the form token', async () => {
    const response = await send('/comments/store', comment(), { cookie: 'folio_session=abc' });
    assert.equal(response.statusCode, 403);
    assert.match(response.body, /The form has expired/);
  });

  it('rate limit: more comments than comments_per_minute from one address get 429 with Retry-After', async () => {
    await ctx.services.settings.set('comments_per_minute', '3');
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal((await send('/comments/store', comment(), json)).statusCode, 202);
      }
      const limited = await send('/comments/store', comment(), json);
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) >= 1);
      assert.equal(limited.json().status, 'fail');
      const page = await send('/comments/store', comment());
      assert.equal(page.statusCode, 429);
      assert.match(page.body, /Too many comments/);
      // Another address is not limited.
      assert.equal((await send('/comments/store', comment(), json, '198.51.100.7')).statusCode, 202);
    } finally {
      await ctx.services.settings.delete('comments_per_minute');
    }
  });

  it('enable_comments off: posting is refused (403) and the form is not shown', async () => {
    await ctx.services.settings.set('enable_comments', '0');
    try {
      const response = await send('/comments/store', comment(), json);
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().message, 'Comments are closed.');
      assert.equal((await send('/comments/1/like', {}, json)).statusCode, 403);
    } finally {
      await ctx.services.settings.delete('enable_comments');
    }
  });

  it('issue 35 #2: a comment that breaks a rule is a ValidationError, its messages by field (as every face expects)', async () => {
    await assert.rejects(
      ctx.services.comments.store({
        postId,
        content: '',
        name: 'Ann',
        email: 'not an address',
        user: null,
        websiteId,
        ipHash: 'x'.repeat(64),
        userAgent: BROWSER,
      }),
      (error: Error) => {
        assert.ok(error instanceof ValidationError, `${error.name} is not a ValidationError`);
        assert.deepEqual(error.messages, {
          content: ['The content field is required.'],
          email: ['The email must be a valid email address.'],
        });
        return true;
      },
    );
  });

  it("issue 35 #1: comments closed is the operation's rule: store and vote refuse when enable_comments is off, whatever the face", async () => {
    const before = (await rows()).length;
    const approved = await ctx.services.comments.store({
      postId,
      content: 'Open still.',
      name: 'Ann',
      email: 'ann@example.test',
      user: null,
      websiteId,
      ipHash: 'x'.repeat(64),
      userAgent: BROWSER,
    });
    await ctx.services.settings.set('enable_comments', '0');
    try {
      await assert.rejects(
        ctx.services.comments.store({
          postId,
          content: 'Closed now.',
          name: 'Ann',
          email: 'ann@example.test',
          user: null,
          websiteId,
          ipHash: 'x'.repeat(64),
          userAgent: BROWSER,
        }),
        (error: Error) => error instanceof ForbiddenError && error.message === 'Comments are closed.',
      );
      await assert.rejects(
        ctx.services.comments.vote(approved.id, 'like', 'v:closed', websiteId),
        (error: Error) => error instanceof ForbiddenError && error.message === 'Comments are closed.',
      );
      assert.equal((await rows()).length, before + 1, 'nothing stored while closed');
    } finally {
      await ctx.services.settings.delete('enable_comments');
    }
  });

  describe('threads, likes and reports', () => {
    let rootId: number;
    let replyId: number;

    before(async () => {
      await ctx.services.settings.set('comments_moderation', 'none');
      rootId = (
        await send('/comments/store', comment({ post_id: String(otherPostId), content: 'Root' }), json)
      ).json().data.id;
      const reply = await send(
        '/comments/store',
        comment({ post_id: String(otherPostId), parent_id: String(rootId), content: 'Reply' }),
        json,
      );
      assert.equal(reply.statusCode, 201);
      replyId = reply.json().data.id;
      await ctx.services.settings.set('comments_moderation', 'anonymous');
    });

    it('a reply must answer a published comment of the same post', async () => {
      const otherPost = await send('/comments/store', comment({ parent_id: String(rootId) }), json);
      assert.deepEqual(otherPost.json().errors, { parent_id: ['The selected parent id is invalid.'] });
      const pending = (await send('/comments/store', comment({ post_id: String(otherPostId) }), json)).json()
        .data.id;
      const toPending = await send(
        '/comments/store',
        comment({ post_id: String(otherPostId), parent_id: String(pending) }),
        json,
      );
      assert.deepEqual(toPending.json().errors, { parent_id: ['The selected parent id is invalid.'] });
      const notId = await send('/comments/store', comment({ parent_id: '1x' }), json);
      assert.deepEqual(notId.json().errors, { parent_id: ['The parent id must be an integer.'] });
    });

    it('the thread holds approved comments as a tree; pending ones only for their signed-in author', async () => {
      const user = await ctx.createUser();
      await ctx.services.settings.set('comments_moderation', 'all');
      const own = await ctx.services.comments.store({
        postId: otherPostId,
        parentId: rootId,
        content: 'Held',
        user: { id: user.id, name: 'Uma', email: user.email },
        websiteId,
        ipHash: 'a'.repeat(64),
        userAgent: BROWSER,
      });
      await ctx.services.settings.set('comments_moderation', 'anonymous');
      const anonymous = await ctx.services.comments.thread(otherPostId, null);
      assert.equal(anonymous.count, 2);
      assert.deepEqual(
        anonymous.comments.map((node) => [node.id, node.children.map((child) => child.id)]),
        [[rootId, [replyId]]],
      );
      const mine = await ctx.services.comments.thread(otherPostId, user.id);
      assert.deepEqual(
        mine.comments[0]!.children.map((child) => [child.id, child.pending]),
        [
          [replyId, false],
          [own.id, true],
        ],
      );
    });

    it(`replies deeper than the maximum depth are shown at the deepest level`, async () => {
      await ctx.services.settings.set('comments_moderation', 'none');
      try {
        const post = await insertPost(ctx.services.database.db, {
          title: 'Deep thread',
          slug: 'deep-thread',
        });
        let parent: number | null = null;
        const ids: number[] = [];
        for (let depth = 0; depth < 7; depth++) {
          const stored = await ctx.services.comments.store({
            postId: post,
            parentId: parent,
            content: `level ${depth}`,
            name: 'D',
            email: 'd@example.test',
            user: null,
            websiteId,
            ipHash: 'b'.repeat(64),
            userAgent: BROWSER,
          });
          ids.push(stored.id);
          parent = stored.id;
        }
        const { comments, count } = await ctx.services.comments.thread(post, null);
        assert.equal(count, 7);
        const depths: number[] = [];
        const walk = (nodes: typeof comments) =>
          nodes.forEach((node) => {
            depths.push(node.depth);
            walk(node.children);
          });
        walk(comments);
        assert.deepEqual(depths, [0, 1, 2, 3, 4, 4, 4]);
      } finally {
        await ctx.services.settings.set('comments_moderation', 'anonymous');
      }
    });

    it('comments.like counts once per visitor; another visitor counts again', async () => {
      const first = await send(`/comments/${rootId}/like`, {}, json);
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['x-test-route-name'], 'frontend.comments.like');
      assert.deepEqual(first.json().data, { id: rootId, counted: true, likes: 1 });
      const again = await send(`/comments/${rootId}/like`, {}, json);
      assert.deepEqual(again.json().data, { id: rootId, counted: false, likes: 1 });
      // Issue 21 #10: another User-Agent from the same address is the same voter (it is the client's
      // free choice); another address is another voter.
      const otherBrowser = await send(
        `/comments/${rootId}/like`,
        {},
        { ...json, 'user-agent': 'Firefox/128.0' },
      );
      assert.deepEqual(otherBrowser.json().data, { id: rootId, counted: false, likes: 1 });
      const otherAddress = await send(`/comments/${rootId}/like`, {}, json, '192.0.2.98');
      assert.deepEqual(otherAddress.json().data, { id: rootId, counted: true, likes: 2 });
      const form = await send(`/comments/${rootId}/like`, { locale: 'en' }, {}, '192.0.2.99');
      assert.equal(form.statusCode, 303);
      assert.equal(form.headers.location, `/post/second-post?comment=liked#comment-${rootId}`);
      const stored = await ctx.services.database.db
        .selectFrom('comments')
        .select('likes')
        .where('id', '=', rootId)
        .executeTakeFirstOrThrow();
      assert.equal(stored.likes, 3);
    });

    it('comments.like: concurrent likes of one visitor count once (no read-modify-write race)', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, () => send(`/comments/${replyId}/like`, {}, json, '192.0.2.50')),
      );
      assert.deepEqual(
        results.map((response) => response.statusCode),
        Array(8).fill(200),
      );
      assert.equal(results.filter((response) => response.json().data.counted).length, 1);
      const stored = await ctx.services.database.db
        .selectFrom('comments')
        .select('likes')
        .where('id', '=', replyId)
        .executeTakeFirstOrThrow();
      assert.equal(stored.likes, 1);
    });

    it('comments.like and .report: an unknown, malformed or unpublished comment is 404', async () => {
      const pending = (await send('/comments/store', comment(), json)).json().data.id;
      for (const id of ['999999', 'abc', '99999999999', String(pending)]) {
        const response = await send(`/comments/${id}/like`, {}, json);
        assert.equal(response.statusCode, 404, id);
        assert.equal(response.json().message, 'Comment not found.');
      }
      assert.equal((await send(`/comments/abc/report`, {})).statusCode, 404);
    });

    it('comments.report: once per voter; reports of distinct signed-in users hold the comment, anonymous ones only count (issue 21 #10)', async () => {
      await ctx.services.settings.set('comments_report_threshold', '2');
      try {
        const target = await ctx.services.comments.store({
          postId: otherPostId,
          content: 'Rude',
          user: { id: (await ctx.createUser()).id, name: 'R', email: 'r@example.test' },
          websiteId,
          ipHash: 'c'.repeat(64),
          userAgent: BROWSER,
        });
        const visible = async () =>
          (await ctx.services.comments.thread(otherPostId, null)).comments.some(
            (node) => node.id === target.id,
          );
        const first = await send(`/comments/${target.id}/report`, {}, json);
        assert.equal(first.headers['x-test-route-name'], 'frontend.comments.report');
        assert.deepEqual(first.json().data, { id: target.id, counted: true });
        assert.deepEqual((await send(`/comments/${target.id}/report`, {}, json)).json().data, {
          id: target.id,
          counted: false,
        });
        // Anonymous reports from many addresses (or User-Agents) hide nothing.
        for (const address of ['192.0.2.77', '192.0.2.78', '192.0.2.79']) {
          const form = await send(`/comments/${target.id}/report`, {}, {}, address);
          assert.equal(form.statusCode, 303);
          assert.equal(form.headers.location, `/post/second-post?comment=reported#comment-${target.id}`);
        }
        assert.ok(await visible(), 'anonymous reports do not hold it');
        // Two distinct signed-in users do.
        for (const [i, address] of ['192.0.2.80', '192.0.2.81'].entries()) {
          const reporter = await ctx.createUser();
          const client = new Visitor(ctx, 'site.test', address);
          await client.logIn(reporter.email, reporter.password);
          const token = await client.token('/post/second-post');
          const response = await client.post(
            `/comments/${target.id}/report`,
            { _token: token },
            { ...json, origin: 'http://site.test' },
          );
          assert.deepEqual(response.json().data, { id: target.id, counted: true }, response.body);
          assert.equal(await visible(), i === 0, `after ${i + 1} signed-in report(s)`);
        }
        const stored = await ctx.services.database.db
          .selectFrom('comments')
          .select(['status', 'reports'])
          .where('id', '=', target.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual({ ...stored }, { status: 'pending', reports: 6 });
      } finally {
        await ctx.services.settings.delete('comments_report_threshold');
      }
    });

    it('the comments partial renders the thread, escaped, with like/report/reply forms and the honeypot', async () => {
      await ctx.services.settings.set('comments_moderation', 'none');
      await send(
        '/comments/store',
        comment({
          post_id: String(otherPostId),
          name: '<img src=x onerror=alert(1)>',
          content: 'Hi <em>there</em>',
        }),
        json,
      );
      await ctx.services.settings.set('comments_moderation', 'anonymous');
      const { comments, count } = await ctx.services.comments.thread(otherPostId, null);
      const html = await new ThemeRenderer().render('default', 'partials/comments', {
        post: { id: otherPostId },
        comments: {
          enabled: true,
          action: '/comments/store',
          post_id: otherPostId,
          locale: 'en',
          honeypot: 'website',
          signed_in: false,
          parent_id: '',
          old: { content: '', name: '', email: '' },
          items: comments,
          count,
          size: count,
          notice: 'Thank you, your comment is awaiting moderation.',
        },
        csrf_token: null,
      });
      assert.match(html, new RegExp(`<h2 id="comments-title">Comments \\(${count}\\)</h2>`));
      assert.match(html, /role="status">Thank you, your comment is awaiting moderation\.</);
      assert.match(html, new RegExp(`<li class="comment" id="comment-${rootId}">`));
      // The reply is nested inside its parent's list item.
      const rootStart = html.indexOf(`id="comment-${rootId}"`);
      const replyStart = html.indexOf(`id="comment-${replyId}"`);
      assert.ok(rootStart > 0 && replyStart > rootStart);
      assert.match(html.slice(rootStart, replyStart), /<ol class="comment-children">/);
      assert.match(html, new RegExp(`action="/comments/${rootId}/like"`));
      assert.match(html, new RegExp(`action="/comments/${rootId}/report"`));
      assert.match(html, new RegExp(`name="parent_id" value="${rootId}"`));
      assert.match(
        html,
        /<form method="post" action="\/comments\/store" class="comment-form" id="comment-form">/,
      );
      assert.match(html, new RegExp(`name="post_id" value="${otherPostId}"`));
      assert.match(html, /name="website" value="" tabindex="-1"/);
      assert.match(html, /Hi <em>there<\/em>/);
      assert.ok(!html.includes('<img src=x'), 'author names are escaped');
      assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
    });

    it('the post template gets `comments` from the provider: the thread, the form context, the notice', async () => {
      let provider: TemplateDataProvider | undefined;
      const kit = {
        services: ctx.services,
        page: () => undefined,
        addTemplateData: (template: string, given: TemplateDataProvider) => {
          if (template === 'post') provider = given;
        },
      } as unknown as FrontendKit;
      commentRoutes(kit);
      assert.ok(provider, 'registered for the post template');
      const state = {
        website: await ctx.services.websites.find(websiteId),
        locale: 'fr',
        locales: { defaultLocale: 'en', supported: ['en', 'fr'], localized: true },
        user: null,
        // The theme's words in the page's locale (fr has no catalogue: English).
        t: new ThemeRenderer().translator('default', 'fr'),
      } as unknown as FrontendState;
      const request = { query: { comment: 'pending' }, cookies: {} } as never;
      const data = await provider(request, {} as never, state, { post: { id: otherPostId } });
      const comments = data.comments as Record<string, unknown>;
      assert.equal(comments.post_id, otherPostId);
      assert.equal(comments.locale, 'fr');
      assert.equal(comments.enabled, true);
      assert.equal(comments.honeypot, 'website');
      assert.equal(comments.notice, 'Thank you, your comment is awaiting moderation.');
      const thread = await ctx.services.comments.thread(otherPostId, null);
      assert.deepEqual(comments.items, thread.comments);
      assert.equal(comments.count, thread.count);
      assert.equal('csrf_token' in data, false, 'anonymous pages carry no token (they are cached)');
      const unknownNotice = await provider(
        { query: { comment: '<b>x</b>' }, cookies: {} } as never,
        {} as never,
        state,
        { post: { id: otherPostId } },
      );
      assert.equal((unknownNotice.comments as Record<string, unknown>).notice, null);
      const inherited = await provider(
        { query: { comment: 'constructor' }, cookies: {} } as never,
        {} as never,
        state,
        { post: { id: String(otherPostId) } },
      );
      assert.equal((inherited.comments as Record<string, unknown>).notice, null);
      assert.equal((inherited.comments as Record<string, unknown>).post_id, otherPostId);
      assert.deepEqual(await provider(request, {} as never, state, {}), {}, 'no post, no comments');
    });

    it('the comments partial without comments enabled says so and has no form', async () => {
      const html = await new ThemeRenderer().render('default', 'partials/comments', {
        comments: { enabled: false, post_id: postId, items: [], count: 0, old: {} },
      });
      assert.match(html, /Comments are closed\./);
      assert.match(html, /No comments yet\./);
      assert.ok(!html.includes('<form'));
    });
  });
});
