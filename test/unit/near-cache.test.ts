// NearCache: a process-local copy in front of the shared cache, used without any shared read while
// its tags are known current; a flush (on Redis: by another node too) or its expiry sends it back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryCache } from '../../src/cache/cache.js';
import type { Cache } from '../../src/cache/cache.js';
import { NearCache } from '../../src/cache/near-cache.js';
import { withTwoRedisNodes } from '../support/redis-nodes.js';
import { cacheTestRedisUrl, redisAnswers, skipUnless } from '../support/requirements.js';
import { manualClock } from '../support/harness.js';
import { eventually } from '../support/wait.js';

const REDIS_URL = cacheTestRedisUrl;
const redisSkip = skipUnless(await redisAnswers(REDIS_URL), `no Redis answers at ${REDIS_URL}`);

/** Counts the shared cache's reads. */
function counted(cache: Cache): { cache: Cache; reads: () => number } {
  let reads = 0;
  const getStamped = cache.getStamped.bind(cache);
  cache.getStamped = async <T>(key: string) => {
    reads++;
    return getStamped<T>(key);
  };
  return { cache, reads: () => reads };
}

describe('NearCache', () => {
  it('in process: no shared read while current; a flush or the TTL sends it back', async () => {
    const clock = manualClock();
    const { cache, reads } = counted(new MemoryCache(undefined, clock));
    const near = new NearCache<{ n: number }>(cache);
    let computed = 0;
    const compute = async () => ({ n: ++computed });
    const options = { tags: ['websites'], ttlSeconds: 1 };
    assert.deepEqual(await near.remember('k', options, compute), { n: 1 });
    const after = reads();
    assert.deepEqual(await near.remember('k', options, compute), { n: 1 });
    assert.equal(reads(), after);
    await cache.flushTags(['websites']);
    assert.deepEqual(await near.remember('k', options, compute), { n: 2 });
    clock.advance(999);
    assert.deepEqual(await near.remember('k', options, compute), { n: 2 }, 'not yet expired');
    clock.advance(2);
    assert.deepEqual(await near.remember('k', options, compute), { n: 3 });
  });

  it(
    'on Redis: a flush by another node reaches the copy through the version mirror',
    { skip: redisSkip },
    async () => {
      await withTwoRedisNodes(REDIS_URL, async (nodeA, nodeB) => {
        const { reads } = counted(nodeA);
        const near = new NearCache<{ v: string }>(nodeA);
        let value = 'one';
        const compute = async () => ({ v: value });
        const options = { tags: ['websites'] };
        // Once the mirror is up, a second read is answered from the copy alone.
        await eventually(async () => {
          await near.remember('host', options, compute);
          const before = reads();
          await near.remember('host', options, compute);
          return reads() === before;
        });
        value = 'two';
        await nodeB.flushTags(['websites']);
        await eventually(async () => (await near.remember('host', options, compute)).v === 'two');
      });
    },
  );
});
