// The dashboard's insight and the comment moderation queue (issue 25 #1 and #4) in a real headless
// Chromium over API v2: the chart drawn (under the site's CSP, no bypass), the top posts linking to
// their editor, the health card for administrators only; the queue's bulk approval, a reply and a
// settings change, each checked through the API afterwards; the axe-core audit at 1280 and 390 px
// and screenshots at both widths.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
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
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

const HOST = 'desk.test';
const DAY = 24 * 60 * 60 * 1000;

describe(
  'admin panel: dashboard insight and comment moderation (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let administrator: TestUser;
    let siteAdmin: TestUser;
    let siteId: number;
    let origin: string;
    let postId: number;
    const topIds: number[] = [];

    const api = async (as: TestUser, method: string, url: string, payload?: unknown) => {
      const response = await ctx.request({
        method,
        url,
        headers: { host: HOST, authorization: `Bearer ${as.token}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { status: response.statusCode, body: response.body ? response.json() : null };
    };
    const signIn = async (
      user: TestUser,
      options: { bypassCSP: boolean },
    ): Promise<[BrowserContext, Page]> => {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      page.on('dialog', (dialog) => void dialog.accept());
      await signInToAdmin(page, origin, user);
      return [context, page];
    };
    const held = async (content: string, name: string) =>
      ctx.services.comments.store({
        postId,
        content,
        name,
        email: `${name.toLowerCase()}@example.test`,
        user: null,
        websiteId: siteId,
        ipHash: 'c'.repeat(64),
        userAgent: 'test',
      });

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      siteId = await websiteWrites(ctx.services).create({ siteName: 'Harbour desk', domain: HOST });
      administrator = await ctx.createUser({ admin: true });
      siteAdmin = await ctx.createUser();
      await ctx.services.memberships.grant(siteAdmin.id, siteId, 'site_admin');
      const { db } = ctx.services.database;
      for (const [index, title] of ['Tide tables', 'Ferry timetable', 'Fish market'].entries()) {
        const id = await insertPost(db, { title, slug: `post-${index}` });
        await db
          .insertInto('website_bindings')
          .values({ website_id: siteId, model_type: 'post', model_id: id })
          .execute();
        topIds.push(id);
      }
      postId = topIds[0]!;
      // Views over the last days (rows dated directly: the beacon counts "now" only).
      const rows = [];
      for (let day = 0; day < 30; day++) {
        const at = new Date(Date.now() - day * DAY).toISOString();
        const views = 3 + ((day * 7) % 11);
        for (let n = 0; n < views; n++) {
          const target = topIds[n % 3 === 0 ? 0 : n % 3 === 1 ? 1 : 2]!;
          rows.push({
            model_type: 'post',
            model_id: target,
            kind: 'view',
            user_id: null,
            visitor_hash: 'v'.repeat(64),
            created_at: at,
            website_id: siteId,
          });
        }
        if (day % 3 === 0)
          rows.push({
            model_type: 'link',
            model_id: 1,
            kind: 'click',
            user_id: null,
            visitor_hash: 'v'.repeat(64),
            created_at: at,
            website_id: siteId,
          });
      }
      await db.insertInto('clicks').values(rows).execute();
      server = await listen(ctx, port);
      browser = await launchBrowser();
      origin = server.origin(HOST);
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    it('dashboard: the chart is drawn under the site\u2019s CSP, top posts link to their editor, health for administrators', async () => {
      const [strict, page] = await signIn(administrator, { bypassCSP: false });
      const refused: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') refused.push(message.text());
      });
      await page.goto(`${origin}/admin`);
      await page.locator('.views-chart canvas').waitFor();
      const size = await page.evaluate<{ width: number; height: number }>(
        "(() => { const c = document.querySelector('.views-chart canvas'); const r = c.getBoundingClientRect(); return { width: r.width, height: r.height }; })()",
      );
      assert.ok(size.width > 200 && size.height > 100, JSON.stringify(size));
      // The canvas has something drawn on it (not every pixel transparent).
      const inked = await page.evaluate<boolean>(
        "(() => { const c = document.querySelector('.views-chart canvas'); const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return true; return false; })()",
      );
      assert.ok(inked, 'the chart canvas is blank');
      assert.deepEqual(
        refused.filter((text) => /Content Security Policy/i.test(text)),
        [],
      );
      // The same numbers for screen readers: a table of 30 days.
      assert.equal(await page.locator('table.visually-hidden tbody tr').count(), 30);
      const top = page.locator('.top-posts li a');
      assert.equal(await top.count(), 3);
      const stats = (await api(administrator, 'GET', '/api/v2/stats')).body.data;
      assert.equal(await top.first().textContent(), stats.top_posts[0].title);
      assert.equal(await top.first().getAttribute('href'), `/admin/posts/${stats.top_posts[0].id}`);
      await page.locator('[data-health]').waitFor();
      assert.match((await page.locator('[data-health]').textContent()) ?? '', /Database.*answering in/);
      await strict.close();

      const [context, audited] = await signIn(administrator, { bypassCSP: true });
      await audited.locator('.views-chart canvas').waitFor();
      await audited.locator('[data-health]').waitFor();
      await auditScreen(audited, 'dashboard-insight');
      await audited.locator('.top-posts li a').first().click();
      await audited.waitForURL(`${origin}/admin/posts/${stats.top_posts[0].id}`);
      await context.close();

      // A site admin: the chart and the top posts, no health card.
      const [siteContext, sitePage] = await signIn(siteAdmin, { bypassCSP: true });
      await sitePage.locator('.views-chart canvas').waitFor();
      await sitePage.locator('.top-posts li').first().waitFor();
      assert.equal(await sitePage.locator('[data-health]').count(), 0);
      await siteContext.close();
    });

    it('comments: bulk approval, a reply and the moderation settings, each seen through the API', async () => {
      await api(siteAdmin, 'PUT', '/api/v2/comments/settings', { mode: 'all' });
      const waiting = [
        await held('When does the ferry leave?', 'Ann'),
        await held('Is the market open on Sundays?', 'Bo'),
        await held('Great tide table, thanks', 'Cy'),
      ];
      const [context, page] = await signIn(siteAdmin, { bypassCSP: true });
      await page.getByRole('link', { name: 'Comments' }).click();
      await page.waitForURL(`${origin}/admin/comments`);
      await page.locator('[data-comment]').first().waitFor();
      assert.equal(await page.locator('[data-comment]').count(), 3);
      await page.getByRole('heading', { name: 'Moderation settings' }).waitFor();
      await auditScreen(page, 'comments-queue');

      // Bulk: choose all, then one fewer, approve in one call.
      await page.getByLabel('Choose every comment shown').check();
      await page.getByLabel('Choose the comment of Cy').uncheck();
      await page.locator('[data-bulk=approve]').click();
      await page.getByRole('status').filter({ hasText: '2 comment(s) approved.' }).waitFor();
      await page.waitForFunction("document.querySelectorAll('[data-comment]').length === 1");
      const approved = (await api(siteAdmin, 'GET', '/api/v2/comments?filter[status]=approved')).body
        .data as {
        id: number;
      }[];
      assert.deepEqual(approved.map((row) => row.id).sort(), [waiting[0]!.id, waiting[1]!.id].sort());

      // Reply to the one still waiting: it is approved with the reply.
      await page.locator(`[data-comment="${waiting[2]!.id}"]`).getByRole('button', { name: 'Reply' }).click();
      await page.getByLabel('Your reply to Cy').fill('Thank you, Cy!');
      await auditScreen(page, 'comments-reply');
      await page.getByRole('button', { name: 'Publish the reply' }).click();
      await page.getByRole('status').filter({ hasText: 'Your reply is published under the post.' }).waitFor();
      const after = (await api(siteAdmin, 'GET', '/api/v2/comments?filter[status]=approved')).body.data as {
        id: number;
        parent_id: number | null;
        content: string;
        user_id: number | null;
      }[];
      const reply = after.find((row) => row.parent_id === waiting[2]!.id);
      assert.equal(reply?.content, 'Thank you, Cy!');
      assert.equal(reply?.user_id, siteAdmin.id);
      assert.ok(after.some((row) => row.id === waiting[2]!.id));

      // Settings: first comment held, and a held word.
      await page.getByLabel('A commenter\u2019s first comment; later ones once one was approved').check();
      await page.getByLabel('Held words').fill('casino\nfree money');
      await page.getByRole('button', { name: 'Save the moderation settings' }).click();
      await page.getByRole('status').filter({ hasText: 'The moderation settings are saved.' }).waitFor();
      const settings = (await api(siteAdmin, 'GET', '/api/v2/comments/settings')).body.data;
      assert.deepEqual(settings, { mode: 'first', inherited: false, held_words: ['casino', 'free money'] });
      await context.close();
    });
  },
);
