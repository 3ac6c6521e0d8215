// Roles per website (issue 20): the memberships store and the migration that gives existing users the
// rights the old rule gave them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { up as migrateMemberships } from '../../src/db/migrations/0011_memberships.js';
import { InputError, NotFoundError } from '../../src/domain/errors.js';
import { roleAtLeast } from '../../src/domain/people/memberships.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

describe('memberships: roles per website', () => {
  let ctx: TestContext;
  before(async () => (ctx = await createTestContext()));
  after(() => ctx.close());

  async function website(domain: string, userId: number | null = null): Promise<number> {
    return websiteWrites(ctx.services).create({ siteName: domain, domain, userId: userId ?? undefined });
  }

  it('grants, replaces and revokes a role; refuses unknown roles and websites', async () => {
    const user = await ctx.createUser();
    const site = await website('roles-a.test');
    const { memberships } = ctx.services;
    assert.deepEqual(await memberships.grant(user.id, site, 'editor'), { websiteId: site, role: 'editor' });
    assert.equal(await memberships.roleOn(user.id, site), 'editor');
    await memberships.grant(user.id, site, 'contributor');
    assert.deepEqual(await memberships.rolesOf(user.id), [{ websiteId: site, role: 'contributor' }]);
    await assert.rejects(memberships.grant(user.id, site, 'owner'), InputError);
    await assert.rejects(memberships.grant(user.id, 987654, 'editor'), NotFoundError);
    assert.equal(await memberships.revoke(user.id, site), true);
    assert.equal(await memberships.revoke(user.id, site), false);
    assert.equal(await memberships.roleOn(user.id, site), null);
  });

  it('orders roles from site admin down to reader', () => {
    assert.equal(roleAtLeast('site_admin', 'editor'), true);
    assert.equal(roleAtLeast('author', 'editor'), false);
    assert.equal(roleAtLeast('contributor', 'contributor'), true);
    assert.equal(roleAtLeast(null, 'reader'), false);
  });

  it('migrates existing users: owners become site admins, writers authors where they wrote and on the default website', async () => {
    const { db } = ctx.services.database;
    const admin = await ctx.createUser({ admin: true });
    const owner = await ctx.createUser();
    const writer = await ctx.createUser();
    const reader = await ctx.createUser();
    const owned = await website('owned.test', owner.id);
    const other = await website('other.test');
    const post = await insertPost(db, { title: 'Bound', authorId: writer.id });
    await db
      .insertInto('website_bindings')
      .values({ website_id: other, model_type: 'post', model_id: post })
      .execute();
    const adminPost = await insertPost(db, { title: 'By the admin', authorId: admin.id });
    await db
      .insertInto('website_bindings')
      .values({ website_id: other, model_type: 'post', model_id: adminPost })
      .execute();
    await ctx.services.settings.set('default_website_id', String(owned));

    await db.schema.dropTable('memberships').execute();
    await migrateMemberships(db as never, ctx.services.database.dialect);

    const roles = async (userId: number) =>
      (await ctx.services.memberships.rolesOf(userId)).map((m) => [m.websiteId, m.role]);
    assert.deepEqual(await roles(admin.id), [], 'administrators need no membership');
    assert.deepEqual(await roles(owner.id), [[owned, 'site_admin']], 'the owner keeps the stronger role');
    assert.deepEqual(await roles(writer.id), [
      [owned, 'author'],
      [other, 'author'],
    ]);
    assert.deepEqual(await roles(reader.id), [[owned, 'author']]);
  });
});
