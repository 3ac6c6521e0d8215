// The review flow of issue 20 in a real headless Chromium: a contributor writes a post on the public
// site and can only save it as a draft (publishing is refused), nobody else sees it, an editor of the
// website opens and publishes it, and then every visitor reads it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { INSTALLED_SETTING } from '../../src/domain/settings.js';
import { chromiumAvailable, launchBrowser, listen, screenshot, servedContext } from '../support/browser.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { skipUnless } from '../support/requirements.js';

describe(
  'review: a contributor submits, an editor publishes (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let port: number;
    let browser: Browser;
    let server: RunningServer;
    let contributor: TestUser;
    let editor: TestUser;

    before(async () => {
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      const website = await ctx.services.websites.create({ siteName: 'Review Site', domain: 'review.test' });
      contributor = await ctx.createUser();
      editor = await ctx.createUser();
      await ctx.services.memberships.grant(contributor.id, website, 'contributor');
      await ctx.services.memberships.grant(editor.id, website, 'editor');
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    async function signedIn(user: TestUser): Promise<Page> {
      const page = await (await browser.newContext()).newPage();
      const origin = server.origin('review.test');
      await page.goto(`${origin}/user/login?redirect=/post/create`);
      await page.fill('#email', user.email);
      await page.fill('#password', user.password);
      await Promise.all([page.waitForURL(`${origin}/post/create`), page.click('main button[type=submit]')]);
      return page;
    }

    it('the post waits as a draft until the editor publishes it', async () => {
      const origin = server.origin('review.test');
      const writer = await signedIn(contributor);
      await writer.fill('#title', 'Submitted for review');
      await writer.fill('#content', '<p>Please check this.</p>');
      // Publishing is not the contributor's to do: the form offers drafts only, and a forged choice
      // is refused by the server.
      const offered = await writer.$$eval('#status option', (options) =>
        options.map((option) => (option as unknown as { value: string }).value),
      );
      assert.deepEqual(offered, ['draft']);
      await writer.evaluate(`(() => {
        const select = document.querySelector('#status');
        select.add(new Option('published', 'published'));
        select.value = 'published';
      })()`);
      const refused = await Promise.all([
        writer.waitForResponse((response) => response.request().method() === 'POST'),
        writer.click('.post-form button[type=submit]'),
      ]);
      assert.equal(refused[0].status(), 403);
      // A draft is.
      await writer.goto(`${origin}/post/create`);
      await writer.fill('#title', 'Submitted for review');
      await writer.fill('#content', '<p>Please check this.</p>');
      await writer.selectOption('#status', 'draft');
      await Promise.all([
        writer.waitForURL(/\/post\/edit\/\d+\?saved=1$/),
        writer.click('.post-form button[type=submit]'),
      ]);
      assert.equal(await writer.locator('[data-post-status]').textContent(), 'draft');
      await screenshot(writer, 'review-contributor-draft');
      const id = Number(/\/post\/edit\/(\d+)/.exec(writer.url())?.[1]);
      const post = (await ctx.services.posts.findDetail(id))!;

      const reader = await (await browser.newContext()).newPage();
      assert.equal((await reader.goto(`${origin}/post/${post.slug}`))?.status(), 404, 'not public yet');

      const reviewer = await signedIn(editor);
      await reviewer.goto(`${origin}/post/edit/${id}`);
      assert.equal(await reviewer.inputValue('#title'), 'Submitted for review');
      await reviewer.selectOption('#status', 'published');
      await Promise.all([
        reviewer.waitForURL(/\/post\/edit\/\d+\?saved=1$/),
        reviewer.click('.post-form button[type=submit]'),
      ]);
      assert.equal(await reviewer.locator('[data-post-status]').textContent(), 'published');
      await screenshot(reviewer, 'review-editor-published');

      const published = await reader.goto(`${origin}/post/${post.slug}`);
      assert.equal(published?.status(), 200);
      assert.equal(await reader.locator('h1').first().textContent(), 'Submitted for review');
      assert.equal(
        (await ctx.services.posts.findDetail(id))?.author?.id,
        contributor.id,
        'still the contributor\u2019s post',
      );
    });
  },
);
