import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { MemoryCache } from '../../src/cache/cache.js';
import { rememberDiscovered, rememberForWebsite, websiteTag } from '../../src/cache/data-cache.js';
import { RedisCache } from '../../src/cache/redis-cache.js';
import { withTwoRedisNodes } from '../support/redis-nodes.js';
import { cacheTestRedisUrl, redisAnswers, skipUnless } from '../support/requirements.js';
import { eventually } from '../support/wait.js';

const REDIS_URL = cacheTestRedisUrl;
const redisSkip = skipUnless(await redisAnswers(REDIS_URL), `no Redis answers at ${REDIS_URL}`);

const redisCache = () =>
  new RedisCache({
    url: REDIS_URL,
    prefix: `folio-test:${randomBytes(6).toString('hex')}:`,
    warn: () => undefined,
  });

describe('per-website data cache (enabled_data_cache)', () => {
  it('caches per website when the switch is on, under the website tag and the given tags', async () => {
    const cache = new MemoryCache();
    let calls = 0;
    const compute = async () => ++calls;
    const on = { id: 1, enabledDataCache: true };
    assert.equal(await rememberForWebsite(cache, on, 'posts:page1', { tags: ['posts'] }, compute), 1);
    assert.equal(await rememberForWebsite(cache, on, 'posts:page1', { tags: ['posts'] }, compute), 1);
    // Another website has its own entry.
    assert.equal(
      await rememberForWebsite(cache, { id: 2, enabledDataCache: true }, 'posts:page1', {}, compute),
      2,
    );
    await cache.flushTags([websiteTag(1)]);
    assert.equal(await rememberForWebsite(cache, on, 'posts:page1', { tags: ['posts'] }, compute), 3);
    await cache.flushTags(['posts']);
    assert.equal(await rememberForWebsite(cache, on, 'posts:page1', { tags: ['posts'] }, compute), 4);
  });

  it(
    'rememberDiscovered computes a cold entry once for concurrent callers, but not across a flush',
    { timeout: 10_000 },
    async (t) => {
      for (const cache of [new MemoryCache(), ...(redisSkip ? [] : [redisCache()])]) {
        t.after(() => cache.close()); // also when the test fails or times out
        // A Redis node that starts listening to flushes counts that as a flush: if it did so while the
        // ten misses below came in, they would rightly not share one computation.
        if (cache instanceof RedisCache) await cache.listening;
        const on = { id: 7, enabledDataCache: true };
        let release: () => void = () => undefined;
        let blocked = new Promise<void>((resolve) => (release = resolve));
        let version = 1;
        let calls = 0;
        const compute = async () => {
          calls++;
          const seen = version;
          await blocked;
          return { value: `v${seen}`, tags: ['post:1'] };
        };
        const first = Array.from({ length: 10 }, () =>
          rememberDiscovered(cache, on, 'post:en:x', { tags: ['lists'] }, compute),
        );
        await eventually(async () => calls > 0);
        // A read issued after the ten (one connection answers in order), then a timer: all ten have
        // missed and found the computation under way.
        await cache.get('barrier');
        await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(calls, 1, 'ten concurrent misses run one computation');
        // The post changes while the computation is under way: a request after the change computes anew.
        version = 2;
        await cache.flushTags(['post:1']);
        const blockedBefore = release;
        blocked = Promise.resolve();
        const afterChange = await rememberDiscovered(cache, on, 'post:en:x', { tags: ['lists'] }, compute);
        blockedBefore();
        assert.equal(afterChange, 'v2');
        assert.deepEqual(await Promise.all(first), Array(10).fill('v1'));
        assert.equal(calls, 2);
        assert.equal(await rememberDiscovered(cache, on, 'post:en:x', { tags: ['lists'] }, compute), 'v2');
        assert.equal(calls, 2);
      }
    },
  );

  it('computes every time when the switch is off or there is no website', async () => {
    const cache = new MemoryCache();
    let calls = 0;
    const compute = async () => ++calls;
    const off = { id: 3, enabledDataCache: false };
    assert.equal(await rememberForWebsite(cache, off, 'k', {}, compute), 1);
    assert.equal(await rememberForWebsite(cache, off, 'k', {}, compute), 2);
    assert.equal(await rememberForWebsite(cache, null, 'k', {}, compute), 3);
    assert.equal(await rememberForWebsite(cache, null, 'k', {}, compute), 4);
  });

  it(
    'on Redis: entries are read from a copy in the process while current; a flush by another node ends it',
    { skip: redisSkip },
    async () => {
      await withTwoRedisNodes(REDIS_URL, async (nodeA, nodeB) => {
        let reads = 0;
        const getStamped = nodeA.getStamped.bind(nodeA);
        nodeA.getStamped = async <T>(key: string) => {
          reads++;
          return getStamped<T>(key);
        };
        const site = { id: 7, enabledDataCache: true };
        let version = 1;
        const list = () =>
          rememberForWebsite(nodeA, site, 'list', { tags: ['lists'] }, async () => ({ version }));
        const post = () =>
          rememberDiscovered(nodeA, site, 'post', { tags: ['lists'] }, async () => ({
            value: { version },
            tags: ['post:1'],
          }));
        // Once the version mirror knows the tags, repeated reads make no shared read at all.
        await eventually(async () => {
          await list();
          await post();
          const before = reads;
          await list();
          await post();
          return reads === before;
        });
        assert.deepEqual([await list(), await post()], [{ version: 1 }, { version: 1 }]);
        version = 2;
        await nodeB.flushTags(['post:1']); // the post's discovered tag: the list stays
        await eventually(async () => (await post())?.version === 2);
        assert.equal((await list()).version, 1);
        await nodeB.flushTags([websiteTag(7)]);
        await eventually(async () => (await list()).version === 2);
      });
    },
  );
  it(
    "on Redis: a node counts its own flush once (heard back, it says nothing new); another node's counts",
    { skip: redisSkip },
    async () => {
      await withTwoRedisNodes(REDIS_URL, async (nodeA, nodeB) => {
        const site = { id: 9, enabledDataCache: true };
        let computed = 0;
        const post = () =>
          rememberDiscovered(nodeA, site, 'post', { tags: ['lists'] }, async () => ({
            value: ++computed,
            tags: ['post:1'],
          }));
        // Until A hears B's flushes (both subscriptions live), and A has its value.
        await eventually(async () => {
          const before = nodeA.flushCount;
          await nodeB.flushTags(['warm-up']);
          await new Promise((resolve) => setTimeout(resolve, 20));
          return nodeA.flushCount > before;
        });
        await post();
        const before = nodeA.flushCount;
        await nodeA.flushTags(['post:1']);
        assert.equal(nodeA.flushCount, before + 1);
        // Its own message comes back through the channel: once a later flush by B has been heard,
        // A's has been too (one channel, in order); A's counted once, B's once.
        await nodeB.flushTags(['other']);
        await eventually(async () => nodeA.flushCount > before + 1);
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(nodeA.flushCount, before + 2);
        // So a value computed after the flush is kept: the next read does not compute again.
        const after = await post();
        assert.equal(await post(), after);
      });
    },
  );
});
