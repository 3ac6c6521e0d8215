// API v2's link directory (issue 23 #1) through the real app, on SQLite and PostgreSQL: create with
// categories (link_category tags, created when missing), list with click counts, category filter and
// pagination, get with an ETag, change with If-Match (412 when stale), delete; editors write, authors
// do not; another website's link and an unknown id are 404 problems.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { z } from 'zod';
import { linkSchema as documentedLinkSchema } from '../../src/api/v2/links.js';
import { problemSchema } from '../../src/api/v2/schemas.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const linkSchema = z
  .object({
    id: z.int(),
    name: z.string(),
    slug: z.string(),
    url: z.string(),
    description: z.string(),
    icon: z.string().nullable(),
    categories: z.array(z.object({ id: z.int(), name: z.string(), slug: z.string(), type: z.string() })),
    clicks: z.int(),
    website_ids: z.array(z.int()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .strict();
type Link = z.infer<typeof linkSchema>;
const listSchema = z.object({
  data: z.array(linkSchema),
  meta: z.object({
    pagination: z.object({ page: z.int(), per_page: z.int(), total: z.int(), total_pages: z.int() }),
  }),
});

describe('API v2: links', () => {
  let ctx: TestContext;
  let site: number;
  let admin: TestUser;
  let editor: TestUser;
  let author: TestUser;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    admin = await ctx.createUser({ admin: true });
    editor = await ctx.createUser();
    author = await ctx.createUser();
    await ctx.services.memberships.grant(editor.id, site, 'editor');
    await ctx.services.memberships.grant(author.id, site, 'author');
  });
  after(() => ctx.close());

  const call = (
    url: string,
    {
      method = 'GET',
      as = editor,
      body,
      headers = {},
      host = 'site.test',
    }: {
      method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
      as?: TestUser;
      body?: unknown;
      headers?: Record<string, string>;
      host?: string;
    } = {},
  ) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host, authorization: `Bearer ${as.token}`, ...headers },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  const one = (response: LightMyRequestResponse, status = 200): Link => {
    assert.equal(response.statusCode, status, response.body);
    assert.ok(documentedLinkSchema.safeParse(response.json().data).success, 'the documented shape');
    const parsed = z.object({ data: linkSchema }).safeParse(response.json());
    assert.ok(parsed.success, `answer does not match its schema: ${response.body.slice(0, 300)}`);
    return parsed.data.data;
  };
  const problem = (response: LightMyRequestResponse, status: number) => {
    assert.equal(response.statusCode, status, response.body);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    const parsed = problemSchema.safeParse(response.json());
    assert.ok(parsed.success, response.body);
    return parsed.data;
  };

  it('create: 201 with Location, on the Host\u2019s website, its categories created when missing', async () => {
    const response = await call('/links', {
      method: 'POST',
      body: {
        name: 'Folio docs',
        url: 'https://example.com/docs',
        description: 'Reference',
        icon: '/favicon.ico',
        categories: ['Tools', 'Reading'],
      },
    });
    const link = one(response, 201);
    assert.equal(response.headers.location, `/api/v2/links/${link.id}`);
    assert.match(String(response.headers.etag), /^"[A-Za-z0-9_-]+"$/);
    assert.equal(link.url, 'https://example.com/docs');
    assert.deepEqual(link.website_ids, [site]);
    assert.deepEqual(link.categories.map((tag) => [tag.name, tag.type]).sort(), [
      ['Reading', 'link_category'],
      ['Tools', 'link_category'],
    ]);
    assert.equal(link.clicks, 0);
    const audit = await ctx.services.audit.list({ resourceType: 'link', resourceId: String(link.id) });
    assert.deepEqual(
      audit.map((entry) => entry.action),
      ['link.create'],
    );
  });

  it('create: bad input is a 422 problem per field; unknown fields are refused', async () => {
    const bad = problem(
      await call('/links', { method: 'POST', body: { name: 'x', url: 'javascript:alert(1)' } }),
      422,
    );
    assert.ok(bad.errors?.url);
    const unknown = problem(
      await call('/links', { method: 'POST', body: { name: 'x', url: 'https://x.test', colour: 'red' } }),
      422,
    );
    assert.ok(unknown.errors);
    problem(await call('/links', { method: 'POST', body: { url: 'https://x.test' } }), 422);
  });

  it('list: newest first, with click counts, filtered by category, paginated with Link', async () => {
    const first = one(
      await call('/links', {
        method: 'POST',
        body: { name: 'Clicked', url: 'https://clicked.test', categories: ['Counted'] },
      }),
      201,
    );
    for (const visitor of ['a', 'b', 'c']) {
      await ctx.services.clicks.record({
        type: 'link',
        id: first.id,
        kind: 'click',
        userId: null,
        visitorHash: visitor.repeat(64),
        websiteId: site,
      });
    }
    const list = listSchema.parse((await call('/links?per_page=100')).json());
    assert.equal(list.data.find((link) => link.id === first.id)?.clicks, 3);
    assert.ok(list.data.length >= 2);
    const category = first.categories[0]!.id;
    const filtered = listSchema.parse((await call(`/links?filter[category]=${category}`)).json());
    assert.deepEqual(
      filtered.data.map((link) => link.id),
      [first.id],
    );
    const page = await call('/links?per_page=1&page=2');
    const paged = listSchema.parse(page.json());
    assert.equal(paged.data.length, 1);
    assert.equal(paged.meta.pagination.page, 2);
    assert.match(String(page.headers.link), /rel="prev"/);
    assert.equal(
      one(await call(`/links/${first.id}`, { as: author })).clicks,
      3,
      'anyone on the website reads',
    );
  });

  it('change: only the fields sent; categories replaced; If-Match with a stale ETag is a 412', async () => {
    const link = one(
      await call('/links', {
        method: 'POST',
        body: { name: 'Before', url: 'https://before.test', categories: ['Old'] },
      }),
      201,
    );
    const read = await call(`/links/${link.id}`);
    const etag = String(read.headers.etag);
    assert.equal((await call(`/links/${link.id}`, { headers: { 'if-none-match': etag } })).statusCode, 304);
    const changed = one(
      await call(`/links/${link.id}`, {
        method: 'PATCH',
        body: { name: 'After', categories: ['New'] },
        headers: { 'if-match': etag },
      }),
    );
    assert.equal(changed.name, 'After');
    assert.equal(changed.url, 'https://before.test/');
    assert.deepEqual(
      changed.categories.map((tag) => tag.name),
      ['New'],
    );
    const stale = problem(
      await call(`/links/${link.id}`, {
        method: 'PATCH',
        body: { url: 'https://lost.test' },
        headers: { 'if-match': etag },
      }),
      412,
    );
    assert.match(stale.detail ?? '', /changed/);
    assert.equal(one(await call(`/links/${link.id}`)).url, 'https://before.test/');
    // The public page follows the change (the link's cached pages are flushed).
    const page = await ctx.request({
      method: 'GET',
      url: `/link/${link.id}`,
      headers: { host: 'site.test' },
    });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /After/);
  });

  it('delete: gone from the list and the public site; a second delete is a 404', async () => {
    const link = one(
      await call('/links', { method: 'POST', body: { name: 'Short-lived', url: 'https://gone.test' } }),
      201,
    );
    assert.equal((await call(`/links/${link.id}`, { method: 'DELETE' })).statusCode, 204);
    problem(await call(`/links/${link.id}`), 404);
    problem(await call(`/links/${link.id}`, { method: 'DELETE' }), 404);
    const page = await ctx.request({
      method: 'GET',
      url: `/link/${link.id}`,
      headers: { host: 'site.test' },
    });
    assert.equal(page.statusCode, 404);
  });

  it('roles: an author reads links but neither creates, changes nor deletes them', async () => {
    const link = one(
      await call('/links', { method: 'POST', body: { name: 'Editors only', url: 'https://editors.test' } }),
      201,
    );
    problem(
      await call('/links', { method: 'POST', as: author, body: { name: 'x', url: 'https://x.test' } }),
      403,
    );
    problem(await call(`/links/${link.id}`, { method: 'PATCH', as: author, body: { name: 'Mine' } }), 403);
    problem(await call(`/links/${link.id}`, { method: 'DELETE', as: author }), 403);
    // Only administrators make a link of every website.
    problem(
      await call('/links', {
        method: 'POST',
        body: { name: 'All', url: 'https://all.test', website_ids: [] },
      }),
      403,
    );
    const everywhere = one(
      await call('/links', {
        method: 'POST',
        as: admin,
        body: { name: 'All', url: 'https://all.test', website_ids: [] },
      }),
      201,
    );
    assert.deepEqual(everywhere.website_ids, []);
    problem(await call(`/links/${everywhere.id}`, { method: 'PATCH', body: { name: 'Mine' } }), 403);
  });

  it('an unknown id, or another website\u2019s link, is a 404 problem', async () => {
    problem(await call('/links/999999'), 404);
    problem(await call('/links/999999', { method: 'PATCH', body: { name: 'x' } }), 404);
    const link = one(
      await call('/links', { method: 'POST', body: { name: 'Here only', url: 'https://here.test' } }),
      201,
    );
    problem(await call(`/links/${link.id}`, { as: admin, host: 'other.test' }), 404);
  });
});
