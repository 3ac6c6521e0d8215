// The one rate limiter (rate-limiter-flexible): fixed windows per key, in process memory or in Redis
// (shared by every app node), with memory standing in while Redis is unreachable. The library reads
// Date.now() and setTimeout, so the tests move node:test's mock clock instead of sleeping.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { Redis } from 'ioredis';
import { RateLimits } from '../../src/lib/rate-limits.js';
import { testRedisUrl } from '../support/harness.js';

const threePerMinute = { max: 3, windowSeconds: 60 };

describe('rate limits in memory', () => {
  beforeEach(() => mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1_000_000 }));
  afterEach(() => mock.timers.reset());

  it('allows `max` hits per window and key, then refuses until the window ends', async () => {
    const limits = new RateLimits();
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await limits.hit('comments', 'a', threePerMinute));
    assert.deepEqual(hits, [
      { allowed: true, remaining: 2 },
      { allowed: true, remaining: 1 },
      { allowed: true, remaining: 0 },
      { allowed: false, retryAfter: 60 },
    ]);
    assert.equal((await limits.hit('comments', 'b', threePerMinute)).allowed, true, 'keys are counted apart');
    assert.equal((await limits.hit('votes', 'a', threePerMinute)).allowed, true, 'names are counted apart');
    mock.timers.tick(45_000);
    assert.deepEqual(await limits.hit('comments', 'a', threePerMinute), { allowed: false, retryAfter: 15 });
    mock.timers.tick(15_000);
    assert.deepEqual(await limits.hit('comments', 'a', threePerMinute), { allowed: true, remaining: 2 });
  });

  it('undo takes back one hit of an open window; reset forgets the key', async () => {
    const limits = new RateLimits();
    await limits.hit('login', 'k', threePerMinute);
    await limits.hit('login', 'k', threePerMinute);
    await limits.undo('login', 'k', threePerMinute);
    assert.deepEqual(await limits.hit('login', 'k', threePerMinute), { allowed: true, remaining: 1 });
    await limits.reset('login', 'k', threePerMinute);
    assert.deepEqual(await limits.hit('login', 'k', threePerMinute), { allowed: true, remaining: 2 });
    await limits.undo('login', 'never-hit', threePerMinute);
    assert.deepEqual(
      await limits.hit('login', 'never-hit', threePerMinute),
      { allowed: true, remaining: 2 },
      'an undo without hits leaves no credit behind',
    );
  });
});

describe('rate limits in Redis', { skip: !testRedisUrl && 'no TEST_REDIS_URL' }, () => {
  const prefix = `folio-test:${randomBytes(6).toString('hex')}:`;
  const clients: Redis[] = [];
  const node = () => {
    const redis = new Redis(testRedisUrl!, { keyPrefix: prefix, maxRetriesPerRequest: 1 });
    clients.push(redis);
    return new RateLimits({ redis, warn: () => undefined });
  };
  afterEach(async () => {
    const keys = await clients[0]?.keys(`${prefix}*`);
    if (keys?.length) await clients[0]?.del(...keys.map((key) => key.slice(prefix.length)));
    for (const client of clients.splice(0)) client.disconnect();
  });

  it('two nodes share one count', async () => {
    const [one, two] = [node(), node()];
    assert.equal((await one.hit('clicks', 'ip', threePerMinute)).allowed, true);
    assert.equal((await two.hit('clicks', 'ip', threePerMinute)).allowed, true);
    assert.deepEqual(
      [await one.hit('clicks', 'ip', threePerMinute), await two.hit('clicks', 'ip', threePerMinute)].map(
        (verdict) => verdict.allowed,
      ),
      [true, false],
    );
    const refused = await one.hit('clicks', 'ip', threePerMinute);
    assert.ok(!refused.allowed && refused.retryAfter >= 1 && refused.retryAfter <= 60);
    assert.equal((await two.hit('clicks', 'other', threePerMinute)).allowed, true);
    await two.reset('clicks', 'ip', threePerMinute);
    assert.equal(
      (await one.hit('clicks', 'ip', threePerMinute)).allowed,
      true,
      'a reset on one node holds for all',
    );
  });
});

describe('rate limits while Redis is unreachable', () => {
  it('still hold, per node (the in-memory insurance limiter), and say so', async () => {
    const redis = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    const warnings: string[] = [];
    const limits = new RateLimits({ redis, warn: (message) => warnings.push(message) });
    const once = { max: 1, windowSeconds: 60 };
    assert.equal((await limits.hit('login', 'ip', once)).allowed, true);
    assert.equal((await limits.hit('login', 'ip', once)).allowed, false);
    assert.match(warnings.join('\n'), /Redis unavailable/);
    redis.disconnect();
  });
});
