// Issue 41 #4 in a real headless Chromium: the admin panel in the language the account chose (zh_CN),
// else the browser's (zh-TW), with <html lang>; the language menu stores a new choice on the account
// and the panel comes back in it (日本語). axe at 390 and 1280 px, with screenshots.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import {
  chromiumAvailable,
  ensureAdminBuilt,
  launchBrowser,
  listen,
  screenshot,
  serious,
  servedContext,
  signInToAdmin,
} from '../support/browser.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { skipUnless } from '../support/requirements.js';
import { websiteWrites } from '../support/website-writes.js';
import { postWrites } from '../support/post-writes.js';

describe(
  'admin panel in the editor\u2019s language (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let chosen: TestUser;
    let guessed: TestUser;

    before(async () => {
      // Built from these sources (scripts/test.mjs): the panel's catalogues are part of its bundle.
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      const site = await websiteWrites(ctx.services).create({ siteName: 'Desk', domain: 'desk.test' });
      chosen = await ctx.createUser();
      guessed = await ctx.createUser();
      for (const user of [chosen, guessed]) await ctx.services.memberships.grant(user.id, site, 'editor');
      await ctx.services.accounts.chooseLanguage(chosen.id, { language: 'zh_CN' });
      const writer = { userId: chosen.id, isAdmin: false };
      await postWrites(ctx.services).create(
        { title: 'A draft', content: 'x', status: 'draft', websiteIds: [site] },
        writer,
      );
      await postWrites(ctx.services).create(
        { title: 'Published', content: 'x', status: 'published', websiteIds: [site] },
        writer,
      );
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    it('the posts screen in zh_CN, the language the account chose; accessible at 390 and 1280 px', async () => {
      const origin = server.origin('desk.test');
      // An English browser: the account's choice wins.
      const page = await (await browser.newContext({ bypassCSP: true, locale: 'en-GB' })).newPage();
      await signInToAdmin(page, origin, chosen, '/admin/posts');
      await page.locator('table.posts tbody tr').first().waitFor();
      assert.equal(await page.evaluate('document.documentElement.lang'), 'zh-CN');
      await page.getByRole('heading', { name: '文章', exact: true }).waitFor();
      await page.getByRole('button', { name: /^草稿/ }).waitFor();
      await page.getByRole('button', { name: '搜索', exact: true }).waitFor();
      await page.getByRole('link', { name: '评论', exact: true }).waitFor();
      const body = (await page.locator('main').textContent()) ?? '';
      assert.doesNotMatch(body, /Drafts|Search posts|Write a post/);
      assert.deepEqual(await serious(page), [], 'axe at 1280 px');
      await screenshot(page, 'admin-posts-zh-CN-desktop');
      await page.setViewportSize({ width: 390, height: 844 });
      assert.deepEqual(await serious(page), [], 'axe at 390 px');
      await screenshot(page, 'admin-posts-zh-CN-phone');
    });

    it('an account that chose nothing follows the browser (zh-TW); the language menu stores 日本語', async () => {
      const origin = server.origin('desk.test');
      const page = await (await browser.newContext({ bypassCSP: true, locale: 'zh-TW' })).newPage();
      await signInToAdmin(page, origin, guessed, '/admin/posts');
      await page.locator('table.posts tbody tr').first().waitFor();
      assert.equal(await page.evaluate('document.documentElement.lang'), 'zh-TW');
      await page.getByRole('link', { name: '留言', exact: true }).waitFor();
      await page.getByRole('button', { name: '搜尋', exact: true }).waitFor();

      await page.getByRole('combobox', { name: '介面語言' }).selectOption('ja');
      await page.getByRole('heading', { name: '投稿', exact: true }).waitFor();
      assert.equal(await page.evaluate('document.documentElement.lang'), 'ja');
      assert.equal((await ctx.services.users.findById(guessed.id))?.locale, 'ja', 'stored on the account');
    });
  },
);
