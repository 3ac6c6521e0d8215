// Issue 26 #4: who a token or key names is remembered in process (no query per request), and every
// change to users, tokens or keys is seen at once here and, through the change feed, on every other
// node (a second set of services over the same database plays the other node).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../../src/services.js';
import type { Services } from '../../src/services.js';
import { createTestContext, testConfig } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { eventually } from '../support/wait.js';

describe('credential cache (issue 26 #4)', () => {
  let ctx: TestContext;
  let other: Services;

  before(async () => {
    ctx = await createTestContext();
    other = createServices(testConfig(ctx.database.url), {
      pgSchema: ctx.database.pgSchema,
      cachePrefix: 'folio-test-other:',
      warn: () => undefined,
    });
  });
  /** Until the node listens to the feed (PostgreSQL's LISTEN, opened on first use) nothing is kept. */
  const listening = (services: Services) =>
    eventually(async () => services.feed.revision('credentials') === services.feed.revision('credentials'));

  after(async () => {
    await other.close();
    await ctx.close();
  });

  it('a token is looked up once: a row removed behind Folio\u2019s back is still answered from memory', async () => {
    const user = await ctx.createUser();
    const { users } = ctx.services;
    await listening(ctx.services);
    assert.equal((await users.authenticateToken(user.token))?.id, user.id);
    await ctx.services.database.db.deleteFrom('api_tokens').where('user_id', '=', user.id).execute();
    assert.equal((await users.authenticateToken(user.token))?.id, user.id, 'remembered (for seconds)');
    // A change through Folio is seen at once.
    await users.revokeToken(user.id);
    assert.equal(await users.authenticateToken(user.token), null);
  });

  it('another node\u2019s revocation, disabling or new token is seen on the next request here', async () => {
    const user = await ctx.createUser();
    const { users } = ctx.services;
    assert.equal((await users.authenticateToken(user.token))?.id, user.id);
    const fresh = await other.users.issueToken(user.id); // the old token is replaced over there
    await eventually(async () => (await users.authenticateToken(user.token)) === null);
    assert.equal((await users.authenticateToken(fresh))?.id, user.id);
    await other.users.setActive(user.id, false);
    await eventually(async () => (await users.authenticateToken(fresh)) === null);
  });

  it('API keys: revoked on another node, refused here; expiry is checked on every request', async () => {
    const user = await ctx.createUser();
    const { secret, key } = await ctx.services.apiKeys.create(user.id, { name: 'node test' });
    assert.equal((await ctx.services.apiKeys.authenticate(secret))?.key.id, key.id);
    assert.equal(await other.apiKeys.revoke(user.id, key.id), true);
    await eventually(async () => (await ctx.services.apiKeys.authenticate(secret)) === null);

    const soon = new Date(Date.now() + 300);
    const expiring = await ctx.services.apiKeys.create(user.id, { name: 'short', expiresAt: soon });
    assert.ok(await ctx.services.apiKeys.authenticate(expiring.secret));
    await eventually(async () => (await ctx.services.apiKeys.authenticate(expiring.secret)) === null);
  });

  it('a profile change is seen in what the token\u2019s user carries', async () => {
    const user = await ctx.createUser();
    assert.ok(await ctx.services.users.authenticateToken(user.token));
    await ctx.services.accounts.updateProfile(user.id, { name: 'Renamed', username: `renamed-${user.id}` });
    assert.equal((await ctx.services.users.authenticateToken(user.token))?.name, 'Renamed');
  });
});
