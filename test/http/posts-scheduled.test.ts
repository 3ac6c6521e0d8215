// A post stored `published` with a date still to come (issue 36 #9) is not on the site yet: API v2's
// lists, counts and answers (what the panel's tabs and the dashboard read) call it scheduled, not
// published, for administrators (the counters) and editors (the count query) alike. API v1 keeps the
// stored status (R-P3).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('issue 36 #9: published posts dated in the future are scheduled in API v2', () => {
  let ctx: TestContext;
  let admin: TestUser;
  let editor: TestUser;
  let future: number;
  let past: number;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.enableApi();
    const site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    admin = await ctx.createUser({ admin: true });
    editor = await ctx.createUser();
    await ctx.services.memberships.grant(editor.id, site, 'editor');
    const create = async (body: Record<string, unknown>) => {
      const response = await ctx.request({
        method: 'POST',
        url: '/api/v1/posts/store',
        headers: { host: 'site.test', authorization: `Bearer ${admin.token}` },
        payload: { content: '<p>Text</p>', website_id: site, ...body },
      });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{ data: { id: number } }>().data.id;
    };
    future = await create({ title: 'Later', status: 'published', published_at: '2099-01-01T00:00:00Z' });
    past = await create({ title: 'Earlier', status: 'published', published_at: '2020-01-01T00:00:00Z' });
    await create({ title: 'Queued', status: 'scheduled', published_at: '2098-01-01T00:00:00Z' });
  });
  after(() => ctx.close());

  const list = async (as: TestUser, status: string) => {
    const response = await ctx.request({
      url: `/api/v2/posts?filter[status]=${status}&fields=id,status&per_page=1`,
      headers: { host: 'site.test', authorization: `Bearer ${as.token}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json<{ meta: { pagination: { total: number } } }>();
    // One page of them all, to see which posts the list holds.
    const all = await ctx.request({
      url: `/api/v2/posts?filter[status]=${status}&fields=id,status&per_page=100`,
      headers: { host: 'site.test', authorization: `Bearer ${as.token}` },
    });
    const rows = all.json<{ data: { id: number; status: string }[] }>().data;
    return { total: body.meta.pagination.total, rows };
  };

  for (const who of ['admin', 'editor'] as const) {
    it(`issue 36 #9: the ${who}'s published list and its count leave it out; the scheduled ones hold it`, async () => {
      const as = who === 'admin' ? admin : editor;
      const published = await list(as, 'published');
      assert.ok(!published.rows.some((row) => row.id === future), JSON.stringify(published.rows));
      assert.ok(published.rows.some((row) => row.id === past));
      assert.equal(published.total, published.rows.length);
      const scheduled = await list(as, 'scheduled');
      const row = scheduled.rows.find((entry) => entry.id === future);
      assert.equal(row?.status, 'scheduled', JSON.stringify(scheduled.rows));
      assert.equal(scheduled.total, 2);
      assert.equal(scheduled.rows.length, 2);
      // Every status: it is listed once, as scheduled.
      const any = await list(as, 'any');
      assert.equal(any.rows.find((entry) => entry.id === future)?.status, 'scheduled');
      assert.equal(any.rows.find((entry) => entry.id === past)?.status, 'published');
    });
  }

  it('issue 36 #9: one post in API v2 says scheduled; API v1 keeps the stored status', async () => {
    const one = await ctx.request({
      url: `/api/v2/posts/${future}`,
      headers: { host: 'site.test', authorization: `Bearer ${admin.token}` },
    });
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.json<{ data: { status: string } }>().data.status, 'scheduled');
    const v1 = await ctx.request({
      url: `/api/v1/posts/${future}`, // show
      headers: { host: 'site.test', authorization: `Bearer ${admin.token}` },
    });
    assert.equal(v1.json<{ data: { status: string } }>().data.status, 'published');
  });

  it('issue 36 #9: the OpenAPI description of the post list\u2019s filter[status] says so', async () => {
    const response = await ctx.request({ url: '/api/v2/openapi.json', headers: { host: 'site.test' } });
    assert.equal(response.statusCode, 200);
    type Schema = { description?: string; properties?: Record<string, Schema> };
    const document = response.json<{
      paths: Record<string, { get?: { parameters?: Array<{ name: string; schema?: Schema }> } }>;
    }>();
    const filter = document.paths['/api/v2/posts']?.get?.parameters?.find((p) => p.name === 'filter');
    const status = filter?.schema?.properties?.status;
    assert.ok(status, 'GET /api/v2/posts documents filter[status]');
    assert.match(status.description ?? '', /`published` with a `published_at` still to come .*`scheduled`/s);
  });
});
