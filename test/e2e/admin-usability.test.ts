// The panel's everyday use (issue 34 #20), in a real headless Chromium: the post list's filters live
// in the address (a bookmark opens the same list, Back returns to the one before); one post's status
// reads "Draft", not "Drafts"; the role of a new registration is a choice among the roles, showing the
// value in effect; comment tabs show their counts and a reply shows what it answers; Ctrl+S saves,
// Ctrl+K opens the link prompt, the editor counts words; on a phone the navigation is a menu button
// (aria-expanded, Escape closes) and the editor's Update is near the top; a sign-out in the header.
// Every screen passes axe-core at 390 and 1280 px, with screenshots.
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
import { skipUnless } from '../support/requirements.js';
import { websiteWrites } from '../support/website-writes.js';
import { postWrites } from '../support/post-writes.js';

describe(
  'admin panel: everyday use (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let admin: TestUser;
    let editor: TestUser;
    let site: number;
    let draft: number;
    let published: number;
    let reply: number;

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      site = await websiteWrites(ctx.services).create({ siteName: 'Daily', domain: 'daily.test' });
      admin = await ctx.createUser({ admin: true });
      editor = await ctx.createUser();
      await ctx.services.memberships.grant(editor.id, site, 'editor');
      const writer = { userId: editor.id, isAdmin: false };
      draft = (
        await postWrites(ctx.services).create(
          { title: 'Half written', content: '<p>one two three</p>', status: 'draft', websiteIds: [site] },
          writer,
        )
      ).id;
      published = (
        await postWrites(ctx.services).create(
          { title: 'Out there', content: '<p>x</p>', status: 'published', websiteIds: [site] },
          writer,
        )
      ).id;
      for (let n = 1; n <= 2; n++) {
        await postWrites(ctx.services).create(
          { title: `Older ${n}`, content: '<p>x</p>', status: 'published', websiteIds: [site] },
          writer,
        );
      }
      const visitor = (name: string, content: string, parentId?: number) =>
        ctx.services.comments.store({
          postId: published,
          ...(parentId ? { parentId } : {}),
          content,
          name,
          email: `${name.toLowerCase()}@example.test`,
          user: null,
          websiteId: site,
          ipHash: 'a'.repeat(64),
          userAgent: 'test',
        });
      const question = await visitor('Ann', '<p>Which camera did you use for these pictures?</p>');
      await ctx.services.commentModeration.setStatus([question.id], 'approved');
      reply = (await visitor('Bob', '<p>Probably a phone.</p>', question.id)).id;
      await visitor('Cid', '<p>Nice.</p>');
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    const newPage = async (): Promise<Page> => (await browser.newContext({ bypassCSP: true })).newPage();
    const rows = (page: Page) => page.locator('table.posts tbody tr');

    it('issue 34 #20: the post list’s filters live in the address (bookmark, Back); a draft reads “Draft”', async () => {
      const origin = server.origin('daily.test');
      const page = await newPage();
      await signInToAdmin(page, origin, editor, '/admin/posts');
      await rows(page).first().waitFor();
      assert.equal(await rows(page).count(), 4);
      await page.getByRole('button', { name: /^Drafts/ }).click();
      await page.waitForURL(`${origin}/admin/posts?status=draft`);
      await page.waitForFunction("document.querySelectorAll('table.posts tbody tr').length === 1");
      assert.equal(
        (await page.locator(`tr[data-post="${draft}"] .status`).textContent())?.trim(),
        'Draft',
        'one post’s status is singular',
      );
      await page.getByRole('button', { name: /^All/ }).click();
      await page.fill('#post-search', 'Older');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL(`${origin}/admin/posts?q=Older`);
      await page.waitForFunction("document.querySelectorAll('table.posts tbody tr').length === 2");
      assert.equal(await page.inputValue('#post-sort'), 'relevance', 'a search lists the best match first');
      await page.selectOption('#post-sort', 'title');
      await page.waitForURL(`${origin}/admin/posts?q=Older&sort=title`);

      // Back: the list before, with its search box and rows.
      await page.goBack();
      await page.waitForURL(`${origin}/admin/posts?q=Older`);
      assert.equal(await page.inputValue('#post-search'), 'Older');
      await page.goBack();
      await page.waitForURL(`${origin}/admin/posts`);
      await page.waitForFunction("document.querySelectorAll('table.posts tbody tr').length === 4");
      await page.goBack();
      await page.waitForURL(`${origin}/admin/posts?status=draft`);
      await page.waitForFunction("document.querySelectorAll('table.posts tbody tr').length === 1");

      // A bookmark opens the same list.
      const bookmarked = await newPage();
      await bookmarked.context().addCookies(await page.context().cookies());
      await bookmarked.goto(`${origin}/admin/posts?status=published&q=Older&sort=title`);
      await bookmarked.waitForFunction("document.querySelectorAll('table.posts tbody tr').length === 2");
      assert.equal(
        await bookmarked.getByRole('button', { name: /^Published/ }).getAttribute('aria-pressed'),
        'true',
      );
      assert.equal(await bookmarked.inputValue('#post-search'), 'Older');
      assert.equal(await bookmarked.inputValue('#post-sort'), 'title');
      await auditScreen(bookmarked, 'usability-posts-filtered');
    });

    it('issue 40: a search lists the best match first (title above text), and another order can be chosen', async () => {
      const writer = { userId: editor.id, isAdmin: false };
      const titled = await postWrites(ctx.services).create(
        {
          title: 'Harbour lights',
          content: '<p>Boats at night.</p>',
          status: 'published',
          websiteIds: [site],
        },
        writer,
      );
      // Written later: the latest-updated order puts it first, the best match second.
      const mentioned = await postWrites(ctx.services).create(
        {
          title: 'Notes from the coast',
          content: '<p>We walked past the harbour twice.</p>',
          status: 'published',
          websiteIds: [site],
        },
        writer,
      );
      const origin = server.origin('daily.test');
      const page = await newPage();
      await signInToAdmin(page, origin, editor, '/admin/posts');
      await rows(page).first().waitFor();
      assert.equal(
        await page.locator('#post-sort option[value="relevance"]').count(),
        0,
        'no best match without a search',
      );
      await page.fill('#post-search', 'harbour');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.waitForURL(`${origin}/admin/posts?q=harbour`);
      await page.waitForFunction("document.querySelectorAll('table.posts tbody tr').length === 2");
      const order = async () =>
        rows(page).evaluateAll((found) => found.map((row) => Number(row.getAttribute('data-post'))));
      assert.equal(await page.inputValue('#post-sort'), 'relevance');
      assert.deepEqual(await order(), [titled.id, mentioned.id]);
      await page.selectOption('#post-sort', '-updated_at');
      await page.waitForURL(`${origin}/admin/posts?q=harbour&sort=-updated_at`);
      await page.waitForFunction(
        `document.querySelector('table.posts tbody tr')?.getAttribute('data-post') === '${mentioned.id}'`,
      );
      assert.deepEqual(await order(), [mentioned.id, titled.id]);
    });

    it('issue 34 #20: comment tabs show their counts, and a reply shows what it answers', async () => {
      const page = await newPage();
      await signInToAdmin(page, server.origin('daily.test'), editor, '/admin/comments');
      const item = page.locator(`[data-comment="${reply}"]`);
      await item.waitFor();
      const tab = (name: RegExp) => page.getByRole('button', { name });
      await tab(/^Waiting/)
        .locator('.count')
        .filter({ hasText: '2' })
        .waitFor();
      assert.equal(
        (
          await tab(/^Approved/)
            .locator('.count')
            .textContent()
        )?.trim(),
        '1',
      );
      assert.equal((await tab(/^Spam/).locator('.count').textContent())?.trim(), '0');
      const quoted = item.locator('.reply-to');
      assert.match((await quoted.textContent()) ?? '', /In reply to Ann:.*Which camera did you use/);
      await auditScreen(page, 'usability-comments');
    });

    it('issue 34 #20: Ctrl+S saves, Ctrl+K opens the link prompt, the words are counted', async () => {
      const origin = server.origin('daily.test');
      const page = await newPage();
      await signInToAdmin(page, origin, editor, `/admin/posts/${draft}`);
      await page.locator('#post-title').waitFor();
      await page.getByText('3 words').waitFor();
      await page.fill('#post-title', 'Half written, then saved');
      await page.keyboard.press('Control+s');
      await page.getByText('Draft saved.').waitFor();
      const saved = await ctx.services.posts.findDetail(draft);
      assert.equal(saved?.title, 'Half written, then saved');
      await page.locator('.ProseMirror').click();
      await page.keyboard.press('End');
      await page.keyboard.type(' four five');
      await page.getByText('5 words').waitFor();
      await page.keyboard.press('Control+k');
      await page.locator('dialog[open]').waitFor();
      await auditScreen(page, 'usability-editor-shortcuts');
    });

    it('issue 34 #20: on a phone the navigation is a menu (Escape closes) and Update is near the top', async () => {
      const origin = server.origin('daily.test');
      const page = await newPage();
      await signInToAdmin(page, origin, editor, `/admin/posts/${published}`);
      await page.setViewportSize({ width: 390, height: 844 });
      const update = page.getByRole('button', { name: 'Update', exact: true });
      await update.waitFor();
      const menu = page.getByRole('button', { name: 'Menu' });
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      const comments = page
        .getByRole('navigation', { name: 'Admin' })
        .getByRole('link', { name: 'Comments' });
      assert.equal(await comments.isVisible(), false, 'the links are folded away');
      const top = (await update.boundingBox())?.y ?? Infinity;
      assert.ok(top < 400, `Update is ${top} px down a 844 px screen`);
      await menu.click();
      assert.equal(await menu.getAttribute('aria-expanded'), 'true');
      assert.equal(await comments.isVisible(), true);
      await page.keyboard.press('Escape');
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      assert.equal(await comments.isVisible(), false);
      assert.equal(
        await page.evaluate('document.activeElement?.textContent'),
        'Menu',
        'focus back on the button',
      );
      await page.setViewportSize({ width: 1280, height: 900 });
      assert.equal(await menu.isVisible(), false, 'no menu button on a wide screen');
      assert.equal(await comments.isVisible(), true);
      await auditScreen(page, 'usability-editor-phone');
    });

    it('issue 34 #20: the role of a new registration is a choice among the roles, showing its value', async () => {
      await ctx.services.settings.set('registration_role', 'superuser'); // stored before the check
      const page = await newPage();
      await signInToAdmin(page, server.origin('daily.test'), admin, '/admin/system');
      const role = page.getByLabel(/Role of a new registration/);
      await role.waitFor();
      assert.equal(await role.evaluate((node) => node.tagName), 'SELECT');
      assert.deepEqual(
        await role
          .locator('option')
          .evaluateAll((nodes) => nodes.map((node) => (node as unknown as { value: string }).value)),
        ['reader', 'contributor', 'author'],
      );
      assert.equal(await role.inputValue(), 'reader', 'the value in effect');
      await page.getByText('Not set to one of the roles').waitFor();
      // A setting nobody set shows the value in effect, marked as the default.
      const lifetime = page.locator('[data-setting-field="session_lifetime"]');
      assert.equal(await lifetime.locator('input').inputValue(), String(7 * 24 * 60));
      assert.match((await lifetime.textContent()) ?? '', /\(default\)/);
      assert.equal(await page.locator('[data-setting-field="enable_registration"] input').isChecked(), true);
      await role.selectOption('contributor');
      await page.getByRole('button', { name: 'Save Registration and accounts' }).click();
      await page.getByText('1 setting(s) saved.').first().waitFor();
      assert.equal(await ctx.services.settings.get('registration_role'), 'contributor');
      // The table of every setting below shows the value saved above.
      const shown = page.locator('tr[data-setting="registration_role"] input');
      await page.waitForFunction(
        `document.querySelector('tr[data-setting="registration_role"] input')?.value === 'contributor'`,
      );
      assert.equal(await shown.inputValue(), 'contributor');
      await auditScreen(page, 'usability-settings');
    });

    it('issue 34 #20: the page editor has the library’s images, SEO fields and a preview on the site’s theme', async () => {
      const origin = server.origin('daily.test');
      const draftPage = await ctx.services.pages.create({
        title: 'Opening hours',
        slug: 'hours',
        content: '<p>Monday to Friday</p>',
        status: 'draft',
        websiteIds: [site],
      });
      const page = await newPage();
      await signInToAdmin(page, origin, editor, `/admin/pages/${draftPage.id}`);
      await page.locator('#page-title').waitFor();
      await page.getByRole('button', { name: 'Image from the library' }).click();
      await page.getByRole('dialog', { name: 'Choose an image' }).waitFor();
      await page.keyboard.press('Escape');
      // SEO fields with a search-result preview, saved with the page (Ctrl+S).
      await page.getByLabel('Title for search engines').fill('When we are open');
      await page.getByLabel('Description for search engines').fill('Our hours, holidays included.');
      const serp = page.getByRole('group', { name: 'How a search result may show it' });
      assert.match((await serp.textContent()) ?? '', /When we are open.*Our hours, holidays included\./);
      await page.keyboard.press('Control+s');
      // Saved: not "Unsaved changes", and not "Saving…" either (the save is queued and sent).
      await page.waitForFunction(
        "/^(?!.*(Unsaved changes|Saving)).*Saved/.test(document.querySelector('.save-state')?.textContent ?? '')",
      );
      const stored = await ctx.services.pages.findById(draftPage.id);
      assert.equal(stored?.metaTitle, 'When we are open');
      assert.equal(stored?.metaDescription, 'Our hours, holidays included.');
      const [preview] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('link', { name: 'Preview on the site' }).click(),
      ]);
      await preview.waitForLoadState();
      assert.match(await preview.title(), /Preview: When we are open/);
      assert.equal(
        await preview.getAttribute('meta[name="description"]', 'content'),
        'Our hours, holidays included.',
      );
      assert.match((await preview.textContent('body')) ?? '', /Monday to Friday/);
      await auditScreen(page, 'usability-page-editor');
      // A draft page is previewed only by those who may write it; to others it does not exist.
      const author = await ctx.createUser();
      await ctx.services.memberships.grant(author.id, site, 'author');
      const outsider = await newPage();
      await signInToAdmin(outsider, origin, author, '/admin');
      const refused = await outsider.goto(`${origin}/page/preview/${draftPage.id}`);
      assert.equal(refused?.status(), 404);
      assert.doesNotMatch((await outsider.textContent('body')) ?? '', /Monday to Friday/);
    });

    it('issue 34 #20: a sign-out in the header', async () => {
      const origin = server.origin('daily.test');
      const page = await newPage();
      await signInToAdmin(page, origin, editor, '/admin/posts');
      await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${origin}/`);
      await page.goto(`${origin}/admin`);
      await page.getByRole('link', { name: 'Sign in' }).waitFor();
    });
  },
);
