// The admin panel's Webhooks screen and System → Jobs (issue 38), in a real headless Chromium over API
// v2: a site admin adds a webhook to their website (the secret shown once), sends a test event that a
// local receiver gets, reads the delivery log; an administrator sees the failed job of a webhook that
// answers 500 under System → Jobs and runs it again. axe-core at 1280 and 390 px.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { WEBHOOK_ALLOWED_HOSTS_SETTING } from '../../src/domain/webhooks/index.js';
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

const HOST = 'admin-hooks.test';

describe(
  'admin panel: webhooks and jobs (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let admin: TestUser;
    let siteAdmin: TestUser;
    let origin: string;
    let status = 200;
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(status).end(status === 200 ? 'thanks' : 'broken');
      });
    });
    let hookUrl = '';

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      await ctx.services.settings.set(WEBHOOK_ALLOWED_HOSTS_SETTING, '127.0.0.1');
      const site = await websiteWrites(ctx.services).create({ siteName: 'Hooks', domain: HOST });
      admin = await ctx.createUser({ admin: true });
      siteAdmin = await ctx.createUser();
      await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
      server = await listen(ctx, port);
      browser = await launchBrowser();
      origin = server.origin(HOST);
    });
    after(async () => {
      await browser?.close();
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
      await ctx.close();
    });

    it('a site admin adds a webhook, sees its secret once, tests it and reads the log', async () => {
      const page = await (await browser.newContext({ bypassCSP: true })).newPage();
      page.on('dialog', (dialog) => void dialog.accept());
      await signInToAdmin(page, origin, siteAdmin, '/admin/webhooks');
      await page.getByRole('heading', { name: 'Webhooks of Hooks' }).waitFor();
      assert.equal(await page.getByRole('heading', { name: /whole installation/ }).count(), 0);
      await page.getByLabel('URL').fill(hookUrl);
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      const secret = await page.locator('[data-secret]').textContent();
      assert.match(secret ?? '', /^whsec_/);
      await page.getByText(hookUrl).waitFor();
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.getByText('The test event was received (HTTP 200).').waitFor();
      assert.equal(JSON.parse(received[0]!).event, 'webhook.test');
      await page.getByRole('button', { name: 'Delivery log' }).click();
      await page.locator('[data-delivery]').first().waitFor();
      assert.match((await page.locator('[data-delivery]').first().textContent()) ?? '', /webhook\.test.*200/);
      await auditScreen(page, 'webhooks');
      await page.reload();
      await page.getByText(hookUrl).waitFor();
      assert.equal(await page.locator('[data-secret]').count(), 0, 'the secret is not shown again');
    });

    it('an administrator sees a failed delivery job under System → Jobs and runs it again', async () => {
      status = 500;
      const created = await ctx.request({
        method: 'POST',
        url: '/api/v2/posts',
        headers: { host: HOST, authorization: `Bearer ${siteAdmin.token}` },
        payload: { title: 'Hooked post', content: '<p>x</p>', status: 'published' },
      });
      assert.equal(created.statusCode, 201, created.body);
      await ctx.services.runner.settle();
      await ctx.services.jobs.runDue();
      const page = await (await browser.newContext({ bypassCSP: true })).newPage();
      await signInToAdmin(page, origin, admin, '/admin/system');
      await page.getByRole('heading', { name: 'Jobs' }).waitFor();
      await page.getByLabel('Status').selectOption('queued');
      const row = page.locator('[data-job]').first();
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /webhook\.deliver.*Queued.*HTTP 500/);
      status = 200;
      await row.getByRole('button', { name: 'Run again' }).click();
      await page.getByText(/is queued again/).waitFor();
      await ctx.services.jobs.runDue();
      assert.equal(JSON.parse(received.at(-1)!).event, 'post.published');
      await auditScreen(page, 'jobs');
    });
  },
);
