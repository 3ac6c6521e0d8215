// The one map from content changes to the cache tags they flush (src/domain/cache-tags.ts): services
// only announce changes; this map decides what every cache drops.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WebsiteBindings } from '../../src/domain/websites/bindings.js';
import { tagsForChange } from '../../src/domain/cache-tags.js';

const bindings = {
  websitesOf: async (_type: string, ids: readonly number[]) =>
    new Map(ids.map((id) => [id, id === 1 ? [10, 11] : []] as [number, number[]])),
} as unknown as WebsiteBindings;

const sorted = async (promise: Promise<string[]>) => (await promise).sort();

describe('cache tags of content changes', () => {
  it('a post: its pages, the lists of its websites (or every list when global), the posts data cache', async () => {
    assert.deepEqual(await sorted(tagsForChange({ kind: 'post', ids: [1] }, bindings)), [
      'post-lists:site:10',
      'post-lists:site:11',
      'post:1',
      'posts',
    ]);
    assert.deepEqual(
      await sorted(tagsForChange({ kind: 'post', ids: [2], formerWebsiteIds: [12] }, bindings)),
      ['post-lists:global', 'post-lists:site:12', 'post:2', 'posts'],
    );
    assert.deepEqual(await tagsForChange({ kind: 'post', ids: [] }, bindings), []);
  });

  it('every other kind', async () => {
    const cases: Array<[Parameters<typeof tagsForChange>[0], string[]]> = [
      [{ kind: 'tag', id: 3, type: 'post_tag' }, ['posts', 'tag-type:post_tag', 'tag:3']],
      [{ kind: 'page', id: 4 }, ['page:4', 'pages-list']],
      [{ kind: 'website', id: 5 }, ['site:5', 'websites']],
      [{ kind: 'website', id: 5, domainsChanged: true }, ['domains', 'site:5', 'websites']],
      [{ kind: 'comments', postId: 6 }, ['post:6']],
      [{ kind: 'author', id: 7 }, ['author:7', 'users']],
      [{ kind: 'user', id: 7 }, ['users']],
      [{ kind: 'menu', websiteId: 8 }, ['menus', 'menus:website:8']],
      [{ kind: 'link', id: 9 }, ['links', 'posts']],
      // The media library: nothing cached shows an item; pages showing a deleted one change.
      [{ kind: 'media', ids: [10] }, []],
      [{ kind: 'media', ids: [10], postIds: [11], pageIds: [12] }, ['page:12', 'post:11']],
    ];
    for (const [change, tags] of cases)
      assert.deepEqual(await sorted(tagsForChange(change, bindings)), tags, change.kind);
  });
});
