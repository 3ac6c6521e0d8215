// Menus API (spec 4.3, 2.5, sections 5 and 7; R-M1..R-M3, R-A2..R-A7, R-V1, R-V2, R-F3).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { migrate } from '../../src/db/database.js';
import { createServices } from '../../src/services.js';
import { createTestContext, createTestDatabase, testConfig } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const DISABLED = { status: 403, message: 'API access is disabled' };
const INVALID_TOKEN = { status: 'fail', message: 'Invalid token' };
const ADMIN_REQUIRED = { status: 'fail', message: 'Admin access required' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const invalid = (errors: Record<string, string[]>) => ({
  code: 422,
  status: 'fail',
  message: 'Validation failed',
  data: { errors },
  extra: [],
});

describe('menus API', () => {
  let ctx: TestContext;
  let user: TestUser;
  let admin: TestUser;
  let site: number;
  let other: number;
  let about: { id: number; slug: string };
  let contact: { id: number; slug: string };
  let team: { id: number; slug: string };

  before(async () => {
    ctx = await createTestContext();
    user = await ctx.createUser();
    admin = await ctx.createUser({ admin: true });
    site = await websiteWrites(ctx.services).create({ siteName: 'Main', domain: 'main.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    await ctx.services.database.db
      .insertInto('domains')
      .values({
        website_id: site,
        domain: 'alias.main.test',
        is_primary: false,
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .execute();
    about = await ctx.services.pages.create({ title: 'About us', content: '<p>About</p>' });
    contact = await ctx.services.pages.create({
      title: { en: 'Contact', fr: 'Contact (fr)' },
      slug: 'contact',
    });
    team = await ctx.services.pages.create({ title: 'Team' });
  });
  after(() => ctx.close());
  beforeEach(async () => {
    await ctx.services.database.db.deleteFrom('settings').execute();
    await ctx.enableApi();
    await ctx.services.database.db.deleteFrom('menu_items').execute();
  });

  const post = (url: string, payload: Record<string, unknown>, token: string | null = admin.token) =>
    ctx.request({
      method: 'POST',
      url: `/api/v1${url}`,
      payload: token === null ? payload : { api_token: token, ...payload },
    });
  const sync = (payload: Record<string, unknown>, token: string | null = admin.token) =>
    post('/menus/sync', payload, token);
  const itemsOf = (websiteId: number) =>
    ctx.services.database.db
      .selectFrom('menu_items')
      .selectAll()
      .where('website_id', '=', websiteId)
      .orderBy('position')
      .orderBy('id')
      .execute();

  const standardMenu = () => [
    { order: 2, name: 'About', type: 'page', page_id: about.id },
    { order: 1, name: 'Home', type: 'link', url: '/', target: '_self' },
    { order: 3, name: 'Team', type: 'page', page_id: team.id, parent_id: about.id, icon: 'users' },
    { order: 4, name: 'Docs', type: 'link', url: 'https://docs.example', target: '_blank' },
  ];

  describe('index and store placeholders (R-M1)', () => {
    it('index answers GET and POST with the placeholder envelope, without a token', async () => {
      const expected = {
        code: 200,
        status: 'success',
        message: 'Successfully fetched menus',
        data: [],
        extra: [],
      };
      for (const method of ['GET', 'POST'] as const) {
        const response = await ctx.request({ method, url: '/api/v1/menus' });
        assert.equal(response.statusCode, 200);
        assert.equal(response.body, JSON.stringify(expected));
      }
    });

    it('index is covered by the global switch only (R-A2)', async () => {
      await ctx.services.settings.set('enable_api_access', '0');
      const response = await ctx.request({ method: 'GET', url: '/api/v1/menus' });
      assert.deepEqual([response.statusCode, response.json()], [403, DISABLED]);
    });

    it('store answers the logged placeholder for a user; needs a token unless its mode is none', async () => {
      const response = await post('/menus/store', { name: 'x' }, user.token);
      assert.equal(response.statusCode, 200);
      assert.equal(
        response.body,
        JSON.stringify({
          code: 200,
          status: 'success',
          message: 'Menu store request logged',
          data: [],
          extra: [],
        }),
      );
      const anonymous = await post('/menus/store', { name: 'x' }, null);
      assert.deepEqual([anonymous.statusCode, anonymous.json()], [401, INVALID_TOKEN]);
      await ctx.services.settings.set('svc_api_menu_store_should_auth', 'none');
      assert.equal((await post('/menus/store', {}, null)).statusCode, 200);
      const get = await ctx.request({ method: 'GET', url: '/api/v1/menus/store' });
      assert.equal(get.statusCode, 405);
    });
  });

  describe('sync (spec 4.3 rules, R-M2)', () => {
    it('rules 3 to 6: replaces the menu, creates in order, resolves nesting and page URLs', async () => {
      const first = await sync({ website_id: site, menu_items: standardMenu() });
      assert.equal(first.statusCode, 200);
      assert.equal(
        first.body,
        JSON.stringify({
          code: 200,
          status: 'success',
          message: 'Menu synchronized successfully',
          data: { website_id: site, items_created: 4, items_deleted: 0 },
          extra: [],
        }),
      );
      const rows = await itemsOf(site);
      assert.deepEqual(
        rows.map((row) => [row.name, row.type, row.position, row.page_id, row.url, row.target, row.icon]),
        [
          ['Home', 'link', 1, null, '/', '_self', null],
          ['About', 'page', 2, about.id, `/page/${about.slug}`, '_self', null],
          ['Team', 'page', 3, team.id, `/page/${team.slug}`, '_self', 'users'],
          ['Docs', 'link', 4, null, 'https://docs.example', '_blank', null],
        ],
      );
      // Created in `order`: ids ascend with the order.
      assert.deepEqual(
        rows.map((row) => row.id),
        [...rows.map((row) => row.id)].sort((a, b) => a - b),
      );
      const byName = new Map(rows.map((row) => [row.name, row]));
      assert.equal(byName.get('Team')?.parent_id, byName.get('About')?.id);
      assert.equal(byName.get('About')?.parent_id, null);

      const second = await sync({
        domain: 'https://MAIN.test:8080/anything',
        menu_items: [{ order: 1, name: 'Only', type: 'link', url: '/only' }],
      });
      assert.deepEqual(second.json().data, { website_id: site, items_created: 1, items_deleted: 4 });
      assert.deepEqual(
        (await itemsOf(site)).map((row) => row.name),
        ['Only'],
      );
    });

    it('issue 21 #12: a link item may point to http(s), mailto, tel or a relative URL, never javascript:', async () => {
      for (const url of [
        'javascript:alert(1)',
        ' JaVaScRiPt:alert(1)',
        'java\tscript:alert(1)',
        'data:text/html,x',
        'vbscript:x',
      ]) {
        const refused = await sync({
          website_id: site,
          menu_items: [{ order: 1, name: 'Bad', type: 'link', url }],
        });
        assert.equal(refused.statusCode, 422, url);
        assert.deepEqual(refused.json().data.errors, {
          'menu_items.0.url': ['The menu items.0.url format is invalid.'],
        });
      }
      const fine = [
        'https://example.test/a',
        '/page/about',
        '#top',
        '?q=1',
        'mailto:a@example.test',
        'tel:+123',
        'about',
      ];
      const accepted = await sync({
        website_id: site,
        menu_items: fine.map((url, i) => ({ order: i + 1, name: `Item ${i}`, type: 'link', url })),
      });
      assert.equal(accepted.statusCode, 200, accepted.body);
      // A row written by other means (before the rule, or by SQL) is never a clickable script on the site.
      await ctx.services.database.db
        .updateTable('menu_items')
        .set({ url: 'javascript:alert(document.cookie)' })
        .where('website_id', '=', site)
        .where('position', '=', 1)
        .execute();
      await ctx.services.cache.flushTags(['menus']);
      const tree = await ctx.services.menus.treeOf(site);
      assert.equal(tree[0]!.url, '#');
      assert.equal(tree[1]!.url, '/page/about');
    });

    it('R-M2: equal orders keep the request order; a domain alias finds the website', async () => {
      const response = await sync({
        domain: 'alias.main.test',
        menu_items: [
          { order: 1, name: 'B', type: 'link', url: '/b' },
          { order: 0, name: 'Z', type: 'link', url: '/z' },
          { order: 1, name: 'A', type: 'link', url: '/a' },
        ],
      });
      assert.equal(response.json().data.website_id, site);
      assert.deepEqual(
        (await itemsOf(site)).map((row) => row.name),
        ['Z', 'B', 'A'],
      );
    });

    it('only the website of the request is replaced', async () => {
      await sync({
        website_id: other,
        menu_items: [{ order: 1, name: 'Elsewhere', type: 'link', url: '/' }],
      });
      await sync({ website_id: site, menu_items: standardMenu() });
      await sync({ website_id: site, menu_items: [{ order: 1, name: 'New', type: 'link', url: '/' }] });
      assert.deepEqual(
        (await itemsOf(other)).map((row) => row.name),
        ['Elsewhere'],
      );
    });

    it('R-M2: a child listed before its parent, and nesting three levels deep', async () => {
      await sync({
        website_id: site,
        menu_items: [
          { order: 1, name: 'Grandchild', type: 'link', url: '/g', parent_id: team.id },
          { order: 2, name: 'Child', type: 'page', page_id: team.id, parent_id: about.id },
          { order: 3, name: 'Parent', type: 'page', page_id: about.id },
        ],
      });
      const rows = await itemsOf(site);
      const byName = new Map(rows.map((row) => [row.name, row]));
      assert.equal(byName.get('Grandchild')?.parent_id, byName.get('Child')?.id);
      assert.equal(byName.get('Child')?.parent_id, byName.get('Parent')?.id);
      assert.equal(byName.get('Parent')?.parent_id, null);
      const tree = await ctx.services.menus.treeOf(site);
      assert.deepEqual(
        tree.map((node) => [node.name, node.children.map((c) => [c.name, c.children.map((g) => g.name)])]),
        [['Parent', [['Child', ['Grandchild']]]]],
      );
    });

    it('R-M2: a parent_id matching no page item of the request is a 422, and the menu stays', async () => {
      await sync({ website_id: site, menu_items: standardMenu() });
      const before = await itemsOf(site);
      const response = await sync({
        website_id: site,
        menu_items: [
          { order: 1, name: 'Link', type: 'link', url: '/', parent_id: 777 },
          { order: 2, name: 'Self', type: 'page', page_id: about.id, parent_id: about.id },
          { order: 3, name: 'Fine', type: 'page', page_id: team.id, parent_id: contact.id },
        ],
      });
      assert.equal(response.statusCode, 422);
      assert.deepEqual(
        response.json(),
        invalid({
          'menu_items.0.parent_id': ['The selected menu items.0.parent id is invalid.'],
          'menu_items.1.parent_id': ['The selected menu items.1.parent id is invalid.'],
          'menu_items.2.parent_id': ['The selected menu items.2.parent id is invalid.'],
        }),
      );
      assert.deepEqual(await itemsOf(site), before);
    });

    it('R-M2: parents that go round in a circle are a 422', async () => {
      const response = await sync({
        website_id: site,
        menu_items: [
          { order: 1, name: 'A', type: 'page', page_id: about.id, parent_id: team.id },
          { order: 2, name: 'B', type: 'page', page_id: team.id, parent_id: about.id },
        ],
      });
      assert.equal(response.statusCode, 422);
      assert.deepEqual(
        response.json(),
        invalid({
          'menu_items.0.parent_id': ['The selected menu items.0.parent id is invalid.'],
          'menu_items.1.parent_id': ['The selected menu items.1.parent id is invalid.'],
        }),
      );
    });

    it('a failing sync (unknown page_id in the 3rd item) leaves the previous menu intact', async () => {
      await sync({ website_id: site, menu_items: standardMenu() });
      const before = await itemsOf(site);
      assert.equal(before.length, 4);
      const response = await sync({
        website_id: site,
        menu_items: [
          { order: 1, name: 'One', type: 'link', url: '/1' },
          { order: 2, name: 'Two', type: 'page', page_id: about.id },
          { order: 3, name: 'Three', type: 'page', page_id: 987654 },
        ],
      });
      assert.equal(response.statusCode, 422);
      assert.deepEqual(
        response.json(),
        invalid({ 'menu_items.2.page_id': ['The selected menu items.2.page id is invalid.'] }),
      );
      assert.deepEqual(await itemsOf(site), before);
    });

    it('a soft-deleted page is not a valid page_id', async () => {
      const gone = await ctx.services.pages.create({ title: 'Gone soon' });
      await ctx.services.pages.delete(gone.id);
      const response = await sync({
        website_id: site,
        menu_items: [{ order: 1, name: 'Gone', type: 'page', page_id: gone.id }],
      });
      assert.deepEqual(
        response.json(),
        invalid({ 'menu_items.0.page_id': ['The selected menu items.0.page id is invalid.'] }),
      );
    });

    it('section 7 and R-V2: every validation message of the request', async () => {
      const cases: [Record<string, unknown>, Record<string, string[]>][] = [
        [
          {},
          {
            website_id: ['Either website_id or domain is required.'],
            menu_items: ['The menu items field is required.'],
          },
        ],
        [
          { menu_items: [{ order: 1, name: 'x', type: 'link' }] },
          { website_id: ['Either website_id or domain is required.'] },
        ],
        [{ website_id: site, menu_items: [] }, { menu_items: ['The menu items field is required.'] }],
        [{ website_id: site, menu_items: 'nope' }, { menu_items: ['The menu items must be an array.'] }],
        [
          { website_id: 'abc', menu_items: [{ order: 1, name: 'x', type: 'link' }] },
          { website_id: ['The website id must be an integer.'] },
        ],
        [
          { website_id: site, menu_items: [{}] },
          {
            'menu_items.0.order': ['The menu items.0.order field is required.'],
            'menu_items.0.name': ['The menu items.0.name field is required.'],
            'menu_items.0.type': ['The menu items.0.type field is required.'],
          },
        ],
        [
          {
            website_id: site,
            menu_items: [
              { order: 'first', name: 'n'.repeat(256), type: 'folder', target: '_top', parent_id: 'p' },
              { order: 2, name: 'Page without id', type: 'page' },
              { order: 3, name: 'Bad page id', type: 'page', page_id: 'x' },
            ],
          },
          {
            'menu_items.0.order': ['The menu items.0.order must be an integer.'],
            'menu_items.0.name': ['The menu items.0.name may not be greater than 255 characters.'],
            'menu_items.0.type': ['The selected menu items.0.type is invalid.'],
            'menu_items.0.target': ['The selected menu items.0.target is invalid.'],
            'menu_items.0.parent_id': ['The menu items.0.parent id must be an integer.'],
            'menu_items.1.page_id': ['The menu items.1.page id field is required.'],
            'menu_items.2.page_id': ['The menu items.2.page id must be an integer.'],
          },
        ],
        [
          {
            website_id: site,
            menu_items: [
              { order: 2147483648, name: 'x', type: 'link' },
              { order: 1, name: 'Huge page id', type: 'page', page_id: 99999999999 },
              { order: 1, name: 'Typed', type: ['page'], target: 1 },
            ],
          },
          {
            'menu_items.0.order': ['The menu items.0.order may not be greater than 2147483647.'],
            'menu_items.2.type': ['The menu items.2.type must be a string.'],
            'menu_items.2.target': ['The selected menu items.2.target is invalid.'],
          },
        ],
        [
          {
            website_id: site,
            menu_items: [{ order: 1, name: 'Huge page id', type: 'page', page_id: 99999999999 }],
          },
          { 'menu_items.0.page_id': ['The selected menu items.0.page id is invalid.'] },
        ],
        [
          { website_id: site, locale: 'de', menu_items: [{ order: 1, name: 'x', type: 'link' }] },
          { locale: ['The selected locale is invalid.'] },
        ],
      ];
      await sync({ website_id: site, menu_items: standardMenu() });
      const before = await itemsOf(site);
      for (const [payload, errors] of cases) {
        const response = await sync(payload);
        assert.equal(response.statusCode, 422, JSON.stringify(payload));
        assert.deepEqual(response.json(), invalid(errors), JSON.stringify(payload));
      }
      assert.deepEqual(await itemsOf(site), before);
    });

    it('rule 2: an unknown website (by id or domain) is 404 in the full envelope', async () => {
      const notFound = {
        code: 404,
        status: 'fail',
        message: 'Website not found',
        data: [],
        extra: [],
      };
      const items = [{ order: 1, name: 'x', type: 'link', url: '/' }];
      for (const payload of [
        { website_id: 999999, menu_items: items },
        { website_id: 99999999999, menu_items: items },
        { domain: 'nowhere.test', menu_items: items },
        { domain: '::::', menu_items: items },
      ]) {
        const response = await sync(payload);
        assert.equal(response.statusCode, 404, JSON.stringify(payload));
        assert.equal(response.body, JSON.stringify(notFound));
      }
    });

    it('R-A7: validation (422) comes before the website lookup (404)', async () => {
      const response = await sync({
        website_id: 999999,
        menu_items: [{ order: 1, name: 'P', type: 'page', page_id: 424242 }],
      });
      assert.equal(response.statusCode, 422);
    });

    it('rule 1 and R-A4/R-A7: admin only; switch (403) -> token (401) -> admin (403)', async () => {
      const payload = { website_id: site, menu_items: standardMenu() };
      const notAdmin = await sync(payload, user.token);
      assert.equal(notAdmin.statusCode, 403);
      assert.equal(notAdmin.body, JSON.stringify(ADMIN_REQUIRED));
      const anonymous = await sync({}, null);
      assert.deepEqual([anonymous.statusCode, anonymous.json()], [401, INVALID_TOKEN]);
      await ctx.services.settings.set('svc_api_menu_sync_should_auth', 'none');
      const stillAnonymous = await sync({}, null);
      assert.deepEqual([stillAnonymous.statusCode, stillAnonymous.json()], [401, INVALID_TOKEN]);
      await ctx.services.settings.set('svc_api_menu_sync_should_auth', 'basic');
      const basic = (who: TestUser) => Buffer.from(`${who.email}:${who.password}`).toString('base64');
      const viaBasic = (who: TestUser) =>
        ctx.request({
          method: 'POST',
          url: '/api/v1/menus/sync',
          headers: { authorization: `Basic ${basic(who)}` },
          payload: { website_id: site, menu_items: [{ order: 1, name: 'Basic', type: 'link', url: '/' }] },
        });
      const basicUser = await viaBasic(user);
      assert.deepEqual([basicUser.statusCode, basicUser.json()], [403, ADMIN_REQUIRED]);
      const basicAdmin = await viaBasic(admin);
      assert.equal(basicAdmin.statusCode, 200);
      await ctx.services.database.db.deleteFrom('menu_items').execute();
      await ctx.services.settings.set('enable_api_access', 'no');
      const disabled = await sync({}, null);
      assert.deepEqual([disabled.statusCode, disabled.json()], [403, DISABLED]);
      assert.equal((await itemsOf(site)).length, 0);
      assert.equal((await ctx.request({ method: 'GET', url: '/api/v1/menus/sync' })).statusCode, 405);
    });

    it('rule 4 and R-F3: page URLs carry a locale prefix only when localization is on and the locale is not the default', async () => {
      const items = [{ order: 1, name: 'Contact', type: 'page', page_id: contact.id }];
      const urlAfter = async (payload: Record<string, unknown>) => {
        const response = await sync({ website_id: site, menu_items: items, ...payload });
        assert.equal(response.statusCode, 200, response.body);
        return (await itemsOf(site))[0]?.url;
      };
      assert.equal(await urlAfter({}), '/page/contact');
      await ctx.services.settings.set('supported_locales', 'en,fr,zh-TW');
      assert.equal(await urlAfter({}), '/page/contact');
      assert.equal(await urlAfter({ locale: 'en' }), '/page/contact');
      assert.equal(await urlAfter({ locale: 'fr' }), '/fr/page/contact');
      assert.equal(await urlAfter({ locale: 'zh_tw' }), '/zh_TW/page/contact');
      await ctx.services.settings.set('default_locale', 'fr');
      assert.equal(await urlAfter({ locale: 'en' }), '/en/page/contact');
      assert.equal(await urlAfter({ locale: 'fr' }), '/page/contact');
    });

    it('rule 5: the menu cache of the website is flushed', async () => {
      await sync({ website_id: site, menu_items: standardMenu() });
      const cached = await ctx.services.menus.treeOf(site);
      assert.deepEqual(
        cached.map((node) => node.name),
        ['Home', 'About', 'Docs'],
      );
      // A write behind the cache's back is not seen until a flush...
      await ctx.services.database.db.deleteFrom('menu_items').where('website_id', '=', site).execute();
      assert.equal((await ctx.services.menus.treeOf(site)).length, 3);
      // ...and a sync flushes it.
      await sync({ website_id: site, menu_items: [{ order: 1, name: 'Fresh', type: 'link', url: '/' }] });
      assert.deepEqual(
        (await ctx.services.menus.treeOf(site)).map((node) => node.name),
        ['Fresh'],
      );
    });
  });

  describe('show (R-M3)', () => {
    it('answers the item with its page object, by GET or POST', async () => {
      await sync({ website_id: site, menu_items: standardMenu() });
      const team_ = (await itemsOf(site)).find((row) => row.name === 'Team');
      const aboutItem = (await itemsOf(site)).find((row) => row.name === 'About');
      assert.ok(team_ && aboutItem);
      for (const method of ['GET', 'POST'] as const) {
        const response = await ctx.request({
          method,
          url: `/api/v1/menus/${team_.id}`,
          ...(method === 'GET'
            ? { query: { api_token: user.token } }
            : { payload: { api_token: user.token } }),
        });
        assert.equal(response.statusCode, 200);
        const body = response.json();
        assert.deepEqual(Object.keys(body), ['code', 'status', 'message', 'data', 'extra']);
        assert.deepEqual(Object.keys(body.data), [
          'id',
          'website_id',
          'order',
          'name',
          'type',
          'page_id',
          'url',
          'target',
          'icon',
          'parent_id',
          'page',
          'created_at',
          'updated_at',
        ]);
        assert.match(body.data.created_at, ISO);
        assert.deepEqual(
          { ...body, data: { ...body.data, created_at: 'x', updated_at: 'x' } },
          {
            code: 200,
            status: 'success',
            message: 'Successfully fetched menu',
            data: {
              id: team_.id,
              website_id: site,
              order: 3,
              name: 'Team',
              type: 'page',
              page_id: team.id,
              url: `/page/${team.slug}`,
              target: '_self',
              icon: 'users',
              parent_id: aboutItem.id,
              page: { id: team.id, title: 'Team', slug: team.slug },
              created_at: 'x',
              updated_at: 'x',
            },
            extra: [],
          },
        );
      }
    });

    it('a link item has page null', async () => {
      await sync({ website_id: site, menu_items: standardMenu() });
      const home = (await itemsOf(site)).find((row) => row.name === 'Home');
      const response = await post(`/menus/${home?.id}`, {}, user.token);
      assert.equal(response.json().data.page, null);
      assert.equal(response.json().data.url, '/');
    });

    it('an unknown or non-numeric id is 404 Menu not found', async () => {
      const expected = JSON.stringify({
        code: 404,
        status: 'fail',
        message: 'Menu not found',
        data: [],
        extra: [],
      });
      for (const id of ['999999', 'abc', '0', '99999999999', '1.5']) {
        const response = await post(`/menus/${id}`, {}, user.token);
        assert.equal(response.statusCode, 404, id);
        assert.equal(response.body, expected, id);
      }
    });

    it('R-A3: svc_api_menu_show_should_auth decides the mode (simple by default, none, basic)', async () => {
      await sync({ website_id: site, menu_items: standardMenu() });
      const id = (await itemsOf(site))[0]?.id;
      const anonymous = await ctx.request({ method: 'GET', url: `/api/v1/menus/${id}` });
      assert.deepEqual([anonymous.statusCode, anonymous.json()], [401, INVALID_TOKEN]);
      await ctx.services.settings.set('svc_api_menu_show_should_auth', 'none');
      assert.equal((await ctx.request({ method: 'GET', url: `/api/v1/menus/${id}` })).statusCode, 200);
      await ctx.services.settings.set('svc_api_menu_show_should_auth', 'basic');
      const withToken = await post(`/menus/${id}`, {}, user.token);
      assert.deepEqual([withToken.statusCode, withToken.json()], [401, INVALID_TOKEN]);
      const basic = Buffer.from(`${user.email}:${user.password}`).toString('base64');
      const withBasic = await ctx.request({
        method: 'GET',
        url: `/api/v1/menus/${id}`,
        headers: { authorization: `Basic ${basic}` },
      });
      assert.equal(withBasic.statusCode, 200);
      await ctx.services.settings.set('enable_api_access', 'off');
      const off = await ctx.request({ method: 'GET', url: `/api/v1/menus/${id}` });
      assert.deepEqual([off.statusCode, off.json()], [403, DISABLED]);
    });
  });
});

describe('menus API: the store placeholder log', () => {
  it('R-M1: logs the request body without the token', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const database = await createTestDatabase();
    const services = createServices(testConfig(database.url), {
      pgSchema: database.pgSchema,
      warn: () => undefined,
    });
    try {
      await migrate(services.database);
      const app = await buildApp(services, { logger: { level: 'info', stream } as { level: string } });
      const token = await services.users.issueToken(
        (
          await services.users.create({
            name: 'Log',
            email: 'log@example.test',
            password: 'correct horse battery',
          })
        ).id,
      );
      const response = await app.inject({
        method: 'POST',
        url: '/api/v1/menus/store',
        payload: { api_token: token, name: 'Main menu', items: [1, 2] },
      });
      assert.equal(response.statusCode, 200);
      await app.close();
      const entry = lines
        .map((line) => {
          const record: { msg?: string; menuStore?: unknown } = JSON.parse(line);
          return record;
        })
        .find((record) => record.msg === 'menu store request');
      assert.deepEqual(entry?.menuStore, { name: 11, items: 5 });
      assert.equal(
        lines.some((line) => line.includes(token)),
        false,
      );
    } finally {
      await services.close();
      await database.drop();
    }
  });
});
