// The login, registration and reset limits: the policy over the one rate limiter, in memory (on
// node:test's mock clock) or in Redis (shared by every app node).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, beforeEach, describe, it, mock } from 'node:test';
import { Redis } from 'ioredis';
import { LoginThrottle } from '../../src/domain/people/login-throttle.js';
import { RateLimits } from '../../src/lib/rate-limits.js';
import { testRedisUrl } from '../support/harness.js';

const limits = {
  loginPerAccount: { max: 2, windowSeconds: 60 },
  loginPerAddress: { max: 3, windowSeconds: 60 },
  registerPerAddress: { max: 1, windowSeconds: 60 },
  registerPerEmail: { max: 2, windowSeconds: 60 },
  resetPerAddress: { max: 5, windowSeconds: 60 },
  resetPerAccount: { max: 1, windowSeconds: 60 },
  loginPerAccountAnywhere: { max: 6, windowSeconds: 60 },
  knownAddressSeconds: 3600,
};

describe('login policy', () => {
  beforeEach(() => mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_000_000 }));
  afterEach(() => mock.timers.reset());
  it('refuses the attempt past the account limit from that address until the window ends', async () => {
    const throttle = new LoginThrottle(new RateLimits(), limits);
    assert.deepEqual(await throttle.loginAttempt('A@x.test', '1.1.1.1'), { allowed: true });
    assert.deepEqual(await throttle.loginAttempt('a@x.test ', '1.1.1.1'), { allowed: true });
    assert.deepEqual(await throttle.loginAttempt('a@x.test', '1.1.1.1'), { allowed: false, retryAfter: 60 });
    mock.timers.tick(60_000);
    assert.deepEqual(await throttle.loginAttempt('a@x.test', '1.1.1.1'), { allowed: true });
  });

  it('issue 21 #7: failing on purpose from one address locks nobody else out of the account', async () => {
    const throttle = new LoginThrottle(new RateLimits(), limits);
    for (let i = 0; i < 3; i++) await throttle.loginAttempt('victim@x.test', '6.6.6.6');
    assert.equal((await throttle.loginAttempt('victim@x.test', '6.6.6.6')).allowed, false);
    assert.deepEqual(await throttle.loginAttempt('victim@x.test', '1.2.3.4'), { allowed: true });
  });

  it('a success clears the account and takes its own hit back from the address', async () => {
    const throttle = new LoginThrottle(new RateLimits(), limits);
    await throttle.loginAttempt('a@x.test', '1.1.1.1');
    await throttle.loginAttempt('a@x.test', '1.1.1.1');
    await throttle.loginSucceeded('a@x.test', '1.1.1.1');
    // The address has 1 failure left counted; 2 more are allowed, the 3rd is not.
    assert.equal((await throttle.loginAttempt('b@x.test', '1.1.1.1')).allowed, true);
    assert.equal((await throttle.loginAttempt('c@x.test', '1.1.1.1')).allowed, true);
    assert.equal((await throttle.loginAttempt('d@x.test', '1.1.1.1')).allowed, false);
    assert.equal((await throttle.loginAttempt('a@x.test', '9.9.9.9')).allowed, true);
  });

  it('registrations are counted per email too, normalized, separately from logins and resets', async () => {
    const throttle = new LoginThrottle(new RateLimits(), limits);
    assert.deepEqual(await throttle.registerEmailAttempt('New@x.test'), { allowed: true });
    await throttle.loginAttempt('new@x.test', '1.1.1.1');
    await throttle.resetAttempt('new@x.test', '1.1.1.1');
    assert.deepEqual(await throttle.registerEmailAttempt(' new@x.test'), { allowed: true });
    assert.deepEqual(await throttle.registerEmailAttempt('new@x.test'), { allowed: false, retryAfter: 60 });
    assert.deepEqual(await throttle.registerEmailAttempt('other@x.test'), { allowed: true });
    mock.timers.tick(60_000);
    assert.deepEqual(await throttle.registerEmailAttempt('new@x.test'), { allowed: true });
  });
});

describe('issue 34 #9: guessing from many addresses', () => {
  beforeEach(() => mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_000_000 }));
  afterEach(() => mock.timers.reset());

  it('issue 34 #9: 40 IPv6 addresses of one /64 count as one client, refused past the limit', async () => {
    const throttle = new LoginThrottle(new RateLimits(), limits);
    const verdicts = [];
    for (let i = 1; i <= 40; i++) {
      verdicts.push((await throttle.loginAttempt('owner@x.test', `2001:db8:1:2::${i.toString(16)}`)).allowed);
    }
    // loginPerAccount is 2 per client: the 3rd guess from the /64 and every later one is refused.
    assert.deepEqual(verdicts.slice(0, 2), [true, true]);
    assert.equal(verdicts.slice(2).filter(Boolean).length, 0);
    // The /64 is one client for the per-address limit too; another /64 is another client.
    assert.equal((await throttle.loginAttempt('else@x.test', '2001:db8:1:2::99')).allowed, false);
    assert.equal((await throttle.loginAttempt('else@x.test', '2001:db8:1:3::1')).allowed, true);
    // An IPv4-mapped address is its IPv4 address.
    await throttle.loginAttempt('other@x.test', '::ffff:5.5.5.5');
    await throttle.loginAttempt('other@x.test', '5.5.5.5');
    assert.equal((await throttle.loginAttempt('other@x.test', '::ffff:5.5.5.5')).allowed, false);
  });

  it("issue 34 #9: an account ceiling holds across /64s; the owner's known address still gets in", async () => {
    const throttle = new LoginThrottle(new RateLimits(), limits);
    // The owner logged in from home earlier: that /64 is known for the account.
    assert.equal((await throttle.loginAttempt('owner@x.test', '2001:db8:aa:1::7')).allowed, true);
    await throttle.loginSucceeded('owner@x.test', '2001:db8:aa:1::7');
    // Guessers from 10 different /64s, one guess each: the account's ceiling (6) refuses the rest.
    const verdicts = [];
    for (let i = 0; i < 10; i++) {
      verdicts.push(
        (await throttle.loginAttempt('owner@x.test', `2001:db8:bad:${i.toString(16)}::1`)).allowed,
      );
    }
    assert.deepEqual(verdicts, [true, true, true, true, true, true, false, false, false, false]);
    const refused = await throttle.loginAttempt('owner@x.test', '9.9.9.9');
    assert.deepEqual(refused, { allowed: false, retryAfter: 60 });
    // Not a lockout: the owner's own network (another address of the same /64) is let through.
    assert.deepEqual(await throttle.loginAttempt('owner@x.test', '2001:db8:aa:1::8'), { allowed: true });
    // Other accounts are untouched, and the ceiling's window is short.
    assert.deepEqual(await throttle.loginAttempt('someone@x.test', '9.9.9.9'), { allowed: true });
    mock.timers.tick(60_000);
    assert.deepEqual(await throttle.loginAttempt('owner@x.test', '2001:db8:bad:99::1'), { allowed: true });
  });
});

describe('issue 34 #9: known addresses in memory, on the real clock', () => {
  it('issue 34 #9: an address the account logged in from stays known (no timer overflow forgets it)', async () => {
    const throttle = new LoginThrottle(new RateLimits()); // the default limits: 21 days
    await throttle.loginAttempt('real@x.test', '2001:db8:5::1');
    await throttle.loginSucceeded('real@x.test', '2001:db8:5::1');
    for (let i = 0; i < 30; i++)
      await throttle.loginAttempt('real@x.test', `2001:db8:6:${i.toString(16)}::1`);
    assert.equal((await throttle.loginAttempt('real@x.test', '198.51.100.1')).allowed, false);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal((await throttle.loginAttempt('real@x.test', '2001:db8:5::2')).allowed, true);
  });
});

describe('Redis counters', { skip: !testRedisUrl && 'TEST_REDIS_URL is not set' }, () => {
  const prefix = `folio-test:${randomBytes(6).toString('hex')}:`;
  const clients: Redis[] = [];
  const node = () => {
    const redis = new Redis(testRedisUrl as string, { keyPrefix: prefix, maxRetriesPerRequest: 1 });
    clients.push(redis);
    return new LoginThrottle(new RateLimits({ redis, warn: () => undefined }), limits);
  };
  after(async () => {
    const keys = await clients[0]?.keys(`${prefix}*`);
    if (keys?.length) await clients[0]?.del(...keys.map((key) => key.slice(prefix.length)));
    for (const client of clients) client.disconnect();
  });

  it('two app nodes share the counts: the limit holds across nodes, with the window as Retry-After', async () => {
    const [one, two] = [node(), node()];
    assert.equal((await one.loginAttempt('shared@x.test', '3.3.3.3')).allowed, true);
    assert.equal((await two.loginAttempt('shared@x.test', '3.3.3.3')).allowed, true);
    const refused = await one.loginAttempt('shared@x.test', '3.3.3.3');
    assert.equal(refused.allowed, false);
    assert.ok(!refused.allowed && refused.retryAfter > 0 && refused.retryAfter <= 60);
    await two.loginSucceeded('shared@x.test', '3.3.3.3');
    assert.equal((await one.loginAttempt('shared@x.test', '3.3.3.3')).allowed, true);
  });

  it('issue 34 #9: the account ceiling and the known addresses are shared by the nodes', async () => {
    const [one, two] = [node(), node()];
    await one.loginAttempt('ceiling@x.test', '2001:db8:cafe::1');
    await one.loginSucceeded('ceiling@x.test', '2001:db8:cafe::1');
    for (let i = 0; i < 6; i++) await (i % 2 ? one : two).loginAttempt('ceiling@x.test', `10.0.0.${i}`);
    assert.equal((await one.loginAttempt('ceiling@x.test', '10.0.1.1')).allowed, false);
    assert.equal((await two.loginAttempt('ceiling@x.test', '2001:db8:cafe::2')).allowed, true);
  });
});
