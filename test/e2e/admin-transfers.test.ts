// The admin panel's Import and export screen (issue 39), in a real headless Chromium over API v2: a
// site admin exports their website, follows its progress and downloads the archive (which holds the
// website's posts); an administrator imports a WordPress export, a dry run first (its report, nothing
// written), then for real (the posts exist). axe-core at 1280 and 390 px, with screenshots.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator } from 'playwright-core';
import { readArchive } from '../../src/domain/porting/archive-reader.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import {
  auditScreen,
  chromiumAvailable,
  ensureAdminBuilt,
  launchBrowser,
  listen,
  servedContext,
  signInToAdmin,
} from '../support/browser.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { skipUnless } from '../support/requirements.js';
import { websiteWrites } from '../support/website-writes.js';

const HOST = 'admin-transfers.test';
const WXR = path.resolve('test/fixtures/wordpress/wxr-1.2.xml');

describe(
  'admin panel: import and export (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let admin: TestUser;
    let siteAdmin: TestUser;
    let origin: string;

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      const site = await websiteWrites(ctx.services).create({ siteName: 'Moving', domain: HOST });
      admin = await ctx.createUser({ admin: true });
      siteAdmin = await ctx.createUser();
      await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
      const created = await ctx.request({
        method: 'POST',
        url: '/api/v2/posts',
        headers: { host: HOST, authorization: `Bearer ${siteAdmin.token}` },
        payload: { title: 'Packed for the move', content: '<p>x</p>', status: 'published' },
      });
      assert.equal(created.statusCode, 201, created.body);
      server = await listen(ctx, port);
      browser = await launchBrowser();
      origin = server.origin(HOST);
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    /** Runs the queue (this test server has no worker running) until `shown` is visible. */
    async function work(shown: Locator): Promise<void> {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        await ctx.services.runner.settle();
        await ctx.services.jobs.runDue();
        if (await shown.isVisible()) return;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await shown.waitFor({ timeout: 1 });
    }

    it('a site admin exports their website, sees it done and downloads the archive', async () => {
      const page = await (await browser.newContext({ bypassCSP: true, acceptDownloads: true })).newPage();
      await signInToAdmin(page, origin, siteAdmin, '/admin/transfers');
      await page.getByRole('heading', { name: 'Import and export', level: 1 }).waitFor();
      // Importing and the whole installation are the administrators'.
      assert.equal(await page.getByRole('heading', { name: 'Import', exact: true }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Export the whole installation' }).count(), 0);
      await page.getByRole('button', { name: 'Export Moving' }).click();
      await page.locator('[data-transfer]').waitFor();
      const link = page.getByRole('link', { name: 'Download the archive' });
      await work(link);
      assert.equal(await page.locator('[data-transfer]').getAttribute('data-status'), 'done');
      await auditScreen(page, 'transfers-export');
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      assert.match(download.suggestedFilename(), /^folio-admin-transfers\.test-.+\.tar\.gz$/);
      const file = await download.path();
      const titles: unknown[] = [];
      for await (const entry of readArchive(file, () => undefined)) {
        if (entry.type === 'records' && entry.kind === 'posts')
          titles.push(...entry.records.map((r) => r.title));
        if (entry.type === 'media') entry.body.resume();
      }
      assert.deepEqual(titles, ['Packed for the move']);
    });

    it('an administrator imports a WordPress export: a dry run and its report first, then for real', async () => {
      const page = await (await browser.newContext({ bypassCSP: true })).newPage();
      await signInToAdmin(page, origin, admin, '/admin/transfers');
      await page.getByRole('heading', { name: 'Import', exact: true }).waitFor();
      const real = page.getByRole('button', { name: 'Import for real' });
      assert.equal(await real.isDisabled(), true, 'no real import before a dry run');
      await page.getByLabel('File to import').setInputFiles(WXR);
      await page.getByLabel('This website (Moving)').check();
      await page.getByLabel('Leave a WordPress site’s images at their old addresses').check();
      await page.getByRole('button', { name: 'Dry run' }).click();
      const dryReport = page.getByText(/^Dry run: nothing was written\. A real import would create: .*posts/);
      await work(dryReport);
      const titles = ['First roses of the year', 'Planting plans', 'Roses again'];
      const count = async () =>
        (
          await ctx.services.database.db
            .selectFrom('posts')
            .select('id')
            .where('title', 'in', titles)
            .execute()
        ).length;
      assert.equal(await count(), 0);
      await auditScreen(page, 'transfers-import');
      // The authors it brings (accounts without a password) are invited to choose one.
      await page
        .getByLabel('Mail the authors it brings (accounts without a password) a week-long link to choose one')
        .check();
      await real.click();
      await work(page.getByText(/^Imported: .*posts/));
      assert.equal(await count(), 3);
      await page.getByText('Invited 2 of 2 authors to choose a password.').waitFor();
    });
  },
);
