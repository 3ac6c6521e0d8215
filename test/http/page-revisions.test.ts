// Revisions of pages (issue 37 #1): every page save (create, change, restore) writes one in the save's
// transaction; list, show, compare and restore through API v2 for those who may change the page (its
// editors), the restore audited and guarded by If-Match (412) like PATCH; deleted websites are named.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSiteContext } from '../support/site-context.js';
import type { SiteContext } from '../support/site-context.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('page revisions', () => {
  let ctx: TestContext;
  let site: number;
  let admin: TestUser;
  let editor: TestUser;
  let author: TestUser;

  let v2: SiteContext['v2'];

  before(async () => {
    const fixture = await createSiteContext({ apiV1: true, roles: { editor: 'editor', author: 'author' } });
    ({ ctx, site, admin } = fixture);
    ({ editor, author } = fixture.users as { editor: TestUser; author: TestUser });
    v2 = fixture.v2As(editor);
  });
  after(() => ctx.close());

  type Summary = { id: number; page_id: number; action: string; surface: string; status: string };
  const listOf = async (pageId: number, query = '', as = editor) => {
    const response = await v2(`/pages/${pageId}/revisions${query}`, { as });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: Summary[]; meta: { pagination: { total: number } } }>();
  };
  const createPage = async (body: Record<string, unknown>) => {
    const response = await v2('/pages', { method: 'POST', body: { website_ids: [site], ...body } });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: { id: number; updated_at: string } }>().data;
  };

  it('writes a revision for every save, with the surface and every locale', async () => {
    const page = await createPage({ title: { en: 'About', de: 'Über' }, content: 'one two three' });
    const patched = await v2(`/pages/${page.id}`, { method: 'PATCH', body: { content: 'one TWO three' } });
    assert.equal(patched.statusCode, 200, patched.body);
    const list = await listOf(page.id);
    assert.equal(list.meta.pagination.total, 2);
    assert.deepEqual(
      list.data.map((r) => [r.action, r.surface, r.page_id]),
      [
        ['page.update', 'api-v2', page.id],
        ['page.create', 'api-v2', page.id],
      ],
    );
    const first = await v2(`/pages/${page.id}/revisions/${list.data[1]!.id}`);
    assert.equal(first.statusCode, 200, first.body);
    const data = first.json<{
      data: { data: { title: Record<string, string>; content: Record<string, string> } };
    }>().data.data;
    assert.deepEqual(data.title, { en: 'About', de: 'Über' });
    assert.deepEqual(data.content, { en: 'one two three' });
  });

  it('writes no revision when the save is refused (412) or fails validation', async () => {
    const page = await createPage({ title: 'Guarded', content: 'x' });
    const stale = await v2(`/pages/${page.id}`, {
      method: 'PATCH',
      body: { title: 'Changed' },
      headers: { 'if-match': '"stale"' },
    });
    assert.equal(stale.statusCode, 412, stale.body);
    const bad = await v2(`/pages/${page.id}`, { method: 'PATCH', body: { status: 'nonsense' } });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.equal((await listOf(page.id)).meta.pagination.total, 1);
  });

  it('compares two revisions word by word and field by field', async () => {
    const page = await createPage({ title: 'Cmp page', content: 'alpha beta gamma' });
    await v2(`/pages/${page.id}`, {
      method: 'PATCH',
      body: { content: 'alpha BETA gamma', slug: 'cmp-page-new' },
    });
    const [newer, older] = (await listOf(page.id)).data;
    const response = await v2(`/pages/${page.id}/revisions/compare?from=${older!.id}&to=${newer!.id}`);
    assert.equal(response.statusCode, 200, response.body);
    const cmp = response.json<{
      data: {
        from: { page_id: number };
        text: Array<{
          field: string;
          locale: string;
          parts: Array<{ value: string; added?: boolean; removed?: boolean }>;
        }>;
        fields: Array<{ field: string; from: unknown; to: unknown }>;
      };
    }>().data;
    assert.equal(cmp.from.page_id, page.id);
    assert.deepEqual(
      cmp.text.map((t) => [t.field, t.locale]),
      [['content', 'en']],
    );
    assert.ok(cmp.text[0]!.parts.some((p) => p.removed && p.value === 'beta'));
    assert.ok(cmp.text[0]!.parts.some((p) => p.added && p.value === 'BETA'));
    assert.deepEqual(cmp.fields, [{ field: 'slug', from: 'cmp-page', to: 'cmp-page-new' }]);
  });

  it('restores a revision as a new, audited revision; status only when asked; 412 when stale', async () => {
    const page = await createPage({ title: 'Old page', content: 'Old text', status: 'published' });
    await v2(`/pages/${page.id}`, {
      method: 'PATCH',
      body: { title: 'New page', content: 'New text', status: 'draft' },
    });
    const [, original] = (await listOf(page.id)).data;
    const stale = await v2(`/pages/${page.id}/revisions/${original!.id}/restore`, {
      method: 'POST',
      body: {},
      headers: { 'if-match': '"stale"' },
    });
    assert.equal(stale.statusCode, 412, stale.body);
    const current = await v2(`/pages/${page.id}`);
    const etag = String(current.headers.etag);
    const restored = await v2(`/pages/${page.id}/revisions/${original!.id}/restore`, {
      method: 'POST',
      body: {},
      headers: { 'if-match': etag },
    });
    assert.equal(restored.statusCode, 200, restored.body);
    assert.ok(restored.headers.etag);
    // A second restore with the same (now old) version is refused: two editors restoring at once.
    const second = await v2(`/pages/${page.id}/revisions/${original!.id}/restore`, {
      method: 'POST',
      body: {},
      headers: { 'if-match': etag },
    });
    assert.equal(second.statusCode, 412, second.body);
    let stored = await ctx.services.pages.findById(page.id);
    assert.equal(stored?.title, 'Old page');
    assert.equal(stored?.content, 'Old text');
    assert.equal(stored?.status, 'draft');
    const list = await listOf(page.id);
    assert.equal(list.data[0]!.action, 'page.restore');
    assert.equal(list.meta.pagination.total, 3);
    const audit = await ctx.services.database.db
      .selectFrom('audit_log')
      .select(['action', 'resource_id'])
      .where('action', '=', 'page.restore')
      .execute();
    assert.ok(audit.some((row) => Number(row.resource_id) === page.id));
    const withStatus = await v2(`/pages/${page.id}/revisions/${original!.id}/restore`, {
      method: 'POST',
      body: { status: 'published' },
    });
    assert.equal(withStatus.statusCode, 200, withStatus.body);
    stored = await ctx.services.pages.findById(page.id);
    assert.equal(stored?.status, 'published');
    const badStatus = await v2(`/pages/${page.id}/revisions/${original!.id}/restore`, {
      method: 'POST',
      body: { status: 'nonsense' },
    });
    assert.equal(badStatus.statusCode, 422, badStatus.body);
  });

  it('names the websites deleted since and keeps the rest', async () => {
    const gone = await websiteWrites(ctx.services).create({ siteName: 'Gone', domain: 'gone.test' });
    const created = await v2('/pages', {
      method: 'POST',
      as: admin,
      body: { title: 'Two sites', content: 'x', website_ids: [site, gone] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json<{ data: { id: number } }>().data.id;
    await v2(`/pages/${id}`, { method: 'PATCH', as: admin, body: { title: 'Two sites, changed' } });
    const [, first] = (await listOf(id, '', admin)).data;
    const removed = await v2(`/websites/${gone}`, { method: 'DELETE', as: admin });
    assert.ok([200, 204].includes(removed.statusCode), removed.body);
    const restored = await v2(`/pages/${id}/revisions/${first!.id}/restore`, {
      method: 'POST',
      as: admin,
      body: {},
    });
    assert.equal(restored.statusCode, 200, restored.body);
    assert.deepEqual(restored.json<{ data: { missing: { websites: number[] } } }>().data.missing, {
      websites: [gone],
    });
    const stored = await ctx.services.pages.findById(id);
    assert.equal(stored?.title, 'Two sites');
    assert.deepEqual(stored?.websiteIds, [site]);
  });

  it('pages the history; only those who may change the page see it', async () => {
    const page = await createPage({ title: 'Paged', content: 'x', status: 'published' });
    for (let n = 0; n < 4; n++)
      await v2(`/pages/${page.id}`, { method: 'PATCH', body: { title: `Paged ${n}` } });
    const second = await v2(`/pages/${page.id}/revisions?per_page=2&page=2`);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(second.json<{ data: unknown[] }>().data.length, 2);
    assert.match(String(second.headers.link), /rel="next"/);
    // An author reads the published page but may not change it: no history, no restore.
    const refused = await v2(`/pages/${page.id}/revisions`, { as: author });
    assert.equal(refused.statusCode, 403, refused.body);
    const [rev] = (await listOf(page.id)).data;
    const restore = await v2(`/pages/${page.id}/revisions/${rev!.id}/restore`, {
      method: 'POST',
      as: author,
      body: {},
    });
    assert.equal(restore.statusCode, 403, restore.body);
    // A draft the author may not change does not exist for them.
    const draft = await createPage({ title: 'Hidden', content: 'x', status: 'draft' });
    assert.equal((await v2(`/pages/${draft.id}/revisions`, { as: author })).statusCode, 404);
    // A revision of another page is not found through this one.
    assert.equal((await v2(`/pages/${draft.id}/revisions/${rev!.id}`)).statusCode, 404);
    assert.equal((await v2(`/pages/99999999/revisions`)).statusCode, 404);
  });

  it('opens the history of a page with 10,000 revisions at once, paged', async () => {
    const page = await createPage({ title: 'Long history', content: 'x' });
    const db = ctx.services.database.db;
    const row = await db
      .selectFrom('revisions')
      .selectAll()
      .where('resource_id', '=', page.id)
      .executeTakeFirstOrThrow();
    const { id: _id, ...copy } = row;
    for (let start = 0; start < 10_000; start += 500) {
      await db
        .insertInto('revisions')
        .values(
          Array.from({ length: 500 }, () => ({
            ...copy,
            published: 1,
            created_at: String(
              copy.created_at instanceof Date ? copy.created_at.toISOString() : copy.created_at,
            ),
          })),
        )
        .execute();
    }
    const began = Date.now();
    const first = await listOf(page.id, '?per_page=20');
    assert.equal(first.data.length, 20);
    assert.equal(first.meta.pagination.total, 10_001);
    const last = await listOf(page.id, '?per_page=20&page=501');
    assert.equal(last.data.length, 1);
    assert.equal(last.data[0]!.action, 'page.create');
    // Generous for a loaded machine: an index serves it, not a scan of every snapshot.
    assert.ok(Date.now() - began < 5000, `${Date.now() - began} ms`);
  });
});
