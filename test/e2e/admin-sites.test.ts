// The admin panel's screens that run a site (issue 25) in a real headless Chromium, over API v2 with
// the session of a site admin: each screen's main path done for real and checked through the API
// afterwards, the axe-core audit at 1280 and 390 px, and screenshots of every screen at both widths.
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

const HOST = 'sites.test';

describe(
  'admin panel: running the sites (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let admin: TestUser;
    let siteId: number;
    let page: Page;
    let origin: string;

    const call = async (method: string, url: string, payload?: unknown) => {
      const response = await ctx.request({
        method: method,
        url,
        headers: { host: HOST, authorization: `Bearer ${admin.token}` },
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
      return { status: response.statusCode, body: response.body ? response.json() : null };
    };

    before(async () => {
      ensureAdminBuilt();
      let port: number;
      ({ ctx, port } = await servedContext());
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      await ctx.services.settings.set('supported_locales', 'en,fr');
      siteId = await websiteWrites(ctx.services).create({ siteName: 'Town news', domain: HOST });
      admin = await ctx.createUser();
      await ctx.services.memberships.grant(admin.id, siteId, 'site_admin');
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

    it('tags: a tree per type, moved with buttons and by dragging, translated, merged, deleted', async () => {
      const ids: Record<string, number> = {};
      for (const name of ['News', 'Sports', 'Local']) {
        const created = await call('POST', '/api/v2/tags', {
          name,
          type: 'post_category',
          website_ids: [siteId],
        });
        assert.equal(created.status, 201);
        ids[name] = created.body.data.id;
      }
      const post = await call('POST', '/api/v2/posts', {
        title: 'Market day',
        content: '<p>Stalls.</p>',
        categories: [ids.Local],
      });
      assert.equal(post.status, 201);
      const tree = async () =>
        (await call('GET', '/api/v2/tags?filter[type]=post_category')).body.data as Array<{
          id: number;
          name: string;
          children: Array<{ id: number; name: string; children: unknown[] }>;
        }>;
      const shape = (nodes: Awaited<ReturnType<typeof tree>>): unknown =>
        nodes.map((node) => (node.children.length ? [node.name, shape(node.children as never)] : node.name));

      await page.getByRole('link', { name: 'Tags' }).click();
      await page.waitForURL(`${origin}/admin/tags`);
      await page.getByRole('button', { name: 'Sports', exact: true }).click();
      await page.getByRole('heading', { name: 'Sports' }).waitFor();

      // Keyboard: indent Sports under News, then move Local up above News.
      await page.getByRole('button', { name: 'Indent' }).click();
      await page.getByRole('status').filter({ hasText: 'Moved “Sports”.' }).waitFor();
      await page.waitForFunction("document.querySelectorAll('.tree .tree [data-tag]').length === 1");
      assert.deepEqual(shape(await tree()), [['News', ['Sports']], 'Local']);
      await page.getByRole('button', { name: 'Local', exact: true }).click();
      // With the keyboard alone: the focus stays on the button, which then says it cannot move further.
      await page.getByRole('button', { name: 'Move up' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: 'Moved “Local”.' }).waitFor();
      assert.equal(await page.evaluate('document.activeElement.textContent'), 'Move up');
      assert.deepEqual(shape(await tree()), ['Local', ['News', ['Sports']]]);
      assert.equal(await page.getByRole('button', { name: 'Move up' }).getAttribute('aria-disabled'), 'true');

      // Drag: Sports dropped onto the middle of Local becomes its child.
      await page
        .locator(`[data-tag="${ids.Sports}"] > .tree-row`)
        .dragTo(page.locator(`[data-tag="${ids.Local}"] > .tree-row`));
      await page.getByRole('status').filter({ hasText: 'Moved “Sports”.' }).waitFor();
      assert.deepEqual(shape(await tree()), [['Local', ['Sports']], 'News']);

      // Translate Sports into French: the base name stays.
      await page.getByRole('button', { name: 'Sports', exact: true }).click();
      await page.selectOption('#tag-locale', 'fr');
      await page.fill('#tag-name', 'Les sports');
      await page.getByRole('button', { name: 'Save the name' }).click();
      await page.getByRole('status').filter({ hasText: 'Renamed to “Les sports”.' }).waitFor();
      const french = (await call('GET', '/api/v2/tags?filter[type]=post_category&locale=fr')).body.data;
      assert.equal(french[0].children[0].name, 'Les sports');
      assert.equal((await call('GET', `/api/v2/tags/${ids.Sports}`)).body.data.name, 'Sports');

      // Create Headlines, then merge it into News.
      await page.fill('#tag-new', 'Headlines');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('heading', { name: 'Headlines' }).waitFor();
      const headlines = (await tree()).find((node) => node.name === 'Headlines')!;
      await page.selectOption('#tag-merge', String(ids.News));
      await page.getByRole('button', { name: 'Merge', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Merged “Headlines” into “News”.' }).waitFor();
      assert.equal((await call('GET', `/api/v2/tags/${headlines.id}`)).status, 404);

      // Delete Local: the API says what uses it, then a confirmed force delete.
      await page.getByRole('button', { name: 'Local', exact: true }).click();
      await page.getByRole('heading', { name: 'Local' }).waitFor();
      await auditScreen(page, 'tags');
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: /in use/ })
        .waitFor();
      assert.equal((await call('GET', `/api/v2/tags/${ids.Local}`)).status, 200);
      await page.getByRole('button', { name: 'Delete it anyway' }).click();
      await page.getByRole('status').filter({ hasText: 'Deleted “Local”.' }).waitFor();
      assert.equal((await call('GET', `/api/v2/tags/${ids.Local}`)).status, 404);

      // The other type has its own tree.
      await page.getByRole('button', { name: 'Tags', exact: true }).click();
      await page.getByText('None yet.').waitFor();
    });
    it('menus: create, build a tree with buttons and by dragging, save with If-Match, a 412 told, rename, delete', async () => {
      const about = await call('POST', '/api/v2/pages', {
        title: 'About us',
        content: '<p>Who.</p>',
        status: 'published',
      });
      assert.equal(about.status, 201);
      const post = await call('POST', '/api/v2/posts', {
        title: 'Fair opens',
        content: '<p>Rides.</p>',
        status: 'published',
      });
      assert.equal(post.status, 201);

      await page.getByRole('link', { name: 'Menus' }).click();
      await page.waitForURL(`${origin}/admin/menus`);
      await page.getByText('No menu yet.').waitFor();
      await page.fill('#menu-new-name', 'Main menu');
      await page.fill('#menu-new-handle', 'header');
      await page.getByRole('button', { name: 'Create the menu' }).click();
      await page.getByRole('heading', { name: 'Menu “Main menu”' }).waitFor();
      const menus = (await call('GET', `/api/v2/websites/${siteId}/menus`)).body.data;
      assert.deepEqual(
        menus.map((menu: { handle: string }) => menu.handle),
        ['header'],
      );
      const menuId: number = menus[0].id;

      // Three items: a link, a page, a post (new tab, an icon), the post indented under the page.
      await page.getByRole('button', { name: 'Add an item' }).click();
      await page.fill('#item-label', 'Home');
      await page.fill('#item-url', '/');
      await page.getByRole('button', { name: 'Add an item' }).click();
      await page.selectOption('#item-type', 'page');
      await page.selectOption('#item-ref', String(about.body.data.id));
      assert.equal(await page.inputValue('#item-label'), 'About us');
      await page.getByRole('button', { name: 'Add an item' }).click();
      await page.selectOption('#item-type', 'post');
      await page.selectOption('#item-ref', String(post.body.data.id));
      await page.getByLabel('Open in a new tab').check();
      await page.fill('#item-icon', 'star');
      await page.getByRole('button', { name: 'Indent' }).click();
      await page.getByRole('button', { name: 'Save the menu' }).click();
      await page.getByRole('status').filter({ hasText: 'The menu is saved.' }).waitFor();
      type Node = {
        label: string;
        type: string;
        target: string;
        icon: string | null;
        url: string | null;
        children: Node[];
      };
      const stored = async () => (await call('GET', `/api/v2/menus/${menuId}`)).body.data.items as Node[];
      const shape = (nodes: Node[]): unknown =>
        nodes.map((node) => (node.children.length ? [node.label, shape(node.children)] : node.label));
      let items = await stored();
      assert.deepEqual(shape(items), ['Home', ['About us', ['Fair opens']]]);
      assert.equal(items[0]!.url, '/');
      assert.equal(items[1]!.type, 'page');
      assert.deepEqual(
        {
          type: items[1]!.children[0]!.type,
          target: items[1]!.children[0]!.target,
          icon: items[1]!.children[0]!.icon,
        },
        { type: 'post', target: '_blank', icon: 'star' },
      );

      // Drag the post to the top edge of Home: it becomes the first root item.
      const row = (label: string) => page.locator('.builder .tree-row').filter({ hasText: label });
      await row('Fair opens').dragTo(row('Home'), { targetPosition: { x: 20, y: 2 } });
      await page.getByText('Unsaved changes').waitFor();
      // The preview shows the header as it will be, before the save.
      await page.getByText('Preview of the site\u2019s header, with the changes not saved yet').waitFor();
      const previewed = await page.evaluate<string[]>(
        `[...document.querySelectorAll('.preview-bar > ul > li > .preview-link')].map((el) => el.textContent)`,
      );
      assert.deepEqual(previewed, ['star Fair opens ↗', 'Home', 'About us']);
      await page.getByRole('button', { name: 'Save the menu' }).click();
      await page.getByRole('status').filter({ hasText: 'The menu is saved.' }).waitFor();
      items = await stored();
      assert.deepEqual(shape(items), ['Fair opens', 'Home', 'About us']);

      await page.getByRole('button', { name: /^Home/ }).click();
      await auditScreen(page, 'menus');

      // Someone else saves meanwhile: the next save is refused with a clear message.
      const other = await call('PUT', `/api/v2/menus/${menuId}/items`, {
        items: [{ label: 'Only this', type: 'link', url: '/only' }],
      });
      assert.equal(other.status, 200);
      await page.fill('#item-label', 'Start');
      await page.getByRole('button', { name: 'Save the menu' }).click();
      await page.getByRole('alert').filter({ hasText: 'Someone else changed this menu' }).waitFor();
      assert.deepEqual(shape(await stored()), ['Only this']);
      await page.getByRole('button', { name: 'Load their version' }).click();
      await page.getByRole('button', { name: /^Only this/ }).waitFor();

      await page.fill('#menu-name', 'Header menu');
      await page.getByRole('button', { name: 'Rename', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Renamed the menu to “Header menu”.' }).waitFor();
      assert.equal((await call('GET', `/api/v2/menus/${menuId}`)).body.data.name, 'Header menu');

      await page.getByRole('button', { name: 'Delete this menu' }).click();
      await page.getByRole('status').filter({ hasText: 'Deleted the menu “Header menu”.' }).waitFor();
      assert.equal((await call('GET', `/api/v2/menus/${menuId}`)).status, 404);
    });
    it('people: members added by email, their roles changed, removed; the audit log filtered', async () => {
      const pat = await ctx.createUser();
      const eddie = await ctx.createUser();
      await ctx.services.memberships.grant(eddie.id, siteId, 'editor');

      await page.getByRole('link', { name: 'People' }).click();
      await page.waitForURL(`${origin}/admin/people`);
      await page.locator(`tr[data-member="${eddie.id}"]`).waitFor();

      await page.fill('#member-email', pat.email);
      await page.selectOption('#member-role', 'contributor');
      await page.getByRole('button', { name: 'Add the member' }).click();
      await page.getByRole('status').filter({ hasText: 'is now a member, as Contributor.' }).waitFor();
      assert.equal(await ctx.services.memberships.roleOn(pat.id, siteId), 'contributor');

      const patRow = page.locator(`tr[data-member="${pat.id}"]`);
      await patRow.locator('select').selectOption('editor');
      await page.getByRole('status').filter({ hasText: 'is now Editor.' }).waitFor();
      assert.equal(await ctx.services.memberships.roleOn(pat.id, siteId), 'editor');

      // A site admin cannot make a site admin: the API's refusal is told, the role stays.
      await page.locator(`tr[data-member="${eddie.id}"] select`).selectOption('site_admin');
      await page.getByRole('alert').filter({ hasText: 'only an administrator' }).waitFor();
      assert.equal(await ctx.services.memberships.roleOn(eddie.id, siteId), 'editor');
      await page.waitForFunction(
        `document.querySelector('tr[data-member="${eddie.id}"] select').value === 'editor'`,
      );

      // An unknown email is told too.
      await page.fill('#member-email', 'nobody@example.test');
      await page.getByRole('button', { name: 'Add the member' }).click();
      await page.getByRole('alert').filter({ hasText: 'No account has this email' }).waitFor();

      await patRow.getByRole('button', { name: /^Remove/ }).click();
      await page.getByRole('status').filter({ hasText: 'is no longer a member' }).waitFor();
      assert.equal(await ctx.services.memberships.roleOn(pat.id, siteId), null);

      // An invitation by email: sent (the mail goes to the log here), listed, withdrawn.
      await page.fill('#invite-email', 'newbie@example.test');
      await page.selectOption('#invite-role', 'author');
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Invitation sent to newbie@example.test' }).waitFor();
      const waiting = page.locator('[data-invite]').filter({ hasText: 'newbie@example.test' });
      await waiting.waitFor();
      await waiting.getByRole('button', { name: 'Withdraw' }).click();
      await page.getByRole('status').filter({ hasText: 'Invitation withdrawn.' }).waitFor();
      await waiting.waitFor({ state: 'detached' });
      const left = await ctx.services.database.db.selectFrom('invites').select('id').execute();
      assert.equal(left.length, 0);

      // The audit log: memberships only, then tags only.
      const audit = page.locator('table.audit');
      await audit.locator('tr[data-entry]').first().waitFor();
      await page.selectOption('#audit-type', 'membership');
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page.waitForFunction(
        // Not vacuously true on an empty table (the list reloads after the filter is applied).
        "((cells) => cells.length > 0 && cells.every((cell) => cell.textContent.startsWith('membership')))([...document.querySelectorAll('table.audit tr[data-entry] td:nth-child(4)')])",
      );
      const actions = await audit.locator('tr[data-entry] code').allTextContents();
      assert.deepEqual(new Set(actions), new Set(['membership.grant', 'membership.revoke']));
      await page.selectOption('#audit-type', 'tag');
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page.waitForFunction(
        "[...document.querySelectorAll('table.audit tr[data-entry] code')].some((cell) => cell.textContent === 'tag.merge')",
      );
      await page.fill('#audit-since', '2000-01-01');
      await page.fill('#audit-until', '2000-01-02');
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await page.getByText('Nothing was recorded for these filters.').waitFor();
      await page.fill('#audit-since', '');
      await page.fill('#audit-until', '');
      await page.selectOption('#audit-type', '');
      await page.getByRole('button', { name: 'Show', exact: true }).click();
      await audit.locator('tr[data-entry]').first().waitFor();
      await auditScreen(page, 'people');
    });
    it('website: name and slogan per locale, cache switches, domains added and removed', async () => {
      const elsewhere = await websiteWrites(ctx.services).create({
        siteName: 'Elsewhere',
        domain: 'elsewhere.test',
      });
      await page.getByRole('link', { name: 'Website', exact: true }).click();
      await page.waitForURL(`${origin}/admin/website`);
      assert.equal(await page.inputValue('#website-site_name'), 'Town news');
      await page.fill('#website-site_name', 'Town news daily');
      await page.fill('#website-site_slogan', 'All the town');
      await page.getByRole('button', { name: 'fr', exact: true }).click();
      await page.fill('#website-site_name', 'Nouvelles de la ville');
      await page.fill('#website-site_slogan', 'Toute la ville');
      const pageCache = page.getByLabel('Page cache');
      const wasOn = await pageCache.isChecked();
      await pageCache.setChecked(!wasOn);
      await page.selectOption('#website-homepage', { label: 'About us' });
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      let stored = (await call('GET', `/api/v2/websites/${siteId}`)).body.data;
      assert.equal(stored.fields.site_name, 'Town news daily');
      assert.equal(stored.fields.site_slogan, 'All the town');
      assert.equal(stored.translations.site_name.fr, 'Nouvelles de la ville');
      assert.equal(stored.translations.site_slogan.fr, 'Toute la ville');
      assert.equal(stored.enabled_page_cache, !wasOn);
      assert.equal(stored.fields.homepage, 'about-us');
      const home = await ctx.request({ method: 'GET', url: '/', headers: { host: HOST } });
      assert.match(home.body, /Who\./, 'the home shows the page chosen');
      assert.equal((await call('PATCH', `/api/v2/websites/${siteId}`, { homepage: null })).status, 200);
      await page.locator('.brand').filter({ hasText: 'Town news daily' }).waitFor();

      await page.fill('#website-domain', 'www.sites.test');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Added www.sites.test.' }).waitFor();
      await page.locator('li[data-domain="www.sites.test"]').waitFor();
      stored = (await call('GET', `/api/v2/websites/${siteId}`)).body.data;
      assert.deepEqual(
        stored.aliases.map((alias: { domain: string }) => alias.domain),
        ['www.sites.test'],
      );
      await page.fill('#website-domain', 'elsewhere.test');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('alert').waitFor();
      await auditScreen(page, 'website');

      await page.getByRole('button', { name: 'Remove www.sites.test' }).click();
      await page.getByRole('status').filter({ hasText: 'Removed www.sites.test.' }).waitFor();
      stored = (await call('GET', `/api/v2/websites/${siteId}`)).body.data;
      assert.deepEqual(stored.aliases, []);
      assert.equal(stored.domain, HOST);

      // On another website, the same site admin sees none of these screens, and the API refuses.
      const away = await (await browser.newContext({ bypassCSP: true })).newPage();
      const there = server.origin('elsewhere.test');
      await signInToAdmin(away, there, admin, '/admin/website');
      // One clear state, not the screen's frame with a refused call in it (issue 34 #19): with no role
      // there, no right at all (issue 34 #1), the panel says so and links to their own websites.
      await away.getByRole('heading', { name: 'You have no role on Elsewhere' }).waitFor();
      const nav = await away.locator('.bar nav a').allTextContents();
      for (const hidden of ['Menus', 'Website', 'People']) assert.ok(!nav.includes(hidden), nav.join(', '));
      assert.equal((await call('GET', `/api/v2/websites/${elsewhere}`)).status, 404, 'not even shown');
      assert.equal((await call('GET', `/api/v2/websites/${elsewhere}/members`)).status, 404);
      await away.context().close();
    });
    it('dashboard: the first screen counts this week’s posts, drafts, reviews and comments waiting', async () => {
      for (const [title, status] of [
        ['Draft one', 'draft'],
        ['Draft two', 'draft'],
        ['For review', 'draft'],
        ['Out today', 'published'],
      ] as const) {
        const made = await call('POST', '/api/v2/posts', { title, content: '<p>Text.</p>', status });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        if (title === 'Out today') {
          const held = await ctx.services.comments.store({
            postId: made.body.data.id,
            content: '<p>First!</p>',
            name: 'Ann',
            email: 'ann@example.test',
            user: null,
            websiteId: siteId,
            ipHash: 'a'.repeat(64),
            userAgent: 'test',
          });
          assert.equal(held.status, 'pending');
        }
        if (title === 'For review') {
          assert.equal((await call('POST', `/api/v2/posts/${made.body.data.id}/submit`, {})).status, 200);
        }
      }
      const total = async (status: string) =>
        (await call('GET', `/api/v2/posts?per_page=1&filter[status]=${status}`)).body.meta.pagination
          .total as number;
      const expected = {
        week: await total('published'),
        drafts: await total('draft'),
        pending: await total('pending'),
        comments: ((await call('GET', '/api/v2/comments?filter[status]=pending')).body.data as unknown[])
          .length,
      };
      assert.ok(
        expected.week >= 1 && expected.drafts >= 2 && expected.pending >= 1 && expected.comments >= 1,
      );

      await page.getByRole('link', { name: 'Dashboard' }).click();
      await page.waitForURL(`${origin}/admin`);
      const card = (key: string) => page.locator(`[data-card="dashboard.${key}"] .card-value`);
      for (const [key, value] of Object.entries(expected)) {
        await page.waitForFunction(
          `document.querySelector('[data-card="dashboard.${key}"] .card-value')?.textContent === '${value}'`,
        );
        assert.equal(await card(key).textContent(), String(value));
      }
      await auditScreen(page, 'dashboard');
      await page.getByRole('link', { name: 'Review them' }).click();
      await page.waitForURL(`${origin}/admin/reviews`);
    });

    it('system: a site admin flushes their website\u2019s cache; an administrator edits settings and the API switches', async () => {
      await page.goto(`${origin}/admin/system`);
      await page.getByRole('heading', { name: 'System' }).waitFor();
      assert.equal(
        await page.getByRole('heading', { name: 'Settings' }).count(),
        0,
        'settings are the administrators\u2019',
      );
      await page.getByRole('button', { name: 'Flush the cache of Town news' }).click();
      await page.getByRole('status').filter({ hasText: 'cache is flushed' }).waitFor();

      const root = await ctx.createUser({ admin: true });
      await ctx.services.settings.set('frontend_post_status', 'draft');
      await ctx.services.settings.set('enable_api_access', '0');
      const desk = await (await browser.newContext({ bypassCSP: true })).newPage();
      desk.on('dialog', (dialog) => void dialog.accept());
      await signInToAdmin(desk, origin, root, '/admin/system');
      await desk.getByRole('heading', { name: 'Settings' }).waitFor();
      await desk.fill('#settings-filter', 'enable_api_access');
      await desk.locator('[data-setting="enable_api_access"] input[type=checkbox]').check();
      await desk.getByRole('status').filter({ hasText: '1 setting(s) saved.' }).waitFor();
      assert.equal(await ctx.services.settings.get('enable_api_access'), '1');
      await desk.fill('#settings-filter', 'frontend_post_status');
      await desk.locator('[data-setting="frontend_post_status"] input').fill('published');
      await desk.getByRole('button', { name: 'Save the changed values' }).click();
      for (let tries = 0; tries < 100; tries++) {
        if ((await ctx.services.settings.get('frontend_post_status')) === 'published') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(await ctx.services.settings.get('frontend_post_status'), 'published');
      await desk.getByText('No update is running.').waitFor();
      await desk.fill('#settings-filter', '');
      await auditScreen(desk, 'system');
    });

    it('links: added with a new category, listed with its clicks, deleted', async () => {
      await page.goto(`${origin}/admin/links`);
      await page.getByRole('heading', { name: 'Links directory' }).waitFor();
      await page.fill('#link-name', 'Town hall');
      await page.fill('#link-url', 'https://townhall.example.test/');
      await page.fill('#link-categories', 'Civic');
      await page.getByRole('button', { name: 'Add the link' }).click();
      await page.getByRole('status').filter({ hasText: 'Town hall is in the directory.' }).waitFor();
      const row = page.locator('[data-link]').filter({ hasText: 'Town hall' });
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', /Civic/);
      await auditScreen(page, 'links');
      await row.getByRole('button', { name: 'Delete Town hall' }).click();
      await row.waitFor({ state: 'detached' });
      const left = await call('GET', '/api/v2/links');
      assert.equal(left.body.data.length, 0);
    });

    it('another website stays closed to this site admin: its panel says so, and its data answer 404', async () => {
      const other = await websiteWrites(ctx.services).create({ siteName: 'Harbour', domain: 'harbour.test' });
      const secret = await ctx.request({
        method: 'POST',
        url: '/api/v2/posts',
        headers: {
          host: 'harbour.test',
          authorization: `Bearer ${(await ctx.createUser({ admin: true })).token}`,
        },
        payload: { title: 'Harbour secret draft', content: '<p>x</p>', status: 'draft' },
      });
      assert.equal(secret.statusCode, 201, secret.body);
      const secretId = secret.json().data.id as number;

      // From this website's panel, with the panel's own session: the other website's records are 404.
      const answers = await page.evaluate<number[]>(`Promise.all([
        '/api/v2/websites/${other}',
        '/api/v2/posts/${secretId}',
        '/api/v2/posts?filter[website]=${other}',
        '/api/v2/websites/${other}/members',
        '/api/v2/stats?website_id=${other}',
      ].map((url) => fetch(url).then((response) => response.status)))`);
      assert.deepEqual(answers, [404, 404, 200, 404, 404]);
      // Its list shows only what its public site shows (published posts; none yet), never the draft.
      const listed = await page.evaluate<string>(
        `fetch('/api/v2/posts?filter[website]=${other}&filter[status]=any').then((response) => response.text())`,
      );
      assert.doesNotMatch(listed, /Harbour secret draft/);
      await page.goto(`${origin}/admin/posts`);
      await page.getByRole('heading', { name: 'Posts' }).waitFor();
      assert.doesNotMatch((await page.textContent('main')) ?? '', /Harbour secret draft/);

      // On the other website's domain, signed in there: no role, so no more than a visitor's rights
      // (issue 34 #1): none of its management, no writing, and the draft nowhere.
      const elsewhere = server.origin('harbour.test');
      await signInToAdmin(page, elsewhere, admin);
      const nav = page.getByRole('navigation', { name: 'Admin' });
      await nav.getByRole('link', { name: 'View the site' }).waitFor();
      const sections = await nav.getByRole('link').allTextContents();
      for (const closed of ['Website', 'People', 'System', 'Menus', 'Comments', 'Reviews'])
        assert.ok(
          !sections.includes(closed),
          `${closed} offered on a website without a role: ${sections.join(', ')}`,
        );
      await page.goto(`${elsewhere}/admin/posts`);
      await page.getByRole('heading', { name: 'You have no role on Harbour' }).waitFor();
      assert.doesNotMatch((await page.textContent('main')) ?? '', /Harbour secret draft/);
      await page.goto(`${elsewhere}/admin/people`);
      assert.doesNotMatch((await page.textContent('body')) ?? '', /Harbour secret draft/);
      await page.goto(`${origin}/admin`);
    });
  },
);
