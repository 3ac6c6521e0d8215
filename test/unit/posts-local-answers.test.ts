// The posts API keeps cached answers in process under a token held by the shared cache
// (LocalAnswers): each node uses its own copy only while the shared token it was made for is current.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalAnswers } from '../../src/cache/answers.js';
import { MemoryCache } from '../../src/cache/cache.js';
import { memoryBudget } from '../../src/cache/memory-budget.js';
import { manualClock } from '../support/harness.js';

describe('LocalAnswers', () => {
  const options = { tags: ['posts'] };

  it('two nodes sharing a cache: each computes once, and a flush makes both compute again', async () => {
    const shared = new MemoryCache();
    const nodeA = new LocalAnswers<{ v: string }>(1024);
    const nodeB = new LocalAnswers<{ v: string }>(1024);
    let version = 'v1';
    let computed = 0;
    const compute = async () => {
      computed++;
      return { v: version };
    };
    assert.deepEqual(await nodeA.remember(shared, 'k', options, compute, () => 1), { v: 'v1' });
    assert.equal(computed, 1);
    // B finds A's token but has no answer for it: it makes its own, once.
    assert.deepEqual(await nodeB.remember(shared, 'k', options, compute, () => 1), { v: 'v1' });
    assert.equal(computed, 2);
    const first = await nodeA.remember(shared, 'k', options, compute, () => 1);
    assert.equal(await nodeA.remember(shared, 'k', options, compute, () => 1), first, 'the same object');
    await nodeB.remember(shared, 'k', options, compute, () => 1);
    assert.equal(computed, 2);

    version = 'v2';
    await shared.flushTags(['posts']);
    assert.deepEqual(await nodeB.remember(shared, 'k', options, compute, () => 1), { v: 'v2' });
    assert.deepEqual(await nodeA.remember(shared, 'k', options, compute, () => 1), { v: 'v2' });
    assert.equal(computed, 4);
  });

  it('a flush while an answer is made: that answer is not used again', async () => {
    const shared = new MemoryCache();
    const node = new LocalAnswers<{ v: string }>(1024);
    let version = 'old';
    const compute = async () => {
      const value = { v: version };
      await shared.flushTags(['posts']); // a write lands while the answer is made
      version = 'new';
      return value;
    };
    assert.deepEqual(await node.remember(shared, 'k', options, compute, () => 1), { v: 'old' });
    assert.deepEqual(
      await node.remember(
        shared,
        'k',
        options,
        async () => ({ v: version }),
        () => 1,
      ),
      { v: 'new' },
    );
  });

  it('a known answer skips the shared cache while its stamp is current, and expires with its token', async () => {
    const clock = manualClock();
    const shared = new MemoryCache(undefined, clock);
    const node = new LocalAnswers<{ v: string }>(1024);
    let reads = 0;
    const getStamped = shared.getStamped.bind(shared);
    shared.getStamped = async <T>(key: string) => {
      reads++;
      return getStamped<T>(key);
    };
    const compute = async () => ({ v: 'x' });
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute, () => 1);
    const afterFirst = reads;
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute, () => 1);
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute, () => 1);
    assert.equal(reads, afterFirst, 'no shared read while current');
    await shared.flushTags(['other']);
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute, () => 1);
    assert.equal(reads, afterFirst, 'a flush of another tag changes nothing');
    await shared.flushTags(['posts']);
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute, () => 1);
    assert.ok(reads > afterFirst, 'a flush of its tag sends it back to the shared cache');
    const again = reads;
    clock.advance(999);
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute, () => 1);
    assert.equal(reads, again, 'still current a moment before its second is up');
    clock.advance(2);
    await node.remember(shared, 'k', { tags: ['posts'], ttlSeconds: 1 }, compute, () => 1);
    assert.ok(reads > again, 'an expired token is read again');
  });

  it('undefined (nothing found) is never kept', async () => {
    const shared = new MemoryCache();
    const node = new LocalAnswers<{ v: string }>(1024);
    let calls = 0;
    const missing = async () => {
      calls++;
      return undefined;
    };
    assert.equal(await node.remember(shared, 'k', options, missing, () => 1), undefined);
    assert.equal(await node.remember(shared, 'k', options, missing, () => 1), undefined);
    assert.equal(calls, 2);
  });
});

describe('LocalAnswers within its memory share', () => {
  it('keeps at most its bytes of answers, dropping the least recently used', async () => {
    const shared = new MemoryCache(1024 * 1024);
    const node = new LocalAnswers<{ v: string }>(100);
    const options = { tags: ['posts'], ttlSeconds: 60 };
    let computed = 0;
    const compute = (v: string) => async () => {
      computed++;
      return { v };
    };
    const size = (answer: { v: string }) => answer.v.length;
    await node.remember(shared, 'a', options, compute('x'.repeat(60)), size);
    await node.remember(shared, 'b', options, compute('y'.repeat(60)), size);
    const entries = (node as unknown as { entries: { size: number; calculatedSize: number } }).entries;
    assert.ok(entries.calculatedSize <= 100, `${entries.calculatedSize} bytes kept`);
    assert.equal(entries.size, 1, 'the older answer made room');
    computed = 0;
    // The dropped answer's token is still in the shared cache: this node makes the answer again.
    assert.deepEqual(await node.remember(shared, 'a', options, compute('x'.repeat(60)), size), {
      v: 'x'.repeat(60),
    });
    assert.equal(computed, 1);
  });
});

describe('memory budget', () => {
  it('splits CACHE_MEMORY_MB into shares that add up to at most the budget', () => {
    for (const mb of [16, 232, 1024]) {
      const budget = memoryBudget(mb);
      const total = Object.values(budget).reduce((sum, part) => sum + part, 0);
      assert.ok(total <= mb * 1024 * 1024, `${mb} MiB: ${total}`);
      assert.ok(total > mb * 1024 * 1024 * 0.99, `${mb} MiB: ${total}`);
    }
    assert.equal(memoryBudget(232).answers, 64 * 1024 * 1024);
  });
});
