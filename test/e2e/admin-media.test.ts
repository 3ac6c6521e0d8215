// The admin panel's media library (issue 24 #4) in a real headless Chromium, over API v2 with the
// session: three images uploaded at once, each with its progress bar; the grid and the list; search;
// alt text saved; an image chosen from the library as a post's thumbnail and into its text, after
// which the item says where it is used and its delete warns first. axe-core at both widths.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
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

const HOST = 'media.test';

describe(
  'admin panel: the media library (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let editor: TestUser;
    let folder: string;
    const files: string[] = [];

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      const site = await websiteWrites(ctx.services).create({ siteName: 'Media desk', domain: HOST });
      editor = await ctx.createUser();
      await ctx.services.memberships.grant(editor.id, site, 'editor');
      folder = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-media-e2e-'));
      const colours = { red: '#c0392b', green: '#27ae60', blue: '#2980b9' };
      for (const [name, colour] of Object.entries(colours)) {
        const file = path.join(folder, `${name}-square.png`);
        await sharp({ create: { width: 1200, height: 900, channels: 3, background: colour } })
          .png()
          .toFile(file);
        files.push(file);
      }
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
      fs.rmSync(folder, { recursive: true, force: true });
    });

    it('uploads three images with progress, searches, saves alt text; a picked image shows its uses', async () => {
      const origin = server.origin(HOST);
      const page = await (await browser.newContext({ bypassCSP: true })).newPage();
      await signInToAdmin(page, origin, editor, '/admin/media');
      await page.getByText('Nothing here yet').waitFor();

      await page.setInputFiles('#media-files', files);
      for (const name of ['red', 'green', 'blue']) {
        const row = page.locator('.uploads li').filter({ hasText: `${name}-square.png` });
        await row.getByText('Uploaded').waitFor();
        assert.equal(await row.locator('progress').getAttribute('value'), '1');
      }
      await page.waitForFunction("document.querySelectorAll('.media-grid li').length === 3");
      const stored = await ctx.services.database.db.selectFrom('media').select(['id', 'file_name']).execute();
      assert.equal(stored.length, 3);
      assert.deepEqual(await serious(page), [], 'axe on the library at 1280 px');
      await screenshot(page, 'admin-media-desktop');

      await page.fill('#media-search', 'green');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForFunction("document.querySelectorAll('.media-grid li').length === 1");
      await page.locator('.media-tile').first().click();
      await page.getByRole('heading', { name: 'green-square.png' }).waitFor();
      await page.getByText(/WebP and smaller copies/).waitFor();
      await page.fill('#media-alt', 'A green square');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const green = stored.find((item) => item.file_name === 'green-square.png')!;
      const saved = await ctx.request({
        method: 'GET',
        url: `/api/v2/media/${green.id}`,
        headers: { host: HOST, authorization: `Bearer ${editor.token}` },
      });
      assert.equal(saved.json().data.alt, 'A green square');
      await page.getByText('Not used anywhere.').waitFor();
      await page.getByRole('button', { name: 'List' }).click();
      await page.locator('.media-list').waitFor();
      await page.setViewportSize({ width: 390, height: 844 });
      assert.deepEqual(await serious(page), [], 'axe on the library at 390 px');
      await screenshot(page, 'admin-media-phone');
      await page.setViewportSize({ width: 1280, height: 900 });

      // In the editor: the green image as thumbnail and in the text, both from the library.
      await page.goto(`${origin}/admin/posts/new`);
      await page.locator('.ProseMirror').waitFor();
      await page.fill('#post-title', 'Green things');
      await page.locator('.ProseMirror').click();
      await page.keyboard.type('Look at this.');
      await page.getByRole('button', { name: 'Choose from the library' }).click();
      const picker = page.getByRole('dialog', { name: 'Choose an image' });
      await picker.locator('[data-media] button').first().waitFor();
      await picker.locator('.media-tile').filter({ hasText: 'green-square.png' }).click();
      assert.match(await page.inputValue('#post-thumbnail'), /\/media\//);
      await page.getByRole('button', { name: 'Image from the library' }).click();
      await picker.locator('.media-tile').filter({ hasText: 'green-square.png' }).click();
      await page.locator('.ProseMirror img[alt="A green square"]').waitFor();
      await page.getByRole('button', { name: 'Publish' }).click();
      await page.getByRole('status').filter({ hasText: 'Published' }).waitFor();

      await page.goto(`${origin}/admin/media`);
      await page.locator('.media-tile').filter({ hasText: 'green-square.png' }).click();
      const uses = page.locator('.usage li').filter({ hasText: 'Green things' });
      await uses.waitFor();
      assert.match((await uses.textContent()) ?? '', /thumbnail, in the text/);
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: /used/i }).waitFor();
      assert.equal(
        (await ctx.services.database.db.selectFrom('media').select('id').where('id', '=', green.id).execute())
          .length,
        1,
        'a used item is not deleted without the second confirmation',
      );
    });
  },
);
