// The accounts and authoring pages in a real headless Chromium: a visitor registers (and opens the
// confirmation link mailed to them), logs out, logs in (through the JSON login of the page's script),
// writes a post, comments on it, and logs out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { chromiumAvailable, launchBrowser, listen, screenshot, servedContext } from '../support/browser.js';
import { skipUnless } from '../support/requirements.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import { websiteWrites } from '../support/website-writes.js';

describe(
  'accounts and authoring in Chromium',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let port: number;
    let browser: Browser;
    let server: RunningServer;
    const mailer = new RecordingMailer();

    before(async () => {
      ({ ctx, port } = await servedContext());
      ctx.services.mailer = mailer;
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      // New accounts are readers by default (issue 20); this site lets them publish.
      await ctx.services.settings.set('registration_role', 'author');
      await websiteWrites(ctx.services).create({ siteName: 'Browser Site', domain: 'browser.test' });
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    it('registers, logs out, logs in, writes a post, comments on it, and logs out', async () => {
      const page = await browser.newPage();
      const origin = server.origin('browser.test');

      await page.goto(`${origin}/user/register`);
      await page.fill('#name', 'Chromium Writer');
      await page.fill('#email', 'writer@example.test');
      await page.fill('#password', 'a long password');
      await page.fill('#password_confirmation', 'a long password');
      await screenshot(page, 'accounts-register');
      await Promise.all([
        page.waitForURL(`${origin}/user/register/submit`),
        page.click('main button[type=submit]'),
      ]);
      assert.equal(await page.locator('main h1').textContent(), 'Check your email');
      assert.equal(await page.locator('[data-user-name]').count(), 0, 'not signed in before the link');

      // The link from the mail, opened in the browser, creates the account and signs in.
      await ctx.services.accounts.drain();
      const mail = mailer.sent.find((sent) => sent.to === 'writer@example.test');
      assert.ok(mail, 'a confirmation mail');
      const link = /https?:\/\/\S+\/user\/register\/confirm\/[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0];
      assert.ok(link, mail.text);
      assert.equal(
        new URL(link).origin,
        origin,
        'the link names the primary domain and the port Folio is served on',
      );
      await page.goto(link);
      await screenshot(page, 'accounts-confirm');
      await Promise.all([
        page.waitForURL(`${origin}/user/profile?welcome=1`),
        page.click('main button[type=submit]'),
      ]);
      assert.equal(page.url(), `${origin}/user/profile?welcome=1`);
      assert.equal(await page.locator('[data-user-name]').textContent(), 'Chromium Writer');
      assert.equal(await page.inputValue('#username'), 'chromium-writer');

      await Promise.all([page.waitForURL(`${origin}/`), page.click('.account-nav button')]);
      assert.equal(await page.locator('[data-user-name]').count(), 0);

      // A wrong password first: the page's script shows the JSON login's message without a reload.
      await page.goto(`${origin}/user/login?redirect=/post/create`);
      await page.fill('#email', 'writer@example.test');
      await page.fill('#password', 'not the password');
      await page.click('main button[type=submit]');
      await page.locator('[data-login-message]:not([hidden])').waitFor();
      assert.equal(
        await page.locator('[data-login-message]').textContent(),
        'These credentials do not match our records.',
      );
      await page.fill('#password', 'a long password');
      await Promise.all([page.waitForURL(`${origin}/post/create`), page.click('main button[type=submit]')]);

      await page.fill('#title', 'Written in Chromium');
      await page.fill('#content', '<p>Hello from a <em>real</em> browser.</p><script>alert(1)</script>');
      await page.fill('#tags', 'browser, e2e');
      await page.selectOption('#status', 'published');
      await screenshot(page, 'accounts-write-post');
      await Promise.all([
        page.waitForURL(/\/post\/edit\/\d+\?saved=1$/),
        page.click('.post-form button[type=submit]'),
      ]);
      assert.equal(await page.locator('.notice').textContent(), 'Your post has been saved.');
      assert.equal(await page.locator('[data-post-status]').textContent(), 'published');
      const id = Number(/\/post\/edit\/(\d+)/.exec(page.url())?.[1]);
      const post = await ctx.services.posts.findDetail(id);
      assert.equal(post?.title, 'Written in Chromium');
      assert.equal(post?.content, '<p>Hello from a <em>real</em> browser.</p>');
      assert.equal(post?.author?.name, 'Chromium Writer');

      // Comment on it from its public page (a signed-in author's comment is published at once).
      await page.goto(`${origin}/post/${post?.slug}`);
      assert.equal(await page.locator('h1').first().textContent(), 'Written in Chromium');
      await page.fill('#comment-content-new', 'Nice <b>post</b>!<img src=x onerror="window.__xss=1">');
      await Promise.all([
        page.waitForURL(/\?comment=approved#comment-\d+$/),
        page.click('#comment-form button[type=submit]'),
      ]);
      const comment = page.locator('.comment-list .comment').first();
      assert.equal(await comment.locator('.comment-author').textContent(), 'Chromium Writer');
      assert.equal(await comment.locator('.comment-body b').textContent(), 'post');
      assert.equal(await comment.locator('.comment-body img').count(), 0);
      assert.equal(await page.evaluate(() => (globalThis as { __xss?: number }).__xss), undefined);
      await screenshot(page, 'accounts-commented-post');

      await Promise.all([page.waitForURL(`${origin}/`), page.click('.account-nav button')]);
      assert.equal(await page.locator('[data-user-name]').count(), 0);
      const cookies = await page.context().cookies();
      assert.equal(
        cookies.find((cookie) => cookie.name === 'folio_session'),
        undefined,
      );
      await page.goto(`${origin}/post/create`);
      assert.match(page.url(), /\/user\/login\?redirect=%2Fpost%2Fcreate$/);
      await page.close();
    });
  },
);
