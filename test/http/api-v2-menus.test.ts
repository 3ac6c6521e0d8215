// Named menus (issue 23 #1, issue 25 #3) through API v2 and on the public site: a website's menus,
// create, rename, delete, PUT of the whole item tree (nested, reordered, validated per field), ETags
// and If-Match, the policy (the website's managers only), API v1's sync still on the `header` menu,
// and the default theme's footer menu, flushed from the page cache by a change; the migration that
// moves existing items into each website's `header` menu.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { menuSchema, menuSummarySchema } from '../../src/api/v2/menus.js';
import { problemSchema } from '../../src/api/v2/schemas.js';
import { migrate } from '../../src/db/database.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createServices } from '../../src/services.js';
import { createTestContext, createTestDatabase, testConfig } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertPost, insertTag } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

interface Item {
  id: number;
  label: string;
  translations: Record<string, Record<string, string>>;
  type: string;
  page_id: number | null;
  post_id: number | null;
  tag_id: number | null;
  url: string | null;
  target: string;
  icon: string | null;
  children: Item[];
}
interface Menu {
  id: number;
  website_id: number;
  handle: string;
  name: string;
  updated_at: string;
  items: Item[];
}

describe('API v2 menus', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  let admin: TestUser;
  let siteAdmin: TestUser;
  let editor: TestUser;
  let about: number;
  let elsewhere: number;
  let post: number;
  let tag: number;

  before(async () => {
    ctx = await createTestContext();
    const { services } = ctx;
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await services.settings.set('supported_locales', 'en,fr');
    await ctx.enableApi();
    site = await websiteWrites(services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(services).create({ siteName: 'Other', domain: 'other.test' });
    await websiteWrites(services).update(site, { enabled_page_cache: true });
    admin = await ctx.createUser({ admin: true });
    siteAdmin = await ctx.createUser();
    editor = await ctx.createUser();
    await services.memberships.grant(siteAdmin.id, site, 'site_admin');
    await services.memberships.grant(editor.id, site, 'editor');
    about = (await services.pages.create({ title: 'About', slug: 'about', websiteIds: [site] })).id;
    elsewhere = (await services.pages.create({ title: 'Hidden', slug: 'hidden', websiteIds: [other] })).id;
    const db = services.database.db;
    post = await insertPost(db, { title: 'Hello menus', slug: 'hello-menus' });
    tag = await insertTag(db, 'News', 'post_category');
  });
  after(() => ctx.close());

  type Call = {
    method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
    as?: TestUser | string;
    body?: unknown;
    headers?: Record<string, string>;
  };
  const call = (url: string, { method = 'GET', as = admin, body, headers = {} }: Call = {}) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: {
        host: 'site.test',
        authorization: `Bearer ${typeof as === 'string' ? as : as.token}`,
        ...headers,
      },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  /** The menu answered, checked against its documented schema. */
  const ok = (response: LightMyRequestResponse, status = 200) => {
    assert.equal(response.statusCode, status, response.body);
    const data = response.json<{ data: unknown }>().data;
    assert.ok(menuSchema.safeParse(data).success, `not a Menu: ${response.body.slice(0, 300)}`);
    return data as Menu;
  };
  const problem = (response: LightMyRequestResponse, status: number) => {
    assert.equal(response.statusCode, status, response.body);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    return problemSchema.parse(response.json());
  };
  const v1Sync = (items: unknown[]) =>
    ctx.request({
      method: 'POST',
      url: '/api/v1/menus/sync',
      payload: { api_token: admin.token, website_id: site, menu_items: items },
    });
  const page = (path: string) => ctx.request({ method: 'GET', url: path, headers: { host: 'site.test' } });
  /** The footer's HTML of a public page. */
  const footerOf = (html: string) => /<footer class="site-footer">([\s\S]*?)<\/footer>/.exec(html)?.[1] ?? '';
  let footer: Menu;

  it('API v1 sync keeps working on the website\u2019s `header` menu, which API v2 lists', async () => {
    const synced = await v1Sync([
      { order: 1, name: 'Home', type: 'link', url: '/' },
      { order: 2, name: 'About', type: 'page', page_id: about },
    ]);
    assert.equal(synced.statusCode, 200, synced.body);
    assert.deepEqual(synced.json().data, { website_id: site, items_created: 2, items_deleted: 0 });
    const list = (await call(`/websites/${site}/menus`)).json().data as Menu[];
    assert.ok(menuSummarySchema.array().safeParse(list).success);
    assert.deepEqual(
      list.map((menu) => menu.handle),
      ['header'],
    );
    const header = ok(await call(`/websites/${site}/menus/header`));
    assert.deepEqual(
      header.items.map((item) => [item.label, item.type, item.url]),
      [
        ['Home', 'link', '/'],
        ['About', 'page', '/page/about'],
      ],
    );
    assert.match((await page('/')).body, /<nav aria-label="Main">[\s\S]*About/);
  });

  it('creates a footer menu (201, Location, ETag); a taken or malformed handle is refused', async () => {
    const created = await call(`/websites/${site}/menus`, {
      method: 'POST',
      as: siteAdmin,
      body: { handle: 'footer', name: 'Footer' },
    });
    footer = ok(created, 201);
    assert.equal(created.headers.location, `/api/v2/menus/${footer.id}`);
    assert.ok(created.headers.etag);
    assert.deepEqual(footer.items, []);
    problem(
      await call(`/websites/${site}/menus`, { method: 'POST', body: { handle: 'footer', name: 'x' } }),
      409,
    );
    const bad = problem(
      await call(`/websites/${site}/menus`, { method: 'POST', body: { handle: 'Foot er!', name: '' } }),
      422,
    );
    assert.ok(bad.errors?.handle, JSON.stringify(bad.errors));
    assert.ok(bad.errors?.name, JSON.stringify(bad.errors));
    problem(
      await call(`/websites/${site}/menus`, { method: 'POST', body: { handle: 'x', name: 'x', y: 1 } }),
      422,
    );
    problem(await call('/websites/999999/menus'), 404);
    // Idempotency-Key: a retry answers the first result; the same key with another body is refused.
    const once = { handle: 'side', name: 'Side' };
    const headers = { 'idempotency-key': 'side-menu' };
    const first = ok(await call(`/websites/${site}/menus`, { method: 'POST', body: once, headers }), 201);
    const retry = await call(`/websites/${site}/menus`, { method: 'POST', body: once, headers });
    assert.equal(ok(retry, 201).id, first.id);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(retry.headers.location, `/api/v2/menus/${first.id}`);
    const reused = problem(
      await call(`/websites/${site}/menus`, { method: 'POST', body: { ...once, name: 'Other' }, headers }),
      422,
    );
    assert.ok(reused.errors?.idempotency_key);
    assert.equal((await call(`/menus/${first.id}`, { method: 'DELETE' })).statusCode, 204);
  });

  it('PUT puts a nested tree of pages, posts, tags and links, labels translated; then reorders it', async () => {
    const tree = [
      { ref: 'about', label: { en: 'About us', fr: 'À propos' }, type: 'page', page_id: about },
      {
        ref: 'docs',
        parent: 'about',
        label: 'Docs',
        type: 'link',
        url: 'https://example.com/docs',
        target: '_blank',
      },
      { parent: 'docs', label: 'Mail us', type: 'link', url: 'mailto:hello@example.com', icon: 'mail' },
      { label: 'Hello', type: 'post', post_id: post },
      { label: 'News', type: 'tag', tag_id: tag },
    ];
    const put = await call(`/menus/${footer.id}/items`, {
      method: 'PUT',
      as: siteAdmin,
      body: { items: tree },
    });
    const saved = ok(put);
    assert.equal(put.headers.etag !== undefined, true);
    assert.deepEqual(
      saved.items.map((item) => [item.label, item.type, item.url]),
      [
        ['About us', 'page', '/page/about'],
        ['Hello', 'post', '/post/hello-menus'],
        ['News', 'tag', null],
      ],
    );
    const docs = saved.items[0]!.children[0]!;
    assert.deepEqual([docs.label, docs.target, docs.url], ['Docs', '_blank', 'https://example.com/docs']);
    assert.deepEqual(
      docs.children.map((item) => [item.label, item.icon]),
      [['Mail us', 'mail']],
    );
    assert.deepEqual(saved.items[0]!.translations, { label: { en: 'About us', fr: 'À propos' } });
    const french = ok(await call(`/menus/${footer.id}?locale=fr`));
    assert.equal(french.items[0]!.label, 'À propos');

    // Reorder and re-nest in one call: the post first, Docs a root after it.
    const reordered = ok(
      await call(`/menus/${footer.id}/items`, {
        method: 'PUT',
        body: { items: [tree[3], { ...tree[1], parent: null }, tree[2], tree[0], tree[4]] },
      }),
    );
    assert.deepEqual(
      reordered.items.map((item) => [item.label, item.children.map((child) => child.label)]),
      [
        ['Hello', []],
        ['Docs', ['Mail us']],
        ['About us', []],
        ['News', []],
      ],
    );
    footer = ok(await call(`/menus/${footer.id}`));
  });

  it('refuses cycles, javascript: URLs, unknown or other websites\u2019 records, and too deep trees, per field', async () => {
    const put = (items: unknown[]) => call(`/menus/${footer.id}/items`, { method: 'PUT', body: { items } });
    const cycle = problem(
      await put([
        { ref: 'a', parent: 'b', label: 'A', type: 'link', url: '/a' },
        { ref: 'b', parent: 'a', label: 'B', type: 'link', url: '/b' },
      ]),
      422,
    );
    assert.match(cycle.errors?.['items.0.parent']?.[0] ?? '', /cycle/);
    assert.match(cycle.errors?.['items.1.parent']?.[0] ?? '', /cycle/);
    const self = problem(await put([{ ref: 'a', parent: 'a', label: 'A', type: 'link', url: '/a' }]), 422);
    assert.match(self.errors?.['items.0.parent']?.[0] ?? '', /cycle/);

    const script = problem(
      await put([
        { label: 'Ok', type: 'link', url: '/fine' },
        { label: 'Evil', type: 'link', url: 'javascript:alert(1)' },
        { label: 'Evil too', type: 'link', url: ' JaVaScRiPt:alert(1)' },
      ]),
      422,
    );
    assert.deepEqual(Object.keys(script.errors ?? {}).sort(), ['items.1.url', 'items.2.url']);

    const unknown = problem(
      await put([
        { label: 'Gone', type: 'page', page_id: 999999 },
        { label: 'Elsewhere', type: 'page', page_id: elsewhere },
        { label: 'No post', type: 'post', post_id: 999999 },
        { label: 'No tag', type: 'tag', tag_id: 999999 },
        { label: 'No page id', type: 'page' },
        { ref: 'x', label: 'Unknown parent', type: 'link', url: '/', parent: 'nobody' },
      ]),
      422,
    );
    assert.deepEqual(Object.keys(unknown.errors ?? {}).sort(), ['items.4.page_id', 'items.5.parent']);
    const unknownRecords = problem(
      await put([
        { label: 'Gone', type: 'page', page_id: 999999 },
        { label: 'Elsewhere', type: 'page', page_id: elsewhere },
        { label: 'No post', type: 'post', post_id: 999999 },
        { label: 'No tag', type: 'tag', tag_id: 999999 },
      ]),
      422,
    );
    assert.deepEqual(unknownRecords.errors, {
      'items.0.page_id': ['The selected items.0.page id is invalid.'],
      'items.1.page_id': ['The selected items.1.page id is invalid.'],
      'items.2.post_id': ['The selected items.2.post id is invalid.'],
      'items.3.tag_id': ['The selected items.3.tag id is invalid.'],
    });

    const deep = Array.from({ length: 6 }, (_, i) => ({
      ref: `l${i}`,
      ...(i > 0 ? { parent: `l${i - 1}` } : {}),
      label: `Level ${i}`,
      type: 'link',
      url: `/l${i}`,
    }));
    const tooDeep = problem(await put(deep), 422);
    assert.deepEqual(Object.keys(tooDeep.errors ?? {}), ['items.5.parent']);
    problem(await put([{ label: 'x', type: 'link', url: '/', colour: 'red' }]), 422);
    const blank = problem(
      await put([
        { label: ' ', type: 'link', url: '/' },
        { label: 'x'.repeat(256), type: 'link', url: '/' },
      ]),
      422,
    );
    assert.deepEqual(Object.keys(blank.errors ?? {}), ['items.0.label', 'items.1.label']);

    // Nothing of a refused write was kept.
    const after = ok(await call(`/menus/${footer.id}`));
    assert.equal(after.updated_at, footer.updated_at);
    assert.deepEqual(after.items, footer.items);
  });

  it('ETag: 304 on If-None-Match; a stale If-Match is a 412 on every write and writes nothing', async () => {
    const read = await call(`/menus/${footer.id}`);
    const etag = String(read.headers.etag);
    assert.equal((await call(`/menus/${footer.id}`, { headers: { 'if-none-match': etag } })).statusCode, 304);
    const renamed = await call(`/menus/${footer.id}`, {
      method: 'PATCH',
      body: { name: 'Site footer' },
      headers: { 'if-match': etag },
    });
    assert.equal(ok(renamed).name, 'Site footer');
    assert.notEqual(renamed.headers.etag, etag);
    const items = [{ label: 'Stale', type: 'link', url: '/stale' }];
    problem(
      await call(`/menus/${footer.id}/items`, {
        method: 'PUT',
        body: { items },
        headers: { 'if-match': etag },
      }),
      412,
    );
    problem(
      await call(`/menus/${footer.id}`, {
        method: 'PATCH',
        body: { name: 'x' },
        headers: { 'if-match': etag },
      }),
      412,
    );
    problem(await call(`/menus/${footer.id}`, { method: 'DELETE', headers: { 'if-match': etag } }), 412);
    // updated_at works as If-Match too.
    const current = ok(await call(`/menus/${footer.id}`));
    assert.equal(current.name, 'Site footer');
    assert.deepEqual(current.items, footer.items);
    const fresh = await call(`/menus/${footer.id}`, {
      method: 'PATCH',
      body: { name: 'Footer' },
      headers: { 'if-match': current.updated_at },
    });
    footer = ok(fresh);
  });

  it('only the website\u2019s managers write its menus: an editor, a read-only key, another site\u2019s admin are 403', async () => {
    const items = [{ label: 'Nope', type: 'link', url: '/nope' }];
    problem(await call(`/menus/${footer.id}/items`, { method: 'PUT', as: editor, body: { items } }), 403);
    problem(await call(`/menus/${footer.id}`, { method: 'PATCH', as: editor, body: { name: 'x' } }), 403);
    problem(await call(`/menus/${footer.id}`, { method: 'DELETE', as: editor }), 403);
    problem(
      await call(`/websites/${site}/menus`, {
        method: 'POST',
        as: editor,
        body: { handle: 'side', name: 'Side' },
      }),
      403,
    );
    const otherAdmin = await ctx.createUser();
    await ctx.services.memberships.grant(otherAdmin.id, other, 'site_admin');
    problem(await call(`/menus/${footer.id}/items`, { method: 'PUT', as: otherAdmin, body: { items } }), 403);
    const { secret } = await ctx.services.apiKeys.create(siteAdmin.id, { name: 'ro', readOnly: true });
    problem(await call(`/menus/${footer.id}/items`, { method: 'PUT', as: secret, body: { items } }), 403);
    const { secret: scoped } = await ctx.services.apiKeys.create(admin.id, {
      name: 'other',
      websiteIds: [other],
    });
    problem(await call(`/menus/${footer.id}`, { as: scoped, headers: { host: 'other.test' } }), 404);
    // Readers see it (the site shows it anyway); nothing changed.
    assert.deepEqual(ok(await call(`/menus/${footer.id}`, { as: editor })).items, footer.items);
    const audit = await ctx.services.audit.list({ limit: 100 });
    assert.ok(audit.some((entry) => entry.action === 'menu.items' && entry.resourceId === String(footer.id)));
    assert.ok(audit.some((entry) => entry.action === 'menu.create' && entry.userId === siteAdmin.id));
  });

  it('the public site shows the footer menu (translated, tag links resolved) and follows a change', async () => {
    const first = await page('/');
    assert.equal(first.statusCode, 200);
    const html = footerOf(first.body);
    assert.match(html, /<nav aria-label="Footer">/);
    assert.match(html, /<a href="\/page\/about">About us<\/a>/);
    assert.match(html, /<a href="https:\/\/example.com\/docs" target="_blank" rel="noopener">Docs<\/a>/);
    assert.match(html, /<a href="\/post\/category\/news">News<\/a>/);
    assert.match(footerOf((await page('/fr/')).body), /À propos/);
    // Cached now; a change of the menu flushes it.
    assert.equal((await page('/')).headers['x-folio-cache'], 'hit');
    ok(
      await call(`/menus/${footer.id}/items`, {
        method: 'PUT',
        as: siteAdmin,
        body: { items: [{ label: 'Imprint <b>', type: 'link', url: '/page/imprint' }] },
      }),
    );
    const changed = await page('/');
    assert.notEqual(changed.headers['x-folio-cache'], 'hit');
    const footerHtml = footerOf(changed.body);
    assert.match(footerHtml, /<a href="\/page\/imprint">Imprint &lt;b&gt;<\/a>/);
    assert.doesNotMatch(footerHtml, /About us/);
    // The header is API v1's menu, untouched.
    assert.match(changed.body, /<nav aria-label="Main">[\s\S]*?About<\/a>/);
  });

  it('links follow their page or post: a new slug shows in every menu at once, cached pages included', async () => {
    ok(
      await call(`/menus/${footer.id}/items`, {
        method: 'PUT',
        body: {
          items: [
            { label: 'About us', type: 'page', page_id: about },
            { label: 'Hello', type: 'post', post_id: post },
          ],
        },
      }),
    );
    assert.match(footerOf((await page('/')).body), /<a href="\/post\/hello-menus">Hello<\/a>/);
    assert.equal((await page('/')).headers['x-folio-cache'], 'hit');

    const renamed = await call(`/posts/${post}`, { method: 'PATCH', body: { slug: 'hello-again' } });
    assert.equal(renamed.statusCode, 200, renamed.body);
    const afterPost = await page('/');
    assert.notEqual(afterPost.headers['x-folio-cache'], 'hit');
    assert.match(footerOf(afterPost.body), /<a href="\/post\/hello-again">Hello<\/a>/);

    const moved = await call(`/pages/${about}`, { method: 'PATCH', body: { slug: 'about-us' } });
    assert.equal(moved.statusCode, 200, moved.body);
    const afterPage = await page('/');
    assert.match(footerOf(afterPage.body), /<a href="\/page\/about-us">About us<\/a>/);
    // API v1's header (synced with the page) follows too, in the site and in both APIs.
    assert.match(afterPage.body, /<nav aria-label="Main">[\s\S]*?href="\/page\/about-us"/);
    const header = ok(await call('/websites/' + site + '/menus/header'));
    assert.ok(
      header.items.some((item) => item.url === '/page/about-us'),
      JSON.stringify(header.items),
    );
    const v2Footer = ok(await call(`/menus/${footer.id}`));
    assert.deepEqual(
      v2Footer.items.map((item) => item.url),
      ['/page/about-us', '/post/hello-again'],
    );
    // Put back for the tests after this one.
    assert.equal(
      (await call(`/pages/${about}`, { method: 'PATCH', body: { slug: 'about' } })).statusCode,
      200,
    );
    ok(
      await call(`/menus/${footer.id}/items`, {
        method: 'PUT',
        body: { items: [{ label: 'Imprint <b>', type: 'link', url: '/page/imprint' }] },
      }),
    );
  });

  it('API v1 sync replaces the header only; deleting the footer takes it off the site', async () => {
    const synced = await v1Sync([{ order: 1, name: 'Only', type: 'link', url: '/only' }]);
    assert.deepEqual(synced.json().data, { website_id: site, items_created: 1, items_deleted: 2 });
    assert.equal(ok(await call(`/menus/${footer.id}`)).items.length, 1);
    const header = ok(await call(`/websites/${site}/menus/header`));
    const item = await ctx.request({
      method: 'POST',
      url: `/api/v1/menus/${header.items[0]!.id}`,
      payload: { api_token: admin.token },
    });
    assert.equal(item.json().data.name, 'Only');
    assert.equal(item.json().data.website_id, site);

    assert.equal((await call(`/menus/${footer.id}`, { method: 'DELETE', as: siteAdmin })).statusCode, 204);
    problem(await call(`/menus/${footer.id}`), 404);
    problem(await call(`/websites/${site}/menus/footer`), 404);
    const html = (await page('/')).body;
    assert.doesNotMatch(html, /aria-label="Footer"/);
    assert.match(html, /<nav aria-label="Main">[\s\S]*?Only<\/a>/);
  });
  it('deleting a website takes its menus, their items and their labels\u2019 translations with it', async () => {
    const gone = await websiteWrites(ctx.services).create({ siteName: 'Gone', domain: 'gone.test' });
    const menu = ok(
      await call(`/websites/${gone}/menus`, { method: 'POST', body: { handle: 'footer', name: 'Footer' } }),
      201,
    );
    const filled = ok(
      await call(`/menus/${menu.id}/items`, {
        method: 'PUT',
        body: { items: [{ label: { en: 'Bye', fr: 'Adieu' }, type: 'link', url: '/' }] },
      }),
    );
    const itemId = filled.items[0]!.id;
    assert.equal((await call(`/websites/${gone}`, { method: 'DELETE' })).statusCode, 204);
    const db = ctx.services.database.db;
    assert.deepEqual(await db.selectFrom('menus').select('id').where('website_id', '=', gone).execute(), []);
    assert.deepEqual(await db.selectFrom('menu_items').select('id').where('id', '=', itemId).execute(), []);
    const labels = await db
      .selectFrom('translations')
      .select('id')
      .where('model_type', '=', 'menu_item')
      .where('model_id', '=', itemId)
      .execute();
    assert.deepEqual(labels, []);
  });
});

describe('migration 0018_named_menus', () => {
  it('moves each website\u2019s existing items into its `header` menu; websites without items get none', async () => {
    const database = await createTestDatabase();
    const services = createServices(testConfig(database.url), {
      pgSchema: database.pgSchema,
      warn: () => undefined,
    });
    try {
      await migrate(services.database, { until: '0017_media_library' });
      // The schema before named menus: written with SQL of that time.
      const db = services.database.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      const now = new Date().toISOString();
      const website = async (domain: string) =>
        (
          await db
            .insertInto('websites')
            .values({ site_name: domain, created_at: now, updated_at: now })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id as number;
      const withItems = await website('items.test');
      const without = await website('empty.test');
      const item = async (name: string, position: number, parentId: number | null = null) =>
        (
          await db
            .insertInto('menu_items')
            .values({
              website_id: withItems,
              parent_id: parentId,
              position,
              name,
              type: 'link',
              url: `/${name.toLowerCase()}`,
              created_at: now,
              updated_at: now,
            })
            .returning('id')
            .executeTakeFirstOrThrow()
        ).id as number;
      const home = await item('Home', 1);
      await item('Child', 1, home);
      await item('Blog', 2);

      assert.deepEqual(await migrate(services.database, { until: '0018_named_menus' }), ['0018_named_menus']);
      const menus = await services.menus.list(withItems);
      assert.deepEqual(
        menus.map((menu) => [menu.handle, menu.name]),
        [['header', 'Header']],
      );
      assert.deepEqual(await services.menus.list(without), []);
      const tree = await services.menus.treeOf(withItems);
      assert.deepEqual(
        tree.map((node) => [node.name, node.url, node.children.map((child) => child.name)]),
        [
          ['Home', '/home', ['Child']],
          ['Blog', '/blog', []],
        ],
      );
      assert.equal((await services.menus.find(home))?.name, 'Home');
    } finally {
      await services.close();
      await database.drop();
    }
  });
});
