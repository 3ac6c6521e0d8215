// The first hour of issue 22 in a real Chromium, on a fresh install (the first start's own install
// routine): open the site at the printed address, sign in with the printed credentials, write a post
// in Markdown with the toolbar and the live preview and upload its thumbnail, see it on the home
// page, comment on it while signed out (held, and mailed to the administrator), approve the comment
// from the post page's notice, and see it shown.
import { faceServices } from '../../src/services.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { installIfNeeded } from '../../src/setup/install.js';
import { chromiumAvailable, launchBrowser, listen, screenshot, servedContext } from '../support/browser.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import { skipUnless } from '../support/requirements.js';

describe(
  'the first hour in Chromium: a fresh install, a Markdown post, an approved comment',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let admin: { email: string; password: string };
    let picture: string;
    const mailer = new RecordingMailer();

    before(async () => {
      let port: number;
      ({ ctx, port } = await servedContext());
      ctx.services.mailer = mailer;
      const installation = await installIfNeeded(faceServices(ctx.services));
      assert.ok(installation);
      admin = { email: installation.email, password: installation.password };
      picture = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'folio-e2e-')), 'cover.png');
      await sharp({ create: { width: 120, height: 80, channels: 3, background: '#2a6f4e' } })
        .png()
        .toFile(picture);
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
      fs.rmSync(path.dirname(picture), { recursive: true, force: true });
    });

    it('signs in with the printed credentials, writes in Markdown, sees the post at home, approves a held comment', async () => {
      // The address every start prints: the first website answers on localhost.
      const origin = `http://localhost:${server.port}`;
      const page = await browser.newPage();
      await page.goto(`${origin}/`);
      assert.match(await page.title(), /Folio/);
      await page.goto(`${origin}/user/login?redirect=/post/create`);
      await page.fill('#email', admin.email);
      await page.fill('#password', admin.password);
      await Promise.all([page.waitForURL(`${origin}/post/create`), page.click('main button[type=submit]')]);

      await page.fill('#title', 'Markdown from Chromium');
      await page.fill('#content', 'First paragraph.\n\nSecond one, ');
      // The toolbar wraps the selection (none: a placeholder) in Markdown marks.
      await page.locator('#content').press('End');
      await page.click('[data-editor-toolbar] button:has-text("Bold")');
      await page.locator('[data-editor-preview-body] strong').waitFor();
      assert.equal(await page.locator('[data-editor-preview-body] p').count(), 2);
      assert.equal(await page.locator('[data-editor-preview-body] strong').textContent(), 'bold text');
      await page.setInputFiles('#thumbnail', picture);
      await page.selectOption('#status', 'published');
      await screenshot(page, 'editor-markdown');
      await Promise.all([
        page.waitForURL(/\/post\/edit\/\d+\?saved=1$/),
        page.click('.post-form button[type=submit]'),
      ]);
      const id = Number(/\/post\/edit\/(\d+)/.exec(page.url())?.[1]);
      await page.goto(`${origin}/`);
      assert.match(await page.locator('main').innerText(), /Markdown from Chromium/);
      const post = await ctx.services.posts.findDetail(id);
      assert.equal(post?.content, '<p>First paragraph.</p>\n<p>Second one, <strong>bold text</strong></p>');
      assert.match(String(post?.thumbnail), /\/media\/posts\/.+\.png$/);

      // A visitor, signed out, comments: it is held, and the administrators get a mail.
      const visitor = await (await browser.newContext()).newPage();
      await visitor.goto(`${origin}/post/${post.slug}`);
      await visitor.fill('#comment-content-new', 'Held until approved.');
      await visitor.fill('#comment-name-new', 'Visitor');
      await visitor.fill('#comment-email-new', 'visitor@example.test');
      await Promise.all([
        visitor.waitForURL(/comment=pending/),
        visitor.click('#comment-form button[type=submit]'),
      ]);
      assert.equal(await visitor.locator('#moderation').count(), 0, 'no notice for the visitor');
      await ctx.services.commentNotices.drain();
      assert.ok(
        mailer.sent.some((mail) => mail.to === admin.email && /waits for approval/.test(mail.subject)),
      );

      // The administrator approves it from the post page.
      await page.goto(`${origin}/post/${post.slug}`);
      assert.equal(
        (await page.locator('#moderation-title').textContent())?.trim(),
        '1 comment waiting for approval',
      );
      await screenshot(page, 'post-moderation-notice');
      await Promise.all([
        page.waitForURL(/comment=moderated-approve/),
        page.click('#moderation button[value=approve]'),
      ]);
      assert.equal(await page.locator('#moderation').count(), 0);
      await visitor.reload();
      assert.match(await visitor.locator('#comments').innerText(), /Held until approved\./);
    });
  },
);
