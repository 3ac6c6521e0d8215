// The public lists' totals are cached (a count reads every matching row), so a change must drop them
// at once: a new post, a deleted one, and a post moved to another website change the totals.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { postWrites } from '../support/post-writes.js';
import { websiteWrites } from '../support/website-writes.js';

describe('public list totals (cached, flushed by changes)', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  const admin = { userId: null, isAdmin: true };

  before(async () => {
    ctx = await createTestContext();
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
  });
  after(() => ctx.close());

  const total = async (websiteId: number) =>
    (await ctx.services.publicPosts.list({ websiteId, locale: 'en', page: 1, pageSize: 10 })).total;

  it('counts a new post, a deleted post and a post moved between websites at once', async () => {
    assert.equal(await total(site), 0);
    const first = await postWrites(ctx.services).create(
      { title: 'One', content: 'x', websiteIds: [site] },
      admin,
    );
    assert.equal(await total(site), 1);
    await postWrites(ctx.services).create({ title: 'Global', content: 'x', websiteIds: [] }, admin);
    assert.equal(await total(site), 2, 'a global post shows on every website');
    assert.equal(await total(other), 1);
    await postWrites(ctx.services).update(first.id, { websiteIds: [other] }, admin);
    assert.equal(await total(site), 1);
    assert.equal(await total(other), 2);
    await postWrites(ctx.services).delete(first.id);
    assert.equal(await total(other), 1);
  });
});
