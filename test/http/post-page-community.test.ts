// The post page with its community parts, through real HTTP: the comment thread and form under the
// post, the view beacon, and the full-page cache kept right when a comment is published.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

describe('post page with comments and the click beacon', () => {
  let ctx: TestContext;
  let postId: number;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.setMany({
      [INSTALLED_SETTING]: new Date().toISOString(),
      comments_moderation: 'none',
    });
    const websiteId = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    await websiteWrites(ctx.services).update(websiteId, { enabled_page_cache: true });
    postId = await insertPost(ctx.services.database.db, {
      title: 'Commented post',
      slug: 'commented-post',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
  });
  after(() => ctx.close());

  const page = () =>
    ctx.request({ method: 'GET', url: '/post/commented-post', headers: { host: 'site.test' } });

  it('shows the thread and the comment form (with its honeypot) under the post, and the view beacon', async () => {
    const response = await page();
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /<section id="comments"/);
    assert.match(response.body, /No comments yet\./);
    assert.match(response.body, new RegExp(`<input type="hidden" name="post_id" value="${postId}">`));
    assert.match(response.body, /name="website" value="" tabindex="-1"/);
    assert.match(
      response.body,
      new RegExp(`clicks\\.js\\?v=[a-f0-9]+" defer data-type="post" data-id="${postId}" data-kind="view"`),
    );
    assert.equal(response.headers['set-cookie'], undefined, 'an anonymous post page sets no cookie');
  });

  it('is cached for anonymous readers, and a published comment flushes exactly that page', async () => {
    await page(); // stored
    const cached = await page();
    assert.equal(cached.headers['x-folio-cache'], 'hit');

    const stored = await ctx.request({
      method: 'POST',
      url: '/comments/store',
      headers: {
        host: 'site.test',
        origin: 'http://site.test',
        'user-agent': BROWSER,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({
        post_id: String(postId),
        content: 'First! <script>alert(1)</script>',
        name: 'Reader <b>One</b>',
        email: 'reader@example.test',
      }).toString(),
    });
    assert.equal(stored.statusCode, 303);
    assert.match(String(stored.headers.location), /^\/post\/commented-post\?comment=approved#comment-\d+$/);

    const fresh = await page();
    assert.equal(fresh.headers['x-folio-cache'], 'miss');
    assert.match(fresh.body, /First!/);
    assert.doesNotMatch(fresh.body, /<script>alert\(1\)<\/script>/);
    assert.match(fresh.body, /Reader &lt;b&gt;One&lt;\/b&gt;/);
    assert.match(fresh.body, /Comments \(1\)/);
  });

  it('issue 22: a refused comment shows the form again with each message tied to its input', async () => {
    const response = await ctx.request({
      method: 'POST',
      url: '/comments/store',
      headers: {
        host: 'site.test',
        origin: 'http://site.test',
        'user-agent': BROWSER,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({
        post_id: String(postId),
        content: 'Kept text',
        name: '',
        email: 'not-an-email',
      }).toString(),
    });
    assert.equal(response.statusCode, 422);
    const body = response.body;
    assert.match(
      body,
      /<input id="comment-name-new" [^>]*aria-invalid="true" aria-describedby="comment-name-new-errors">\s*<ul class="field-errors" id="comment-name-new-errors"><li>The name field is required\.<\/li><\/ul>/,
    );
    assert.match(
      body,
      /<input id="comment-email-new" [^>]*value="not-an-email" aria-invalid="true" aria-describedby="comment-email-new-errors">\s*<ul class="field-errors" id="comment-email-new-errors"><li>The email must be a valid email address\.<\/li><\/ul>/,
    );
    // The content was fine: kept, and not marked.
    assert.match(
      body,
      /<textarea id="comment-content-new" name="content" rows="5" maxlength="5000" required>Kept text<\/textarea>/,
    );
    assert.doesNotMatch(body, /comment-content-new-errors/);
    // The form under the post marks nothing.
    assert.doesNotMatch((await page()).body, /aria-invalid/);
  });
});
