// The public site in a real headless Chromium: the home page of a website, on its own domain.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { chromiumAvailable, launchBrowser, listen, screenshot, servedContext } from '../support/browser.js';
import { skipUnless } from '../support/requirements.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe(
  'public site in Chromium',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let port: number;
    let browser: Browser;
    let server: RunningServer;

    before(async () => {
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      await websiteWrites(ctx.services).create({ siteName: 'Browser Site', domain: 'browser.test' });
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    it('shows the home page of the website its domain names, styled by the theme', async () => {
      const page = await browser.newPage();
      const response = await page.goto(`${server.origin('browser.test')}/`);
      assert.equal(response?.status(), 200);
      assert.equal(await page.locator('h1').first().textContent(), 'Browser Site');
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      // The stylesheet loaded: the skip link is moved off-screen by it.
      const left = await page
        .locator('a.skip')
        .evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).left);
      assert.equal(left, '-999px');
      await screenshot(page, 'shell-home');
      await page.close();
    });
  },
);
