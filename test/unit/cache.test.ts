// One contract for both cache drivers (in-process and the real Redis on this machine), plus what
// only Redis does: a flush seen by a second app instance, and an outage that degrades to no caching.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { MemoryCache } from '../../src/cache/cache.js';
import type { Cache } from '../../src/cache/cache.js';
import { RedisCache } from '../../src/cache/redis-cache.js';
import { freePort } from '../support/net.js';
import { startPrivateRedis, stopPrivateRedis } from '../support/private-redis.js';
import {
  cacheTestRedisUrl,
  redisAnswers,
  redisServerInstalled,
  skipUnless,
} from '../support/requirements.js';
import { manualClock } from '../support/harness.js';
import { eventually } from '../support/wait.js';

const REDIS_URL = cacheTestRedisUrl;
const redisSkip = skipUnless(await redisAnswers(REDIS_URL), `no Redis answers at ${REDIS_URL}`);
const redisServerSkip = skipUnless(redisServerInstalled, 'redis-server is not installed');
const prefix = () => `folio-test:${randomBytes(6).toString('hex')}:`;

/** A driver, and how its time passes: the memory cache follows a manual clock (no sleeping); Redis
 * expires entries on its own clock (a real wait). */
type Driver = [string, () => Cache, (ms: number) => Promise<void>];
const clock = manualClock();
const redisDriver: Driver = [
  'redis',
  () => new RedisCache({ url: REDIS_URL, prefix: prefix(), warn: () => undefined }),
  async (ms) => void (await sleep(ms)),
];
const drivers: Driver[] = [
  ['memory', () => new MemoryCache(undefined, clock), async (ms) => clock.advance(ms)],
  ...(redisSkip ? [] : [redisDriver]),
];
if (redisSkip) describe('cache contract: redis', { skip: redisSkip }, () => undefined);

for (const [name, make, pass] of drivers) {
  describe(`cache contract: ${name}`, () => {
    const cache = make();
    after(() => cache.close());

    it('gets what was set, and nothing for an unknown key', async () => {
      await cache.set('a', { n: 1, list: ['x'] });
      assert.deepEqual(await cache.get('a'), { n: 1, list: ['x'] });
      assert.equal(await cache.get('missing'), undefined);
      await cache.set('text', 'héllo <html>');
      assert.equal(await cache.get('text'), 'héllo <html>');
    });

    it('expires entries after their time to live', async () => {
      await cache.set('short', 'v', { ttlSeconds: 1 });
      assert.equal(await cache.get('short'), 'v');
      await pass(900);
      assert.equal(await cache.get('short'), 'v');
      await pass(200);
      assert.equal(await cache.get('short'), undefined);
    });

    it('flushes by tag: exactly the entries carrying the tag', async () => {
      await cache.set('site1', 'one', { tags: ['websites', 'website:1'] });
      await cache.set('site2', 'two', { tags: ['websites', 'website:2'] });
      await cache.set('menu1', 'menu', { tags: ['menus'] });
      await cache.flushTags(['website:1']);
      assert.equal(await cache.get('site1'), undefined);
      assert.equal(await cache.get('site2'), 'two');
      await cache.flushTags(['websites']);
      assert.equal(await cache.get('site2'), undefined);
      assert.equal(await cache.get('menu1'), 'menu');
      await cache.set('site1', 'again', { tags: ['websites'] });
      assert.equal(await cache.get('site1'), 'again');
    });

    it('remember computes once, also for concurrent callers, and caches the result', async () => {
      let calls = 0;
      const compute = async () => {
        calls++;
        await sleep(20);
        return { value: calls };
      };
      const results = await Promise.all([1, 2, 3].map(() => cache.remember('r', { tags: ['t'] }, compute)));
      assert.deepEqual(results, [{ value: 1 }, { value: 1 }, { value: 1 }]);
      assert.deepEqual(await cache.remember('r', { tags: ['t'] }, compute), { value: 1 });
      assert.equal(calls, 1);
      await cache.flushTags(['t']);
      assert.deepEqual(await cache.remember('r', { tags: ['t'] }, compute), { value: 2 });
    });

    it(
      'a caller after a flush does not join a computation begun before it (read your writes)',
      { timeout: 10_000 },
      async () => {
        let release: () => void = () => undefined;
        const blocked = new Promise<void>((resolve) => (release = resolve));
        let data = 'old';
        const calls: string[] = [];
        const compute = async () => {
          const seen = data;
          calls.push(seen);
          if (seen === 'old') await blocked; // still reading the old data
          return seen;
        };
        const before = cache.remember('ryw', { tags: ['ryw'] }, compute);
        await eventually(async () => calls.length === 1); // its computation is reading the old data
        const joined = cache.remember('ryw', { tags: ['ryw'] }, compute);
        // A read issued after joined's own (one connection answers in order), then a timer: joined has
        // found no entry and joined the computation under way.
        await cache.get('ryw-barrier');
        await sleep(10);
        data = 'new';
        await cache.flushTags(['ryw']);
        const after = await cache.remember('ryw', { tags: ['ryw'] }, compute);
        release();
        assert.equal(after, 'new');
        assert.equal(await before, 'old');
        assert.equal(await joined, 'old'); // it came before the change: the old value is its answer
        assert.deepEqual(calls, ['old', 'new']);
        assert.equal(await cache.remember('ryw', { tags: ['ryw'] }, compute), 'new');
      },
    );

    it('a flush during a computation is not lost', async () => {
      const value = cache.remember('racy', { tags: ['race'] }, async () => {
        await cache.flushTags(['race']); // the data changed while it was being read
        return 'stale';
      });
      assert.equal(await value, 'stale');
      assert.equal(await cache.get('racy'), undefined);
    });

    it('deletes a key, and clear empties everything', async () => {
      await cache.set('d1', 1);
      await cache.set('d2', 2, { tags: ['x'] });
      await cache.delete('d1');
      assert.equal(await cache.get('d1'), undefined);
      assert.equal(await cache.get('d2'), 2);
      await cache.clear();
      assert.equal(await cache.get('d2'), undefined);
    });

    it('stamps: an entry stored under a stamp taken before a flush is stale at once', async () => {
      const before = await cache.stamp(['s1']);
      assert.ok(before);
      await cache.flushTags(['s1']);
      await cache.setStamped('late', 'rendered before the flush', before, 60);
      assert.equal(await cache.get('late'), undefined);
      const now = await cache.stamp(['s1']);
      assert.ok(now);
      await cache.setStamped('fresh', 'v', now, 60);
      const stored = await cache.getStamped<string>('fresh');
      assert.equal(stored?.value, 'v');
      assert.deepEqual(stored?.stamp, now);
      assert.ok(stored && stored.expires > cache.now() && stored.expires <= cache.now() + 60_000);
    });

    it('a stamp names every tag once, in order, with the whole cache last, at its versions', async () => {
      await cache.flushTags(['st2']);
      await cache.flushTags(['st2']);
      const stamp = await cache.stamp(['st1', 'st2', 'st1', 'st2']);
      assert.ok(stamp);
      assert.deepEqual(Object.keys(stamp), ['st1', 'st2', '__all__']);
      assert.equal(stamp.st2! - stamp.st1!, 2, 'two flushes of st2, none of st1');
      assert.deepEqual(Object.keys((await cache.stamp(['__all__', 'st3']))!), ['__all__', 'st3']);
      assert.deepEqual(Object.keys((await cache.stamp([]))!), ['__all__']);
    });

    it('isCurrent answers from memory, and a flush or clear() makes a stamp stale', async () => {
      // Redis answers from its mirror once the subscription is up (a few ms after connecting).
      const stamp = await cache.stamp(['c1', 'c2']);
      assert.ok(stamp);
      await waitFor(() => cache.isCurrent(stamp));
      const count = cache.flushCount;
      await cache.flushTags(['c2']);
      assert.equal(cache.isCurrent(stamp), false);
      assert.ok(cache.flushCount > count);
      const again = await cache.stamp(['c1']);
      assert.ok(again);
      assert.equal(cache.isCurrent(again), true);
      await cache.clear();
      assert.equal(cache.isCurrent(again), false);
    });
  });
}

describe('memory cache', () => {
  it('is bounded by bytes: old entries are evicted', async () => {
    const cache = new MemoryCache(10_000);
    for (let i = 0; i < 50; i++) await cache.set(`k${i}`, 'x'.repeat(500));
    assert.equal(await cache.get('k0'), undefined);
    assert.equal(await cache.get('k49'), 'x'.repeat(500));
  });
});

describe('redis cache across app nodes', { skip: redisSkip }, () => {
  it('a flush on one instance is seen by another sharing the Redis server', async () => {
    const shared = prefix();
    const nodeA = new RedisCache({ url: REDIS_URL, prefix: shared });
    const nodeB = new RedisCache({ url: REDIS_URL, prefix: shared });
    try {
      await nodeA.set('home', '<html>v1</html>', { tags: ['website:7'] });
      assert.equal(await nodeB.get('home'), '<html>v1</html>');
      await nodeB.flushTags(['website:7']);
      assert.equal(await nodeA.get('home'), undefined);
      await nodeA.set('x', 1);
      await nodeB.clear();
      assert.equal(await nodeA.get('x'), undefined);

      // Node A's mirror hears node B's flush: a stamp it held current turns stale without a query.
      const stamp = await nodeA.stamp(['post:1']);
      assert.ok(stamp);
      await waitFor(() => nodeA.isCurrent(stamp));
      await nodeB.flushTags(['post:1']);
      await waitFor(() => !nodeA.isCurrent(stamp));
      assert.deepEqual(await nodeA.stamp(['post:1']), await nodeB.stamp(['post:1']));
    } finally {
      await nodeA.close();
      await nodeB.close();
    }
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail('condition not met in time');
    await sleep(5);
  }
}

describe('redis cache when Redis goes away', { skip: redisServerSkip }, () => {
  it('degrades to no caching with a warning, never an error, and is correct once Redis is back', async () => {
    const port = await freePort();
    let server = await startPrivateRedis(port);
    const warnings: string[] = [];
    const cache = new RedisCache({
      url: `redis://127.0.0.1:${port}`,
      warn: (message) => warnings.push(message),
      // Long enough for a healthy command on a loaded machine (300 ms once timed out the first get
      // in CI while browser tests ran beside it); a stopped server refuses at once anyway.
      commandTimeoutMs: 1000,
    });
    try {
      await cache.set('page', 'cached', { tags: ['posts'] });
      assert.equal(await cache.get('page'), 'cached');

      await stopPrivateRedis(server);
      await sleep(100);
      assert.equal(await cache.get('page'), undefined);
      await cache.set('other', 'value'); // no throw
      await cache.flushTags(['posts']); // lost for now: remembered
      let computed = 0;
      assert.equal(await cache.remember('k', {}, async () => ++computed), 1);
      assert.equal(await cache.remember('k', {}, async () => ++computed), 2); // nothing cached meanwhile
      await cache.delete('page');
      await cache.clear();
      assert.ok(warnings.length >= 1);
      assert.match(warnings[0] ?? '', /^cache: Redis unavailable/);

      // The same server comes back (a fresh one here; a real one would still hold 'page').
      server = await startPrivateRedis(port);
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        await cache.set('probe', 1);
        if ((await cache.get('probe')) === 1) break;
        await sleep(100);
      }
      assert.equal(await cache.get('probe'), 1);
    } finally {
      await cache.close();
      await stopPrivateRedis(server);
    }
  });
});

describe('redis cache across a Redis restart (issue 21 #14)', { skip: redisServerSkip }, () => {
  it('a stamp from before an empty restart is never current again, on either of two nodes', async () => {
    const port = await freePort();
    let server = await startPrivateRedis(port);
    const url = `redis://127.0.0.1:${port}`;
    const a = new RedisCache({ url, warn: () => undefined, commandTimeoutMs: 300 });
    const b = new RedisCache({ url, warn: () => undefined, commandTimeoutMs: 300 });
    /** Connected again: a stamp can be read and the node hears flushes (its mirror is live). */
    const live = async (cache: RedisCache) => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const mirrorLive = (cache as unknown as { mirrorLive: boolean }).mirrorLive;
        if (mirrorLive && (await cache.stamp(['probe']))) return;
        await sleep(50);
      }
      assert.fail('the cache did not reconnect');
    };
    try {
      await Promise.all([live(a), live(b)]);
      for (let i = 0; i < 3; i++) await a.flushTags(['post:1']);
      const before = (await b.stamp(['post:1']))!;
      assert.ok(before);
      await b.stamp(['post:1']); // mirrored now
      assert.equal(b.isCurrent(before), true);

      await stopPrivateRedis(server);
      await waitFor(() => !(b as unknown as { mirrorLive: boolean }).mirrorLive, 5000);
      server = await startPrivateRedis(port);
      await Promise.all([live(a), live(b)]);
      // The counters climb back to the numbers the old stamp holds (a flush lost to a slow command
      // under load only means one more round).
      // Read on the flushing node: it knows its own flushes at once (another node hears them a little later).
      let after = (await a.stamp(['post:1']))!;
      for (let i = 0; i < 20 && (after?.['post:1'] ?? 0) < before['post:1']!; i++) {
        await a.flushTags(['post:1']);
        after = (await a.stamp(['post:1']))!;
      }
      assert.ok(after);
      assert.equal(after['post:1'], before['post:1'], 'the tag counted back to the same number');
      assert.notDeepEqual(after, before);
      assert.equal(b.isCurrent(before), false);
      assert.equal(a.isCurrent(before), false);
      // And an entry written under the old stamp is not served.
      await a.setStamped('post-page', 'old title', before);
      assert.equal(await b.get('post-page'), undefined);
    } finally {
      await a.close();
      await b.close();
      await stopPrivateRedis(server);
    }
  });
});
