// Server-side autosave (issue 37 #2): one copy per post and user, through API v2; it never changes
// what readers see and is not a revision; `newer` tells the editor to offer it on reopen; a save of the
// post by that user (through any face) clears it, and only theirs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('autosaves', () => {
  let ctx: TestContext;
  let site: number;
  let admin: TestUser;
  let editor: TestUser;
  let stranger: TestUser;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.enableApi();
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    const elsewhere = await websiteWrites(ctx.services).create({ siteName: 'Else', domain: 'else.test' });
    admin = await ctx.createUser({ admin: true });
    editor = await ctx.createUser();
    stranger = await ctx.createUser();
    await ctx.services.memberships.grant(editor.id, site, 'editor');
    await ctx.services.memberships.grant(stranger.id, elsewhere, 'editor');
  });
  after(() => ctx.close());

  const v2 = (
    url: string,
    {
      method = 'GET',
      as = editor,
      body,
    }: { method?: 'GET' | 'PUT' | 'PATCH' | 'DELETE' | 'POST'; as?: TestUser; body?: unknown } = {},
  ) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host: 'site.test', authorization: `Bearer ${as.token}` },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  const post = async () => {
    const response = await v2('/posts', {
      method: 'POST',
      body: { title: 'Saved title', content: '<p>Saved text</p>', status: 'published', website_id: [site] },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: { id: number; updated_at: string } }>().data;
  };
  const revisionsOf = async (id: number) =>
    Number(
      (
        await ctx.services.database.db
          .selectFrom('revisions')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('resource_type', '=', 'post')
          .where('resource_id', '=', id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  type Autosave = { title?: string; content?: string; newer: boolean; base_version: string | null };
  const autosaveOf = async (id: number, as = editor) => {
    const response = await v2(`/posts/${id}/autosave`, { as });
    return response.statusCode === 200 ? response.json<{ data: Autosave }>().data : response.statusCode;
  };

  it('keeps one copy per post and user, changing nothing readers see and writing no revision', async () => {
    const saved = await post();
    const before = await revisionsOf(saved.id);
    const first = await v2(`/posts/${saved.id}/autosave`, {
      method: 'PUT',
      body: { title: 'Draft title', content: '<p>Half a thought</p>', base_version: saved.updated_at },
    });
    assert.equal(first.statusCode, 200, first.body);
    const second = await v2(`/posts/${saved.id}/autosave`, {
      method: 'PUT',
      body: { title: 'Draft title 2', content: '<p>A whole thought</p>' },
    });
    assert.equal(second.statusCode, 200, second.body);
    const mine = await autosaveOf(saved.id);
    assert.ok(typeof mine === 'object');
    assert.equal(mine.title, 'Draft title 2');
    assert.equal(mine.content, '<p>A whole thought</p>');
    assert.equal(mine.newer, true);
    const rows = await ctx.services.database.db
      .selectFrom('autosaves')
      .select('user_id')
      .where('resource_id', '=', saved.id)
      .execute();
    assert.equal(rows.length, 1);
    // Another user's autosave is theirs alone.
    assert.equal(await autosaveOf(saved.id, admin), 404);
    assert.equal(
      (await v2(`/posts/${saved.id}/autosave`, { method: 'PUT', as: admin, body: { title: 'Admin idea' } }))
        .statusCode,
      200,
    );
    assert.equal(((await autosaveOf(saved.id, admin)) as Autosave).title, 'Admin idea');
    assert.equal(((await autosaveOf(saved.id)) as Autosave).title, 'Draft title 2');
    // Readers see the saved version; no revision was written.
    const page = await ctx.request({
      method: 'GET',
      url: `/post/${saved.id}`,
      headers: { host: 'site.test' },
    });
    assert.doesNotMatch(page.body, /whole thought/);
    assert.equal((await ctx.services.posts.findDetail(saved.id))?.title, 'Saved title');
    assert.equal(await revisionsOf(saved.id), before);
  });

  it("clears the saver's autosave on a save (API v2 or v1), and only theirs; a later save makes others' older", async () => {
    const saved = await post();
    await v2(`/posts/${saved.id}/autosave`, { method: 'PUT', body: { title: 'Mine' } });
    await v2(`/posts/${saved.id}/autosave`, { method: 'PUT', as: admin, body: { title: 'Theirs' } });
    const patched = await v2(`/posts/${saved.id}`, { method: 'PATCH', body: { title: 'Saved again' } });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(await autosaveOf(saved.id), 404);
    const theirs = await autosaveOf(saved.id, admin);
    assert.ok(typeof theirs === 'object');
    assert.equal(theirs.title, 'Theirs');
    assert.equal(theirs.newer, false, 'saved before the post changed: not offered as newer');
    const v1 = await ctx.request({
      method: 'POST',
      url: `/api/v1/posts/update/${saved.id}`,
      headers: { host: 'site.test', authorization: `Bearer ${admin.token}` },
      payload: { title: 'Saved by v1' },
    });
    assert.equal(v1.statusCode, 200, v1.body);
    assert.equal(await autosaveOf(saved.id, admin), 404);
  });

  it('discards on request; refuses bad input and those who may not change the post', async () => {
    const saved = await post();
    await v2(`/posts/${saved.id}/autosave`, { method: 'PUT', body: { title: 'Gone soon' } });
    assert.equal((await v2(`/posts/${saved.id}/autosave`, { method: 'DELETE' })).statusCode, 204);
    assert.equal(await autosaveOf(saved.id), 404);
    const unknown = await v2(`/posts/${saved.id}/autosave`, { method: 'PUT', body: { status: 'draft' } });
    assert.equal(unknown.statusCode, 422, unknown.body);
    const long = await v2(`/posts/${saved.id}/autosave`, { method: 'PUT', body: { title: 'x'.repeat(256) } });
    assert.equal(long.statusCode, 422, long.body);
    const foreign = await v2(`/posts/${saved.id}/autosave`, {
      method: 'PUT',
      as: stranger,
      body: { title: 'No' },
    });
    assert.ok([403, 404].includes(foreign.statusCode), foreign.body);
    assert.equal(
      (await v2('/posts/999999/autosave', { method: 'PUT', body: { title: 'No' } })).statusCode,
      404,
    );
  });

  it('keeps every locale the editor holds, and refuses a bad locale code or too many locales', async () => {
    const saved = await post();
    const kept = await v2(`/posts/${saved.id}/autosave`, {
      method: 'PUT',
      body: {
        title: 'English draft',
        translations: { zh_TW: { title: '草稿標題', content: '<p>一半的想法</p>' }, ja: { excerpt: null } },
      },
    });
    assert.equal(kept.statusCode, 200, kept.body);
    const mine = (await autosaveOf(saved.id)) as Autosave & { translations?: Record<string, unknown> };
    assert.equal(mine.title, 'English draft');
    assert.deepEqual(mine.translations, {
      zh_TW: { title: '草稿標題', content: '<p>一半的想法</p>' },
      ja: { excerpt: null },
    });
    assert.equal((await ctx.services.posts.findDetail(saved.id))?.title, 'Saved title');
    const badCode = await v2(`/posts/${saved.id}/autosave`, {
      method: 'PUT',
      body: { translations: { '../x': { title: 'No' } } },
    });
    assert.equal(badCode.statusCode, 422, badCode.body);
    const badField = await v2(`/posts/${saved.id}/autosave`, {
      method: 'PUT',
      body: { translations: { fr: { status: 'published' } } },
    });
    assert.equal(badField.statusCode, 422, badField.body);
    const many = Object.fromEntries(
      Array.from({ length: 21 }, (_, i) => [`l${String.fromCharCode(97 + i)}`, { title: 'x' }]),
    );
    const tooMany = await v2(`/posts/${saved.id}/autosave`, { method: 'PUT', body: { translations: many } });
    assert.equal(tooMany.statusCode, 422, tooMany.body);
    assert.deepEqual(tooMany.json<{ errors: Record<string, string[]> }>().errors, {
      translations: ['The translations may not have more than 20 items.'],
    });
    // The refused writes left the kept copy as it was.
    assert.equal(((await autosaveOf(saved.id)) as Autosave).title, 'English draft');
  });

  it('keeps an autosave of a page, cleared when that page is saved', async () => {
    const created = await v2('/pages', {
      method: 'POST',
      body: { title: 'Page', content: 'x', website_ids: [site] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ data: { id: number } }>().data.id;
    assert.equal(
      (await v2(`/pages/${id}/autosave`, { method: 'PUT', body: { content: 'Page draft' } })).statusCode,
      200,
    );
    const got = await v2(`/pages/${id}/autosave`);
    assert.equal(got.json<{ data: { content: string } }>().data.content, 'Page draft');
    assert.equal((await v2(`/pages/${id}`, { method: 'PATCH', body: { title: 'Page 2' } })).statusCode, 200);
    assert.equal((await v2(`/pages/${id}/autosave`)).statusCode, 404);
  });
});
