// Library images in the admin panel on every domain of every website (issue 34 #17), in a real headless
// Chromium with the panel's Content-Security-Policy enforced. The media library once built its files'
// URLs on APP_URL (here `http://folio.test:PORT`, as `http://127.0.0.1:PORT` by default); a panel opened
// on a website's domain or alias took images only from its own origin or https, so every library image
// was broken there. An image uploaded on one domain shows in the library grid, the detail, the post
// editor's thumbnail and text on the website's primary domain, its alias and a second website; what is
// stored is its site-relative address (issue 36 #5).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import {
  auditScreen,
  chromiumAvailable,
  ensureAdminBuilt,
  launchBrowser,
  listen,
  screenshot,
  servedContext,
  signInToAdmin,
} from '../support/browser.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { skipUnless } from '../support/requirements.js';
import { websiteWrites } from '../support/website-writes.js';

const PRIMARY = 'media-one.test';
const ALIAS = 'media-alias.test';
const SECOND = 'media-two.test';

describe(
  'admin panel: library images on every domain (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let editor: TestUser;
    let folder: string;
    let file: string;

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      const first = await websiteWrites(ctx.services).create({ siteName: 'Media one', domain: PRIMARY });
      await websiteWrites(ctx.services).addDomain(first, ALIAS);
      const second = await websiteWrites(ctx.services).create({ siteName: 'Media two', domain: SECOND });
      editor = await ctx.createUser();
      await ctx.services.memberships.grant(editor.id, first, 'editor');
      await ctx.services.memberships.grant(editor.id, second, 'editor');
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-media-domains-'));
      file = path.join(folder, 'orange-square.png');
      await sharp({ create: { width: 900, height: 600, channels: 3, background: '#e67e22' } })
        .png()
        .toFile(file);
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
      fs.rmSync(folder, { recursive: true, force: true });
    });

    /** A page signed in on `host`, the panel's CSP enforced (no bypass). */
    async function panelOn(host: string, where = '/admin'): Promise<Page> {
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signInToAdmin(page, server.origin(host), editor, where);
      return page;
    }

    /** The images `selector` matches, and whether each has loaded (no string eval: the CSP is on). */
    const images = (page: Page, selector: string) =>
      page.evaluate((wanted) => {
        type Img = { complete: boolean; naturalWidth: number; src: string };
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<Img> } })
          .document;
        return Array.from(doc.querySelectorAll(wanted)).map((image) => ({
          src: image.src,
          shown: image.complete && image.naturalWidth > 0,
        }));
      }, selector);

    /** Waits until every image `selector` matches (at least one) has loaded, or fails saying which not. */
    async function allShown(page: Page, selector: string): Promise<void> {
      const deadline = Date.now() + 8000;
      let found = await images(page, selector);
      while (!(found.length > 0 && found.every((image) => image.shown)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        found = await images(page, selector);
      }
      assert.ok(
        found.length > 0 && found.every((image) => image.shown),
        `images not shown on ${page.url()} (${selector}): ${JSON.stringify(found)}`,
      );
    }

    it('issue 34 #17: an image uploaded on one domain shows in the panel on its alias and on another website', async () => {
      // Uploaded on the alias of the first website.
      const uploader = await panelOn(ALIAS, '/admin/media');
      await uploader.setInputFiles('#media-files', [file]);
      await uploader
        .locator('.uploads li')
        .filter({ hasText: 'orange-square.png' })
        .getByText('Uploaded')
        .waitFor();
      const [stored] = await ctx.services.database.db.selectFrom('media').select(['id', 'url']).execute();
      assert.match(stored!.url, /^\/media\//, 'stored by its site-relative address (issue 36 #5)');
      await allShown(uploader, '.media-grid img');

      // The first website's primary domain: the library, the detail, the editor (thumbnail and text).
      const page = await panelOn(PRIMARY, '/admin/media');
      await allShown(page, '.media-grid img');
      await page.locator('.media-tile').first().click();
      await allShown(page, 'img.media-preview');
      await page.goto(`${server.origin(PRIMARY)}/admin/posts/new`);
      await page.locator('.ProseMirror').waitFor();
      await page.fill('#post-title', 'Orange things');
      await page.locator('.ProseMirror').click();
      await page.keyboard.type('Look at this.');
      await page.getByRole('button', { name: 'Choose from the library' }).click();
      const picker = page.getByRole('dialog', { name: 'Choose an image' });
      await picker.locator('.media-tile').first().waitFor();
      await allShown(page, 'dialog.media-picker .media-grid img');
      await picker.locator('.media-tile').first().click();
      await allShown(page, 'img.thumbnail-preview');
      await page.getByRole('button', { name: 'Image from the library' }).click();
      await picker.locator('.media-tile').first().click();
      await allShown(page, '.ProseMirror img');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByRole('status').filter({ hasText: 'Draft saved.' }).waitFor();
      const id = Number(/(\d+)$/.exec(page.url())?.[1]);
      const post = await ctx.services.posts.findDetail(id);
      // Stored as the library gives it (absolute, on APP_URL): the panel only shows it by path.
      assert.equal(post?.thumbnail, stored!.url);
      assert.ok(post?.content.includes(`src="${stored!.url}"`), post?.content);
      await screenshot(page, 'admin-media-domains-editor');

      // The same post on the alias, and the library on the second website.
      const alias = await panelOn(ALIAS, `/admin/posts/${id}`);
      await alias.locator('.ProseMirror').waitFor();
      await allShown(alias, 'img.thumbnail-preview');
      await allShown(alias, '.ProseMirror img');
      const other = await panelOn(SECOND, '/admin/media');
      // The second website's library is its own: its upload shows there too.
      await other.setInputFiles('#media-files', [file]);
      await other
        .locator('.uploads li')
        .filter({ hasText: 'orange-square.png' })
        .getByText('Uploaded')
        .waitFor();
      await allShown(other, '.media-grid img');
      for (const opened of [uploader, page, alias, other]) await opened.context().close();

      // axe and screenshots of the library on the alias (the audit injects axe: CSP bypassed there).
      const audited = await (await browser.newContext({ bypassCSP: true })).newPage();
      await signInToAdmin(audited, server.origin(ALIAS), editor, '/admin/media');
      await allShown(audited, '.media-grid img');
      await auditScreen(audited, 'media-alias');
      await audited.context().close();
    });
  },
);
