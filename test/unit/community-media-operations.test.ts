// The visitor-facing writes and the media library on the operation runner (issue 35 #4): a comment, a
// vote, a moderation, a link, a media upload or delete is one transaction with its audit row and its
// announcement, told only after commit. A write whose transaction fails (here: an in-transaction hook
// throws, as a failing audit row or revision would) announces nothing, records nothing and, for an
// upload, leaves no file behind. Runs on SQLite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { ContentChange } from '../../src/domain/changes.js';
import { COMMENT_SETTINGS } from '../../src/domain/community/comments.js';
import { loadSharp } from '../../src/domain/media/files.js';
import type { Actor } from '../../src/domain/policy.js';
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

describe('community and media writes as operations: announced after commit, nothing on rollback', () => {
  let ctx: TestContext;
  const told: ContentChange[] = [];
  /** The audit action whose in-transaction hook fails (null: none fails). */
  let failOn: string | null = null;
  let siteId: number;
  let otherSite: number;
  let postId: number;
  let admin: Actor;
  let adminElsewhere: Actor;

  before(async () => {
    ctx = await createTestContext();
    ctx.services.changes.subscribe(async (change) => void told.push(change));
    // An in-transaction hook (as revisions are): throwing rolls the whole operation back.
    ctx.services.runner.onWrite(async (event) => {
      if (event.action === failOn) throw new Error(`hook refuses ${event.action}`);
    });
    const { db } = ctx.services.database;
    siteId = await websiteWrites(ctx.services).create({ siteName: 'Ops', domain: 'ops.test' });
    otherSite = await websiteWrites(ctx.services).create({ siteName: 'Ops 2', domain: 'ops2.test' });
    postId = await insertPost(db, { title: 'Commented' });
    await db
      .insertInto('website_bindings')
      .values({ website_id: siteId, model_type: 'post', model_id: postId })
      .execute();
    const user = await ctx.services.users.create({
      name: 'Ada',
      email: 'ada@ops.test',
      password: 'correct horse battery',
      isAdmin: true,
      username: 'ada-ops',
    });
    admin = { userId: user.id, isAdmin: true, websiteId: siteId };
    adminElsewhere = { ...admin, websiteId: otherSite };
  });
  after(() => ctx.close());
  beforeEach(() => {
    failOn = null;
    told.length = 0;
  });

  /** The outbox rows left once the listeners told after the answer (webhooks) are done. */
  const outbox = async () => {
    await ctx.services.runner.settle();
    return ctx.services.database.db.selectFrom('outbox').select('id').execute();
  };
  const audited = (action: string, resourceId?: number) =>
    ctx.services.audit.list({
      action,
      ...(resourceId === undefined ? {} : { resourceId: String(resourceId) }),
    });
  const commentRow = (id: number) =>
    ctx.services.database.db
      .selectFrom('comments')
      .select(['id', 'status'])
      .where('id', '=', id)
      .executeTakeFirst();
  const threadTold = () => told.filter((change) => change.kind === 'comments' && change.postId === postId);

  async function visitorComment(content: string, actor?: Actor) {
    return ctx.services.comments.store({
      postId,
      content,
      name: 'Visitor',
      email: 'visitor@example.test',
      user: null,
      websiteId: siteId,
      ipHash: 'a'.repeat(64),
      userAgent: 'test',
      actor,
    });
  }

  it('a visitor\u2019s published comment: row, audit row and announcement commit together; a failed one leaves none', async () => {
    await ctx.services.settings.set(COMMENT_SETTINGS.moderation, 'none');
    const visitor: Actor = { userId: null, isAdmin: false, websiteId: siteId };
    const kept = await visitorComment('Kept', visitor);
    assert.equal(kept.status, 'approved');
    assert.equal(threadTold().length, 1, 'the thread is announced once committed');
    assert.equal((await audited('comment.create', kept.id)).length, 1);

    told.length = 0;
    failOn = 'comment.create';
    await assert.rejects(visitorComment('Lost', visitor), /hook refuses comment.create/);
    const lost = await ctx.services.database.db
      .selectFrom('comments')
      .select('id')
      .where('content', 'like', '%Lost%')
      .execute();
    assert.deepEqual(lost, [], 'the comment is not kept');
    assert.deepEqual(threadTold(), [], 'a rolled-back comment announces nothing');
    assert.equal((await audited('comment.create')).length, 1, 'and records nothing');
    assert.deepEqual(await outbox(), []);
  });

  it('a like is counted and announced in one operation; nothing is announced before commit', async () => {
    await ctx.services.settings.set(COMMENT_SETTINGS.moderation, 'none');
    const comment = await visitorComment('Likeable');
    told.length = 0;
    let toldInside = -1;
    await ctx.services.runner.run(async () => {
      const outcome = await ctx.services.comments.vote(comment.id, 'like', 'v:liker', siteId);
      assert.equal(outcome?.counted, true);
      toldInside = threadTold().length;
    });
    assert.equal(toldInside, 0, 'joined the outer operation: told after its commit only');
    assert.equal(threadTold().length, 1);

    told.length = 0;
    await assert.rejects(
      ctx.services.runner.run(async () => {
        await ctx.services.comments.vote(comment.id, 'like', 'v:other', siteId);
        throw new Error('the outer operation fails');
      }),
      /outer operation fails/,
    );
    assert.deepEqual(threadTold(), [], 'a rolled-back like announces nothing');
    const votes = await ctx.services.database.db
      .selectFrom('comment_votes')
      .select('voter')
      .where('comment_id', '=', comment.id)
      .execute();
    assert.deepEqual(
      votes.map((vote) => vote.voter.trim()), // char(64) on PostgreSQL: padded
      ['v:liker'],
    );
  });

  it('an approval whose transaction fails announces nothing, records no audit row and changes nothing', async () => {
    await ctx.services.settings.set(COMMENT_SETTINGS.moderation, 'all');
    const held = await visitorComment('Held for review');
    assert.equal(held.status, 'pending');
    assert.deepEqual(threadTold(), [], 'a held comment changes no page');

    failOn = 'comment.approve';
    await assert.rejects(
      ctx.services.commentModeration.moderateOn(admin, siteId, [held.id], 'approve'),
      /hook refuses comment.approve/,
    );
    assert.equal((await commentRow(held.id))?.status, 'pending');
    assert.deepEqual(threadTold(), []);
    assert.deepEqual(await audited('comment.approve', held.id), []);
    assert.deepEqual(await outbox(), []);

    failOn = null;
    assert.deepEqual(await ctx.services.commentModeration.moderateOn(admin, siteId, [held.id], 'approve'), [
      held.id,
    ]);
    assert.equal((await commentRow(held.id))?.status, 'approved');
    assert.equal(threadTold().length, 1, 'the approval announces the thread once');
    assert.equal((await audited('comment.approve', held.id)).length, 1);
  });

  it('a deletion by the CLI\u2019s moderateAll that fails keeps the comment and announces nothing', async () => {
    await ctx.services.settings.set(COMMENT_SETTINGS.moderation, 'none');
    const comment = await visitorComment('To delete');
    told.length = 0;
    failOn = 'comment.delete';
    await assert.rejects(
      ctx.services.commentModeration.moderateAll(INSTALLATION_OPERATOR, [comment.id], 'delete'),
      /hook refuses comment.delete/,
    );
    assert.ok(await commentRow(comment.id));
    assert.deepEqual(threadTold(), []);
    failOn = null;
    await ctx.services.commentModeration.moderateAll(INSTALLATION_OPERATOR, [comment.id], 'delete');
    assert.equal(await commentRow(comment.id), undefined);
    assert.equal(threadTold().length, 1);
    assert.equal((await audited('comment.delete', comment.id)).length, 1);
  });

  it('a link: the operation announces it (not the store), and a failed create keeps and tells nothing', async () => {
    // The store alone announces nothing: the operation does, next to its audit row.
    await ctx.services.links.create({ name: 'Store only', url: 'https://store.example/' });
    assert.deepEqual(
      told.filter((change) => change.kind === 'link'),
      [],
    );
    const link = await ctx.services.linkOps.create(admin, { name: 'Folio', url: 'https://folio.example/' });
    assert.deepEqual(
      told.filter((change) => change.kind === 'link'),
      [{ kind: 'link', id: link.id }],
    );
    told.length = 0;
    failOn = 'link.update';
    await assert.rejects(
      ctx.services.linkOps.update(admin, link.id, { name: 'Renamed' }),
      /hook refuses link.update/,
    );
    assert.equal((await ctx.services.linkOps.show(admin, link.id)).name, 'Folio');
    failOn = 'link.create';
    await assert.rejects(
      ctx.services.linkOps.create(admin, { name: 'Lost link', url: 'https://lost.example/' }),
      /hook refuses link.create/,
    );
    const lost = await ctx.services.database.db
      .selectFrom('posts')
      .select('id')
      .where('type', '=', 'link')
      .where('title', '=', 'Lost link')
      .execute();
    assert.deepEqual(lost, []);
    assert.deepEqual(
      told.filter((change) => change.kind === 'link'),
      [],
    );
    assert.deepEqual(await audited('link.update', link.id), []);
    failOn = null;
    await ctx.services.linkOps.delete(admin, link.id);
    assert.deepEqual(
      told.filter((change) => change.kind === 'link'),
      [{ kind: 'link', id: link.id }],
    );
  });

  const storedFiles = async () => {
    const paths: string[] = [];
    for await (const file of ctx.services.media.store.list()) paths.push(file.path);
    return paths.sort();
  };
  const image = async (color: string) =>
    (await loadSharp())({ create: { width: 400, height: 300, channels: 3, background: color } })
      .png()
      .toBuffer();
  const upload = (actor: Actor, data: Buffer, filename = 'photo.png') =>
    ctx.services.mediaOps.upload(actor, { files: { filename, data, truncated: false } });

  it('a media upload whose transaction fails leaves no file, no row, no audit row and no announcement', async () => {
    const before = await storedFiles();
    failOn = 'media.upload';
    await assert.rejects(upload(admin, await image('#123456')), /hook refuses media.upload/);
    assert.deepEqual(await storedFiles(), before, 'the files it wrote (original and variants) are removed');
    assert.deepEqual(
      told.filter((change) => change.kind === 'media'),
      [],
    );
    assert.deepEqual(await audited('media.upload'), []);
    assert.deepEqual(await outbox(), []);
    // The same file sent twice in one upload: its files are written for both, discarded all the same.
    const twice = { filename: 'twice.png', data: await image('#abcdef'), truncated: false };
    await assert.rejects(
      ctx.services.mediaOps.upload(admin, { files: [twice, twice] }),
      /hook refuses media.upload/,
    );
    assert.deepEqual(await storedFiles(), before);

    failOn = null;
    const [item] = await upload(admin, await image('#123456'));
    const files = await storedFiles();
    assert.ok(files.includes(item!.path), 'a committed upload keeps its file');
    assert.ok(files.length >= before.length + 2, 'and its variants');
    assert.deepEqual(
      told.filter((change) => change.kind === 'media'),
      [{ kind: 'media', ids: [item!.id] }],
    );
    assert.equal((await audited('media.upload', item!.id)).length, 1);

    // The same bytes on another website reuse these files: a failed upload there leaves them alone.
    failOn = 'media.upload';
    await assert.rejects(upload(adminElsewhere, await image('#123456')), /hook refuses media.upload/);
    assert.deepEqual(await storedFiles(), files, 'files a committed row names are kept');
  });

  it('a media delete: its files go only after commit; a failed delete keeps the row and the files', async () => {
    const [item] = await upload(admin, await image('#654321'));
    const withItem = await storedFiles();
    told.length = 0;
    failOn = 'media.delete';
    await assert.rejects(
      ctx.services.mediaOps.delete(admin, item!.id, { force: false }),
      /hook refuses media.delete/,
    );
    assert.ok(await ctx.services.mediaLibrary.find(item!.id), 'the row is kept');
    assert.deepEqual(await storedFiles(), withItem, 'and its files');
    assert.deepEqual(
      told.filter((change) => change.kind === 'media'),
      [],
    );

    failOn = null;
    await ctx.services.mediaOps.delete(admin, item!.id, { force: false });
    assert.equal(await ctx.services.mediaLibrary.find(item!.id), null);
    assert.ok(!(await storedFiles()).includes(item!.path), 'its files are removed after commit');
    assert.equal(told.filter((change) => change.kind === 'media').length, 1);
    assert.equal((await audited('media.delete', item!.id)).length, 1);
  });
});
