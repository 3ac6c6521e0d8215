// API v2 for the admin panel's Website, People and Settings screens (issue 25 #6–8), through the real
// app on SQLite and PostgreSQL: a site admin neither reaches another website (404) nor the page code
// (hidden, 403 to change); delete counts and removes what it names; the domain check's verdicts; a
// disabled user's key and session are refused at once; reset links, another user's keys, the audit's
// action filter, the API switches, the test mail; a settings change flushes cached pages.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { DOMAIN_CHECK_TOKEN_SETTING } from '../../src/domain/websites/domain-check.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import { Visitor } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

describe('API v2: websites, people and settings of the admin panel', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  let admin: TestUser;
  let siteAdmin: TestUser;
  let mailer: RecordingMailer;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    admin = await ctx.createUser({ admin: true });
    siteAdmin = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    await websiteWrites(ctx.services).update(site, { head_code: '<script>track()</script>' });
  });
  beforeEach(() => {
    mailer = new RecordingMailer();
    ctx.services.mailer = mailer;
  });
  after(() => ctx.close());

  const call = (
    method: InjectOptions['method'],
    url: string,
    as: TestUser | null,
    payload?: unknown,
    host = 'site.test',
  ) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host, ...(as ? { authorization: `Bearer ${as.token}` } : {}) },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  it('a site admin cannot see or change another website (404), nor its own page code (hidden, 403)', async () => {
    assert.equal((await call('GET', `/websites/${other}`, siteAdmin)).statusCode, 404);
    assert.equal(
      (await call('PATCH', `/websites/${other}`, siteAdmin, { site_slogan: 'x' })).statusCode,
      404,
    );
    assert.equal((await call('GET', `/websites/${other}/usage`, siteAdmin)).statusCode, 404);
    const checkOther = await call('POST', `/websites/${other}/domain-check`, siteAdmin, {
      domain: 'other.test',
    });
    assert.equal(checkOther.statusCode, 404);

    const own = await call('GET', `/websites/${site}`, siteAdmin);
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.json().data.fields.site_name, 'Site');
    assert.ok(!('head_code' in own.json().data.fields), 'the page code is hidden');
    assert.ok(!('body_code' in own.json().data.fields));
    const listed = await call('GET', '/websites', siteAdmin);
    assert.deepEqual(
      listed.json().data.map((website: { id: number }) => website.id),
      [site],
    );
    assert.ok(!('head_code' in listed.json().data[0].fields));

    for (const field of ['head_code', 'body_code', 'analytics']) {
      const refused = await call('PATCH', `/websites/${site}`, siteAdmin, { [field]: '<b>x</b>' });
      assert.equal(refused.statusCode, 403, `${field}: ${refused.body}`);
    }
    const slogan = await call('PATCH', `/websites/${site}`, siteAdmin, { site_slogan: 'Hello' });
    assert.equal(slogan.statusCode, 200, slogan.body);
    assert.ok(!('head_code' in slogan.json().data.fields));

    const seen = await call('GET', `/websites/${site}`, admin);
    assert.equal(seen.json().data.fields.head_code, '<script>track()</script>');
    const changed = await call('PATCH', `/websites/${site}`, admin, { body_code: '<p>end</p>' });
    assert.equal(changed.json().data.fields.body_code, '<p>end</p>');
    // Deleting and counting are the administrators'.
    assert.equal((await call('GET', `/websites/${site}/usage`, siteAdmin)).statusCode, 403);
    assert.equal((await call('DELETE', `/websites/${site}`, siteAdmin)).statusCode, 403);
  });

  it('lists the installed themes', async () => {
    const themes = await call('GET', '/themes', siteAdmin);
    assert.equal(themes.statusCode, 200, themes.body);
    assert.ok(themes.json().data.some((theme: { name: string }) => theme.name === 'default'));
  });

  it('checks a domain: resolves here, elsewhere, or not at all; only the website\u2019s own', async () => {
    const checker = ctx.services.domainChecker;
    const original = checker.resolve;
    try {
      checker.resolve = async () => ['127.0.0.1'];
      const here = await call('POST', `/websites/${site}/domain-check`, siteAdmin, { domain: 'site.test' });
      assert.equal(here.statusCode, 200, here.body);
      assert.deepEqual(
        { verdict: here.json().data.verdict, local: here.json().data.local_addresses },
        { verdict: 'here', local: ['127.0.0.1'] },
      );

      // A documentation address: not this machine's; the token path is not reachable either.
      checker.resolve = async () => ['203.0.113.9'];
      const elsewhere = await call('POST', `/websites/${site}/domain-check`, siteAdmin, {
        domain: 'site.test',
      });
      assert.equal(elsewhere.json().data.verdict, 'elsewhere');
      assert.equal(elsewhere.json().data.http, 'unreachable');
      // The fetcher resolves the name itself (site.test does not resolve there): unreachable.
      assert.ok(elsewhere.json().data.http_detail);

      checker.resolve = async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      };
      const none = await call('POST', `/websites/${site}/domain-check`, siteAdmin, { domain: 'site.test' });
      assert.deepEqual(
        { verdict: none.json().data.verdict, addresses: none.json().data.addresses },
        { verdict: 'unresolved', addresses: [] },
      );
      const foreign = await call('POST', `/websites/${site}/domain-check`, siteAdmin, {
        domain: 'example.com',
      });
      assert.equal(foreign.statusCode, 422);
      assert.ok(foreign.json().errors.domain);
    } finally {
      checker.resolve = original;
    }
    // The token path answers this installation's token (and the settings API never shows it).
    const token = await ctx.request({
      method: 'GET',
      url: '/.well-known/folio-domain-check',
      headers: { host: 'site.test' },
    });
    assert.equal(token.statusCode, 200);
    assert.equal(token.body, await ctx.services.settings.get(DOMAIN_CHECK_TOKEN_SETTING));
    const settings = await call('GET', '/settings', admin);
    assert.ok(!(DOMAIN_CHECK_TOKEN_SETTING in settings.json().data));
  });

  it('deleting a website counts what goes with it, then removes exactly that', async () => {
    const doomed = await websiteWrites(ctx.services).create({ siteName: 'Doomed', domain: 'doomed.test' });
    await websiteWrites(ctx.services).addDomain(doomed, 'www.doomed.test');
    const db = ctx.services.database.db;
    const actor = { userId: admin.id, isAdmin: true, websiteId: doomed };
    const post = await ctx.services.posts.create(
      { title: 'Goes', content: '<p>x</p>', websiteIds: [doomed] },
      actor,
    );
    const shared = await ctx.services.posts.create(
      { title: 'Stays', content: '<p>y</p>', websiteIds: [doomed, site] },
      actor,
    );
    const page = await call('POST', '/pages', admin, { title: 'About', content: '<p>a</p>' }, 'doomed.test');
    assert.equal(page.statusCode, 201, page.body);
    const menu = await call(
      'POST',
      `/websites/${doomed}/menus`,
      admin,
      { name: 'Main', handle: 'main' },
      'doomed.test',
    );
    assert.equal(menu.statusCode, 201, menu.body);
    const now = new Date().toISOString();
    const media = await db
      .insertInto('media')
      .values({
        path: 'doomed/a.png',
        url: '/media/doomed/a.png',
        mime_type: 'image/png',
        size: 1,
        width: null,
        height: null,
        source_url: null,
        sha256: 'x',
        created_at: now,
        file_name: 'a.png',
        alt: null,
        caption: null,
        variants: null,
        updated_at: now,
        user_id: admin.id,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('website_bindings')
      .values({ website_id: doomed, model_type: 'media', model_id: media.id })
      .execute();
    for (const postId of [post.id, post.id, shared.id]) {
      await db
        .insertInto('comments')
        .values({
          post_id: postId,
          user_id: null,
          parent_id: null,
          author_name: 'V',
          author_email: null,
          content: 'hi',
          status: 'approved',
          ip_hash: null,
          user_agent: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }

    const usage = await call('GET', `/websites/${doomed}/usage`, admin);
    assert.equal(usage.statusCode, 200, usage.body);
    assert.deepEqual(usage.json().data, { posts: 1, pages: 1, media: 1, comments: 2, menus: 1, domains: 2 });

    const deleted = await call('DELETE', `/websites/${doomed}`, admin);
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.equal((await call('GET', `/websites/${doomed}`, admin)).statusCode, 404);
    const postRow = await db
      .selectFrom('posts')
      .select('deleted_at')
      .where('id', '=', post.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(postRow.deleted_at, null, 'its post went');
    const sharedRow = await db
      .selectFrom('posts')
      .select('deleted_at')
      .where('id', '=', shared.id)
      .executeTakeFirstOrThrow();
    assert.equal(sharedRow.deleted_at, null, 'a post of another website too stays');
    const pageRow = await db
      .selectFrom('pages')
      .select('deleted_at')
      .where('id', '=', page.json().data.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(pageRow.deleted_at, null);
    assert.equal(
      await db.selectFrom('media').select('id').where('id', '=', media.id).executeTakeFirst(),
      undefined,
    );
    assert.equal(
      (await db.selectFrom('menus').select('id').where('website_id', '=', doomed).execute()).length,
      0,
    );
    assert.equal(
      (await db.selectFrom('domains').select('id').where('website_id', '=', doomed).execute()).length,
      0,
    );
    const audit = await call('GET', '/audit?filter[action]=website.delete', admin);
    assert.equal(audit.json().data[0].resource_id, String(doomed));
    assert.equal(audit.json().data[0].summary, 'comments,domains,media,menus,pages,posts');
  });

  it('a disabled user\u2019s key and session are refused at once; enabled again, the key works and (issue 34 #13) the old session stays ended', async () => {
    const user = await ctx.createUser();
    await ctx.services.memberships.grant(user.id, site, 'editor');
    const key = await call('POST', '/keys', user, { name: 'ci' });
    assert.equal(key.statusCode, 201, key.body);
    const secret = key.json().data.key as string;
    const visitor = new Visitor(ctx, 'site.test');
    await visitor.logIn(user.email, user.password);
    const cookie = [...visitor.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const me = (headers: Record<string, string>) =>
      ctx.request({ method: 'GET', url: '/api/v2/me', headers: { host: 'site.test', ...headers } });
    // Used once each: the credential cache now remembers them.
    assert.equal((await me({ authorization: `Bearer ${secret}` })).statusCode, 200);
    assert.equal((await me({ cookie })).statusCode, 200);

    assert.equal((await call('PATCH', `/users/${user.id}`, siteAdmin, { is_active: false })).statusCode, 403);
    const disabled = await call('PATCH', `/users/${user.id}`, admin, { is_active: false });
    assert.equal(disabled.json().data.is_active, false);
    assert.equal((await me({ authorization: `Bearer ${secret}` })).statusCode, 401);
    assert.equal((await me({ authorization: `Bearer ${user.token}` })).statusCode, 401);
    assert.equal((await me({ cookie })).statusCode, 401);
    const login = new Visitor(ctx, 'site.test');
    await assert.rejects(login.logIn(user.email, user.password));

    await call('PATCH', `/users/${user.id}`, admin, { is_active: true });
    assert.equal((await me({ authorization: `Bearer ${secret}` })).statusCode, 200);
    // Issue 34 #13: disabling ended the session for good; enabling the account does not revive it.
    assert.equal((await me({ cookie })).statusCode, 401);
    const fresh = new Visitor(ctx, 'site.test');
    await fresh.logIn(user.email, user.password);
    const freshCookie = [...fresh.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    assert.equal((await me({ cookie: freshCookie })).statusCode, 200);
  });

  it('an administrator sends a reset link, lists a user\u2019s keys and revokes one (at once)', async () => {
    const user = await ctx.createUser();
    assert.equal((await call('POST', `/users/${user.id}/password-reset`, siteAdmin)).statusCode, 403);
    const sent = await call('POST', `/users/${user.id}/password-reset`, admin);
    assert.equal(sent.statusCode, 202, sent.body);
    assert.equal(mailer.sent.length, 1);
    assert.equal(mailer.sent[0]!.to, user.email);
    const link = /http:\/\/site\.test\/user\/password\/reset\/([A-Za-z0-9_-]+)/.exec(mailer.sent[0]!.text);
    assert.ok(link, mailer.sent[0]!.text);
    assert.equal(await ctx.services.accounts.resetTokenValid(link[1]!), true);
    assert.equal((await call('POST', '/users/999999/password-reset', admin)).statusCode, 404);

    const key = (await call('POST', '/keys', user, { name: 'laptop' })).json().data;
    assert.equal((await call('GET', `/users/${user.id}/keys`, siteAdmin)).statusCode, 403);
    const keys = await call('GET', `/users/${user.id}/keys`, admin);
    assert.equal(keys.statusCode, 200, keys.body);
    assert.deepEqual(
      keys
        .json()
        .data.map((entry: { id: number; name: string; revoked: boolean }) => [
          entry.id,
          entry.name,
          entry.revoked,
        ]),
      [[key.id, 'laptop', false]],
    );
    const use = () =>
      ctx.request({
        method: 'GET',
        url: '/api/v2/me',
        headers: { host: 'site.test', authorization: `Bearer ${key.key}` },
      });
    assert.equal((await use()).statusCode, 200);
    assert.equal((await call('DELETE', `/users/${user.id}/keys/${key.id}`, siteAdmin)).statusCode, 403);
    assert.equal((await call('DELETE', `/users/${user.id}/keys/${key.id}`, admin)).statusCode, 204);
    assert.equal((await use()).statusCode, 401);
    assert.equal((await call('DELETE', `/users/${user.id}/keys/${key.id}`, admin)).statusCode, 404);
    const after = await call('GET', `/users/${user.id}/keys`, admin);
    assert.equal(after.json().data[0].revoked, true);

    await call('PATCH', `/users/${user.id}`, admin, { is_active: false });
    assert.equal((await call('POST', `/users/${user.id}/password-reset`, admin)).statusCode, 422);
  });

  it('filters the audit log by action, exact or by kind', async () => {
    const exact = await call('GET', '/audit?filter[action]=api_key.revoke', admin);
    assert.equal(exact.statusCode, 200, exact.body);
    assert.ok(exact.json().data.length >= 1);
    assert.ok(exact.json().data.every((entry: { action: string }) => entry.action === 'api_key.revoke'));
    const kind = await call('GET', '/audit?filter[action]=user.', admin);
    const actions = new Set(kind.json().data.map((entry: { action: string }) => entry.action));
    assert.ok(actions.has('user.disable') && actions.has('user.password_reset_sent'), [...actions].join());
    assert.ok([...actions].every((action) => String(action).startsWith('user.')));
    assert.equal((await call('GET', '/audit?filter[action]=DROP%20TABLE', admin)).statusCode, 422);
  });

  it('shows the API switches with the spec\u2019s names and auth modes; they are settings', async () => {
    await ctx.services.settings.setMany({
      svc_api_posts_index: '1',
      svc_api_posts_index_should_auth: 'none',
    });
    const switches = await call('GET', '/api-switches', admin);
    assert.equal(switches.statusCode, 200, switches.body);
    const byKey = new Map(switches.json().data.map((entry: { key: string }) => [entry.key, entry]));
    assert.deepEqual(byKey.get('svc_api_posts_index'), {
      key: 'svc_api_posts_index',
      enabled: true,
      auth_mode: 'none',
    });
    assert.deepEqual(byKey.get('enable_api_website'), {
      key: 'enable_api_website',
      enabled: false,
      auth_mode: null,
    });
    assert.deepEqual(byKey.get('svc_api_update'), {
      key: 'svc_api_update',
      enabled: null,
      auth_mode: 'simple',
    });
    await call('PATCH', '/settings', admin, {
      svc_api_posts_index: '0',
      svc_api_posts_index_should_auth: 'basic',
    });
    const changed = new Map(
      (await call('GET', '/api-switches', admin))
        .json()
        .data.map((entry: { key: string }) => [entry.key, entry]),
    );
    assert.deepEqual(changed.get('svc_api_posts_index'), {
      key: 'svc_api_posts_index',
      enabled: false,
      auth_mode: 'basic',
    });
    assert.equal((await call('GET', '/api-switches', siteAdmin)).statusCode, 403);
  });

  it('sends a test mail to the signed-in administrator through the mailer', async () => {
    assert.equal((await call('POST', '/mail/test', siteAdmin)).statusCode, 403);
    const sent = await call('POST', '/mail/test', admin);
    assert.equal(sent.statusCode, 200, sent.body);
    assert.deepEqual(sent.json().data, { to: admin.email, transport: 'log', sent: true, error: null });
    assert.equal(mailer.sent.length, 1);
    assert.equal(mailer.sent[0]!.to, admin.email);
    ctx.services.mailer = {
      send: async () => {
        throw new Error('connection refused');
      },
      close: async () => undefined,
    };
    const failed = await call('POST', '/mail/test', admin);
    assert.deepEqual(
      { sent: failed.json().data.sent, error: failed.json().data.error },
      { sent: false, error: 'connection refused' },
    );
  });

  it('a setting that changes pages flushes the cached pages (posts per page)', async () => {
    const host = 'cached.test';
    const cached = await websiteWrites(ctx.services).create({ siteName: 'Cached', domain: host });
    await websiteWrites(ctx.services).update(cached, { enabled_page_cache: true });
    const actor = { userId: admin.id, isAdmin: true, websiteId: cached };
    for (const title of ['Older post', 'Newer post']) {
      await ctx.services.posts.create({ title, content: '<p>x</p>', websiteIds: [cached] }, actor);
    }
    await ctx.services.settings.set('frontend_posts_per_page', '10');
    const home = () => ctx.request({ method: 'GET', url: '/', headers: { host } });
    assert.equal((await home()).headers['x-folio-cache'], 'miss');
    const hit = await home();
    assert.equal(hit.headers['x-folio-cache'], 'hit');
    assert.match(hit.body, /Older post/);

    // An API switch changes no page: the cached page stays.
    await call('PATCH', '/settings', admin, { svc_api_tag_index: '1' });
    assert.equal((await home()).headers['x-folio-cache'], 'hit');

    const patched = await call('PATCH', '/settings', admin, { frontend_posts_per_page: '1' });
    assert.equal(patched.statusCode, 200, patched.body);
    const fresh = await home();
    assert.equal(fresh.headers['x-folio-cache'], 'miss');
    assert.match(fresh.body, /Newer post/);
    assert.doesNotMatch(fresh.body, /Older post/);
  });
});
