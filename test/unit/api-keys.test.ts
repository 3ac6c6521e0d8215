// Named API keys with scopes (issue 20): shown once, stored hashed, revocable, expiring.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InputError, ValidationError } from '../../src/domain/errors.js';
import { hashToken } from '../../src/domain/people/users.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('API keys', () => {
  const clock = manualClock(new Date('2026-03-01T00:00:00.000Z'));
  let ctx: TestContext;
  before(async () => (ctx = await createTestContext({ clock })));
  after(() => ctx.close());

  it('creates a key shown once and stored as its SHA-256 only, scoped to websites', async () => {
    const user = await ctx.createUser();
    const site = await websiteWrites(ctx.services).create({ siteName: 'Keys', domain: 'keys.test' });
    const { key, secret } = await ctx.services.apiKeys.create(user.id, {
      name: ' Build server ',
      websiteIds: [site, site],
      readOnly: true,
    });
    assert.match(secret, /^folio_key_[A-Za-z0-9_-]{43}$/);
    assert.equal(key.name, 'Build server');
    assert.deepEqual(key.websiteIds, [site]);
    assert.equal(key.readOnly, true);
    assert.ok(secret.startsWith(key.prefix) && key.prefix.length < 20);
    const row = await ctx.services.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.key_hash, hashToken(secret));
    assert.ok(!JSON.stringify(row).includes(secret));

    const found = await ctx.services.apiKeys.authenticate(secret);
    assert.equal(found?.user.id, user.id);
    assert.deepEqual(found?.key.websiteIds, [site]);
    assert.equal(found?.key.lastUsedAt, null, 'the answer shows the key as it was before this use');
    assert.equal((await ctx.services.apiKeys.list(user.id))[0]?.lastUsedAt, '2026-03-01T00:00:00.000Z');
  });

  it('refuses a bad name (the operation\u2019s schema), an unknown website and a past expiry (the service)', async () => {
    const user = await ctx.createUser();
    // The name's rules are the create operation's input schema (issue 35 #3), for every face.
    const own = { userId: user.id, isAdmin: false, websiteId: null };
    await assert.rejects(ctx.services.keyOps.create(own, user.id, { name: '  ' }), ValidationError);
    await assert.rejects(
      ctx.services.keyOps.create(own, user.id, { name: 'x'.repeat(101) }),
      ValidationError,
    );
    assert.deepEqual(await ctx.services.apiKeys.list(user.id), [], 'nothing stored');
    await assert.rejects(
      ctx.services.apiKeys.create(user.id, { name: 'k', websiteIds: [999999] }),
      InputError,
    );
    await assert.rejects(
      ctx.services.apiKeys.create(user.id, { name: 'k', expiresAt: new Date('2026-02-01T00:00:00Z') }),
      InputError,
    );
  });

  it('refuses revoked and expired keys, keys of a disabled user, and unknown secrets alike', async () => {
    const user = await ctx.createUser();
    const revoked = await ctx.services.apiKeys.create(user.id, { name: 'revoked' });
    const expiring = await ctx.services.apiKeys.create(user.id, {
      name: 'expiring',
      expiresAt: new Date(clock.now().getTime() + 3_600_000),
    });
    assert.ok(await ctx.services.apiKeys.authenticate(expiring.secret));
    assert.equal(await ctx.services.apiKeys.revoke(user.id, revoked.key.id), true);
    assert.equal(await ctx.services.apiKeys.revoke(user.id, revoked.key.id), false, 'once');
    assert.equal(await ctx.services.apiKeys.authenticate(revoked.secret), null);
    const other = await ctx.createUser();
    assert.equal(
      await ctx.services.apiKeys.revoke(other.id, expiring.key.id),
      false,
      "not another user's key",
    );

    clock.advance(3_600_000);
    assert.equal(await ctx.services.apiKeys.authenticate(expiring.secret), null);
    const live = await ctx.services.apiKeys.create(user.id, { name: 'live' });
    await ctx.services.users.setActive(user.id, false);
    assert.equal(await ctx.services.apiKeys.authenticate(live.secret), null);
    assert.equal(await ctx.services.apiKeys.authenticate('folio_key_unknown'), null);
    assert.equal(await ctx.services.apiKeys.authenticate(user.token), null, 'a user token is not a key');
  });
});
