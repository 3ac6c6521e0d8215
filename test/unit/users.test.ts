import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashToken } from '../../src/domain/people/users.js';
import { InputError } from '../../src/domain/errors.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

describe('users and API tokens', () => {
  let ctx: TestContext;
  before(async () => (ctx = await createTestContext()));
  after(() => ctx.close());

  it('hashes passwords with argon2id and normalizes the email', async () => {
    const user = await ctx.services.users.create({
      name: 'Ada',
      email: '  Ada@Example.TEST ',
      password: 'analytical engine',
    });
    assert.equal(user.email, 'ada@example.test');
    assert.equal(user.isAdmin, false);
    assert.equal(user.isActive, true);
    assert.match(user.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const row = await ctx.services.database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.match(row.password_hash, /^\$argon2id\$/);
    assert.ok(!row.password_hash.includes('analytical engine'));
  });

  it('refuses a duplicate email, a short password and a bad email', async () => {
    await assert.rejects(
      ctx.services.users.create({ name: 'Ada 2', email: 'ADA@example.test', password: 'another one' }),
      (error: unknown) =>
        error instanceof InputError && error.message === 'The email has already been taken.',
    );
    await assert.rejects(
      ctx.services.users.create({ name: 'Short', email: 'short@example.test', password: 'short' }),
      (error: unknown) => error instanceof InputError && error.field === 'password',
    );
    await assert.rejects(
      ctx.services.users.create({ name: 'Bad', email: 'not-an-email', password: 'long enough' }),
      (error: unknown) => error instanceof InputError && error.field === 'email',
    );
  });

  it('stores only the SHA-256 of a token and finds the user by it', async () => {
    const user = await ctx.createUser();
    const rows = await ctx.services.database.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.token_hash, hashToken(user.token));
    assert.notEqual(rows[0]?.token_hash, user.token);
    assert.match(user.token, /^folio_[A-Za-z0-9_-]{43}$/);
    assert.equal((await ctx.services.users.authenticateToken(user.token))?.id, user.id);
    assert.equal(await ctx.services.users.authenticateToken(`${user.token}x`), null);
    assert.equal(await ctx.services.users.authenticateToken(''), null);
  });

  it('keeps one token per user: a new token replaces the old one', async () => {
    const user = await ctx.createUser();
    const second = await ctx.services.users.issueToken(user.id);
    assert.notEqual(second, user.token);
    assert.equal(await ctx.services.users.authenticateToken(user.token), null);
    assert.equal((await ctx.services.users.authenticateToken(second))?.id, user.id);
    const count = await ctx.services.database.db
      .selectFrom('api_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1);
  });

  it('refuses the token of a disabled user like an unknown one, and accepts it again once enabled', async () => {
    const user = await ctx.createUser();
    await ctx.services.users.setActive(user.id, false);
    assert.equal(await ctx.services.users.authenticateToken(user.token), null);
    await ctx.services.users.setActive(user.id, true);
    assert.equal((await ctx.services.users.authenticateToken(user.token))?.id, user.id);
  });

  it('revokes a token', async () => {
    const user = await ctx.createUser();
    await ctx.services.users.revokeToken(user.id);
    assert.equal(await ctx.services.users.authenticateToken(user.token), null);
  });

  it('checks email and password for HTTP Basic', async () => {
    const user = await ctx.createUser({ password: 'open sesame 42' });
    assert.equal(
      (await ctx.services.users.authenticatePassword(user.email.toUpperCase(), 'open sesame 42'))?.id,
      user.id,
    );
    assert.equal(await ctx.services.users.authenticatePassword(user.email, 'open sesame 43'), null);
    assert.equal(
      await ctx.services.users.authenticatePassword('nobody@example.test', 'open sesame 42'),
      null,
    );
    await ctx.services.users.setActive(user.id, false);
    assert.equal(await ctx.services.users.authenticatePassword(user.email, 'open sesame 42'), null);
  });
});
