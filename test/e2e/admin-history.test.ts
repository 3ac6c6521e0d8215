// The editor's History panel and Share preview (issue 37) in a real headless Chromium: a writer edits
// a post three times, compares the first and the last version side by side, restores the first, and
// opens a shared preview link in a fresh browser context (no account): the draft on the site's theme,
// with the "Preview" ribbon, noindex and no-store. axe-core on the editor with the history open. And the
// server autosave: unsaved edits on one device are offered when the post is opened on another.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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

const HOST = 'history.test';

describe(
  'admin panel: history and shared previews (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let writer: TestUser;
    let postId: number;
    let site: number;

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      site = await websiteWrites(ctx.services).create({ siteName: 'History desk', domain: HOST });
      writer = await ctx.createUser();
      await ctx.services.memberships.grant(writer.id, site, 'editor');
      const created = await ctx.request({
        method: 'POST',
        url: '/api/v2/posts',
        headers: { host: HOST, authorization: `Bearer ${writer.token}` },
        payload: {
          title: 'Harbour notes',
          content: '<p>The boats leave at dawn.</p>',
          status: 'draft',
          website_id: [site],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      postId = created.json<{ data: { id: number } }>().data.id;
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    const saveDraft = async (page: Page, title: string) => {
      await page.fill('#post-title', title);
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByText('Draft saved.').waitFor();
      await page.locator('.save-state').filter({ hasText: 'Saved' }).waitFor();
    };

    it('edits three times, compares side by side, restores the first, shares a preview opened in a fresh context', async () => {
      const context = await browser.newContext({ bypassCSP: true });
      const page = await context.newPage();
      page.on('dialog', (dialog) => void dialog.accept());
      await signInToAdmin(page, server.origin(HOST), writer, `/admin/posts/${postId}`);
      await page.locator('.ProseMirror').waitFor();
      await saveDraft(page, 'Harbour notes, second');
      await saveDraft(page, 'Harbour notes, third');
      await saveDraft(page, 'Harbour log');

      await page.getByRole('button', { name: 'History' }).click();
      const rows = page.locator('.history-list tbody tr');
      await rows.nth(3).waitFor();
      const count = await rows.count();
      assert.ok(count >= 4, `the create and three saves: ${count} rows`);
      // The first version (the oldest row) against the newest.
      await rows
        .nth(count - 1)
        .locator('input[name=history-from]')
        .check();
      await rows.nth(0).locator('input[name=history-to]').check();
      await page.getByRole('button', { name: 'Compare' }).click();
      const compared = page.getByRole('region', { name: 'Comparison of two versions' });
      await compared.waitFor();
      const titleDiff = compared.locator('.diff').filter({ hasText: 'title (en)' });
      assert.match(await titleDiff.locator('.diff-from del').innerText(), /notes/);
      assert.match(await titleDiff.locator('.diff-to ins').innerText(), /log/);
      // The two sides stand side by side.
      const [left, right] = await Promise.all([
        titleDiff.locator('.diff-from').boundingBox(),
        titleDiff.locator('.diff-to').boundingBox(),
      ]);
      assert.ok(left && right && right.x > left.x + left.width - 1 && Math.abs(right.y - left.y) < 2);
      assert.deepEqual(await serious(page), [], 'axe on the editor with the history open');
      await screenshot(page, 'admin-history-compare');

      // Restore the first version: the editor shows it, and the history has one more version.
      await rows
        .nth(count - 1)
        .getByRole('button', { name: 'Restore' })
        .click();
      await page.getByText(/is restored/).waitFor();
      assert.equal(await page.inputValue('#post-title'), 'Harbour notes');
      const stored = await ctx.services.posts.findDetail(postId);
      assert.equal(stored?.title, 'Harbour notes');
      assert.equal(stored?.status, 'draft');
      await rows.nth(count).waitFor();

      // Share a preview; someone without an account opens it in a fresh context.
      await page.getByRole('button', { name: 'Share preview' }).click();
      const url = await page.locator('#share-url').inputValue();
      assert.match(url, new RegExp(`^http://${HOST.replace('.', '\\.')}:\\d+/preview/[A-Za-z0-9_-]{43}$`));
      await context.close();

      // A fresh context: no cookie, no session (CSP bypassed only so that axe can be injected).
      const stranger = await browser.newContext({ bypassCSP: true });
      const view = await stranger.newPage();
      const response = await view.goto(url);
      assert.equal(response?.status(), 200);
      assert.equal(response?.headers()['cache-control'], 'private, no-store');
      assert.match(response?.headers()['x-robots-tag'] ?? '', /noindex/);
      await view.locator('[data-preview-ribbon]').waitFor({ state: 'visible' });
      assert.match(await view.locator('main').innerText(), /boats leave at dawn/);
      assert.match((await view.locator('meta[name=robots]').getAttribute('content')) ?? '', /noindex/);
      assert.deepEqual(await serious(view), [], 'axe on the shared preview');
      await screenshot(view, 'shared-preview');
      // The readers' address shows no draft.
      const readers = await view.goto(`${server.origin(HOST)}/post/${stored?.slug}`);
      assert.notEqual(readers?.status(), 200);
      await stranger.close();
    });

    it('offers the autosave of unsaved edits made on another device, and readers never see it', async () => {
      const created = await ctx.request({
        method: 'POST',
        url: '/api/v2/posts',
        headers: { host: HOST, authorization: `Bearer ${writer.token}` },
        payload: {
          title: 'Tide tables',
          content: '<p>High water at six.</p>',
          status: 'published',
          website_id: [site],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json<{ data: { id: number } }>().data.id;
      // The laptop: edits a published post (no draft save runs by itself), then goes away unsaved.
      const laptop = await browser.newContext();
      const first = await laptop.newPage();
      await signInToAdmin(first, server.origin(HOST), writer, `/admin/posts/${id}`);
      await first.locator('.ProseMirror').waitFor();
      const autosaved = first.waitForResponse(
        (response) =>
          response.url().endsWith(`/posts/${id}/autosave`) && response.request().method() === 'PUT',
      );
      await first.fill('#post-title', 'Tide tables, corrected');
      assert.equal((await autosaved).status(), 200);
      await laptop.close();
      // The phone: another browser, the same writer; the editor offers the autosave.
      const phone = await browser.newContext({ bypassCSP: true });
      const second = await phone.newPage();
      await signInToAdmin(second, server.origin(HOST), writer, `/admin/posts/${id}`);
      await second.getByText('You have an autosave newer than the saved version').waitFor();
      assert.equal(await second.inputValue('#post-title'), 'Tide tables');
      assert.deepEqual(await serious(second), [], 'axe on the editor offering an autosave');
      await second.getByRole('button', { name: 'Restore', exact: true }).click();
      assert.equal(await second.inputValue('#post-title'), 'Tide tables, corrected');
      // Readers still see the saved version.
      const post = await ctx.services.posts.findDetail(id);
      assert.equal(post?.title, 'Tide tables');
      const view = await second.context().newPage();
      await view.goto(`${server.origin(HOST)}/post/${post?.slug}`);
      assert.doesNotMatch(await view.locator('main').innerText(), /corrected/);
      await phone.close();
    });

    it('a page: its history compares and restores, a draft page is shared, unsaved typing is offered elsewhere', async () => {
      const created = await ctx.request({
        method: 'POST',
        url: '/api/v2/pages',
        headers: { host: HOST, authorization: `Bearer ${writer.token}` },
        payload: {
          title: 'Opening hours',
          content: '<p>Open at nine.</p>',
          status: 'draft',
          website_ids: [site],
        },
      });
      assert.equal(created.statusCode, 201, created.body);
      const id = created.json<{ data: { id: number } }>().data.id;
      const patched = await ctx.request({
        method: 'PATCH',
        url: `/api/v2/pages/${id}`,
        headers: { host: HOST, authorization: `Bearer ${writer.token}` },
        payload: { content: '<p>Open at ten.</p>' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      const context = await browser.newContext();
      const page = await context.newPage();
      page.on('dialog', (dialog) => void dialog.accept());
      await signInToAdmin(page, server.origin(HOST), writer, `/admin/pages/${id}`);
      await page.locator('.ProseMirror').waitFor();
      await page.getByRole('button', { name: 'History' }).click();
      const rows = page.locator('.history-list tbody tr');
      await rows.nth(1).waitFor();
      await rows.nth(1).locator('input[name=history-from]').check();
      await rows.nth(0).locator('input[name=history-to]').check();
      await page.getByRole('button', { name: 'Compare' }).click();
      const content = page.locator('.diff').filter({ hasText: 'content (en)' });
      assert.match(await content.locator('.diff-from del').innerText(), /nine/);
      assert.match(await content.locator('.diff-to ins').innerText(), /ten/);
      await rows.nth(1).getByRole('button', { name: 'Restore' }).click();
      await page.getByText(/is restored/).waitFor();
      assert.equal((await ctx.services.pages.findById(id))?.content, '<p>Open at nine.</p>');
      await page.getByRole('button', { name: 'Share preview' }).click();
      const url = await page.locator('#share-url').inputValue();
      // Unsaved typing is autosaved on the server and offered when the page is opened elsewhere.
      const autosaved = page.waitForResponse(
        (response) =>
          response.url().endsWith(`/pages/${id}/autosave`) && response.request().method() === 'PUT',
      );
      await page.fill('#page-title', 'Opening hours (winter)');
      assert.equal((await autosaved).status(), 200);
      await context.close();
      const other = await browser.newContext();
      const elsewhere = await other.newPage();
      await signInToAdmin(elsewhere, server.origin(HOST), writer, `/admin/pages/${id}`);
      await elsewhere.getByText('You have an autosave newer than the saved version').waitFor();
      await elsewhere.getByRole('button', { name: 'Restore', exact: true }).click();
      assert.equal(await elsewhere.inputValue('#page-title'), 'Opening hours (winter)');
      assert.equal((await ctx.services.pages.findById(id))?.title, 'Opening hours');
      await other.close();
      const stranger = await browser.newContext();
      const view = await stranger.newPage();
      const response = await view.goto(url);
      assert.equal(response?.status(), 200);
      await view.locator('[data-preview-ribbon]').waitFor({ state: 'visible' });
      assert.match(await view.locator('main').innerText(), /Open at nine/);
      await stranger.close();
    });
  },
);
