// Moderating comments (issue 22, dead end 5): held comments can be listed, approved, marked as spam
// and deleted, per website, and each change announces the thread it touched.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ContentChange } from '../../src/domain/changes.js';
import { InputError } from '../../src/domain/errors.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

describe('comment moderation', () => {
  let ctx: TestContext;
  const announced: ContentChange[] = [];
  let onSite: number;
  let global: number;
  let elsewhere: number;
  let siteId: number;
  let otherSite: number;

  /** A comment made on `websiteId` (undefined: the post's website; null: before comments kept one). */
  async function comment(
    postId: number,
    status: string,
    content = 'Hello',
    websiteId: number | null = postId === elsewhere ? otherSite : siteId,
  ): Promise<number> {
    const now = new Date().toISOString();
    const row = await ctx.services.database.db
      .insertInto('comments')
      .values({
        post_id: postId,
        website_id: websiteId,
        content: `<p>${content}</p>`,
        status,
        author_name: 'Ann',
        author_email: 'ann@example.test',
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  before(async () => {
    ctx = await createTestContext();
    ctx.services.changes.subscribe(async (change) => void announced.push(change));
    const { db } = ctx.services.database;
    siteId = await websiteWrites(ctx.services).create({ siteName: 'A', domain: 'mod-a.test' });
    otherSite = await websiteWrites(ctx.services).create({ siteName: 'B', domain: 'mod-b.test' });
    onSite = await insertPost(db, { title: 'On site' });
    global = await insertPost(db, { title: 'Everywhere' });
    elsewhere = await insertPost(db, { title: 'Elsewhere' });
    await db
      .insertInto('website_bindings')
      .values([
        { website_id: siteId, model_type: 'post', model_id: onSite },
        { website_id: otherSite, model_type: 'post', model_id: elsewhere },
      ])
      .execute();
  });
  after(() => ctx.close());

  it('lists by status and website (comments made on it, under its posts or all-sites ones), newest first', async () => {
    const a = await comment(onSite, 'pending');
    const b = await comment(global, 'pending');
    await comment(elsewhere, 'pending');
    await comment(onSite, 'approved');
    // Issue 34 #7: under an all-sites post, a comment made on another website is that website's; one
    // made before comments kept their website is the administrators' (lists naming no website).
    await comment(global, 'pending', 'made on B', otherSite);
    await comment(global, 'pending', 'made before', null);
    const held = await ctx.services.commentModeration.list({ websiteId: siteId, status: 'pending' });
    assert.deepEqual(
      held.map((c) => c.id),
      [b, a],
    );
    assert.deepEqual(
      { ...held[1], createdAt: '' },
      {
        id: a,
        postId: onSite,
        postTitle: 'On site',
        parentId: null,
        authorName: 'Ann',
        authorEmail: 'ann@example.test',
        userId: null,
        content: '<p>Hello</p>',
        status: 'pending',
        reports: 0,
        createdAt: '',
      },
    );
    assert.equal((await ctx.services.commentModeration.list({ status: 'pending' })).length, 5);
    assert.deepEqual(
      (await ctx.services.commentModeration.list({ websiteId: otherSite, status: 'pending' })).map(
        (c) => c.content,
      ),
      ['<p>made on B</p>', '<p>Hello</p>'],
    );
  });

  it('approves, marks as spam and deletes (with replies), announcing each thread once, ignoring unknown ids', async () => {
    const first = await comment(onSite, 'pending', 'first');
    const second = await comment(onSite, 'pending', 'second');
    const reply = await ctx.services.database.db
      .insertInto('comments')
      .values({
        post_id: onSite,
        parent_id: second,
        content: 'r',
        status: 'approved',
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    announced.length = 0;
    assert.deepEqual(await ctx.services.commentModeration.setStatus([first, second, 987654], 'approved'), [
      first,
      second,
    ]);
    assert.deepEqual(announced, [{ kind: 'comments', postId: onSite }]);
    const thread = await ctx.services.comments.thread(onSite, null);
    assert.ok(thread.comments.some((node) => node.id === first));

    assert.deepEqual(await ctx.services.commentModeration.setStatus([first], 'spam'), [first]);
    assert.equal((await ctx.services.commentModeration.list({ status: 'spam' }))[0]?.id, first);
    assert.deepEqual(await ctx.services.commentModeration.delete([second]), [second]);
    const left = await ctx.services.database.db
      .selectFrom('comments')
      .select('id')
      .where('id', 'in', [second, reply.id])
      .execute();
    assert.deepEqual(left, [], 'the reply goes with its parent');
    assert.deepEqual(await ctx.services.commentModeration.delete([second]), []);
  });

  it('refuses an unknown status and oversized batches', async () => {
    await assert.rejects(ctx.services.commentModeration.setStatus([1], 'deleted' as never), InputError);
    await assert.rejects(
      ctx.services.commentModeration.delete(Array.from({ length: 501 }, (_, i) => i + 1)),
      InputError,
    );
  });
});
