// The attempt counters behind login, registration and reset limits: fixed windows per key, in memory
// or in Redis (shared by every app node), and the login policy over them.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { LoginThrottle, MemoryCounterStore, RedisCounterStore } from '../../src/domain/login-throttle.js';
import { manualClock, testRedisUrl } from '../support/harness.js';

const limits = {
  loginPerAccount: { max: 2, windowSeconds: 60 },
  loginPerAddress: { max: 3, windowSeconds: 60 },
  registerPerAddress: { max: 1, windowSeconds: 60 },
  registerPerEmail: { max: 2, windowSeconds: 60 },
  resetPerAddress: { max: 5, windowSeconds: 60 },
  resetPerAccount: { max: 1, windowSeconds: 60 },
};

describe('memory counters', () => {
  it('count within a window, and start again once it has passed', async () => {
    const clock = manualClock();
    const store = new MemoryCounterStore(clock);
    assert.deepEqual(await store.hit('k', 60), { count: 1, retryAfter: 60 });
    clock.advance(15_000);
    assert.deepEqual(await store.hit('k', 60), { count: 2, retryAfter: 45 });
    clock.advance(45_000);
    assert.deepEqual(await store.hit('k', 60), { count: 1, retryAfter: 60 });
  });

  it('undo takes back one hit; reset forgets the key', async () => {
    const store = new MemoryCounterStore(manualClock());
    await store.hit('k', 60);
    await store.hit('k', 60);
    await store.undo('k');
    assert.equal((await store.hit('k', 60)).count, 2);
    await store.reset('k');
    assert.equal((await store.hit('k', 60)).count, 1);
  });
});

describe('login policy', () => {
  it('refuses the attempt past the account limit until the window ends, for any address', async () => {
    const clock = manualClock();
    const throttle = new LoginThrottle(new MemoryCounterStore(clock), limits);
    assert.deepEqual(await throttle.loginAttempt('A@x.test', '1.1.1.1'), { allowed: true });
    assert.deepEqual(await throttle.loginAttempt('a@x.test ', '2.2.2.2'), { allowed: true });
    assert.deepEqual(await throttle.loginAttempt('a@x.test', '3.3.3.3'), { allowed: false, retryAfter: 60 });
    clock.advance(60_000);
    assert.deepEqual(await throttle.loginAttempt('a@x.test', '3.3.3.3'), { allowed: true });
  });

  it('a success clears the account and takes its own hit back from the address', async () => {
    const throttle = new LoginThrottle(new MemoryCounterStore(manualClock()), limits);
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
    const clock = manualClock();
    const throttle = new LoginThrottle(new MemoryCounterStore(clock), limits);
    assert.deepEqual(await throttle.registerEmailAttempt('New@x.test'), { allowed: true });
    await throttle.loginAttempt('new@x.test', '1.1.1.1');
    await throttle.resetAttempt('new@x.test', '1.1.1.1');
    assert.deepEqual(await throttle.registerEmailAttempt(' new@x.test'), { allowed: true });
    assert.deepEqual(await throttle.registerEmailAttempt('new@x.test'), { allowed: false, retryAfter: 60 });
    assert.deepEqual(await throttle.registerEmailAttempt('other@x.test'), { allowed: true });
    clock.advance(60_000);
    assert.deepEqual(await throttle.registerEmailAttempt('new@x.test'), { allowed: true });
  });
});

describe('Redis counters', { skip: !testRedisUrl && 'TEST_REDIS_URL is not set' }, () => {
  const prefix = `folio-test:${randomBytes(6).toString('hex')}:`;
  const clients: Redis[] = [];
  const node = () => {
    const redis = new Redis(testRedisUrl as string, { keyPrefix: prefix, maxRetriesPerRequest: 1 });
    clients.push(redis);
    return new LoginThrottle(
      new RedisCounterStore(redis, new MemoryCounterStore(manualClock()), () => undefined),
      limits,
    );
  };
  after(async () => {
    const keys = await clients[0]?.keys(`${prefix}*`);
    if (keys?.length) await clients[0]?.del(...keys.map((key) => key.slice(prefix.length)));
    for (const client of clients) client.disconnect();
  });

  it('two app nodes share the counts: the limit holds across nodes, with the window as Retry-After', async () => {
    const [one, two] = [node(), node()];
    assert.equal((await one.loginAttempt('shared@x.test', '1.1.1.1')).allowed, true);
    assert.equal((await two.loginAttempt('shared@x.test', '2.2.2.2')).allowed, true);
    const refused = await one.loginAttempt('shared@x.test', '3.3.3.3');
    assert.equal(refused.allowed, false);
    assert.ok(!refused.allowed && refused.retryAfter > 0 && refused.retryAfter <= 60);
    await two.loginSucceeded('shared@x.test', '3.3.3.3');
    assert.equal((await one.loginAttempt('shared@x.test', '3.3.3.3')).allowed, true);
  });

  it('when Redis is unreachable, a node keeps limiting in memory', async () => {
    const redis = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    const warnings: string[] = [];
    const throttle = new LoginThrottle(
      new RedisCounterStore(redis, new MemoryCounterStore(manualClock()), (message) =>
        warnings.push(message),
      ),
      limits,
    );
    await throttle.loginAttempt('down@x.test', '1.1.1.1');
    await throttle.loginAttempt('down@x.test', '1.1.1.1');
    assert.equal((await throttle.loginAttempt('down@x.test', '1.1.1.1')).allowed, false);
    assert.ok(warnings.length > 0);
    redis.disconnect();
  });
});
