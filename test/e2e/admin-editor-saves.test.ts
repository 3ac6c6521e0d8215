// The admin panel's editors never hang or cry wolf (issue 34 #14, #15, #18, #16), in a real headless
// Chromium over API v2: a save that gets no answer is said (an alert) and tried again until the server
// is back, with Save and Publish usable again; an autosave and a click on Save never travel together
// (no false "someone else saved this post"), while a real concurrent edit still shows the conflict
// with the fields "Keep mine" overwrites; a writer reads the note of a post sent back; YouTube and
// Vimeo players show on the public page and in the preview. axe-core and screenshots at 390 and
// 1280 px.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
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
import { websiteWrites } from '../support/website-writes.js';

const HOST = 'saves.test';
const POST_WRITES = /\/api\/v2\/posts(\/\d+)?(\?.*)?$/;

describe(
  'admin panel: saving in the editors (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let site: number;
    let author: TestUser;
    let contributor: TestUser;
    let editor: TestUser;

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      site = await websiteWrites(ctx.services).create({ siteName: 'Save desk', domain: HOST });
      author = await ctx.createUser();
      contributor = await ctx.createUser();
      editor = await ctx.createUser();
      await ctx.services.memberships.grant(author.id, site, 'author');
      await ctx.services.memberships.grant(contributor.id, site, 'contributor');
      await ctx.services.memberships.grant(editor.id, site, 'editor');
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    const actorOf = (user: TestUser) => ({ userId: user.id, isAdmin: false, websiteId: site });

    /** A browser signed in as `user` (the audit injects axe: the CSP is bypassed there only). */
    async function signedIn(
      user: TestUser,
      bypassCSP = true,
    ): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ bypassCSP });
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      await signInToAdmin(page, server.origin(HOST), user);
      await page.locator('main h1').waitFor();
      return { context, page };
    }

    async function openPost(page: Page, id: number): Promise<void> {
      await page.goto(`${server.origin(HOST)}/admin/posts/${id}`);
      // A loaded CI machine can take long to load the bundle and the post: wait longer than a click's.
      await page.locator('#post-title').waitFor({ timeout: 40_000 });
      await page.locator('.ProseMirror').waitFor({ timeout: 40_000 });
    }

    const draftBy = (user: TestUser, title: string) =>
      ctx.services.postOps.create(actorOf(user), {
        title,
        content: '<p>First words.</p>',
        status: 'draft',
        website_id: [site],
      });

    it('issue 34 #14: a save without network is said, retried with backoff, and recovers by itself', async () => {
      const { context, page } = await signedIn(author);
      await page.goto(`${server.origin(HOST)}/admin/posts/new`);
      await page.locator('.ProseMirror').waitFor();
      await page.fill('#post-title', 'Written on a train');
      await page.locator('.ProseMirror').click();
      await page.keyboard.type('The tunnel is long.');

      // The network fails for every write of a post (reads still work).
      let refused = 0;
      await page.route(POST_WRITES, async (route) => {
        if (route.request().method() === 'GET') return route.continue();
        refused += 1;
        return route.abort('internetdisconnected');
      });
      await page.getByRole('button', { name: 'Save draft' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Not saved: the server cannot be reached' });
      await alert.waitFor();
      assert.match(await page.locator('.save-state').innerText(), /Not saved yet/);
      assert.doesNotMatch(await page.locator('.save-state').innerText(), /Saving/);
      // Tried again by itself, with growing waits (1 s, 2 s, …).
      const firstTries = refused;
      await sleep(3500);
      assert.ok(refused > firstTries && refused <= firstTries + 3, `retried: ${firstTries} → ${refused}`);
      // Save and Publish stay usable while it waits.
      assert.equal(await page.getByRole('button', { name: 'Save draft' }).isEnabled(), true);
      assert.equal(await page.getByRole('button', { name: 'Publish' }).isEnabled(), true);
      await auditScreen(page, 'editor-offline');

      // The server is reachable again: the next try saves, the alert goes, the buttons work.
      await page.unroute(POST_WRITES);
      await page.getByRole('status').filter({ hasText: 'Draft saved.' }).waitFor({ timeout: 40_000 });
      assert.equal(await alert.count(), 0);
      await page.waitForURL(/\/admin\/posts\/\d+$/);
      const id = Number(/(\d+)$/.exec(page.url())?.[1]);
      const saved = await ctx.services.posts.findDetail(id);
      assert.equal(saved?.title, 'Written on a train');
      assert.equal(saved?.status, 'draft');
      // One post, whatever the number of tries (the create carries an Idempotency-Key).
      const made = await ctx.services.database.db
        .selectFrom('posts')
        .select('id')
        .where('title', '=', 'Written on a train')
        .execute();
      assert.equal(made.length, 1, 'one post');

      // Offline in the browser's own sense: back online, the save goes at once.
      await context.setOffline(true);
      await page.fill('#post-title', 'Written on a train, offline');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await alert.waitFor();
      await context.setOffline(false);
      await page.getByRole('status').filter({ hasText: 'Draft saved.' }).waitFor({ timeout: 10_000 });
      assert.equal((await ctx.services.posts.findDetail(id))?.title, 'Written on a train, offline');
      assert.equal(await page.getByRole('button', { name: 'Publish' }).isEnabled(), true);
      await page.getByRole('button', { name: 'Publish' }).click();
      await page.getByRole('status').filter({ hasText: 'Published' }).waitFor();
      assert.equal((await ctx.services.posts.findDetail(id))?.status, 'published');
      await context.close();
    });

    it('issue 34 #14: a 503 from the server is retried too, after its Retry-After', async () => {
      const post = await draftBy(author, 'Busy server');
      const { context, page } = await signedIn(author);
      await openPost(page, post.id);
      let busy = 0;
      await page.route(POST_WRITES, async (route) => {
        if (route.request().method() !== 'PATCH' || busy >= 1) return route.continue();
        busy += 1;
        return route.fulfill({
          status: 503,
          headers: { 'retry-after': '2', 'content-type': 'application/problem+json' },
          body: JSON.stringify({ title: 'Service Unavailable', status: 503 }),
        });
      });
      await page.fill('#post-title', 'Busy server, saved later');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByRole('alert').filter({ hasText: 'not available (503)' }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Draft saved.' }).waitFor({ timeout: 10_000 });
      assert.equal((await ctx.services.posts.findDetail(post.id))?.title, 'Busy server, saved later');
      await context.close();
    });

    it('issue 34 #15, issue 37 #2: saves go one after the other with the ETag the last returned; typing in between is autosaved, not saved', async () => {
      const post = await draftBy(author, 'Race');
      const { context, page } = await signedIn(author);
      await openPost(page, post.id);
      // What each PATCH carried and answered.
      const sent: string[] = [];
      const answered: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'PATCH') sent.push(request.headers()['if-match'] ?? '');
      });
      page.on('response', (response) => {
        if (response.request().method() === 'PATCH') answered.push(response.headers().etag ?? '');
      });
      // The first PATCH takes 6 s to reach the server (a slow network).
      let held = 0;
      await page.route(POST_WRITES, async (route) => {
        if (route.request().method() === 'PATCH' && held++ === 0) await sleep(6000);
        await route.continue();
      });

      // Save is clicked, and clicked again after more typing while the first is still on its way: the
      // second waits for the first's answer and builds on it (no false "someone else saved this post").
      const conflict = page.getByRole('alert').filter({ hasText: 'Someone else saved this post' });
      await page.fill('#post-title', 'Race, saved by hand');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.fill('#post-title', 'Race, saved by hand, then more');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.locator('.save-state').filter({ hasText: /Saved/ }).waitFor({ timeout: 20_000 });
      assert.equal(await conflict.count(), 0, 'no false conflict between the two saves');
      assert.equal((await ctx.services.posts.findDetail(post.id))?.title, 'Race, saved by hand, then more');
      assert.equal(sent.length, 2, `PATCHes: ${JSON.stringify(sent)}`);
      assert.equal(sent[1], answered[0], 'the second PATCH carries the ETag the first returned');

      // Typing and leaving it: kept as this writer's autosave, never saved to the post by itself (so
      // no revision), past the time a draft used to save itself.
      const revisions = async () =>
        (
          await ctx.services.database.db
            .selectFrom('revisions')
            .select('id')
            .where('resource_type', '=', 'post')
            .where('resource_id', '=', post.id)
            .execute()
        ).length;
      const revisionsBefore = await revisions();
      const autosaved = page.waitForResponse(
        (response) =>
          response.url().endsWith(`/posts/${post.id}/autosave`) && response.request().method() === 'PUT',
      );
      await page.fill('#post-title', 'Race, typed and left');
      assert.equal((await autosaved).status(), 200);
      await page
        .locator('.save-state')
        .filter({ hasText: /kept as your autosave/ })
        .waitFor();
      await sleep(5000);
      assert.equal(sent.length, 2, 'no PATCH by itself');
      assert.equal((await ctx.services.posts.findDetail(post.id))?.title, 'Race, saved by hand, then more');
      assert.equal(await revisions(), revisionsBefore, 'no revision from typing');
      await page.unroute(POST_WRITES);

      // A real edit from another session is still told, with what keeping ours overwrites.
      await ctx.services.postOps.update(actorOf(editor), String(post.id), { title: 'Edited by the editor' });
      await page.fill('#post-title', 'Mine after all');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await conflict.waitFor();
      await conflict.filter({ hasText: 'Keeping yours replaces their version of: Title.' }).waitFor();
      assert.equal((await ctx.services.posts.findDetail(post.id))?.title, 'Edited by the editor');
      await auditScreen(page, 'editor-conflict-fields');
      await page.getByRole('button', { name: 'Keep mine and save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      assert.equal((await ctx.services.posts.findDetail(post.id))?.title, 'Mine after all');
      assert.equal(await conflict.count(), 0);
      await context.close();
    });

    it('issue 37 #2: a new post becomes a draft by itself once it has a title and content, then only autosaves', async () => {
      const { context, page } = await signedIn(author);
      await page.goto(`${server.origin(HOST)}/admin/posts/new`);
      await page.locator('.ProseMirror').waitFor();
      await page.fill('#post-title', 'Started and left');
      await page.locator('.ProseMirror').click();
      await page.keyboard.type('A first line.');
      // No click: the draft is made a few seconds later, so that what follows has a post to belong to.
      await page.waitForURL(/\/admin\/posts\/\d+$/, { timeout: 20_000 });
      const id = Number(/(\d+)$/.exec(page.url())?.[1]);
      const made = await ctx.services.posts.findDetail(id);
      assert.equal(made?.status, 'draft');
      assert.equal(made?.title, 'Started and left');
      const autosaved = page.waitForResponse(
        (response) =>
          response.url().endsWith(`/posts/${id}/autosave`) && response.request().method() === 'PUT',
      );
      await page.fill('#post-title', 'Started, then changed');
      assert.equal((await autosaved).status(), 200);
      await sleep(5000);
      assert.equal(
        (await ctx.services.posts.findDetail(id))?.title,
        'Started and left',
        'not saved by itself',
      );
      await context.close();
    });

    it('issue 34 #15: the page editor sends two quick saves one after the other', async () => {
      const { context, page } = await signedIn(editor);
      await page.goto(`${server.origin(HOST)}/admin/pages/new`);
      await page.locator('.ProseMirror').waitFor();
      await page.fill('#page-title', 'Opening hours');
      await page.locator('.ProseMirror').click();
      await page.keyboard.type('Six to midnight.');
      await page.route(/\/api\/v2\/pages(\/\d+)?$/, async (route) => {
        if (route.request().method() !== 'GET') await sleep(1500);
        await route.continue();
      });
      // Two clicks while the first save travels: one page, saved twice, no 412.
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.waitForURL(/\/admin\/pages\/\d+$/);
      await page.locator('.save-state').filter({ hasText: /Saved/ }).waitFor();
      await sleep(2000);
      assert.equal(await page.getByText('Someone else saved').count(), 0);
      const made = await ctx.services.database.db
        .selectFrom('pages')
        .select('id')
        .where('title', '=', 'Opening hours')
        .execute();
      assert.equal(made.length, 1, 'one page');
      await context.close();
    });

    it('issue 34 #18: the writer of a post sent back reads the editor’s note in the editor', async () => {
      const post = await draftBy(contributor, 'Needs work');
      await ctx.services.postOps.submit(actorOf(contributor), String(post.id));
      await ctx.services.postOps.sendBack(actorOf(editor), String(post.id), {
        note: 'Please add a source for the second paragraph.',
      });
      const { context, page } = await signedIn(contributor);
      await openPost(page, post.id);
      const note = page.getByRole('region', { name: 'Sent back for changes' });
      await note.waitFor();
      assert.match(await note.innerText(), /Please add a source for the second paragraph\./);
      assert.match(await note.innerText(), /sent this post back on/);
      await auditScreen(page, 'editor-review-note');
      // Submitted again, the note has done its work.
      await page.getByRole('button', { name: 'Submit for review' }).click();
      await page.getByRole('status').filter({ hasText: 'Submitted' }).waitFor();
      assert.equal(await note.count(), 0);
      await context.close();
    });

    it('issue 34 #16: YouTube and Vimeo players show on the public page and in the preview, under the CSP', async () => {
      const post = await ctx.services.postOps.create(actorOf(author), {
        title: 'Two videos',
        content:
          '<p>Watch:</p><div data-youtube-video=""><iframe src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" ' +
          'width="640" height="480" allowfullscreen="true"></iframe></div><div data-vimeo-video="">' +
          '<iframe src="https://player.vimeo.com/video/76979871" width="640" height="360" title="Vimeo video"></iframe></div>',
        status: 'draft',
        website_id: [site],
      });
      // The site's CSP is enforced here (no bypass); the players are served locally.
      const { context, page } = await signedIn(author, false);
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to frame/i.test(message.text())) refused.push(message.text());
      });
      await context.route(/^https:\/\/(www\.youtube-nocookie\.com|player\.vimeo\.com)\//, (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: '<!doctype html><title>player</title><p>player</p>',
        }),
      );
      const check = async (url: string) => {
        await page.goto(url);
        for (const host of ['www.youtube-nocookie.com', 'player.vimeo.com']) {
          const frame = page.locator(`iframe[src^="https://${host}/"]`);
          await frame.waitFor({ state: 'attached' });
          assert.equal(await frame.getAttribute('loading'), 'lazy');
          assert.match((await frame.getAttribute('sandbox')) ?? '', /allow-scripts/);
          await frame.scrollIntoViewIfNeeded();
        }
        for (const name of [/youtube-nocookie/, /vimeo/]) {
          const deadline = Date.now() + 10_000;
          let frame = page.frames().find((candidate) => name.test(candidate.url()));
          while (!frame && Date.now() < deadline) {
            await sleep(100);
            frame = page.frames().find((candidate) => name.test(candidate.url()));
          }
          assert.ok(frame, `${String(name)} framed on ${url}`);
          assert.equal(await frame.locator('p').innerText(), 'player');
        }
      };
      await check(`${server.origin(HOST)}/post/preview/${post.id}`);
      await ctx.services.postOps.update(actorOf(editor), String(post.id), { status: 'published' });
      await check(`${server.origin(HOST)}/post/${post.slug}`);
      assert.deepEqual(refused, []);
      await context.close();
    });
  },
);
