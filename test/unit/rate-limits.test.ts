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

  it('batched (API v2, issue 42): exact on one node, most hits answered without a promise', async () => {
    const limits = new RateLimits();
    const hundred = { max: 100, windowSeconds: 60 };
    const verdicts = [];
    let promises = 0;
    for (let i = 0; i < 101; i++) {
      const counted = limits.hitBatched('api', 'key:1', hundred);
      if (counted instanceof Promise) promises++;
      verdicts.push(await counted);
    }
    assert.equal(verdicts.filter((verdict) => verdict.allowed).length, 100);
    assert.deepEqual(verdicts[0], { allowed: true, remaining: 99 });
    assert.deepEqual(verdicts[99], { allowed: true, remaining: 0 });
    assert.deepEqual(verdicts[100], { allowed: false, retryAfter: 60 });
    // The window's first hit, then one sync to the in-memory limiter per 5 hits (100 / 20).
    assert.ok(promises <= 22, `${promises} of 101 hits answered with a promise`);
    assert.equal((await limits.hitBatched('api', 'key:2', hundred)).allowed, true, 'keys apart');
    mock.timers.tick(60_000);
    assert.deepEqual(
      await limits.hitBatched('api', 'key:1', hundred),
      { allowed: true, remaining: 99 },
      'a new window',
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

describe(
  'batched counts in Redis (API v2: a hit per request, issue 42)',
  { skip: !testRedisUrl && 'no TEST_REDIS_URL' },
  () => {
    const prefix = `folio-test:${randomBytes(6).toString('hex')}:`;
    const clients: Redis[] = [];
    const node = () => {
      const redis = new Redis(testRedisUrl!, { keyPrefix: prefix, maxRetriesPerRequest: 1 });
      clients.push(redis);
      return { limits: new RateLimits({ redis, warn: () => undefined }), redis };
    };
    const hundredPerMinute = { max: 100, windowSeconds: 60 };
    /** What the shared count holds for the key: a plain `hit` on a node of its own adds one and says. */
    const sharedCount = async (name: string, key: string, limit: { max: number; windowSeconds: number }) => {
      const verdict = await node().limits.hit(name, key, limit);
      return verdict.allowed ? limit.max - verdict.remaining - 1 : limit.max;
    };
    afterEach(async () => {
      const keys = await clients[0]?.keys(`${prefix}*`);
      if (keys?.length) await clients[0]?.del(...keys.map((key) => key.slice(prefix.length)));
      for (const client of clients.splice(0)) client.disconnect();
    });

    it('one node allows exactly `max` hits, and a refusal hands its pending hits to the shared count', async () => {
      const { limits } = node();
      const verdicts = [];
      for (let i = 0; i < 101; i++) verdicts.push(await limits.hitBatched('api', 'key:1', hundredPerMinute));
      assert.equal(verdicts.filter((verdict) => verdict.allowed).length, 100);
      assert.deepEqual(verdicts[0], { allowed: true, remaining: 99 });
      assert.deepEqual(verdicts[99], { allowed: true, remaining: 0 });
      const refused = verdicts[100]!;
      assert.ok(!refused.allowed && refused.retryAfter >= 59 && refused.retryAfter <= 60);
      assert.equal(
        await sharedCount('api', 'key:1', hundredPerMinute),
        100,
        'every allowed hit reached Redis',
      );
      assert.equal((await limits.hitBatched('api', 'key:2', hundredPerMinute)).allowed, true, 'keys apart');
    });

    it('batches: Redis hears of a twentieth of the limit at a time, and of the rest within a quarter second', async () => {
      /** The Redis commands `redis` is sent while `work` runs. */
      const commandsOf = async (redis: Redis, work: () => Promise<void>) => {
        await redis.ping(); // connected: the handshake is not counted
        let commands = 0;
        const sendCommand = redis.sendCommand.bind(redis);
        redis.sendCommand = (...args: Parameters<typeof sendCommand>) => {
          commands++;
          return sendCommand(...args);
        };
        await work();
        return commands;
      };
      const plain = node();
      const perHit = await commandsOf(plain.redis, async () => {
        for (let i = 0; i < 21; i++) await plain.limits.hit('api', 'key:a', hundredPerMinute);
      });
      const { limits, redis } = node();
      const batched = await commandsOf(redis, async () => {
        for (let i = 0; i < 21; i++) await limits.hitBatched('api', 'key:b', hundredPerMinute);
      });
      // The window's first hit, then one sync per 5 hits (100 / 20): 5 syncs where `hit` made 21.
      assert.ok(
        batched * 4 <= perHit,
        `${batched} Redis commands for 21 batched hits, ${perHit} for 21 hits`,
      );
      assert.equal(await sharedCount('api', 'key:b', hundredPerMinute), 21);
      await limits.hitBatched('api', 'key:b', hundredPerMinute); // pending: 1, synced a moment ago
      await new Promise((resolve) => setTimeout(resolve, 300));
      await limits.hitBatched('api', 'key:b', hundredPerMinute); // a quarter second later: synced
      assert.equal(await sharedCount('api', 'key:b', hundredPerMinute), 22 + 2);
    });

    it('two nodes: a small limit is exact across them, a large one within a batch per node', async () => {
      const [one, two] = [node().limits, node().limits];
      const three = { max: 3, windowSeconds: 60 };
      const small = [];
      for (let i = 0; i < 3; i++) {
        small.push(
          (await one.hitBatched('api', 'k', three)).allowed,
          (await two.hitBatched('api', 'k', three)).allowed,
        );
      }
      assert.deepEqual(small, [true, true, true, false, false, false]);
      let allowed = 0;
      for (let i = 0; i < 80; i++) {
        if ((await one.hitBatched('api', 'big', hundredPerMinute)).allowed) allowed++;
        if ((await two.hitBatched('api', 'big', hundredPerMinute)).allowed) allowed++;
      }
      // Each node may not yet know up to a batch (5) of the other's hits.
      assert.ok(allowed >= 100 && allowed <= 110, `${allowed} allowed of a limit of 100 on two nodes`);
      await two.reset('api', 'big', hundredPerMinute);
      assert.equal((await two.hitBatched('api', 'big', hundredPerMinute)).allowed, true, 'a reset holds');
    });
  },
);

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
