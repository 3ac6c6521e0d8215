// The admin panel's Website, People and Settings screens for an administrator (issue 25 #6–8), in a
// real headless Chromium over API v2: theme, favicon and home cover from the library and page code
// saved; a domain checked; a website created and deleted after its counts and its typed domain; an
// account disabled, sent a reset link, its key revoked; the audit filtered by action; settings saved
// by section, an API switch and auth mode toggled, a test mail sent. The axe-core audit at 1280 and
// 390 px, screenshots.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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
import { RecordingMailer } from '../support/mail.js';
import { skipUnless } from '../support/requirements.js';
import { websiteWrites } from '../support/website-writes.js';

const HOST = 'admin-sites.test';

describe(
  'admin panel: websites, people and settings for an administrator (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let admin: TestUser;
    let siteId: number;
    let page: Page;
    let origin: string;
    const mailer = new RecordingMailer();

    const call = async (method: string, url: string, payload?: unknown, as: TestUser = admin) => {
      const response = await ctx.request({
        method,
        url,
        headers: { host: HOST, authorization: `Bearer ${as.token}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { status: response.statusCode, body: response.body ? response.json() : null };
    };

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      ctx.services.mailer = mailer;
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      siteId = await websiteWrites(ctx.services).create({ siteName: 'Harbour', domain: HOST });
      admin = await ctx.createUser({ admin: true });
      server = await listen(ctx, port);
      browser = await launchBrowser();
      origin = server.origin(HOST);
      page = await (await browser.newContext({ bypassCSP: true })).newPage();
      page.on('dialog', (dialog) => void dialog.accept());
      await signInToAdmin(page, origin, admin);
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    it('website: theme, favicon and home cover from the library, page code; a domain checked; a website created and deleted', async () => {
      const db = ctx.services.database.db;
      const now = new Date().toISOString();
      const icon = await db
        .insertInto('media')
        .values({
          path: 'icons/harbour.png',
          url: '/media/icons/harbour.png',
          mime_type: 'image/png',
          size: 1,
          width: 32,
          height: 32,
          source_url: null,
          sha256: 'x',
          created_at: now,
          file_name: 'harbour.png',
          alt: null,
          caption: null,
          variants: null,
          updated_at: now,
          user_id: admin.id,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('website_bindings')
        .values({ website_id: siteId, model_type: 'media', model_id: icon.id })
        .execute();

      await page.getByRole('link', { name: 'Website', exact: true }).click();
      await page.waitForURL(`${origin}/admin/website`);
      await page.locator('#website-theme option[value="default"]').waitFor({ state: 'attached' });
      await page
        .locator('#website-site_favicon option[value="/media/icons/harbour.png"]')
        .waitFor({ state: 'attached' });
      await page.selectOption('#website-site_favicon', '/media/icons/harbour.png');
      // The home cover (issue 36 #2) is chosen the same way, with a preview.
      await page.selectOption('#website-site_cover', '/media/icons/harbour.png');
      // (The row has no file: the preview's address is what is checked.)
      const preview = page.locator('#website-site_cover ~ img.preview');
      await preview.waitFor({ state: 'attached' });
      assert.equal(await preview.getAttribute('src'), '/media/icons/harbour.png');
      await page.fill('#website-head_code', '<meta name="harbour" content="1">');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const stored = (await call('GET', `/api/v2/websites/${siteId}`)).body.data;
      assert.equal(stored.fields.site_favicon, '/media/icons/harbour.png');
      assert.equal(stored.fields.site_cover, '/media/icons/harbour.png');
      const home = await ctx.request({ method: 'GET', url: '/', headers: { host: HOST } });
      assert.match(home.body, /<img class="hero-image" src="\/media\/icons\/harbour.png"/);
      assert.equal(stored.fields.head_code, '<meta name="harbour" content="1">');
      assert.equal(stored.fields.theme, 'default');
      const favicon = await ctx.request({ method: 'GET', url: '/favicon.ico', headers: { host: HOST } });
      assert.equal(favicon.statusCode, 302);
      assert.equal(favicon.headers.location, '/media/icons/harbour.png');

      // The domain check says in words where the domain leads.
      ctx.services.domainChecker.resolve = async () => ['127.0.0.1'];
      await page.getByRole('button', { name: `Check whether ${HOST} leads to this server` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${HOST} resolves here (127.0.0.1).` })
        .waitFor();
      ctx.services.domainChecker.resolve = async () => {
        throw new Error('ENOTFOUND');
      };
      await page.getByRole('button', { name: `Check whether ${HOST} leads to this server` }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: `${HOST} does not resolve` })
        .waitFor();

      // A new website, then deleted: the counts first, the button only once its domain is typed.
      await page.fill('#new-website-name', 'Pier');
      await page.fill('#new-website-domain', 'pier.test');
      await page.getByRole('button', { name: 'Create website' }).click();
      await page.getByRole('status').filter({ hasText: 'Created “Pier” at pier.test.' }).waitFor();
      const pier = (await call('GET', '/api/v2/websites?q=pier')).body.data[0];
      assert.equal(pier.domain, 'pier.test');
      await auditScreen(page, 'website-admin');

      await page.getByRole('button', { name: 'Delete the website pier.test' }).click();
      await page.locator('[data-usage="domains"]').filter({ hasText: '1 domains' }).waitFor();
      const confirm = page.getByRole('button', { name: 'Delete this website' });
      assert.equal(await confirm.isDisabled(), true);
      await page.fill('#delete-confirm', 'pier.tes');
      assert.equal(await confirm.isDisabled(), true);
      await page.fill('#delete-confirm', 'pier.test');
      await confirm.click();
      await page.getByRole('status').filter({ hasText: 'Deleted pier.test.' }).waitFor();
      assert.equal((await call('GET', `/api/v2/websites/${pier.id}`)).status, 404);
    });

    it('people: an account disabled and enabled, sent a reset link, its key revoked; the audit filtered by action', async () => {
      const user = await ctx.createUser();
      await ctx.services.memberships.grant(user.id, siteId, 'author');
      const key = (await call('POST', '/api/v2/keys', { name: 'deploy' }, user)).body.data;
      await page.getByRole('link', { name: 'People', exact: true }).click();
      await page.waitForURL(`${origin}/admin/people`);
      await page.fill('#accounts-search', user.email);
      await page.locator('form.search button').click();
      const row = page.locator(`tr[data-account="${user.id}"]`);
      await row.waitFor();
      const name = (await row.locator('td').first().textContent()) ?? '';

      await page.getByRole('button', { name: `Disable ${name}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${name} is disabled` })
        .waitFor();
      assert.equal((await call('GET', '/api/v2/me', undefined, user)).status, 401);
      await page.getByRole('button', { name: `Enable ${name}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${name} can sign in again.` })
        .waitFor();
      assert.equal((await call('GET', '/api/v2/me', undefined, user)).status, 200);

      await page.getByRole('button', { name: `Send reset link to ${name}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `A one-time reset link went to ${user.email}.` })
        .waitFor();
      assert.match(mailer.sent.at(-1)!.text, /\/user\/password\/reset\//);

      await page.getByRole('button', { name: `API keys of ${name}` }).click();
      await page.getByRole('button', { name: 'Revoke the key deploy' }).click();
      await page.getByRole('status').filter({ hasText: 'Revoked the key deploy' }).waitFor();
      await page.locator(`li[data-key="${key.id}"]`).filter({ hasText: 'revoked' }).waitFor();
      const refused = await ctx.request({
        method: 'GET',
        url: '/api/v2/me',
        headers: { host: HOST, authorization: `Bearer ${key.key}` },
      });
      assert.equal(refused.statusCode, 401);

      await page.fill('#audit-action', 'user.');
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page.locator('table.audit code').filter({ hasText: 'user.enable' }).first().waitFor();
      const actions = await page.locator('table.audit td code').allTextContents();
      assert.ok(actions.length > 0 && actions.every((action) => action.startsWith('user.')), actions.join());
      await auditScreen(page, 'people-admin');
    });

    it('settings: sections saved, an API switch and auth mode toggled, a test mail sent, updates idle', async () => {
      await page.goto(`${origin}/admin/system`);
      await page.getByRole('heading', { name: 'General' }).waitFor();
      await page.fill('#setting-field-frontend_posts_per_page', '7');
      await page.getByRole('button', { name: 'Save General' }).click();
      await page
        .locator('form[aria-labelledby="settings-general-title"] [role=status]')
        .filter({ hasText: 'saved' })
        .waitFor();
      assert.equal(await ctx.services.settings.get('frontend_posts_per_page'), '7');

      const row = page.locator('tr[data-switch="svc_api_posts_index"]');
      await row.getByRole('checkbox').check();
      await row.getByRole('combobox').selectOption('basic');
      for (let tries = 0; tries < 100; tries++) {
        if ((await ctx.services.settings.get('svc_api_posts_index_should_auth')) === 'basic') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(await ctx.services.settings.get('svc_api_posts_index'), '1');
      assert.equal(await ctx.services.settings.get('svc_api_posts_index_should_auth'), 'basic');

      const sent = mailer.sent.length;
      await page.getByRole('button', { name: 'Send a test mail' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Written to the log for ${admin.email}` })
        .waitFor();
      assert.equal(mailer.sent.length, sent + 1);
      assert.equal(mailer.sent.at(-1)!.to, admin.email);
      await page.getByRole('link', { name: 'Open the moderation settings' }).waitFor();
      await page.getByText('No update is running.').waitFor();
      await auditScreen(page, 'settings-admin');
    });
  },
);
