// Websites API (spec 4.4, 2.6, 2.7, R-W1..R-W8) through the real app.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

const DISABLED = { status: 403, message: 'API access is disabled' };
const ADMIN_REQUIRED = { status: 'fail', message: 'Admin access required' };
const fail = (code: number, message: string) => ({ code, status: 'fail', message, data: [], extra: [] });

describe('websites API', () => {
  let ctx: TestContext;
  let admin: TestUser;
  let owner: TestUser;
  let stranger: TestUser;

  before(async () => {
    ctx = await createTestContext();
    admin = await ctx.createUser({ admin: true });
    owner = await ctx.createUser();
    stranger = await ctx.createUser();
  });
  after(() => ctx.close());
  beforeEach(() => ctx.enableApi());

  const call = async (url: string, user: TestUser | null, body: Record<string, unknown> = {}) => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/websites${url}`,
      payload: user ? { api_token: user.token, ...body } : body,
    });
    return { status: response.statusCode, body: response.json() };
  };

  const store = async (domain: string, body: Record<string, unknown> = {}) => {
    const result = await call('/store', admin, { site_name: `Site ${domain}`, domain, ...body });
    assert.equal(result.status, 200, JSON.stringify(result.body));
    return result.body.data as { id: number; domain: string };
  };

  describe('switches and access', () => {
    it('R-A2: both the model switch and the endpoint switch must be on', async () => {
      await ctx.services.settings.set('enable_api_website', '0');
      assert.deepEqual(await call('', admin), { status: 403, body: DISABLED });
      await ctx.services.settings.set('enable_api_website', '1');
      await ctx.services.settings.set('svc_api_website_index', '0');
      assert.deepEqual(await call('', admin), { status: 403, body: DISABLED });
    });

    it('R-A2: add-domain is off only when enable_api_website_add_domain is set false', async () => {
      const site = await store('switch.test');
      await ctx.services.settings.delete('enable_api_website_add_domain');
      assert.equal(
        (await call('/add-domain', admin, { website_id: site.id, domain: 'www.switch.test' })).status,
        200,
      );
      await ctx.services.settings.set('enable_api_website_add_domain', 'no');
      assert.deepEqual(await call('/add-domain', admin, { website_id: site.id, domain: 'w2.switch.test' }), {
        status: 403,
        body: DISABLED,
      });
    });

    it('R-A4: every website endpoint needs a token, even in mode none', async () => {
      await ctx.services.settings.set('svc_api_website_index_should_auth', 'none');
      assert.deepEqual(await call('', null), {
        status: 401,
        body: { status: 'fail', message: 'Invalid token' },
      });
      await ctx.services.settings.delete('svc_api_website_index_should_auth');
    });

    it('store and delete are admin only', async () => {
      assert.deepEqual(await call('/store', owner, { site_name: 'X', domain: 'x.test' }), {
        status: 403,
        body: ADMIN_REQUIRED,
      });
      const site = await store('admin-only.test');
      assert.deepEqual(await call(`/delete/${site.id}`, owner), { status: 403, body: ADMIN_REQUIRED });
    });

    it('R-W7: a user sees and changes only websites they own or are bound to; others are 404', async () => {
      const mine = await store('mine.test');
      const bound = await store('bound.test');
      const theirs = await store('theirs.test');
      await ctx.services.database.db
        .updateTable('websites')
        .set({ user_id: owner.id })
        .where('id', '=', mine.id)
        .execute();
      await ctx.services.bindings.sync(ctx.services.database.db, 'user', owner.id, [bound.id]);

      const listed = await call('', owner, { page_size: 100 });
      assert.deepEqual(
        listed.body.data.data.map((site: { id: number }) => site.id),
        [mine.id, bound.id],
      );
      assert.equal((await call(`/${mine.id}`, owner)).status, 200);
      assert.equal((await call(`/${bound.id}`, owner)).status, 200);
      assert.deepEqual(await call(`/${theirs.id}`, owner), {
        status: 404,
        body: fail(404, 'Website not found'),
      });
      assert.deepEqual(await call(`/update/${theirs.id}`, owner, { remark: 'mine now' }), {
        status: 404,
        body: fail(404, 'Website not found'),
      });
      assert.deepEqual(await call('/add-domain', owner, { website_id: theirs.id, domain: 'sneaky.test' }), {
        status: 404,
        body: fail(404, 'Website not found'),
      });
      assert.equal(
        (await call('/add-domain', owner, { website_id: mine.id, domain: 'www.mine.test' })).status,
        200,
      );
      assert.equal((await call('', stranger)).body.data.pagination.total, 0);
    });

    it('issue 21 #12: a site owner cannot claim an IP address, localhost or a special-use name; an admin can', async () => {
      const mine = await store('claims.test');
      await websiteWrites(ctx.services).update(mine.id, { user_id: owner.id });
      for (const domain of [
        '127.0.0.1',
        '127.1',
        '10.0.0.5',
        '[::1]',
        'localhost',
        'db.internal',
        'printer.local',
        'x.localhost',
      ]) {
        const added = await call('/add-domain', owner, { website_id: mine.id, domain });
        assert.deepEqual(added, { status: 422, body: fail(422, 'Invalid domain format') }, domain);
        const primary = await call(`/update/${mine.id}`, owner, { domain });
        assert.equal(primary.status, 422, domain);
      }
      assert.equal(
        (await call('/add-domain', admin, { website_id: mine.id, domain: '127.0.0.2' })).status,
        200,
      );
      assert.equal(
        (await call('/add-domain', owner, { website_id: mine.id, domain: 'www.claims.test' })).status,
        200,
      );
    });
  });

  describe('store, show, list', () => {
    it('R-W1, R-W2: store answers the full website record', async () => {
      const { status, body } = await call('/store', admin, {
        site_name: { en: 'Blog', 'zh-TW': '部落格' },
        domain: 'HTTPS://Blog.Example.TEST:8443/some/path',
        theme: 'minimal',
        remark: 'first',
      });
      assert.equal(status, 200);
      assert.deepEqual(Object.keys(body), ['code', 'status', 'message', 'data', 'extra']);
      assert.equal(body.message, 'Successfully Created');
      const site = body.data;
      assert.deepEqual(Object.keys(site), [
        'id',
        'user_id',
        'domain',
        'site_name',
        'site_logo',
        'site_favicon',
        'site_slogan',
        'site_seo_keywords',
        'site_seo_description',
        'theme',
        'homepage',
        'remark',
        'meta_verification',
        'head_code',
        'body_code',
        'analytics',
        'license',
        'enabled_page_cache',
        'enabled_data_cache',
        'domain_aliases',
        'translations',
        'created_at',
        'updated_at',
      ]);
      assert.equal(site.domain, 'blog.example.test');
      assert.equal(site.site_name, 'Blog');
      assert.equal(site.theme, 'minimal');
      assert.equal(site.remark, 'first');
      assert.equal(site.user_id, admin.id);
      assert.equal(site.enabled_page_cache, false);
      assert.equal(site.enabled_data_cache, true);
      assert.deepEqual(site.domain_aliases, []);
      assert.deepEqual(site.translations, { site_name: { en: 'Blog', zh_TW: '部落格' } });
      assert.match(site.created_at, /Z$/);

      const shown = await call(`/${site.id}`, admin);
      assert.deepEqual(shown.body, {
        code: 200,
        status: 'success',
        message: 'Successfully fetched website',
        data: site,
        extra: [],
      });
      const viaGet = await ctx.request({
        method: 'GET',
        url: `/api/v1/websites/${site.id}?api_token=${admin.token}`,
      });
      assert.equal(viaGet.statusCode, 200);
    });

    it('store validation: required fields, types, and an unusable domain', async () => {
      assert.deepEqual(await call('/store', admin, {}), {
        status: 422,
        body: {
          code: 422,
          status: 'fail',
          message: 'Validation failed',
          data: {
            errors: {
              site_name: ['The site name field is required.'],
              domain: ['The domain field is required.'],
            },
          },
          extra: [],
        },
      });
      const wrongTypes = await call('/store', admin, { site_name: ['x'], domain: 5 });
      assert.deepEqual(wrongTypes.body.data.errors, {
        site_name: ['The site name must be a string or a map of locale to text.'],
        domain: ['The domain must be a string.'],
      });
      assert.deepEqual(await call('/store', admin, { site_name: 'Bad', domain: 'http://' }), {
        status: 422,
        body: fail(422, 'Invalid domain format'),
      });
      assert.deepEqual(await call('/store', admin, { site_name: 'Bad', domain: 'under_score!.test' }), {
        status: 422,
        body: fail(422, 'Invalid domain format'),
      });
    });

    it('issue 34 #13: single-label domains are refused (Invalid domain format), localhost is not', async () => {
      const site = await store('labels.test');
      for (const domain of ['intranet', 'foo', 'http://intranet:8080/x', 'Foo.']) {
        assert.deepEqual(
          await call('/store', admin, { site_name: 'One label', domain }),
          { status: 422, body: fail(422, 'Invalid domain format') },
          domain,
        );
        assert.deepEqual(
          await call('/add-domain', admin, { website_id: site.id, domain }),
          { status: 422, body: fail(422, 'Invalid domain format') },
          domain,
        );
        assert.equal((await call(`/update/${site.id}`, admin, { domain })).status, 422, domain);
      }
      const v2 = await ctx.request({
        method: 'POST',
        url: '/api/v2/websites',
        headers: { authorization: `Bearer ${admin.token}` },
        payload: { site_name: 'One label', domain: 'intranet' },
      });
      assert.equal(v2.statusCode, 422, v2.body);
      assert.match(v2.body, /Invalid domain format/);
      const local = await call('/add-domain', admin, { website_id: site.id, domain: 'localhost' });
      assert.equal(local.status, 200, JSON.stringify(local.body));
      assert.equal(
        (await call('/remove-domain', admin, { website_id: site.id, domain: 'localhost' })).status,
        200,
      );
    });

    it('R-W3: a domain used by another website is refused with 409', async () => {
      const first = await store('taken.test');
      await call('/add-domain', admin, { website_id: first.id, domain: 'alias.taken.test' });
      assert.deepEqual(await call('/store', admin, { site_name: 'Dup', domain: 'TAKEN.test.' }), {
        status: 409,
        body: fail(409, 'Domain is already used as a primary domain by another website'),
      });
      assert.deepEqual(await call('/store', admin, { site_name: 'Dup', domain: 'alias.taken.test' }), {
        status: 409,
        body: fail(409, 'Domain alias is already assigned to another website'),
      });
    });

    it('stores internationalized domains as punycode', async () => {
      const site = await store('bücher.test');
      assert.equal(site.domain, 'xn--bcher-kva.test');
    });

    it('lists with keyword, page size (default 20, max 100) and the pagination object', async () => {
      for (let i = 1; i <= 3; i++) await store(`listing-${i}.test`);
      const all = await call('', admin);
      assert.equal(all.body.message, 'Successfully fetched websites');
      assert.equal(all.body.data.pagination.page_size, 20);
      const found = await call('', admin, { keyword: 'listing-', page_size: 2 });
      assert.deepEqual(found.body.data.pagination, {
        total: 3,
        count: 2,
        page_size: 2,
        current_page: 1,
        last_page: 2,
        has_more: true,
        next: '/api/v1/websites?page=2',
        previous: null,
      });
      assert.equal((await call('', admin, { page_size: 1000 })).body.data.pagination.page_size, 100);
      const byName = await call('', admin, { keyword: 'Site listing-2' });
      assert.deepEqual(
        byName.body.data.data.map((site: { domain: string }) => site.domain),
        ['listing-2.test'],
      );
      const wildcard = await call('', admin, { keyword: '%' });
      assert.equal(wildcard.body.data.pagination.total, 0);
    });

    it('unknown and malformed ids are 404', async () => {
      assert.deepEqual(await call('/999999', admin), { status: 404, body: fail(404, 'Website not found') });
      assert.deepEqual(await call('/abc', admin), { status: 404, body: fail(404, 'Website not found') });
      // Beyond PostgreSQL's integer column: still an unknown website, never a database error.
      assert.deepEqual(await call('/99999999999', admin), {
        status: 404,
        body: fail(404, 'Website not found'),
      });
      assert.deepEqual(await call('/add-domain', admin, { website_id: 99999999999, domain: 'big.test' }), {
        status: 404,
        body: fail(404, 'Website not found'),
      });
      const site = await store('bigid.test');
      assert.deepEqual((await call(`/update/${site.id}`, admin, { user_id: 99999999999 })).body.data.errors, {
        user_id: ['The selected user id is invalid.'],
      });
    });
  });

  describe('update', () => {
    it('changes only the fields sent, with locale maps and booleans', async () => {
      const site = await store('update.test', { remark: 'keep me' });
      const { status, body } = await call(`/update/${site.id}`, admin, {
        site_slogan: { en: 'Words', fr: 'Mots' },
        enabled_page_cache: 'on',
        enabled_data_cache: 0,
        head_code: '<meta name="x">',
      });
      assert.equal(status, 200);
      assert.equal(body.message, 'Successfully Updated');
      assert.equal(body.data.site_slogan, 'Words');
      assert.equal(body.data.remark, 'keep me');
      assert.equal(body.data.enabled_page_cache, true);
      assert.equal(body.data.enabled_data_cache, false);
      assert.equal(body.data.head_code, '<meta name="x">');
      assert.deepEqual(body.data.translations.site_slogan, { en: 'Words', fr: 'Mots' });
    });

    it('R-W6: head_code, body_code, analytics and user_id are for admins only', async () => {
      const site = await store('codes.test');
      await ctx.services.database.db
        .updateTable('websites')
        .set({ user_id: owner.id })
        .where('id', '=', site.id)
        .execute();
      for (const field of ['head_code', 'body_code', 'analytics', 'user_id']) {
        assert.deepEqual(
          await call(`/update/${site.id}`, owner, { [field]: field === 'user_id' ? owner.id : '<script>' }),
          {
            status: 403,
            body: ADMIN_REQUIRED,
          },
        );
      }
      assert.equal((await call(`/update/${site.id}`, owner, { remark: 'fine' })).status, 200);
    });

    it('validates types and user_id', async () => {
      const site = await store('types.test');
      const result = await call(`/update/${site.id}`, admin, {
        enabled_page_cache: 'maybe',
        user_id: 'me',
        theme: 5,
      });
      assert.equal(result.status, 422);
      assert.deepEqual(result.body.data.errors, {
        user_id: ['The user id must be an integer.'],
        theme: ['The theme must be a string.'],
        enabled_page_cache: ['The enabled page cache field must be true or false.'],
      });
      assert.deepEqual((await call(`/update/${site.id}`, admin, { user_id: 987654 })).body.data.errors, {
        user_id: ['The selected user id is invalid.'],
      });
    });

    it('R-W6: setting the domain to one of its aliases swaps them; a new domain replaces the primary', async () => {
      const site = await store('swap.test');
      await call('/add-domain', admin, { website_id: site.id, domain: 'www.swap.test' });
      const swapped = await call(`/update/${site.id}`, admin, { domain: 'www.swap.test' });
      assert.equal(swapped.body.data.domain, 'www.swap.test');
      assert.deepEqual(
        swapped.body.data.domain_aliases.map((alias: { domain: string }) => alias.domain),
        ['swap.test'],
      );
      const renamed = await call(`/update/${site.id}`, admin, { domain: 'new-swap.test' });
      assert.equal(renamed.body.data.domain, 'new-swap.test');
      assert.equal(await ctx.services.websites.findIdByDomain('www.swap.test'), null);
      const other = await store('other-swap.test');
      assert.deepEqual(await call(`/update/${other.id}`, admin, { domain: 'swap.test' }), {
        status: 409,
        body: fail(409, 'Domain alias is already assigned to another website'),
      });
    });
  });

  describe('domains', () => {
    it('add-domain: created, already an alias, already the primary (2.7, R-W4)', async () => {
      const site = await store('domains.test');
      const created = await call('/add-domain', admin, {
        website_id: site.id,
        domain: 'https://WWW.Domains.test/',
      });
      assert.equal(created.status, 200);
      const aliasId = created.body.data.domain_alias_id;
      assert.equal(typeof aliasId, 'number');
      assert.deepEqual(created.body, {
        code: 200,
        status: 'success',
        message: 'Domain alias created',
        data: {
          website_id: site.id,
          domain: 'www.domains.test',
          domain_alias_id: aliasId,
          already_exists: false,
          is_primary_domain: false,
        },
        extra: [],
      });
      assert.deepEqual(
        (await call('/add-domain', admin, { website_id: site.id, domain: 'www.domains.test' })).body,
        {
          code: 200,
          status: 'success',
          message: 'Domain alias already exists for this website',
          data: {
            website_id: site.id,
            domain: 'www.domains.test',
            domain_alias_id: aliasId,
            already_exists: true,
            is_primary_domain: false,
          },
          extra: [],
        },
      );
      assert.deepEqual(
        (await call('/add-domain', admin, { website_id: site.id, domain: 'domains.test' })).body,
        {
          code: 200,
          status: 'success',
          message: 'Domain is already the primary domain of this website',
          data: {
            website_id: site.id,
            domain: 'domains.test',
            already_exists: true,
            is_primary_domain: true,
          },
          extra: [],
        },
      );
    });

    it('add-domain validation, unknown website and conflicts', async () => {
      assert.deepEqual((await call('/add-domain', admin, {})).body.data.errors, {
        website_id: ['The website id field is required.'],
        domain: ['The domain field is required.'],
      });
      assert.deepEqual(await call('/add-domain', admin, { website_id: 999999, domain: 'x.test' }), {
        status: 404,
        body: fail(404, 'Website not found'),
      });
      const one = await store('conflict-one.test');
      const two = await store('conflict-two.test');
      assert.deepEqual(
        await call('/add-domain', admin, { website_id: two.id, domain: 'conflict-one.test' }),
        {
          status: 409,
          body: fail(409, 'Domain is already used as a primary domain by another website'),
        },
      );
      await call('/add-domain', admin, { website_id: one.id, domain: 'shared-alias.test' });
      assert.deepEqual(
        await call('/add-domain', admin, { website_id: two.id, domain: 'shared-alias.test' }),
        {
          status: 409,
          body: fail(409, 'Domain alias is already assigned to another website'),
        },
      );
      assert.deepEqual(await call('/add-domain', admin, { website_id: two.id, domain: '...' }), {
        status: 422,
        body: fail(422, 'Invalid domain format'),
      });
    });

    it('two concurrent add-domain calls for one domain: exactly one wins', async () => {
      const one = await store('race-one.test');
      const two = await store('race-two.test');
      const results = await Promise.all([
        call('/add-domain', admin, { website_id: one.id, domain: 'contested.test' }),
        call('/add-domain', admin, { website_id: two.id, domain: 'contested.test' }),
        call('/add-domain', admin, { website_id: two.id, domain: 'contested.test' }),
      ]);
      const created = results.filter((result) => result.body.message === 'Domain alias created');
      assert.equal(created.length, 1, JSON.stringify(results));
      const owners = await ctx.services.database.db
        .selectFrom('domains')
        .select('website_id')
        .where('domain', '=', 'contested.test')
        .execute();
      assert.equal(owners.length, 1);
    });

    it('remove-domain: an alias, the primary (oldest alias promoted), never the last (R-W5)', async () => {
      const site = await store('remove.test');
      await call('/add-domain', admin, { website_id: site.id, domain: 'a.remove.test' });
      await call('/add-domain', admin, { website_id: site.id, domain: 'b.remove.test' });
      assert.deepEqual(
        (await call('/remove-domain', admin, { website_id: site.id, domain: 'b.remove.test' })).body,
        {
          code: 200,
          status: 'success',
          message: 'Successfully Deleted',
          data: { website_id: site.id, removed_domain: 'b.remove.test', new_primary_domain: 'remove.test' },
          extra: [],
        },
      );
      assert.deepEqual(
        (await call('/remove-domain', admin, { website_id: site.id, domain: 'Remove.test' })).body.data,
        {
          website_id: site.id,
          removed_domain: 'remove.test',
          new_primary_domain: 'a.remove.test',
        },
      );
      assert.deepEqual(
        await call('/remove-domain', admin, { website_id: site.id, domain: 'a.remove.test' }),
        {
          status: 422,
          body: fail(422, 'Cannot remove the last domain of a website'),
        },
      );
      assert.deepEqual(await call('/remove-domain', admin, { website_id: site.id, domain: 'never.test' }), {
        status: 404,
        body: fail(404, 'Domain alias not found on this website'),
      });
      const shown = await call(`/${site.id}`, admin);
      assert.equal(shown.body.data.domain, 'a.remove.test');
    });
  });

  describe('delete', () => {
    it('R-W8: removes domains and menus; content bound only to it is soft-deleted', async () => {
      const { db } = ctx.services.database;
      const doomed = await store('doomed.test');
      const survivor = await store('survivor.test');
      await call('/add-domain', admin, { website_id: doomed.id, domain: 'www.doomed.test' });
      const onlyHere = await insertPost(db, { title: 'Only on doomed' });
      const shared = await insertPost(db, { title: 'On both' });
      const global = await insertPost(db, { title: 'Global' });
      await ctx.services.bindings.sync(db, 'post', onlyHere, [doomed.id]);
      await ctx.services.bindings.sync(db, 'post', shared, [doomed.id, survivor.id]);
      const now = new Date().toISOString();
      await db
        .insertInto('menu_items')
        .values({
          website_id: doomed.id,
          name: 'Home',
          type: 'link',
          url: '/',
          created_at: now,
          updated_at: now,
        })
        .execute();

      assert.deepEqual(await call(`/delete/${doomed.id}`, admin), {
        status: 200,
        body: { code: 200, status: 'success', message: 'Successfully Deleted', data: [], extra: [] },
      });
      assert.deepEqual(await call(`/${doomed.id}`, admin), {
        status: 404,
        body: fail(404, 'Website not found'),
      });
      assert.equal(await ctx.services.websites.findIdByDomain('www.doomed.test'), null);
      const deletedAt = async (id: number) =>
        (await db.selectFrom('posts').select('deleted_at').where('id', '=', id).executeTakeFirstOrThrow())
          .deleted_at;
      assert.notEqual(await deletedAt(onlyHere), null);
      assert.equal(await deletedAt(shared), null);
      assert.equal(await deletedAt(global), null);
      const menus = await db
        .selectFrom('menu_items')
        .select('id')
        .where('website_id', '=', doomed.id)
        .execute();
      assert.deepEqual(menus, []);
      assert.deepEqual(await call(`/delete/${doomed.id}`, admin), {
        status: 404,
        body: fail(404, 'Website not found'),
      });
    });
  });
});
