// The generic rate limiter: fixed windows per key, in process memory and in Redis (shared by every
// app node), with the memory driver standing in while Redis is unreachable.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { MemoryRateLimiter, RedisRateLimiter } from '../../src/domain/rate-limit.js';
import { manualClock, testRedisUrl } from '../support/harness.js';

describe('rate limiter', () => {
  it('memory: allows `limit` hits per window and key, then refuses until the window ends', async () => {
    const clock = manualClock();
    const limiter = new MemoryRateLimiter(clock);
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await limiter.hit('a', 3, 60));
    assert.deepEqual(
      hits.map((hit) => [hit.allowed, hit.remaining]),
      [
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ],
    );
    assert.equal(hits[3]!.retryAfterSeconds, 60);
    assert.equal((await limiter.hit('b', 3, 60)).allowed, true, 'keys are counted apart');
    clock.advance(45_000);
    assert.equal((await limiter.hit('a', 3, 60)).retryAfterSeconds, 15);
    clock.advance(15_000);
    assert.deepEqual(await limiter.hit('a', 3, 60), { allowed: true, remaining: 2, retryAfterSeconds: 60 });
  });

  it('memory: the number of keys stays bounded', async () => {
    const clock = manualClock();
    const limiter = new MemoryRateLimiter(clock, 10);
    for (let i = 0; i < 50; i++) await limiter.hit(`key-${i}`, 1, 60);
    const size = (limiter as unknown as { windows: Map<string, unknown> }).windows.size;
    assert.ok(size <= 10, `size ${size}`);
    // The newest keys are still counted.
    assert.equal((await limiter.hit('key-49', 1, 60)).allowed, false);
  });

  it('redis: two nodes share one count', { skip: !testRedisUrl && 'no TEST_REDIS_URL' }, async () => {
    const prefix = `folio-test:${randomBytes(6).toString('hex')}:rl:`;
    const one = new RedisRateLimiter({ url: testRedisUrl!, prefix, warn: () => undefined });
    const two = new RedisRateLimiter({ url: testRedisUrl!, prefix, warn: () => undefined });
    try {
      assert.equal((await one.hit('ip', 3, 60)).allowed, true);
      assert.equal((await two.hit('ip', 3, 60)).allowed, true);
      assert.deepEqual(
        [await one.hit('ip', 3, 60), await two.hit('ip', 3, 60)].map((hit) => [hit.allowed, hit.remaining]),
        [
          [true, 0],
          [false, 0],
        ],
      );
      const refused = await one.hit('ip', 3, 60);
      assert.ok(refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 60);
      assert.equal((await two.hit('other', 3, 60)).allowed, true);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('redis unreachable: limits still hold, per node (the memory fallback)', async () => {
    const warnings: string[] = [];
    const limiter = new RedisRateLimiter({
      url: 'redis://127.0.0.1:1',
      warn: (message) => warnings.push(message),
    });
    try {
      assert.equal((await limiter.hit('ip', 1, 60)).allowed, true);
      assert.equal((await limiter.hit('ip', 1, 60)).allowed, false);
      assert.match(warnings.join('\n'), /Redis unavailable/);
    } finally {
      await limiter.close();
    }
  });
});
