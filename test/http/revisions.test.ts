// Revisions of posts (issue 37 #1): every save through any face writes one, in the save's transaction
// (a rolled-back save writes none); pruning keeps the last N and every published version; list, show,
// compare (word-level diff) and restore through API v2, with the policy's answer and the 412 flow.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REVISIONS_KEEP_SETTING } from '../../src/domain/revisions/revisions.js';
import { createSiteContext } from '../support/site-context.js';
import type { SiteContext } from '../support/site-context.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('post revisions', () => {
  let ctx: TestContext;
  let site: number;
  let admin: TestUser;
  let author: TestUser;
  let stranger: TestUser;

  let v2: SiteContext['v2'];

  before(async () => {
    const fixture = await createSiteContext({ apiV1: true, roles: { author: 'author', stranger: 'author' } });
    ({ ctx, site, admin, v2 } = fixture);
    ({ author, stranger } = fixture.users as { author: TestUser; stranger: TestUser });
  });
  after(() => ctx.close());

  const v1 = (url: string, payload: Record<string, unknown>, as: TestUser = admin) =>
    ctx.request({
      method: 'POST',
      url: `/api/v1${url}`,
      headers: { host: 'site.test', authorization: `Bearer ${as.token}` },
      payload,
    });
  const countOf = async (postId: number) =>
    Number(
      (
        await ctx.services.database.db
          .selectFrom('revisions')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('resource_type', '=', 'post')
          .where('resource_id', '=', postId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  type Summary = { id: number; action: string; surface: string; status: string; published: boolean };
  const listOf = async (postId: number, query = '') => {
    const response = await v2(`/posts/${postId}/revisions${query}`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: Summary[]; meta: { pagination: { total: number } } }>();
  };

  it('writes a revision for a save through API v1 and API v2, with the surface and translations', async () => {
    const created = await v1('/posts/store', {
      title: { en: 'First title', de: 'Erster Titel' },
      content: '<p>The quick brown fox</p>',
      website_id: site,
    });
    assert.equal(created.statusCode, 200, created.body);
    const id = created.json<{ data: { id: number } }>().data.id;
    assert.equal(await countOf(id), 1);
    const updated = await v1(`/posts/update/${id}`, { content: '<p>The slow brown fox</p>' });
    assert.equal(updated.statusCode, 200, updated.body);
    const patched = await v2(`/posts/${id}`, { method: 'PATCH', body: { title: 'Third title' } });
    assert.equal(patched.statusCode, 200, patched.body);
    const list = await listOf(id);
    assert.equal(list.meta.pagination.total, 3);
    assert.deepEqual(
      list.data.map((r) => [r.action, r.surface]),
      [
        ['post.update', 'api-v2'],
        ['post.update', 'api'],
        ['post.create', 'api'],
      ],
    );
    const first = await v2(`/posts/${id}/revisions/${list.data[2]!.id}`);
    assert.equal(first.statusCode, 200, first.body);
    const data = first.json<{
      data: { data: { title: Record<string, string>; content: Record<string, string> } };
    }>().data.data;
    assert.equal(data.title.en, 'First title');
    assert.equal(data.title.de, 'Erster Titel');
    assert.equal(data.content.en, '<p>The quick brown fox</p>');
  });

  it('writes no revision for a save that rolls back', async () => {
    const created = await v1('/posts/store', { title: 'Rolled', content: 'Body', website_id: site });
    const id = created.json<{ data: { id: number } }>().data.id;
    const before = await countOf(id);
    // A later write hook fails: the whole save rolls back, the revision written before it too.
    ctx.services.runner.onWrite(async (event) => {
      if (event.resourceId === String(id) || event.resourceId === (id as unknown as string)) {
        const post = await ctx.services.posts.findDetail(id);
        if (post?.title === 'Changed then undone') throw new Error('undo');
      }
    });
    const response = await v1(`/posts/update/${id}`, { title: 'Changed then undone' });
    assert.equal(response.statusCode, 500, response.body);
    assert.equal(await countOf(id), before);
    assert.equal((await ctx.services.posts.findDetail(id))?.title, 'Rolled');
    // The next save that succeeds writes its revision.
    assert.equal((await v1(`/posts/update/${id}`, { title: 'Kept' })).statusCode, 200);
    assert.equal(await countOf(id), before + 1);
  });

  it('compares two revisions word by word and field by field', async () => {
    const created = await v1('/posts/store', { title: 'Cmp', content: 'one two three', website_id: site });
    const id = created.json<{ data: { id: number } }>().data.id;
    await v1(`/posts/update/${id}`, { content: 'one TWO three four', slug: 'cmp-new' });
    const list = await listOf(id);
    const [newer, older] = list.data;
    const response = await v2(`/posts/${id}/revisions/compare?from=${older!.id}&to=${newer!.id}`);
    assert.equal(response.statusCode, 200, response.body);
    const cmp = response.json<{
      data: {
        text: Array<{
          field: string;
          locale: string;
          parts: Array<{ value: string; added?: boolean; removed?: boolean }>;
        }>;
        fields: Array<{ field: string; from: unknown; to: unknown }>;
      };
    }>().data;
    assert.deepEqual(
      cmp.text.map((t) => [t.field, t.locale]),
      [['content', 'en']],
    );
    const parts = cmp.text[0]!.parts;
    assert.ok(parts.some((p) => p.removed && p.value === 'two'));
    assert.ok(parts.some((p) => p.added && p.value === 'TWO'));
    assert.ok(parts.some((p) => p.added && p.value.includes('four')));
    assert.equal(
      parts
        .filter((p) => !p.added)
        .map((p) => p.value)
        .join(''),
      'one two three',
    );
    assert.deepEqual(cmp.fields, [{ field: 'slug', from: 'cmp', to: 'cmp-new' }]);
  });

  it('restores a revision as a new revision, keeping the status unless asked; 412 when stale', async () => {
    const created = await v1('/posts/store', {
      title: 'Old',
      content: 'Old body',
      status: 'published',
      website_id: site,
    });
    const id = created.json<{ data: { id: number } }>().data.id;
    await v1(`/posts/update/${id}`, { title: 'New', content: 'New body', status: 'draft' });
    const [, original] = (await listOf(id)).data;
    const stale = await v2(`/posts/${id}/revisions/${original!.id}/restore`, {
      method: 'POST',
      body: {},
      headers: { 'if-match': '"stale"' },
    });
    assert.equal(stale.statusCode, 412, stale.body);
    const restored = await v2(`/posts/${id}/revisions/${original!.id}/restore`, { method: 'POST', body: {} });
    assert.equal(restored.statusCode, 200, restored.body);
    const post = await ctx.services.posts.findDetail(id);
    assert.equal(post?.title, 'Old');
    assert.equal(post?.content, 'Old body');
    assert.equal(post?.status, 'draft');
    const list = await listOf(id);
    assert.equal(list.data[0]!.action, 'post.restore');
    assert.equal(list.meta.pagination.total, 3);
    const withStatus = await v2(`/posts/${id}/revisions/${original!.id}/restore`, {
      method: 'POST',
      body: { status: 'published' },
    });
    assert.equal(withStatus.statusCode, 200, withStatus.body);
    assert.equal((await ctx.services.posts.findDetail(id))?.status, 'published');
  });

  it('a restore keeps what still exists and names the tags and websites deleted since', async () => {
    const gone = await websiteWrites(ctx.services).create({ siteName: 'Gone', domain: 'gone-post.test' });
    const kept = await ctx.services.tagOps.ensure({
      name: 'Kept',
      type: 'post_tag',
      updateWhenDuplicated: false,
      defaultLocale: 'en',
    });
    const dropped = await ctx.services.tagOps.ensure({
      name: 'Dropped',
      type: 'post_tag',
      updateWhenDuplicated: false,
      defaultLocale: 'en',
    });
    const created = await v2('/posts', {
      method: 'POST',
      body: {
        title: 'Tagged',
        content: 'Body',
        website_id: [site, gone],
        tags: [kept.tag.id, dropped.tag.id],
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ data: { id: number } }>().data.id;
    const changed = await v2(`/posts/${id}`, {
      method: 'PATCH',
      body: { title: 'Tagged, changed', tags: [] },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    const [, first] = (await listOf(id)).data;
    const tagGone = await v2(`/tags/${dropped.tag.id}`, { method: 'DELETE' });
    assert.ok([200, 204].includes(tagGone.statusCode), tagGone.body);
    const siteGone = await v2(`/websites/${gone}`, { method: 'DELETE' });
    assert.ok([200, 204].includes(siteGone.statusCode), siteGone.body);
    const restored = await v2(`/posts/${id}/revisions/${first!.id}/restore`, { method: 'POST', body: {} });
    assert.equal(restored.statusCode, 200, restored.body);
    assert.deepEqual(restored.json<{ data: { missing: unknown } }>().data.missing, {
      tags: [dropped.tag.id],
      websites: [gone],
    });
    const post = await ctx.services.posts.findDetail(id);
    assert.equal(post?.title, 'Tagged');
    assert.deepEqual(post?.websiteIds, [site]);
    assert.deepEqual(
      post?.tagList.map((tag) => tag.id),
      [kept.tag.id],
    );
  });

  it('keeps the last N revisions plus every published one', async () => {
    await ctx.services.settings.set(REVISIONS_KEEP_SETTING, '3');
    try {
      const created = await v1('/posts/store', {
        title: 'P0',
        content: 'x',
        status: 'published',
        website_id: site,
      });
      const id = created.json<{ data: { id: number } }>().data.id;
      for (let n = 1; n <= 6; n++) {
        const r = await v1(`/posts/update/${id}`, { title: `P${n}`, status: 'draft' });
        assert.equal(r.statusCode, 200, r.body);
      }
      const list = await listOf(id);
      // Three newest drafts and the first (published) version.
      assert.equal(list.meta.pagination.total, 4);
      assert.deepEqual(
        list.data.map((r) => r.published),
        [false, false, false, true],
      );
      const oldest = await v2(`/posts/${id}/revisions/${list.data[3]!.id}`);
      assert.equal(
        oldest.json<{ data: { data: { title: Record<string, string> } } }>().data.data.title.en,
        'P0',
      );
    } finally {
      await ctx.services.settings.set(REVISIONS_KEEP_SETTING, '50');
    }
  });

  it('pages the history and answers only those who may change the post', async () => {
    const created = await v1('/posts/store', { title: 'Mine', content: 'x', website_id: site }, author);
    const id = created.json<{ data: { id: number } }>().data.id;
    for (let n = 0; n < 4; n++) await v1(`/posts/update/${id}`, { title: `Mine ${n}` }, author);
    const page = await v2(`/posts/${id}/revisions?per_page=2&page=2`, { as: author });
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(page.json<{ data: unknown[] }>().data.length, 2);
    assert.match(String(page.headers.link), /rel="next"/);
    const other = await v2(`/posts/${id}/revisions`, { as: stranger });
    assert.ok([403, 404].includes(other.statusCode), other.body);
    const unknown = await v2(`/posts/${id}/revisions/999999999`, { as: author });
    assert.equal(unknown.statusCode, 404);
  });
});
