// The posts API keeps cached answers in process under a token held by the shared cache
// (LocalAnswers): each node uses its own copy only while the shared token it was made for is current.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalAnswers } from '../../src/cache/answers.js';
import { MemoryCache } from '../../src/cache/cache.js';

describe('LocalAnswers', () => {
  const options = { tags: ['posts'] };

  it('two nodes sharing a cache: each computes once, and a flush makes both compute again', async () => {
    const shared = new MemoryCache();
    const nodeA = new LocalAnswers<{ v: string }>(() => 1);
    const nodeB = new LocalAnswers<{ v: string }>(() => 1);
    let version = 'v1';
    let computed = 0;
    const compute = async () => {
      computed++;
      return { v: version };
    };
    assert.deepEqual(await nodeA.remember(shared, 'k', options, compute), { v: 'v1' });
    assert.equal(computed, 1);
    // B finds A's token but has no answer for it: it makes its own, once.
    assert.deepEqual(await nodeB.remember(shared, 'k', options, compute), { v: 'v1' });
    assert.equal(computed, 2);
    const first = await nodeA.remember(shared, 'k', options, compute);
    assert.equal(await nodeA.remember(shared, 'k', options, compute), first, 'the same object');
    await nodeB.remember(shared, 'k', options, compute);
    assert.equal(computed, 2);

    version = 'v2';
    await shared.flushTags(['posts']);
    assert.deepEqual(await nodeB.remember(shared, 'k', options, compute), { v: 'v2' });
    assert.deepEqual(await nodeA.remember(shared, 'k', options, compute), { v: 'v2' });
    assert.equal(computed, 4);
  });

  it('a flush while an answer is made: that answer is not used again', async () => {
    const shared = new MemoryCache();
    const node = new LocalAnswers<{ v: string }>(() => 1);
    let version = 'old';
    const compute = async () => {
      const value = { v: version };
      await shared.flushTags(['posts']); // a write lands while the answer is made
      version = 'new';
      return value;
    };
    assert.deepEqual(await node.remember(shared, 'k', options, compute), { v: 'old' });
    assert.deepEqual(await node.remember(shared, 'k', options, async () => ({ v: version })), { v: 'new' });
  });

  it('a known answer skips the shared cache while its stamp is current, and expires with its token', async () => {
    const shared = new MemoryCache();
    const node = new LocalAnswers<{ v: string }>(() => 1);
    let reads = 0;
    const getStamped = shared.getStamped.bind(shared);
    shared.getStamped = async <T>(key: string) => {
      reads++;
      return getStamped<T>(key);
    };
    const compute = async () => ({ v: 'x' });
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute);
    const afterFirst = reads;
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute);
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute);
    assert.equal(reads, afterFirst, 'no shared read while current');
    await shared.flushTags(['other']);
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute);
    assert.equal(reads, afterFirst, 'a flush of another tag changes nothing');
    await shared.flushTags(['posts']);
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute);
    assert.ok(reads > afterFirst, 'a flush of its tag sends it back to the shared cache');
    const again = reads;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute);
    assert.ok(reads > again, 'an expired token is read again');
  });

  it('undefined (nothing found) is never kept', async () => {
    const shared = new MemoryCache();
    const node = new LocalAnswers<{ v: string }>(() => 1);
    let calls = 0;
    const missing = async () => {
      calls++;
      return undefined;
    };
    assert.equal(await node.remember(shared, 'k', options, missing), undefined);
    assert.equal(await node.remember(shared, 'k', options, missing), undefined);
    assert.equal(calls, 2);
  });
});
