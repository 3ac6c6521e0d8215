// The permission matrix of posts (issue 20): every role on a website x every action x own / another
// user's post x the role's website / another website, through the real HTTP app (API v1), on SQLite
// and PostgreSQL. Roles: administrator (installation), site_admin, editor, author, contributor,
// reader, and a user with no role at all (issue 34 #1: no more than a visitor's rights, even on the
// website of the request, unless the installation's setting any_account_writes is on).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

type Role = 'administrator' | 'site_admin' | 'editor' | 'author' | 'contributor' | 'reader' | 'none';
type Outcome = 'allowed' | 'refused';

/**
 * What each role may do on ITS website (site one). "own" is a draft the actor wrote; "other" is a
 * draft of another user on the same website. On site two (no role there, and not the request's
 * website) only the administrator may do anything.
 */
const EXPECTED: Record<Role, Record<string, Outcome>> = {
  administrator: {
    createDraft: 'allowed',
    publishOwn: 'allowed',
    readOther: 'allowed',
    updateOther: 'allowed',
    deleteOther: 'allowed',
    publishOther: 'allowed',
  },
  site_admin: {
    createDraft: 'allowed',
    publishOwn: 'allowed',
    readOther: 'allowed',
    updateOther: 'allowed',
    deleteOther: 'allowed',
    publishOther: 'allowed',
  },
  editor: {
    createDraft: 'allowed',
    publishOwn: 'allowed',
    readOther: 'allowed',
    updateOther: 'allowed',
    deleteOther: 'allowed',
    publishOther: 'allowed',
  },
  author: {
    createDraft: 'allowed',
    publishOwn: 'allowed',
    readOther: 'refused',
    updateOther: 'refused',
    deleteOther: 'refused',
    publishOther: 'refused',
  },
  contributor: {
    createDraft: 'allowed',
    publishOwn: 'refused',
    readOther: 'refused',
    updateOther: 'refused',
    deleteOther: 'refused',
    publishOther: 'refused',
  },
  reader: {
    createDraft: 'refused',
    publishOwn: 'refused',
    readOther: 'refused',
    updateOther: 'refused',
    deleteOther: 'refused',
    publishOther: 'refused',
  },
  none: {
    createDraft: 'refused',
    publishOwn: 'refused',
    readOther: 'refused',
    updateOther: 'refused',
    deleteOther: 'refused',
    publishOther: 'refused',
  },
};

describe('permission matrix of posts (issue 20)', () => {
  let ctx: TestContext;
  let siteOne: number;
  let siteTwo: number;
  let stranger: TestUser; // writes the "other" posts
  const actors = new Map<Role, TestUser>();

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    siteOne = await websiteWrites(ctx.services).create({ siteName: 'One', domain: 'one.test' });
    siteTwo = await websiteWrites(ctx.services).create({ siteName: 'Two', domain: 'two.test' });
    stranger = await ctx.createUser();
    await ctx.services.memberships.grant(stranger.id, siteOne, 'author');
    await ctx.services.memberships.grant(stranger.id, siteTwo, 'author');
    for (const role of Object.keys(EXPECTED) as Role[]) {
      const user = await ctx.createUser({ admin: role === 'administrator' });
      if (role !== 'administrator' && role !== 'none')
        await ctx.services.memberships.grant(user.id, siteOne, role);
      actors.set(role, user);
    }
  });
  after(() => ctx.close());

  const api = async (
    user: TestUser,
    url: string,
    payload: Record<string, unknown> = {},
    host = 'one.test',
  ) => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1${url}`,
      headers: { host },
      payload: { api_token: user.token, ...payload },
    });
    return { status: response.statusCode, body: response.json() };
  };
  /** A draft by `author` on a website, made directly through the store (not under test here). */
  const draftBy = async (author: TestUser, websiteId: number) =>
    (
      await ctx.services.posts.create(
        { title: `Draft of ${author.id}`, content: 'x', status: 'draft', websiteIds: [websiteId] },
        { userId: author.id, isAdmin: false },
      )
    ).id;
  const outcome = (status: number): Outcome => (status === 200 ? 'allowed' : 'refused');

  for (const role of Object.keys(EXPECTED) as Role[]) {
    describe(role, () => {
      const expected = EXPECTED[role];

      it('on its website: create, publish, and other users\u2019 drafts', async () => {
        const user = actors.get(role)!;
        const created = await api(user, '/posts/store', {
          title: `By ${role}`,
          content: 'x',
          status: 'draft',
        });
        assert.equal(
          outcome(created.status),
          expected.createDraft,
          `createDraft ${JSON.stringify(created.body)}`,
        );
        if (created.status === 200) assert.equal(created.body.data.status, 'draft');

        const own = await draftBy(user, siteOne);
        const published = await api(user, `/posts/update/${own}`, { status: 'published' });
        assert.equal(
          outcome(published.status),
          expected.publishOwn,
          `publishOwn ${JSON.stringify(published.body)}`,
        );

        const other = await draftBy(stranger, siteOne);
        const read = await api(user, `/posts/${other}`);
        assert.equal(outcome(read.status), expected.readOther, 'readOther');
        if (expected.readOther === 'refused') assert.equal(read.status, 404, 'nothing revealed');
        const updated = await api(user, `/posts/update/${other}`, { title: 'Changed' });
        assert.equal(outcome(updated.status), expected.updateOther, 'updateOther');
        const publishedOther = await api(user, `/posts/update/${other}`, { status: 'published' });
        assert.equal(outcome(publishedOther.status), expected.publishOther, 'publishOther');
        const deleted = await api(user, `/posts/delete/${other}`);
        assert.equal(outcome(deleted.status), expected.deleteOther, 'deleteOther');
        // Refusals of what the actor may read are 403 in the envelope; of what they may not, 404.
        for (const answer of [updated, deleted]) {
          if (answer.status !== 200) assert.ok([403, 404].includes(answer.status));
        }
      });

      it('on another website (no role there, not the request\u2019s): nothing of other users', async () => {
        const user = actors.get(role)!;
        const other = await draftBy(stranger, siteTwo);
        const allowed = role === 'administrator' ? 'allowed' : 'refused';
        assert.equal(
          outcome((await api(user, `/posts/update/${other}`, { title: 'x' }, 'one.test')).status),
          allowed,
        );
        assert.equal(outcome((await api(user, `/posts/delete/${other}`, {}, 'one.test')).status), allowed);
        const created = await api(user, '/posts/store', {
          title: 'Elsewhere',
          content: 'x',
          status: 'draft',
          website_id: siteTwo,
        });
        assert.equal(outcome(created.status), allowed, JSON.stringify(created.body));
      });
    });
  }

  it('a contributor\u2019s post without a status is a draft, waiting for an editor', async () => {
    const contributor = actors.get('contributor')!;
    const created = await api(contributor, '/posts/store', { title: 'For review', content: 'x' });
    assert.equal(created.status, 200);
    assert.equal(created.body.data.status, 'draft');
    const editor = actors.get('editor')!;
    const approved = await api(editor, `/posts/update/${created.body.data.id}`, { status: 'published' });
    assert.equal(approved.status, 200);
    // Once public, the contributor cannot change it without review.
    assert.equal(
      (await api(contributor, `/posts/update/${created.body.data.id}`, { title: 'Sneaky' })).status,
      403,
    );
  });

  it('an editor\u2019s list of its website shows every status there; an author\u2019s does not show others\u2019 drafts', async () => {
    const draft = await draftBy(stranger, siteOne);
    const elsewhere = await draftBy(stranger, siteTwo);
    const ids = async (role: Role) =>
      (
        (await api(actors.get(role)!, '/posts', { status: 'draft', page_size: 100 })).body.data
          .data as Array<{ id: number }>
      ).map((post) => post.id);
    const edited = await ids('editor');
    assert.ok(edited.includes(draft), 'the editor sees the draft of its website');
    assert.ok(!edited.includes(elsewhere), 'and not a draft of another website');
    assert.ok(!(await ids('author')).includes(draft), 'an author does not');
    assert.ok(!(await ids('contributor')).includes(draft), 'nor a contributor');
  });

  it('a user demoted between two requests: the next request sees the new role (nothing is cached)', async () => {
    const user = await ctx.createUser();
    await ctx.services.memberships.grant(user.id, siteOne, 'editor');
    const other = await draftBy(stranger, siteOne);
    assert.equal((await api(user, `/posts/update/${other}`, { title: 'Edited' })).status, 200);
    await ctx.services.memberships.grant(user.id, siteOne, 'reader');
    assert.equal((await api(user, `/posts/update/${other}`, { title: 'Again' })).status, 404);
    assert.equal((await api(user, '/posts/store', { title: 'x', content: 'x' })).status, 403);
  });

  describe('review workflow by role (issue 20 #4)', () => {
    /** Who may approve or send back another user's pending post on site one (their role's website). */
    const REVIEWS: Record<Role, Outcome> = {
      administrator: 'allowed',
      site_admin: 'allowed',
      editor: 'allowed',
      author: 'refused',
      contributor: 'refused',
      reader: 'refused',
      none: 'refused',
    };
    const actorOf = (user: TestUser, websiteId = siteOne) => ({
      userId: user.id,
      isAdmin: user === actors.get('administrator'),
      websiteId,
      origin: { surface: 'site' as const },
    });
    const pendingBy = async (author: TestUser, websiteId: number) => {
      const id = await draftBy(author, websiteId);
      await ctx.services.postOps.submit(actorOf(author, websiteId), String(id));
      return id;
    };
    const tried = async (work: () => Promise<unknown>): Promise<Outcome> => {
      try {
        await work();
        return 'allowed';
      } catch (error) {
        assert.ok(['ForbiddenError', 'NotFoundError'].includes((error as Error).name), String(error));
        return 'refused';
      }
    };

    for (const role of Object.keys(REVIEWS) as Role[]) {
      it(`${role}: approve and send back another user’s pending post; the queue`, async () => {
        const user = actors.get(role)!;
        const approve = await pendingBy(stranger, siteOne);
        const back = await pendingBy(stranger, siteOne);
        const ops = ctx.services.postOps;
        assert.equal(await tried(() => ops.approve(actorOf(user), String(approve), {})), REVIEWS[role]);
        assert.equal(
          await tried(() => ops.sendBack(actorOf(user), String(back), { note: 'Shorter, please.' })),
          REVIEWS[role],
        );
        assert.equal(await tried(() => ops.reviewQueue(actorOf(user), siteOne)), REVIEWS[role]);
        const expectedStatus = REVIEWS[role] === 'allowed' ? ['published', 'draft'] : ['pending', 'pending'];
        assert.deepEqual(
          [
            (await ctx.services.posts.findDetail(approve))?.status,
            (await ctx.services.posts.findDetail(back))?.status,
          ],
          expectedStatus,
        );
        // Nobody but an administrator reviews on a website where they hold no role.
        const elsewhere = await pendingBy(stranger, siteTwo);
        assert.equal(
          await tried(() => ops.approve(actorOf(user), String(elsewhere), {})),
          role === 'administrator' ? 'allowed' : 'refused',
        );
      });
    }

    it('a writer submits only their own drafts (or, as an editor, any draft of the website)', async () => {
      const ops = ctx.services.postOps;
      const others = await draftBy(stranger, siteOne);
      const contributor = actors.get('contributor')!;
      assert.equal(await tried(() => ops.submit(actorOf(contributor), String(others))), 'refused');
      const own = await draftBy(contributor, siteOne);
      assert.equal((await ops.submit(actorOf(contributor), String(own))).status, 'pending');
      // Submitted twice, or a published post: a validation error, the post unchanged.
      await assert.rejects(ops.submit(actorOf(contributor), String(own)), { name: 'ValidationError' });
      const editor = actors.get('editor')!;
      assert.equal((await ops.submit(actorOf(editor), String(others))).status, 'pending');
    });

    it('a note is required to send back; the writer reads it; approving a later time schedules', async () => {
      const ops = ctx.services.postOps;
      const contributor = actors.get('contributor')!;
      const editor = actors.get('editor')!;
      const id = String(await pendingBy(contributor, siteOne));
      await assert.rejects(ops.sendBack(actorOf(editor), id, { note: '   ' }), (error: Error) => {
        assert.equal(error.name, 'ValidationError');
        return true;
      });
      await ops.sendBack(actorOf(editor), id, { note: 'Needs a title that says more.' });
      const step = await ops.reviewOf(actorOf(contributor), id);
      assert.equal(step?.decision, 'returned');
      assert.equal(step?.note, 'Needs a title that says more.');
      assert.equal(step?.userId, editor.id);
      // The returned draft is the writer's again: submitted anew, then approved for later.
      await ops.submit(actorOf(contributor), id);
      const later = new Date(Date.now() + 86_400_000).toISOString();
      const approved = await ops.approve(actorOf(editor), id, { published_at: later });
      assert.equal(approved.status, 'scheduled');
      assert.equal(approved.publishedAt, later);
      // Approving what is no longer pending is refused (a second editor came too late).
      await assert.rejects(ops.approve(actorOf(editor), id, {}), { name: 'ValidationError' });
    });

    it('two editors approving at once: one step is taken, the other is told it came too late', async () => {
      const ops = ctx.services.postOps;
      const editor = actors.get('editor')!;
      const siteAdmin = actors.get('site_admin')!;
      const id = String(await pendingBy(actors.get('contributor')!, siteOne));
      const results = await Promise.allSettled([
        ops.approve(actorOf(editor), id, {}),
        ops.sendBack(actorOf(siteAdmin), id, { note: 'No.' }),
      ]);
      assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
      const steps = await ctx.services.audit.list({ resourceType: 'post', resourceId: id });
      assert.equal(steps.filter((entry) => ['post.approve', 'post.return'].includes(entry.action)).length, 1);
    });

    it('API v1 never shows or takes `pending` as a status it accepts (spec 3.1)', async () => {
      const admin = actors.get('administrator')!;
      const refused = await api(admin, '/posts/store', { title: 'x', content: 'x', status: 'pending' });
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.body.data.errors.status, ['The selected status is invalid.']);
    });
  });
});
