import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryCache } from '../../src/cache/cache.js';
import { rememberForWebsite, websiteTag } from '../../src/cache/data-cache.js';

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
});
