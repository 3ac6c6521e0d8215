// Post counters (issue 26 #1): after every kind of write the kept counters equal a recount of the rows
// (count(*) per tag, website bucket and status), and concurrent writers keep them right.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { RECOUNT_SQL } from '../../src/db/migrations/0019_post_counts.js';
import { compactPostCounts } from '../../src/domain/posts/counts.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost, insertTag, tagPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

describe('post counters', () => {
  const clock = manualClock(new Date('2026-03-01T00:00:00.000Z'));
  let ctx: TestContext;
  let admin: { userId: number; isAdmin: boolean };
  let site1: number;
  let site2: number;
  let tagA: number;
  let tagB: number;
  let category: number;

  before(async () => {
    ctx = await createTestContext({ clock });
    const user = await ctx.createUser({ admin: true });
    admin = { userId: user.id, isAdmin: true };
    site1 = await websiteWrites(ctx.services).create({ siteName: 'One', domain: 'one.test' });
    site2 = await websiteWrites(ctx.services).create({ siteName: 'Two', domain: 'two.test' });
    const { db } = ctx.services.database;
    tagA = await insertTag(db, 'Alpha', 'post_tag');
    tagB = await insertTag(db, 'Beta', 'post_tag');
    category = await insertTag(db, 'Cat', 'post_category');
  });
  after(() => ctx.close());

  /** The kept counters (zero rows left out) and a recount of the rows, as sorted lines. */
  async function both(): Promise<{ kept: string[]; counted: string[] }> {
    const { db } = ctx.services.database;
    const line = (r: { tag_id: unknown; website_id: unknown; status: unknown; total: unknown }) =>
      `${Number(r.tag_id)}/${Number(r.website_id)}/${String(r.status)}=${Number(r.total)}`;
    // A count is the sum of its key's rows (the triggers append deltas).
    const kept = (
      await db
        .selectFrom('post_counts')
        .select(['tag_id', 'website_id', 'status', (eb) => eb.fn.sum<number>('total').as('total')])
        .groupBy(['tag_id', 'website_id', 'status'])
        .execute()
    ).filter((row) => Number(row.total) !== 0);
    const counted = await sql<{
      tag_id: number;
      website_id: number;
      status: string;
      total: number;
    }>`${sql.raw(RECOUNT_SQL)}`.execute(db);
    return { kept: kept.map(line).sort(), counted: counted.rows.map(line).sort() };
  }

  async function assertCounted(step: string) {
    const { kept, counted } = await both();
    assert.deepEqual(kept, counted, `after ${step}`);
  }

  const create = (input: Record<string, unknown>) =>
    ctx.services.posts.create({ title: 'T', content: '<p>c</p>', ...input }, admin);

  it('equal a recount after creates, status changes, moves, tag changes, deletes and scheduled publishing', async () => {
    const p1 = await create({ title: 'One', tags: [tagA], categories: [category] });
    const p2 = await create({ title: 'Two', websiteIds: [site1], tags: [tagA, tagB] });
    const p3 = await create({ title: 'Three', websiteIds: [site1, site2], status: 'draft' });
    const p4 = await create({
      title: 'Four',
      websiteIds: [site2],
      tags: [tagB],
      status: 'scheduled',
      publishedAt: '2026-03-01T01:00:00.000Z',
    });
    await assertCounted('creates');
    // The counters are not empty: the global post, the bound ones, the tags.
    const { kept } = await both();
    assert.ok(kept.includes(`0/0/published=2`), kept.join(' '));
    assert.ok(kept.includes(`0/-1/published=1`), kept.join(' '));
    assert.ok(kept.includes(`${tagA}/${site1}/published=1`), kept.join(' '));

    await ctx.services.posts.update(p3.id, { status: 'published' }, admin);
    await assertCounted('a status change');
    await ctx.services.posts.update(p1.id, { websiteIds: [site2] }, admin);
    await assertCounted('a global post bound to a website');
    await ctx.services.posts.update(p2.id, { websiteIds: [] }, admin);
    await assertCounted('a bound post made global');
    await ctx.services.posts.update(p3.id, { websiteIds: [site2] }, admin);
    await assertCounted('a move between websites');
    await ctx.services.posts.update(p2.id, { tags: [tagB], categories: [category] }, admin);
    await assertCounted('tag changes');
    await ctx.services.posts.update(p1.id, { status: 'draft', websiteIds: [site1], tags: [] }, admin);
    await assertCounted('status, website and tags at once');

    clock.advance(2 * 60 * 60 * 1000);
    assert.deepEqual(await ctx.services.posts.publishDue(), [p4.id]);
    await assertCounted('scheduled publishing');

    assert.equal(await ctx.services.posts.delete(p2.id), true);
    await assertCounted('a delete');

    // Rows written behind the operations' back (imports, seeding) are counted too.
    const { db } = ctx.services.database;
    const raw = await insertPost(db, { title: 'Raw' });
    await tagPost(db, raw, tagA);
    await insertPost(db, { title: 'Raw deleted', deleted: true });
    await insertPost(db, { title: 'A link', type: 'link' });
    await assertCounted('direct inserts');

    const merged = await ctx.services.tags.findById(tagA);
    const into = await ctx.services.tags.findById(tagB);
    await ctx.services.tags.merge(merged!, into!);
    await assertCounted('a tag merge');
    await ctx.services.tags.remove((await ctx.services.tags.findById(category))!);
    await assertCounted('a tag deleted');

    await websiteWrites(ctx.services).delete(site2);
    await assertCounted('a website deleted');
  });

  it('give the lists the totals a count(*) gives', async () => {
    const { db } = ctx.services.database;
    const site = await websiteWrites(ctx.services).create({ siteName: 'Four', domain: 'four.test' });
    const tag = await insertTag(db, 'Delta', 'post_tag');
    await create({ title: 'Here', websiteIds: [site], tags: [tag] });
    await create({ title: 'Here draft', websiteIds: [site], status: 'draft' });
    await create({ title: 'Everywhere', tags: [tag] });
    await create({ title: 'Elsewhere', websiteIds: [site1] });
    // Published, but its time has not come: not public yet.
    await create({ title: 'Later', websiteIds: [site], publishedAt: '2030-01-01T00:00:00.000Z' });
    const base = { page: 1, pageSize: 5, sort: 'created_at' as const, direction: 'desc' as const };
    const anonymous = { userId: null, now: clock.now().toISOString() };
    for (const query of [
      { websiteId: site },
      { websiteId: site, status: 'any' as const },
      { websiteId: site, status: 'draft' as const },
      { websiteId: null, status: 'published' as const },
      { websiteId: site, tagIds: [tag] },
      { websiteId: null, tagIds: [tag], status: 'any' as const },
      { websiteId: site, viewer: anonymous },
      { websiteId: site, tagIds: [tag], viewer: anonymous },
    ]) {
      const kept = await ctx.services.posts.list({ ...base, ...query });
      // An excluded id that names no post sends the same list through its count(*) query.
      const counted = await ctx.services.posts.list({ ...base, ...query, excludedIds: [0] });
      assert.equal(kept.total, counted.total, JSON.stringify(query));
    }
    const publicTotal = async (tagIds?: number[], within = false) =>
      (
        await ctx.services.publicPosts.list({
          websiteId: site,
          locale: 'en',
          page: 1,
          pageSize: 5,
          tagIds,
          // A period around everything sends it through the count(*) query.
          publishedWithin: within
            ? { from: '1970-01-01T00:00:00.000Z', to: '2100-01-01T00:00:00.000Z' }
            : undefined,
        })
      ).total;
    assert.equal(await publicTotal(), await publicTotal(undefined, true));
    assert.equal(await publicTotal([tag]), await publicTotal([tag], true));
    assert.equal(await publicTotal([tag]), 2);
  });

  it('stay equal to a recount under concurrent writes', async () => {
    const site = await websiteWrites(ctx.services).create({ siteName: 'Three', domain: 'three.test' });
    const tag = await insertTag(ctx.services.database.db, 'Gamma', 'post_tag');
    const posts = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        create({
          title: `Parallel ${i}`,
          status: i % 3 === 0 ? 'draft' : 'published',
          websiteIds: i % 2 === 0 ? [site] : [],
          tags: i % 4 === 0 ? [tag] : [],
        }),
      ),
    );
    await assertCounted('parallel creates');
    await Promise.all(
      posts.map((post, i) =>
        i % 3 === 0
          ? ctx.services.posts.delete(post.id)
          : ctx.services.posts.update(
              post.id,
              {
                status: i % 2 === 0 ? 'draft' : 'published',
                websiteIds: i % 2 === 0 ? [] : [site],
                tags: [tag],
              },
              admin,
            ),
      ),
    );
    await assertCounted('parallel updates and deletes');
    // Folded while writers go on: nothing is lost, and each key is then one row.
    await Promise.all([
      compactPostCounts(ctx.services.database.db),
      create({ title: 'During compaction', websiteIds: [site], tags: [tag] }),
      compactPostCounts(ctx.services.database.db),
    ]);
    await assertCounted('compaction beside a write');
    await compactPostCounts(ctx.services.database.db);
    await assertCounted('compaction');
    const keys = await ctx.services.database.db
      .selectFrom('post_counts')
      .select(['tag_id', 'website_id', 'status', (eb) => eb.fn.countAll<number>().as('rows')])
      .groupBy(['tag_id', 'website_id', 'status'])
      .execute();
    assert.ok(keys.every((key) => Number(key.rows) === 1));
  });
});
