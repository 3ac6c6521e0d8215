// API v2: adding an existing account to a website by its email (the admin panel's "add a member",
// issue 25 #7), through the real app on SQLite and PostgreSQL: a site admin adds a user with a role
// (201, audited), an unknown email is a 404, a member already there a 409, a bad email or role a 422;
// a site admin cannot make a site admin, nor add to another website; an editor cannot add anyone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('API v2: members added by email', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  let admin: TestUser;
  let siteAdmin: TestUser;
  let editor: TestUser;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    admin = await ctx.createUser({ admin: true });
    siteAdmin = await ctx.createUser();
    editor = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    await ctx.services.memberships.grant(editor.id, site, 'editor');
  });
  after(() => ctx.close());

  const add = (websiteId: number, body: unknown, as: TestUser = siteAdmin) =>
    ctx.request({
      method: 'POST',
      url: `/api/v2/websites/${websiteId}/members`,
      headers: { host: 'site.test', authorization: `Bearer ${as.token}` },
      payload: body as Record<string, unknown>,
    });

  it('a site admin adds an existing account with a role; the change is audited', async () => {
    const newcomer = await ctx.createUser({ email: 'Newcomer@Example.test' });
    const added = await add(site, { email: '  newcomer@example.TEST ', role: 'author' });
    assert.equal(added.statusCode, 201, added.body);
    assert.deepEqual(
      { id: added.json().data.user.id, role: added.json().data.role },
      { id: newcomer.id, role: 'author' },
    );
    assert.equal(await ctx.services.memberships.roleOn(newcomer.id, site), 'author');
    const audit = await ctx.request({
      method: 'GET',
      url: `/api/v2/audit?filter[website]=${site}&filter[resource_type]=membership`,
      headers: { host: 'site.test', authorization: `Bearer ${siteAdmin.token}` },
    });
    assert.ok(
      (audit.json().data as Array<{ action: string; resource_id: string }>).some(
        (entry) => entry.action === 'membership.grant' && entry.resource_id === String(newcomer.id),
      ),
    );

    const again = await add(site, { email: newcomer.email, role: 'editor' });
    assert.equal(again.statusCode, 409, again.body);
    assert.match(again.json().detail, /already a member/);
    assert.equal(await ctx.services.memberships.roleOn(newcomer.id, site), 'author');
  });

  it('refuses unknown emails (404), bad input (422), site admin roles (403), other websites (404)', async () => {
    const unknown = await add(site, { email: 'nobody@example.test', role: 'reader' });
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.json().detail, /No account has this email/);
    const bad = await add(site, { email: 'not an email', role: 'owner' });
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(Object.keys(bad.json().errors).sort(), ['email', 'role']);

    const someone = await ctx.createUser();
    assert.equal((await add(site, { email: someone.email, role: 'site_admin' })).statusCode, 403);
    // Another website's members are not found, as everything of a website one does not see.
    assert.equal((await add(other, { email: someone.email, role: 'reader' })).statusCode, 404);
    assert.equal((await add(site, { email: someone.email, role: 'reader' }, editor)).statusCode, 403);
    // Refusals reveal nothing: an unknown email asked by someone who may not add is a 403 too.
    assert.equal((await add(site, { email: 'nobody@example.test', role: 'reader' }, editor)).statusCode, 403);
    assert.equal(await ctx.services.memberships.roleOn(someone.id, site), null);

    // An administrator may make a site admin, on any website.
    const made = await add(other, { email: someone.email, role: 'site_admin' }, admin);
    assert.equal(made.statusCode, 201, made.body);
    assert.equal(await ctx.services.memberships.roleOn(someone.id, other), 'site_admin');
  });
});
