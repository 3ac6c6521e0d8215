// The admin panel's post editor (issue 24 #2, #5) in a real headless Chromium, over API v2 with the
// session: a writer writes a post in two locales with Markdown shortcuts, a new tag and a schedule in
// their own time zone, and it appears on the public site when due; a contributor submits and an
// editor approves from the review queue; two editors save the same post and the second is told
// (412) instead of overwriting; pasted Word and Google Docs HTML is cleaned. axe-core on the editor at
// phone and desktop widths, with screenshots.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Page } from 'playwright-core';
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
import { postWrites } from '../support/post-writes.js';

const HOST = 'editor.test';
const ZONE = 'Asia/Taipei'; // UTC+8 all year: the schedule typed there is 8 hours ahead of UTC

describe(
  'admin panel: the post editor (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let site: number;
    let author: TestUser;
    let contributor: TestUser;
    let editor: TestUser;
    let secondEditor: TestUser;
    // Real time that the test can move forward (to make a scheduled post due).
    let ahead = 0;
    const clock = { now: () => new Date(Date.now() + ahead), advance: (ms: number) => (ahead += ms) };

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext({ clock }));
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      await ctx.services.settings.set('supported_locales', 'en,zh_TW');
      site = await websiteWrites(ctx.services).create({ siteName: 'Editor desk', domain: HOST });
      author = await ctx.createUser();
      contributor = await ctx.createUser();
      editor = await ctx.createUser();
      secondEditor = await ctx.createUser();
      await ctx.services.memberships.grant(author.id, site, 'author');
      await ctx.services.memberships.grant(contributor.id, site, 'contributor');
      await ctx.services.memberships.grant(editor.id, site, 'editor');
      await ctx.services.memberships.grant(secondEditor.id, site, 'editor');
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    /** A browser signed in as `user`, on /admin (the audit injects axe: the CSP is bypassed). */
    async function signedIn(user: TestUser): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ bypassCSP: true, timezoneId: ZONE });
      const page = await context.newPage();
      const origin = server.origin(HOST);
      await signInToAdmin(page, origin, user);
      await page.locator('main h1').waitFor();
      return { context, page };
    }

    const idOf = (page: Page) => Number(/\/admin\/posts\/(\d+)$/.exec(page.url())?.[1]);

    it('writes in two locales with Markdown shortcuts and a new tag, schedules it in the writer’s zone; it goes public when due', async () => {
      const { context, page } = await signedIn(author);
      await page.getByRole('link', { name: 'Write a post' }).click();
      await page.waitForURL(/\/admin\/posts\/new$/);
      await page.locator('.ProseMirror').waitFor();
      // Both locales are missing until they have a title and content.
      assert.equal(await page.locator('[role=tab] .missing').count(), 2);
      await page.fill('#post-title', 'Night market guide');
      await page.locator('.ProseMirror').click();
      await page.keyboard.type('## Where to go');
      await page.keyboard.press('Enter');
      await page.keyboard.type('Start at the **north gate** and walk slowly.');
      // An image by its address (the library's own picker is tested in admin-media.test.ts).
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Image', exact: true }).click();
      await page.fill('#url-dialog-input', 'https://images.example.test/gate.jpg');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.locator('.ProseMirror img[src="https://images.example.test/gate.jpg"]').waitFor();
      // The slug follows the title and is checked as it changes.
      await page.locator('#slug-state').filter({ hasText: 'free' }).waitFor();
      assert.equal(await page.inputValue('#post-slug'), 'night-market-guide');

      await page.getByRole('tab', { name: /zh_TW/ }).click();
      await page.fill('#post-title', '夜市指南');
      await page.locator('.ProseMirror').click();
      await page.keyboard.type('從北門開始。');
      await page.waitForFunction("document.querySelectorAll('[role=tab] .missing').length === 0");

      await page.fill('#picker-post_tag', 'Street food');
      await page.getByRole('option', { name: 'Create “Street food”' }).click();
      await page.locator('.chips li').filter({ hasText: 'Street food' }).waitFor();

      // Two hours from now, typed as the writer's clock in Taipei shows it.
      const due = new Date(Math.ceil((Date.now() + 2 * 3600_000) / 60_000) * 60_000);
      const local = new Date(due.getTime() + 8 * 3600_000).toISOString().slice(0, 16);
      await page.fill('#publish-at', local);
      await page.getByRole('button', { name: 'Schedule' }).click();
      await page.getByRole('status').filter({ hasText: 'Scheduled' }).waitFor();
      const id = idOf(page);
      assert.ok(id > 0, page.url());

      const post = await ctx.services.posts.findDetail(id);
      assert.equal(post?.status, 'scheduled');
      assert.equal(post?.publishedAt, due.toISOString(), 'the time typed in Taipei, stored in UTC');
      assert.equal(post?.translations.title?.zh_TW, '夜市指南');
      assert.match(post?.content ?? '', /<h2>Where to go<\/h2><p>Start at the <strong>north gate<\/strong>/);
      assert.match(post?.content ?? '', /<img src="https:\/\/images\.example\.test\/gate\.jpg"/);
      assert.deepEqual(
        post?.tagList.map((tag) => tag.name),
        ['Street food'],
      );

      assert.deepEqual(await serious(page), [], 'axe on the editor at 1280 px');
      await screenshot(page, 'admin-editor-desktop');
      await page.setViewportSize({ width: 390, height: 844 });
      assert.deepEqual(await serious(page), [], 'axe on the editor at 390 px');
      await screenshot(page, 'admin-editor-phone');

      // Not public yet; when its time comes the scheduler publishes it and the site shows it.
      const visitor = () =>
        ctx.request({ method: 'GET', url: `/post/${post?.slug}`, headers: { host: HOST } });
      assert.equal((await visitor()).statusCode, 404);
      clock.advance(2 * 3600_000 + 60_000);
      assert.deepEqual(await ctx.services.posts.publishDue(), [id]);
      const shown = await visitor();
      assert.equal(shown.statusCode, 200);
      assert.match(shown.body, /Night market guide/);
      await context.close();
    });

    it('a contributor submits for review; an editor approves it from the review queue', async () => {
      const writer = await signedIn(contributor);
      await writer.page.goto(`${server.origin(HOST)}/admin/posts/new`);
      await writer.page.locator('.ProseMirror').waitFor();
      assert.equal(
        await writer.page.getByRole('button', { name: 'Publish' }).count(),
        0,
        'no Publish for a contributor',
      );
      await writer.page.fill('#post-title', 'Please review me');
      await writer.page.locator('.ProseMirror').click();
      await writer.page.keyboard.type('A first try.');
      await writer.page.getByRole('button', { name: 'Submit for review' }).click();
      await writer.page.getByRole('status').filter({ hasText: 'Submitted' }).waitFor();
      const id = idOf(writer.page);
      assert.equal((await ctx.services.posts.findDetail(id))?.status, 'pending');
      await writer.context.close();

      const { context, page } = await signedIn(editor);
      await page.getByRole('link', { name: 'Reviews' }).click();
      await page.locator(`[data-post="${id}"] a`).waitFor();
      assert.deepEqual(await serious(page), [], 'axe on the review queue');
      await screenshot(page, 'admin-reviews-desktop');
      await page.setViewportSize({ width: 390, height: 844 });
      assert.deepEqual(await serious(page), [], 'axe on the review queue at 390 px');
      await screenshot(page, 'admin-reviews-phone');
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.locator(`[data-post="${id}"] a`).click();
      await page.waitForURL(new RegExp(`/admin/posts/${id}$`));
      await page.getByRole('button', { name: 'Approve and publish' }).click();
      await page.getByRole('status').filter({ hasText: 'Approved' }).waitFor();
      assert.equal((await ctx.services.posts.findDetail(id))?.status, 'published');
      await context.close();
    });

    it('two editors save the same post: the second is told, then keeps theirs knowingly', async () => {
      const post = await postWrites(ctx.services).create(
        { title: 'Shared post', content: '<p>Body</p>', status: 'published', websiteIds: [site] },
        { userId: editor.id, isAdmin: false },
      );
      const first = await signedIn(editor);
      const second = await signedIn(secondEditor);
      for (const { page } of [first, second]) {
        await page.goto(`${server.origin(HOST)}/admin/posts/${post.id}`);
        await page.locator('#post-title').waitFor();
      }
      await first.page.fill('#post-title', 'Shared post, first edit');
      await first.page.getByRole('button', { name: 'Update' }).click();
      await first.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();

      await second.page.fill('#post-title', 'Shared post, second edit');
      await second.page.getByRole('button', { name: 'Update' }).click();
      await second.page.getByRole('alert').filter({ hasText: 'Someone else saved this post' }).waitFor();
      assert.equal((await ctx.services.posts.findDetail(post.id))?.title, 'Shared post, first edit');
      await screenshot(second.page, 'admin-editor-conflict');

      await second.page.getByRole('button', { name: 'Keep mine and save' }).click();
      await second.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      assert.equal((await ctx.services.posts.findDetail(post.id))?.title, 'Shared post, second edit');
      await first.context.close();
      await second.context.close();
    });

    it('pages: an editor writes a page on the full-width template and publishes it; the site serves it', async () => {
      const { context, page } = await signedIn(editor);
      await page.getByRole('link', { name: 'Pages' }).click();
      await page.getByRole('link', { name: 'New page' }).click();
      await page.waitForURL(/\/admin\/pages\/new$/);
      await page.locator('.ProseMirror').waitFor();
      await page.fill('#page-title', 'About the market');
      await page.locator('.ProseMirror').click();
      await page.keyboard.type('We open at six.');
      await page.fill('#page-template', 'full-width');
      await page.getByRole('button', { name: 'Publish' }).click();
      await page.getByRole('status').filter({ hasText: 'Published' }).waitFor();
      const id = Number(/\/admin\/pages\/(\d+)$/.exec(page.url())?.[1]);
      const stored = await ctx.services.pages.findById(id);
      assert.equal(stored?.status, 'published');
      assert.equal(stored?.template, 'full-width');
      assert.deepEqual(await serious(page), [], 'axe on the page editor');
      await screenshot(page, 'admin-page-editor-desktop');
      await page.setViewportSize({ width: 390, height: 844 });
      assert.deepEqual(await serious(page), [], 'axe on the page editor at 390 px');
      await screenshot(page, 'admin-page-editor-phone');
      const shown = await ctx.request({
        method: 'GET',
        url: `/page/${stored?.slug}`,
        headers: { host: HOST },
      });
      assert.equal(shown.statusCode, 200);
      assert.match(shown.body, /We open at six\./);
      await context.close();
    });

    it('pasted Word and Google Docs HTML is cleaned: lists rebuilt, styles and office markup gone', async () => {
      // The cleaning function itself, bundled for the browser, on the shapes Word and Docs produce.
      const bundle = await build({
        entryPoints: ['admin/src/editor/paste.ts'],
        bundle: true,
        format: 'iife',
        globalName: 'paste',
        write: false,
      });
      const page = await (await browser.newContext()).newPage();
      await page.setContent('<!doctype html><title>paste</title>');
      await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
      const clean = (html: string) => page.evaluate<string>(`paste.cleanPastedHtml(${JSON.stringify(html)})`);

      const word =
        '<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><style>p.MsoNormal{}</style></head><body>' +
        '<!--[if gte mso 9]><xml><o:OfficeDocumentSettings/></xml><![endif]-->' +
        '<p class="MsoNormal" style="margin:0;mso-line-height-rule:exactly"><span lang="EN-GB" style="font-family:Calibri">Intro text<o:p></o:p></span></p>' +
        '<p class="MsoNormal"><o:p>&nbsp;</o:p></p>' +
        '<p class="MsoListParagraphCxSpFirst" style="mso-list:l0 level1 lfo1"><span style="mso-list:Ignore">·<span>&nbsp;&nbsp;</span></span>One</p>' +
        '<p class="MsoListParagraphCxSpLast" style="mso-list:l0 level1 lfo1"><span style="mso-list:Ignore">·<span>&nbsp;&nbsp;</span></span>Two</p>' +
        '<p class="MsoListParagraph" style="mso-list:l1 level1 lfo2"><span style="mso-list:Ignore">1.<span> </span></span>First</p>' +
        '</body></html>';
      assert.equal(
        await clean(word),
        '<p>Intro text</p><ul><li>One</li><li>Two</li></ul><ol><li>First</li></ol>',
      );

      const docs =
        '<meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-1234"><p dir="ltr" style="line-height:1.38">' +
        '<span style="font-size:11pt;font-weight:700">Bold</span><span style="font-size:11pt"> and </span>' +
        '<span style="font-style:italic">italic</span></p></b>';
      assert.equal(await clean(docs), '<p><strong>Bold</strong> and <em>italic</em></p>');
      assert.equal(
        await clean(
          '<a href="https://x.test" class="c" onclick="y()" style="color:red">link</a><script>alert(1)</script>',
        ),
        '<a href="https://x.test">link</a>',
      );
      await page.close();

      // Through the editor: a paste event carrying Word's HTML lands as a clean list.
      const { context, page: desk } = await signedIn(author);
      await desk.goto(`${server.origin(HOST)}/admin/posts/new`);
      await desk.locator('.ProseMirror').click();
      // (A string: the test's own TypeScript knows no DOM.)
      const html = await desk.evaluate<string>(`(() => {
        const data = new DataTransfer();
        data.setData('text/html', ${JSON.stringify(word)});
        data.setData('text/plain', 'One Two');
        const area = document.querySelector('.ProseMirror');
        area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
        return area.innerHTML;
      })()`);
      assert.match(html, /<ul><li><p>One<\/p><\/li><li><p>Two<\/p><\/li><\/ul>/);
      assert.doesNotMatch(html, /mso|Mso|o:p|style=/);
      await context.close();
    });
  },
);
