// The API v2 reference page (issue 23 #4) in a real headless Chromium: served by Folio from the
// Scalar package (no CDN), it loads the OpenAPI document and shows the operations, with nothing
// refused by its Content-Security-Policy and no request leaving this server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumAvailable, launchBrowser, listen, screenshot, servedContext } from '../support/browser.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';
import { skipUnless } from '../support/requirements.js';
import { websiteWrites } from '../support/website-writes.js';

describe(
  'API v2 reference page (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;

    before(async () => {
      let port: number;
      ({ ctx, port } = await servedContext());
      await websiteWrites(ctx.services).create({ siteName: 'Docs', domain: 'docs.test' });
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    it('renders every operation from /api/v2/openapi.json, at desktop and phone width', async () => {
      const page = await (await browser.newContext()).newPage();
      const problems: string[] = [];
      const foreign: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('request', (request) => {
        if (!request.url().startsWith(server.origin('docs.test')) && !request.url().startsWith('data:')) {
          foreign.push(request.url());
        }
      });
      const response = await page.goto(`${server.origin('docs.test')}/api/v2/docs`);
      assert.equal(response?.status(), 200);
      await page.getByText('List posts').first().waitFor({ timeout: 20_000 });
      for (const operation of ['Create a post', 'Change a post', 'Delete a post']) {
        assert.ok((await page.getByText(operation).count()) > 0, `${operation} is shown`);
      }
      await screenshot(page, 'api-v2-reference-desktop');
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, 'api-v2-reference-phone');
      assert.deepEqual(foreign, [], 'no request leaves this server');
      assert.deepEqual(
        problems.filter((text) => /Content Security Policy|Refused/i.test(text)),
        [],
        'nothing is refused by the page\u2019s policy',
      );
    });
  },
);
