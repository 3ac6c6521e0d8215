// The panel offers only what the policy allows (issue 34 #19), in a real headless Chromium: an author
// sees no Update, Unpublish or Delete on an editor's post, cannot choose it in the list, and a screen
// of their role's reach (menus, pages) is one clear "You do not have access" state, with no request
// refused on the way; an editor is offered no change of a page on every website. Every screen passes
// axe-core at 390 and 1280 px, with screenshots.
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
  'admin panel: only what the policy allows (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let author: TestUser;
    let editor: TestUser;
    let theirs: number;
    let mine: number;
    let everywhere: number;
    let here: number;

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      const site = await websiteWrites(ctx.services).create({ siteName: 'Rights', domain: 'rights.test' });
      author = await ctx.createUser();
      editor = await ctx.createUser();
      await ctx.services.memberships.grant(author.id, site, 'author');
      await ctx.services.memberships.grant(editor.id, site, 'editor');
      theirs = (
        await postWrites(ctx.services).create(
          { title: 'The editor’s post', content: '<p>x</p>', status: 'published', websiteIds: [site] },
          { userId: editor.id, isAdmin: false },
        )
      ).id;
      mine = (
        await postWrites(ctx.services).create(
          { title: 'My own post', content: '<p>x</p>', status: 'published', websiteIds: [site] },
          { userId: author.id, isAdmin: false },
        )
      ).id;
      everywhere = (
        await ctx.services.pages.create({
          title: 'Every site',
          slug: 'every',
          status: 'published',
          websiteIds: [],
        })
      ).id;
      here = (
        await ctx.services.pages.create({
          title: 'This site',
          slug: 'this',
          status: 'published',
          websiteIds: [site],
        })
      ).id;
      server = await listen(ctx, port);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    /** A signed-in page that records every API answer refused (403). */
    const open = async (user: TestUser, path: string): Promise<{ page: Page; refused: string[] }> => {
      const page = await (await browser.newContext({ bypassCSP: true })).newPage();
      const refused: string[] = [];
      page.on('response', (response) => {
        if (response.status() === 403) refused.push(`${response.request().method()} ${response.url()}`);
      });
      await signInToAdmin(page, server.origin('rights.test'), user, path);
      return { page, refused };
    };

    it('issue 34 #19: an author is offered no change of an editor’s post, in the list or the editor', async () => {
      const { page, refused } = await open(author, '/admin/posts');
      const row = (id: number) => page.locator(`tr[data-post="${id}"]`);
      await row(theirs).waitFor();
      assert.equal(await row(theirs).getByRole('checkbox').count(), 0, 'another’s post cannot be chosen');
      assert.equal(await row(mine).getByRole('checkbox').count(), 1, 'their own post can');
      await auditScreen(page, 'rights-posts-author');

      await page.goto(`${server.origin('rights.test')}/admin/posts/${theirs}`);
      await page.getByText('You may read this post but not change it.').waitFor();
      for (const name of ['Update', 'Unpublish', 'Delete post', 'Save draft', 'Publish']) {
        assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name}`);
      }
      await auditScreen(page, 'rights-editor-readonly');

      await page.goto(`${server.origin('rights.test')}/admin/posts/${mine}`);
      await page.getByRole('button', { name: 'Update', exact: true }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Delete post' }).count(), 1);
      assert.equal(await page.getByText('You may read this post but not change it.').count(), 0);
      assert.deepEqual(refused, [], 'nothing the panel asked for was refused');
    });

    it('issue 34 #19: screens beyond the role are one clear “no access” state, with no refused call', async () => {
      const { page, refused } = await open(author, '/admin');
      for (const path of ['/admin/menus', '/admin/pages', `/admin/pages/${here}`, '/admin/people']) {
        await page.goto(`${server.origin('rights.test')}${path}`);
        await page.getByRole('heading', { name: 'You do not have access' }).waitFor();
        assert.equal(await page.locator('main [role=alert]').count(), 0, `${path}: no failing part`);
        assert.equal(await page.locator('main h1').count(), 1, `${path}: one state, not a frame`);
      }
      await auditScreen(page, 'rights-no-access');
      assert.deepEqual(refused, [], 'no screen of another role was half drawn from refused calls');
    });

    it('issue 34 #19: an editor is offered no change of a page on every website (administrators’)', async () => {
      const { page, refused } = await open(editor, `/admin/pages/${everywhere}`);
      await page.getByText('You may read this page but not change it.').waitFor();
      for (const name of ['Update', 'Unpublish', 'Delete page']) {
        assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name}`);
      }
      await auditScreen(page, 'rights-page-readonly');
      await page.goto(`${server.origin('rights.test')}/admin/pages/${here}`);
      await page.getByRole('button', { name: 'Update', exact: true }).waitFor();
      assert.deepEqual(refused, []);
    });
  },
);
