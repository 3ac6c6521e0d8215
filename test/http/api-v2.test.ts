// API v2 (issue 23): the posts resource and the review workflow through the real app, the
// conventions (pagination and Link, sort, filters, fields, include, locale, ETag / If-Match,
// Idempotency-Key, unknown fields refused), authentication (Bearer token or key, the session cookie
// with CSRF), problem details, the roles' policy, and the OpenAPI document: valid (a real OpenAPI
// parser), covering every registered route, with every answer of this file matching its schema.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { LightMyRequestResponse } from 'fastify';
import type { z } from 'zod';
import {
  auditEntrySchema,
  meSchema,
  postListSchema,
  postOneSchema,
  problemSchema,
} from '../../src/api/v2/schemas.js';
import { MAX_COMMENT_LENGTH } from '../../src/domain/community/comments.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { Visitor } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

describe('API v2', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  let admin: TestUser;
  let author: TestUser;
  let contributor: TestUser;
  let editor: TestUser;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    admin = await ctx.createUser({ admin: true });
    author = await ctx.createUser();
    contributor = await ctx.createUser();
    editor = await ctx.createUser();
    await ctx.services.memberships.grant(author.id, site, 'author');
    await ctx.services.memberships.grant(contributor.id, site, 'contributor');
    await ctx.services.memberships.grant(editor.id, site, 'editor');
  });
  after(() => ctx.close());

  type Call = {
    method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
    as?: TestUser | string | null;
    body?: unknown;
    headers?: Record<string, string>;
  };
  const call = (url: string, { method = 'GET', as = admin, body, headers = {} }: Call = {}) => {
    const credential = as === null ? undefined : typeof as === 'string' ? as : as.token;
    return ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: {
        host: 'site.test',
        ...(credential ? { authorization: `Bearer ${credential}` } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  };
  /** The answer parsed, checked against its documented schema. */
  const shaped = <S extends z.ZodType>(response: LightMyRequestResponse, schema: S): z.output<S> => {
    const json = response.json();
    const result = schema.safeParse(json);
    assert.ok(result.success, `answer does not match its schema: ${JSON.stringify(json).slice(0, 300)}`);
    return result.data;
  };
  const problem = (response: LightMyRequestResponse, status: number) => {
    assert.equal(response.statusCode, status, response.body);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    const body = shaped(response, problemSchema);
    assert.equal(body.status, status);
    return body;
  };
  const create = async (as: TestUser, body: Record<string, unknown>) => {
    const response = await call('/posts', { method: 'POST', as, body });
    assert.equal(response.statusCode, 201, response.body);
    return shaped(response, postOneSchema).data as { id: number; updated_at: string; status: string };
  };

  it('authentication: none or a bad credential is a 401 problem; a token, a key or a session works', async () => {
    const none = problem(await call('/posts', { as: null }), 401);
    assert.equal(none.title, 'Authentication required');
    problem(await call('/posts', { as: 'folio_nonsense' }), 401);
    problem(await call('/posts', { as: null, headers: { authorization: 'Basic eDp5' } }), 401);
    assert.equal((await call('/me', { as: author })).statusCode, 200);
    const me = shaped(await call('/me', { as: author }), meSchema);
    assert.deepEqual(me.data.roles, [
      { website_id: site, role: 'author', domain: 'site.test', name: 'Site' },
    ]);

    const { secret } = await ctx.services.apiKeys.create(author.id, { name: 'reader', readOnly: true });
    assert.equal((await call('/posts', { as: secret })).statusCode, 200);
    assert.equal(shaped(await call('/me', { as: secret }), meSchema).data.api_key?.read_only, true);
    problem(await call('/posts', { method: 'POST', as: secret, body: { title: 'x', content: 'x' } }), 403);
    const { secret: elsewhere } = await ctx.services.apiKeys.create(author.id, {
      name: 'other site',
      websiteIds: [other],
    });
    problem(await call('/posts', { as: elsewhere }), 403);
  });

  it('the reference page gets its own policy (its inline script by hash); the API answers do not', async () => {
    const page = await ctx.app.inject({
      method: 'GET',
      url: '/api/v2/docs/',
      headers: { host: 'site.test' },
    });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self' 'sha256-[^']+'/);
    // Built on the first visit (issue 42: ~14 MB a node need not keep), at the paths it always had.
    assert.match(page.body, /<script src="js\/scalar.js"><\/script>/);
    const bare = await ctx.app.inject({ method: 'GET', url: '/api/v2/docs', headers: { host: 'site.test' } });
    assert.equal(bare.statusCode, 301);
    assert.equal(bare.headers.location, '/api/v2/docs/');
    const script = await ctx.app.inject({
      method: 'GET',
      url: '/api/v2/docs/js/scalar.js',
      headers: { host: 'site.test' },
    });
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^application\/javascript/);
    assert.ok(script.rawPayload.length > 1_000_000, 'the whole bundle');
    const missing = await ctx.app.inject({
      method: 'GET',
      url: '/api/v2/docs/nope',
      headers: { host: 'site.test' },
    });
    assert.equal(missing.statusCode, 404);
    assert.match(String(missing.headers['content-type']), /^application\/problem\+json/);
    const answer = await call('/me', { as: author });
    assert.doesNotMatch(String(answer.headers['content-security-policy'] ?? ''), /sha256-/);
  });

  it('GET /me says what the policy lets the caller do on the Host\u2019s website, role by role', async () => {
    const can = async (as: TestUser | string) => {
      const me = shaped(await call('/me', { as }), meSchema).data;
      assert.equal(me.website?.id, site);
      assert.equal(me.website?.name, 'Site');
      assert.deepEqual(me.locales.supported.includes(me.locales.default), true);
      return me.website?.can;
    };
    const contributorCan = await can(contributor);
    assert.equal(contributorCan?.create_posts, true);
    assert.equal(contributorCan?.publish_posts, false, 'a contributor submits for review');
    assert.equal(contributorCan?.review_posts, false);
    // Issue 34 #5: the taxonomy is an editor's; a contributor picks existing tags, an author adds some.
    assert.equal(contributorCan?.manage_tags, false, 'a contributor picks existing tags');
    assert.equal(contributorCan?.create_tags, false);
    assert.equal(contributorCan?.read_stats, true);
    const authorCan = await can(author);
    assert.equal(authorCan?.publish_posts, true);
    assert.equal(authorCan?.edit_others_posts, false);
    assert.equal(authorCan?.create_tags, true, 'an author adds tags to their posts');
    assert.equal(authorCan?.manage_tags, false);
    const editorCan = await can(editor);
    assert.equal(editorCan?.review_posts, true);
    assert.equal(editorCan?.moderate_comments, true);
    assert.equal(editorCan?.manage_members, false);
    assert.equal(editorCan?.manage_tags, true);
    assert.deepEqual(Object.values((await can(admin)) ?? {}), Array(14).fill(true));
    // A reader reads: no tags of their own, no statistics (the panel hides both).
    const reader = await ctx.createUser();
    await ctx.services.memberships.grant(reader.id, site, 'reader');
    assert.deepEqual(Object.values((await can(reader)) ?? {}), Array(14).fill(false));
    // A read-only key can do nothing but read, whoever holds it.
    const { secret } = await ctx.services.apiKeys.create(admin.id, { name: 'ro', readOnly: true });
    const readOnly = await can(secret);
    assert.equal(readOnly?.create_posts, false);
    assert.equal(readOnly?.review_posts, false);
    assert.equal(readOnly?.manage_tags, false);
    assert.equal(readOnly?.read_stats, true, 'reading is what a read-only key does');
  });

  it('Idempotency-Key on page and tag creates too: a retry answers the first item, another body is refused', async () => {
    const send = (url: string, body: unknown, key: string) =>
      call(url, { method: 'POST', as: editor, body, headers: { 'idempotency-key': key } });
    for (const [url, body] of [
      ['/pages', { title: 'Once only page' }],
      ['/tags', { name: 'Once only tag', type: 'post_tag' }],
    ] as const) {
      const first = await send(url, body, `once-${url}`);
      assert.equal(first.statusCode, 201, first.body);
      const again = await send(url, body, `once-${url}`);
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.json().data.id, first.json().data.id);
      assert.equal(again.headers.location, first.headers.location);
      assert.ok(first.headers.etag);
      problem(
        await send(
          url,
          { ...body, ...('title' in body ? { title: 'Other' } : { name: 'Other' }) },
          `once-${url}`,
        ),
        422,
      );
    }
  });

  it('lists take ?locale= too: each post\u2019s text in that locale where translated, else its base text', async () => {
    const both = await create(admin, {
      title: { en: 'Locale list EN', zh_TW: '\u5217\u8868' },
      content: { en: '<p>en</p>', zh_TW: '<p>zh</p>' },
      status: 'published',
    });
    const plain = await create(admin, { title: 'Locale list plain', content: 'x', status: 'published' });
    const list = async (locale: string) => {
      const response = await call(`/posts?q=Locale%20list&locale=${locale}&fields=id,title,content`, {
        as: admin,
      });
      assert.equal(response.statusCode, 200, response.body);
      return new Map(
        response
          .json<{ data: Array<{ id: number; title: string; content: string }> }>()
          .data.map((post) => [post.id, post]),
      );
    };
    const zh = await list('zh-TW');
    assert.equal(zh.get(both.id)?.title, '\u5217\u8868');
    assert.equal(zh.get(both.id)?.content, '<p>zh</p>');
    assert.equal(zh.get(plain.id)?.title, 'Locale list plain');
    assert.equal((await list('en')).get(both.id)?.title, 'Locale list EN');
  });

  it('filter[author]: one writer\u2019s posts, within what the caller may see; totals follow', async () => {
    const mine = await create(author, { title: 'By the author', content: 'x', status: 'draft' });
    await create(editor, { title: 'By the editor', content: 'x', status: 'published' });
    const list = async (as: TestUser, query: string) => {
      const response = await call(`/posts?${query}`, { as });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{
        data: Array<{ id: number; author_id: number }>;
        meta: { pagination: { total: number } };
      }>();
    };
    const authors = await list(editor, `filter[status]=any&filter[author]=${author.id}&per_page=100`);
    assert.ok(authors.data.length > 0);
    assert.ok(authors.data.every((post) => post.author_id === author.id));
    assert.ok(
      authors.data.some((post) => post.id === mine.id),
      'an editor sees the author\u2019s draft',
    );
    assert.equal(authors.meta.pagination.total, authors.data.length);
    // Another writer filtering on the author sees only their published posts: never the draft.
    const seen = await list(contributor, `filter[author]=${author.id}&per_page=100`);
    assert.ok(!seen.data.some((post) => post.id === mine.id));
    problem(await call('/posts?filter[author]=x', { as: editor }), 422);
  });

  it('GET /posts/slug-check: normalized, free or taken (not by the post itself), and what a create would pick', async () => {
    const post = await create(author, { title: 'Slug Check Post', content: 'x', slug: 'slug-check-post' });
    const check = async (query: string) => {
      const response = await call(`/posts/slug-check?${query}`, { as: author });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{ data: { slug: string; available: boolean; suggestion: string } }>().data;
    };
    assert.deepEqual(await check('slug=Slug%20Check%20Post'), {
      slug: 'slug-check-post',
      available: false,
      suggestion: 'slug-check-post-2',
    });
    assert.equal((await check(`slug=slug-check-post&post_id=${post.id}`)).available, true);
    assert.deepEqual(await check('slug=Fresh%20one'), {
      slug: 'fresh-one',
      available: true,
      suggestion: 'fresh-one',
    });
    problem(await call('/posts/slug-check', { as: author }), 422);
    problem(await call('/posts/slug-check?slug=x', { as: null }), 401);
  });

  it('POST /posts/bulk: each post through its own rules; one refused does not stop the others', async () => {
    const mine = await create(author, { title: 'Bulk one', content: 'x', status: 'draft' });
    const mineToo = await create(author, { title: 'Bulk two', content: 'x', status: 'draft' });
    const theirs = await create(editor, { title: 'Bulk theirs', content: 'x', status: 'draft' });
    const bulk = async (as: TestUser, body: unknown) => {
      const response = await call('/posts/bulk', { method: 'POST', as, body });
      assert.equal(response.statusCode, 200, response.body);
      return response.json<{ data: Array<{ id: number; outcome: string }> }>().data;
    };
    assert.deepEqual(
      (await bulk(author, { ids: [mine.id, theirs.id, 999999, mineToo.id], action: 'publish' })).map(
        (result) => [result.id, result.outcome],
      ),
      [
        [mine.id, 'done'],
        [theirs.id, 'not_found'],
        [999999, 'not_found'],
        [mineToo.id, 'done'],
      ],
    );
    assert.equal((await ctx.services.posts.findDetail(mine.id))?.status, 'published');
    assert.equal((await ctx.services.posts.findDetail(theirs.id))?.status, 'draft');
    // The editor of the site may unpublish anybody's post there, and move it; a contributor nothing.
    assert.deepEqual(
      (await bulk(editor, { ids: [mine.id], action: 'unpublish' })).map((result) => result.outcome),
      ['done'],
    );
    assert.equal((await ctx.services.posts.findDetail(mine.id))?.status, 'draft');
    assert.deepEqual(
      (await bulk(contributor, { ids: [mineToo.id], action: 'delete' })).map((result) => result.outcome),
      ['forbidden'],
    );
    assert.deepEqual(
      (await bulk(admin, { ids: [mineToo.id], action: 'move', website_ids: [other] })).map((r) => r.outcome),
      ['done'],
    );
    assert.deepEqual((await ctx.services.posts.findDetail(mineToo.id))?.websiteIds, [other]);
    assert.deepEqual(
      (await bulk(author, { ids: [mine.id], action: 'delete' })).map((result) => result.outcome),
      ['done'],
    );
    assert.equal(await ctx.services.posts.findDetail(mine.id), null);
    const invalid = problem(
      await call('/posts/bulk', { method: 'POST', as: author, body: { ids: [1], action: 'move' } }),
      422,
    );
    assert.ok(invalid.errors?.website_ids, JSON.stringify(invalid));
    problem(
      await call('/posts/bulk', { method: 'POST', as: author, body: { ids: [], action: 'publish' } }),
      422,
    );
  });

  it('content keys: an administrator\u2019s key that reads published content only, on its websites, and nothing else', async () => {
    const published = await create(admin, { title: 'Public news', content: 'x', status: 'published' });
    const draft = await create(admin, { title: 'Secret draft', content: 'x', status: 'draft' });
    const refused = problem(
      await call('/keys', { method: 'POST', as: admin, body: { name: 'build', content_only: true } }),
      422,
    );
    // On the field the body sends (issue 35 #3: the rule is the operation's schema; it was `website_id`).
    assert.deepEqual(refused.errors, { website_ids: ['The website ids field is required.'] });
    const made = await call('/keys', {
      method: 'POST',
      as: admin,
      body: { name: 'static build', content_only: true, website_ids: [site] },
    });
    assert.equal(made.statusCode, 201, made.body);
    const key = made.json<{ data: { key: string; read_only: boolean; content_only: boolean } }>().data;
    assert.equal(key.read_only, true, 'a content key is read-only');
    assert.equal(key.content_only, true);

    const listed = await call('/posts?per_page=100', { as: key.key });
    assert.equal(listed.statusCode, 200, listed.body);
    const ids = listed.json<{ data: Array<{ id: number }> }>().data.map((post) => post.id);
    assert.ok(ids.includes(published.id));
    assert.ok(!ids.includes(draft.id), 'an administrator\u2019s drafts stay hidden from their content key');
    // Asking for drafts is what a visitor may not ask.
    problem(await call('/posts?filter[status]=draft', { as: key.key }), 422);
    problem(await call(`/posts/${draft.id}`, { as: key.key }), 404);
    assert.equal((await call(`/posts/${published.id}`, { as: key.key })).statusCode, 200);
    assert.equal((await call('/tags', { as: key.key })).statusCode, 200);
    // Nothing but content: not the caller, not the audit log, not settings, no writes, no other site.
    for (const url of ['/me', '/audit', '/settings', '/comments', '/keys']) {
      problem(await call(url, { as: key.key }), 403);
    }
    problem(await call('/posts', { method: 'POST', as: key.key, body: { title: 'x', content: 'x' } }), 403);
    problem(await call('/posts', { as: key.key, headers: { host: 'other.test' } }), 403);
    // API v1 too: the same key lists published posts only.
    await ctx.enableApi();
    const v1 = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { host: 'site.test', authorization: `Bearer ${key.key}` },
      payload: { page_size: 100 },
    });
    assert.equal(v1.statusCode, 200, v1.body);
    assert.match(v1.body, /Public news/);
    assert.doesNotMatch(v1.body, /Secret draft/);
  });

  it('the session cookie of the site works for reads; its writes need the CSRF token (403 without)', async () => {
    const visitor = new Visitor(ctx, 'site.test');
    await visitor.logIn(author.email, author.password);
    const cookie = [...visitor.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const me = await call('/me', { as: null, headers: { cookie } });
    assert.equal(shaped(me, meSchema).data.id, author.id);
    const body = { title: 'From the browser', content: '<p>x</p>', status: 'draft' };
    const refused = problem(
      await call('/posts', { method: 'POST', as: null, body, headers: { cookie } }),
      403,
    );
    assert.match(refused.detail ?? '', /X-CSRF-Token/);
    const session = await visitor.get('/api/v2/session');
    const token = session.json().data.csrf_token as string;
    const withCsrf = [...visitor.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const created = await call('/posts', {
      method: 'POST',
      as: null,
      body,
      headers: { cookie: withCsrf, 'x-csrf-token': token },
    });
    assert.equal(created.statusCode, 201, created.body);
    // A cross-site page cannot use it, even with a token it somehow has.
    problem(
      await call('/posts', {
        method: 'POST',
        as: null,
        body,
        headers: { cookie: withCsrf, 'x-csrf-token': token, 'sec-fetch-site': 'cross-site' },
      }),
      403,
    );
  });

  it('create: 201 with Location and ETag; unknown or invalid fields are a 422 with per-field errors', async () => {
    const response = await call('/posts', {
      method: 'POST',
      body: { title: { en: 'Hello', fr: 'Bonjour' }, content: '<p>Hi</p>', status: 'published' },
    });
    assert.equal(response.statusCode, 201, response.body);
    const post = shaped(response, postOneSchema).data;
    assert.equal(response.headers.location, `/api/v2/posts/${post.id}`);
    assert.match(String(response.headers.etag), /^"[A-Za-z0-9_-]+"$/);
    assert.deepEqual(post.website_ids, [site], 'on the Host\u2019s website');

    const invalid = problem(
      await call('/posts', {
        method: 'POST',
        body: { title: '', content: 'x', colour: 'red', status: 'soon' },
      }),
      422,
    );
    assert.deepEqual(invalid.errors?.colour, ['The colour field is not allowed.']);
    assert.deepEqual(invalid.errors?.status, ['The selected status is invalid.']);
    assert.ok(invalid.errors?.title);
    problem(
      await call('/posts', {
        method: 'POST',
        body: '{"title":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
    );
  });

  it('Idempotency-Key: a retry answers the first post instead of making a second', async () => {
    const send = (title: string) =>
      call('/posts', {
        method: 'POST',
        body: { title, content: 'x', status: 'draft' },
        headers: { 'idempotency-key': 'create-once-1' },
      });
    const first = await send('Only once');
    const again = await send('Only once');
    assert.equal(first.statusCode, 201);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().data.id, first.json().data.id);
    problem(await send('Something else'), 422);
  });

  it('list: pagination with Link and meta, sort, filters, fields and include', async () => {
    for (let n = 1; n <= 5; n++)
      await create(admin, { title: `Listed ${n}`, content: 'x', status: 'published' });
    const response = await call('/posts?per_page=2&page=2&sort=-id&include=author&q=Listed');
    const page = shaped(response, postListSchema);
    assert.equal(page.meta.pagination.per_page, 2);
    assert.equal(page.meta.pagination.total, 5);
    assert.equal(page.meta.pagination.total_pages, 3);
    assert.deepEqual(
      page.data.map((post) => post.title),
      ['Listed 3', 'Listed 2'],
    );
    assert.equal(page.data[0]?.author?.id, admin.id);
    const link = String(response.headers.link);
    assert.match(link, /page=1[^>]*>; rel="first"/);
    assert.match(link, /page=1[^>]*>; rel="prev"/);
    assert.match(link, /page=3[^>]*>; rel="next"/);
    assert.match(link, /q=Listed/);
    // Asked again: the answer kept with the cached page (no search), with its Link header.
    const cachedPage = await call('/posts?per_page=2&page=2&sort=-id');
    const again = await call('/posts?per_page=2&page=2&sort=-id');
    assert.equal(again.body, cachedPage.body);
    assert.match(String(cachedPage.headers.link), /page=3[^>]*>; rel="next"/);
    assert.equal(again.headers.link, cachedPage.headers.link);
    // The same page by another URL (other fields, a cursor) is answered for that URL.
    const ids = shaped(
      await call('/posts?per_page=2&page=2&sort=-id&include=author&q=Listed&fields=id'),
      postListSchema,
    );
    assert.deepEqual(Object.keys(ids.data[0]!), ['id']);
    const first = shaped(await call('/posts?per_page=2&sort=-id&q=Listed'), postListSchema);
    const byCursor = await call(
      `/posts?per_page=2&sort=-id&q=Listed&cursor=${encodeURIComponent(first.meta.pagination.next_cursor!)}`,
    );
    assert.deepEqual(
      shaped(byCursor, postListSchema).data.map((post) => post.title),
      ['Listed 3', 'Listed 2'],
    );
    assert.match(String(byCursor.headers.link), /cursor=[^>]+>; rel="next"/);
    assert.doesNotMatch(String(byCursor.headers.link), /rel="last"/);

    const trimmed = shaped(await call('/posts?fields=id,title&q=Listed&sort=title'), postListSchema);
    assert.deepEqual(Object.keys(trimmed.data[0]!), ['id', 'title']);
    assert.equal(trimmed.data[0]?.title, 'Listed 1');

    problem(await call('/posts?sort=password'), 422);
    problem(await call('/posts?fields=id,secret'), 422);
    problem(await call('/posts?include=everything'), 422);
    problem(await call('/posts?colour=red'), 422);
    problem(await call('/posts?filter[colour]=red'), 422);
    problem(await call('/posts?per_page=1000'), 422);
  });

  it('list: ?sort= takes several fields, the next breaking the first one\u2019s ties, on near and far pages', async () => {
    const tag = await call('/tags', {
      method: 'POST',
      body: { name: 'Sorted', type: 'post_tag', website_ids: [site] },
    });
    assert.equal(tag.statusCode, 201, tag.body);
    const tagId = tag.json().data.id as number;
    const at = (day: string) => `2026-01-${day}T10:00:00.000Z`;
    for (const [title, day] of [
      ['Beta', '02'],
      ['Alpha', '02'],
      ['Delta', '03'],
      ['Gamma', '02'],
    ] as const) {
      await create(admin, { title, content: 'x', status: 'published', published_at: at(day), tags: [tagId] });
    }
    // per_page=1 reads pages 3 and 4 from the list's far end (issue 26): every order flips there.
    const titles = async (sort: string) => {
      const found: string[] = [];
      for (let page = 1; page <= 4; page++) {
        const response = await call(`/posts?filter[tag]=${tagId}&per_page=1&page=${page}&sort=${sort}`);
        const list = shaped(response, postListSchema);
        assert.equal(list.meta.pagination.next_cursor, null, 'several fields: pages by number only');
        found.push(...list.data.map((post) => post.title as string));
      }
      return found;
    };
    assert.deepEqual(await titles('-published_at,title'), ['Delta', 'Alpha', 'Beta', 'Gamma']);
    assert.deepEqual(await titles('-published_at,-title'), ['Delta', 'Gamma', 'Beta', 'Alpha']);
    assert.deepEqual(await titles('published_at,-title'), ['Gamma', 'Beta', 'Alpha', 'Delta']);

    const repeated = problem(await call('/posts?sort=title,-title'), 422);
    assert.match(String(repeated.errors?.sort?.[0]), /up to 3 different fields/);
    problem(await call('/posts?sort=title,slug,id,created_at'), 422);
    problem(await call('/posts?sort=title,,id'), 422);
    const one = shaped(await call(`/posts?filter[tag]=${tagId}&per_page=1&sort=title`), postListSchema);
    const cursor = one.meta.pagination.next_cursor!;
    assert.ok(cursor, 'one field: a cursor');
    problem(await call(`/posts?filter[tag]=${tagId}&per_page=1&sort=title,id&cursor=${cursor}`), 422);
  });

  it('the roles decide: drafts by status filter; an author cannot change another\u2019s post', async () => {
    const draft = await create(contributor, { title: 'A contributor draft', content: 'x' });
    assert.equal(draft.status, 'draft');
    const ids = async (as: TestUser) =>
      shaped(await call('/posts?filter[status]=draft&per_page=100', { as }), postListSchema).data.map(
        (post) => post.id,
      );
    assert.ok((await ids(editor)).includes(draft.id), 'an editor of the website sees it');
    assert.ok(!(await ids(author)).includes(draft.id), 'another author does not');
    problem(await call(`/posts/${draft.id}`, { as: author }), 404);
    problem(await call(`/posts/${draft.id}`, { method: 'PATCH', as: author, body: { title: 'Mine' } }), 404);
    const own = await create(author, { title: 'By the author', content: 'x', status: 'published' });
    problem(await call(`/posts/${own.id}`, { method: 'PATCH', as: contributor, body: { title: 'x' } }), 403);
    problem(
      await call('/posts', {
        method: 'POST',
        as: contributor,
        body: { title: 'x', content: 'x', status: 'published' },
      }),
      403,
    );
  });

  it('get: ETag and 304; ?locale= gives one locale\u2019s text; If-Match guards writes (412 when stale)', async () => {
    const post = await create(admin, {
      title: { en: 'Colour', fr: 'Couleur' },
      content: { en: '<p>en</p>', fr: '<p>fr</p>' },
      status: 'published',
    });
    const read = await call(`/posts/${post.id}`);
    const etag = String(read.headers.etag);
    assert.deepEqual(shaped(read, postOneSchema).data.translations?.title, { en: 'Colour', fr: 'Couleur' });
    assert.equal((await call(`/posts/${post.id}`, { headers: { 'if-none-match': etag } })).statusCode, 304);
    const french = shaped(await call(`/posts/${post.id}?locale=fr`), postOneSchema).data;
    assert.equal(french.title, 'Couleur');
    assert.equal(french.translations, undefined);
    // Answers are kept per cached post and per query: each query still gets its own shape.
    const few = (await call(`/posts/${post.id}?fields=id,title`)).json().data;
    assert.deepEqual(few, { id: post.id, title: 'Colour' });
    const again = shaped(await call(`/posts/${post.id}`), postOneSchema).data;
    assert.deepEqual(again.translations?.title, { en: 'Colour', fr: 'Couleur' });
    assert.equal(shaped(await call(`/posts/${post.id}?locale=fr`), postOneSchema).data.title, 'Couleur');

    const changed = await call(`/posts/${post.id}`, {
      method: 'PATCH',
      body: { title: 'Color' },
      headers: { 'if-match': etag },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.notEqual(changed.headers.etag, etag);
    // The second editor read the old version: refused, nothing overwritten.
    const stale = problem(
      await call(`/posts/${post.id}`, {
        method: 'PATCH',
        body: { title: 'Colour!' },
        headers: { 'if-match': etag },
      }),
      412,
    );
    assert.match(stale.detail ?? '', /changed/);
    assert.equal((await ctx.services.posts.findDetail(post.id))?.title, 'Color');
    // updated_at works as the version too.
    const current = shaped(changed, postOneSchema).data;
    const byTime = await call(`/posts/${post.id}`, {
      method: 'PATCH',
      body: { meta_title: 'Meta' },
      headers: { 'if-match': current.updated_at! },
    });
    assert.equal(byTime.statusCode, 200, byTime.body);
    problem(await call(`/posts/${post.id}`, { method: 'DELETE', headers: { 'if-match': etag } }), 412);
    assert.equal((await call(`/posts/${post.id}`, { method: 'DELETE' })).statusCode, 204);
    problem(await call(`/posts/${post.id}`), 404);
    problem(await call('/posts/999999'), 404);
  });

  it('review: submit, the queue, send back with a note, approve; each answer in its shape', async () => {
    const draft = await create(contributor, { title: 'Please review', content: 'x' });
    const submitted = await call(`/posts/${draft.id}/submit`, { method: 'POST', as: contributor });
    assert.equal(shaped(submitted, postOneSchema).data.status, 'pending');
    // Another author may not even see it (404); an editor of another website may see nothing either.
    problem(await call(`/posts/${draft.id}/approve`, { method: 'POST', as: author, body: {} }), 404);
    problem(await call(`/posts/${draft.id}/approve`, { method: 'POST', as: contributor, body: {} }), 403);
    problem(await call(`/reviews?website=${site}`, { as: author }), 403);
    const queue = await call(`/reviews?website=${site}`, { as: editor });
    assert.ok((queue.json().data as Array<{ id: number }>).some((post) => post.id === draft.id));
    problem(await call(`/posts/${draft.id}/return`, { method: 'POST', as: editor, body: {} }), 422);
    const returned = await call(`/posts/${draft.id}/return`, {
      method: 'POST',
      as: editor,
      body: { note: 'Add a source.' },
    });
    assert.equal(shaped(returned, postOneSchema).data.status, 'draft');
    const review = await call(`/posts/${draft.id}/review`, { as: contributor });
    assert.equal(review.json().data.note, 'Add a source.');
    await call(`/posts/${draft.id}/submit`, { method: 'POST', as: contributor });
    const approved = await call(`/posts/${draft.id}/approve`, { method: 'POST', as: editor, body: {} });
    assert.equal(shaped(approved, postOneSchema).data.status, 'published');
    problem(await call(`/posts/${draft.id}/approve`, { method: 'POST', as: editor, body: {} }), 422);
  });

  it("issue 35 #4: the review and role bodies are the operations' own schemas (one rule per input, every face the same)", async () => {
    // The operation reads a null date as "not given" (published now): the route no longer refuses it.
    const draft = await create(contributor, { title: 'Null date', content: 'x' });
    await call(`/posts/${draft.id}/submit`, { method: 'POST', as: contributor });
    const approved = await call(`/posts/${draft.id}/approve`, {
      method: 'POST',
      as: editor,
      body: { published_at: null },
    });
    assert.equal(approved.statusCode, 200, approved.body);
    assert.equal(shaped(approved, postOneSchema).data.status, 'published');
    // A blank note is no note: the operation's rule, told before the handler runs (and documented).
    const second = await create(contributor, { title: 'Blank note', content: 'x' });
    await call(`/posts/${second.id}/submit`, { method: 'POST', as: contributor });
    const blank = problem(
      await call(`/posts/${second.id}/return`, { method: 'POST', as: editor, body: { note: '' } }),
      422,
    );
    assert.ok(blank.errors?.note, JSON.stringify(blank));
    // A role outside the operation's list, refused with the field named (v2 words the schema's finding).
    const newcomer = await ctx.createUser();
    const role = problem(
      await call(`/websites/${site}/members/${newcomer.id}`, { method: 'PUT', body: { role: 'owner' } }),
      422,
    );
    assert.deepEqual(role.errors?.role, ['The selected role is invalid.']);
    type Operation = { requestBody?: { content: Record<string, { schema: unknown }> } };
    const doc: { paths: Record<string, Record<string, Operation>> } = (
      await call('/openapi.json', { as: null })
    ).json();
    const bodyOf = (path: string, method: string) => {
      const schema = doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema;
      assert.ok(schema, `${method} ${path} has a body`);
      return schema as { properties: Record<string, { minLength?: number; maxLength?: number }> };
    };
    assert.equal(bodyOf('/api/v2/posts/{id}/return', 'post').properties.note?.minLength, 1);
    assert.equal(
      bodyOf('/api/v2/comments/{id}/replies', 'post').properties.content?.maxLength,
      MAX_COMMENT_LENGTH,
    );
  });

  it('audit: administrators read all of it, a site admin their website\u2019s, others nothing', async () => {
    const siteAdmin = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    const all = await call('/audit?per_page=5');
    const entries = all.json().data as unknown[];
    assert.equal(entries.length, 5);
    for (const entry of entries) auditEntrySchema.parse(entry);
    assert.match(String(all.headers.link), /before=\d+/);
    assert.ok(entries.every((entry) => (entry as { surface: string }).surface !== ''));
    const v2Entries = (await call('/audit?filter[resource_type]=post&per_page=100')).json().data as Array<{
      surface: string;
    }>;
    assert.ok(
      v2Entries.some((entry) => entry.surface === 'api-v2'),
      'v2 writes are recorded as api-v2',
    );
    assert.equal((await call(`/audit?filter[website]=${site}`, { as: siteAdmin })).statusCode, 200);
    problem(await call('/audit', { as: siteAdmin }), 403);
    problem(await call(`/audit?filter[website]=${other}`, { as: siteAdmin }), 403);
    problem(await call(`/audit?filter[website]=${site}`, { as: editor }), 403);
  });

  it('comments: the moderation queue and bulk decisions, for the website\u2019s editors only', async () => {
    const post = await create(admin, { title: 'Commented', content: 'x', status: 'published' });
    const held = await ctx.services.comments.store({
      postId: post.id,
      content: 'Nice post',
      name: 'Ann',
      email: 'ann@example.test',
      user: null,
      websiteId: site,
      ipHash: 'a'.repeat(64),
      userAgent: 'test',
    });
    assert.equal(held.status, 'pending');
    const queue = await call('/comments?filter[status]=pending', { as: editor });
    assert.equal(queue.statusCode, 200, queue.body);
    assert.ok((queue.json().data as Array<{ id: number }>).some((comment) => comment.id === held.id));
    problem(await call('/comments', { as: author }), 403);
    problem(
      await call('/comments/moderate', {
        method: 'POST',
        as: author,
        body: { ids: [held.id], action: 'approve' },
      }),
      403,
    );
    // An editor of another website acts on nothing here.
    const otherEditor = await ctx.createUser();
    await ctx.services.memberships.grant(otherEditor.id, other, 'editor');
    const elsewhere = await call('/comments/moderate', {
      method: 'POST',
      as: otherEditor,
      body: { ids: [held.id], action: 'spam', website_id: other },
    });
    assert.deepEqual(elsewhere.json().data.ids, []);
    const approved = await call('/comments/moderate', {
      method: 'POST',
      as: editor,
      body: { ids: [held.id, 999999], action: 'approve' },
    });
    assert.deepEqual(approved.json().data.ids, [held.id]);
    problem(
      await call('/comments/moderate', { method: 'POST', as: editor, body: { ids: [], action: 'approve' } }),
      422,
    );
    problem(
      await call('/comments/moderate', { method: 'POST', as: editor, body: { ids: [1], action: 'burn' } }),
      422,
    );
  });

  it('keys: your own, created with the secret shown once, revoked; a key cannot manage keys', async () => {
    const created = await call('/keys', {
      method: 'POST',
      as: author,
      body: { name: 'CI deploys', read_only: true, website_ids: [site] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const key = created.json().data as { id: number; key: string; prefix: string };
    assert.ok(key.key.startsWith(key.prefix));
    const listed = (await call('/keys', { as: author })).json().data as Array<Record<string, unknown>>;
    assert.ok(
      listed.some((item) => item.id === key.id && !('key' in item)),
      'never shown again',
    );
    problem(await call('/keys', { as: key.key }), 403);
    problem(await call(`/keys/${key.id}`, { method: 'DELETE', as: editor }), 404);
    assert.equal((await call(`/keys/${key.id}`, { method: 'DELETE', as: author })).statusCode, 204);
    problem(await call('/me', { as: key.key }), 401);
    problem(await call('/keys', { method: 'POST', as: author, body: { name: '' } }), 422);
  });

  it('websites: site admins manage theirs, not the admin-only fields; domains; administrators create', async () => {
    const siteAdmin = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    const mine = (await call('/websites', { as: siteAdmin })).json().data as Array<{ id: number }>;
    assert.deepEqual(
      mine.map((website) => website.id),
      [site],
    );
    const changed = await call(`/websites/${site}`, {
      method: 'PATCH',
      as: siteAdmin,
      body: { site_slogan: 'Fresh' },
    });
    assert.equal(changed.json().data.fields.site_slogan, 'Fresh');
    problem(
      await call(`/websites/${site}`, { method: 'PATCH', as: siteAdmin, body: { head_code: '<script>' } }),
      403,
    );
    problem(await call(`/websites/${other}`, { as: siteAdmin }), 404);
    problem(await call(`/websites/${site}`, { as: editor }), 404);
    const added = await call(`/websites/${site}/domains`, {
      method: 'POST',
      as: siteAdmin,
      body: { domain: 'www.site.test' },
    });
    assert.ok(
      (added.json().data.aliases as Array<{ domain: string }>).some(
        (alias) => alias.domain === 'www.site.test',
      ),
    );
    problem(
      await call(`/websites/${site}/domains`, {
        method: 'POST',
        as: siteAdmin,
        body: { domain: 'other.test' },
      }),
      409,
    );
    problem(
      await call(`/websites/${site}/domains`, {
        method: 'POST',
        as: siteAdmin,
        body: { domain: 'bad domain' },
      }),
      422,
    );
    const removed = await call(`/websites/${site}/domains/www.site.test`, {
      method: 'DELETE',
      as: siteAdmin,
    });
    assert.equal(removed.statusCode, 200, removed.body);
    problem(
      await call('/websites', {
        method: 'POST',
        as: siteAdmin,
        body: { site_name: 'New', domain: 'new.test' },
      }),
      403,
    );
    const created = await call('/websites', {
      method: 'POST',
      body: { site_name: 'New', domain: 'new.test' },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal((await call(`/websites/${created.json().data.id}`, { method: 'DELETE' })).statusCode, 204);
  });

  it('tags: create, the tree, rename and move, 409 while in use unless forced, merge', async () => {
    const make = async (body: Record<string, unknown>, as: TestUser = admin) => {
      const response = await call('/tags', { method: 'POST', as, body });
      assert.equal(response.statusCode, 201, response.body);
      return response.json().data as { id: number; name: string; parent_id: number | null };
    };
    const news = await make({
      name: { en: 'News', fr: 'Nouvelles' },
      type: 'post_category',
      website_ids: [site],
    });
    const world = await make({
      name: 'World',
      type: 'post_category',
      parent_id: news.id,
      website_ids: [site],
    });
    problem(await call('/tags', { method: 'POST', body: { name: 'News', type: 'post_category' } }), 409);
    problem(await call('/tags', { method: 'POST', body: { name: 'X', type: 'Bad Type!' } }), 422);
    const tree = (await call('/tags?filter[type]=post_category&locale=fr')).json().data as Array<{
      id: number;
      name: string;
      children: Array<{ id: number }>;
    }>;
    const root = tree.find((node) => node.id === news.id)!;
    assert.equal(root.name, 'Nouvelles');
    assert.deepEqual(
      root.children.map((child) => child.id),
      [world.id],
    );

    // A cycle is refused; moving to the root and renaming work.
    problem(await call(`/tags/${news.id}`, { method: 'PATCH', body: { parent_id: world.id } }), 422);
    const moved = await call(`/tags/${world.id}`, {
      method: 'PATCH',
      body: { parent_id: null, name: 'Planet' },
    });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.equal(moved.json().data.parent_id, null);
    assert.equal(moved.json().data.name, 'Planet');
    problem(await call(`/tags/${world.id}`, { method: 'PATCH', body: { name: 'News' } }), 422);
    // An editor of the website may change its tags; an author (issue 34 #5) or a reader of it may not.
    assert.equal(
      (await call(`/tags/${world.id}`, { method: 'PATCH', as: editor, body: { sort: 5 } })).statusCode,
      200,
    );
    problem(await call(`/tags/${world.id}`, { method: 'PATCH', as: author, body: { sort: 4 } }), 403);
    const outsider = await ctx.createUser();
    await ctx.services.memberships.grant(outsider.id, site, 'reader');
    problem(await call(`/tags/${world.id}`, { method: 'PATCH', as: outsider, body: { sort: 1 } }), 403);

    // In use: a post tagged with it.
    const tagged = await create(admin, {
      title: 'Tagged',
      content: 'x',
      status: 'published',
      categories: [news.id],
    });
    const refused = problem(await call(`/tags/${news.id}`, { method: 'DELETE' }), 409);
    assert.match(refused.detail ?? '', /1 post/);
    // Merge news into planet: the post is tagged with planet, news is gone.
    const merged = await call(`/tags/${news.id}/merge`, { method: 'POST', body: { into: world.id } });
    assert.equal(merged.statusCode, 200, merged.body);
    problem(await call(`/tags/${news.id}`), 404);
    const post = await ctx.services.posts.findDetail(tagged.id);
    assert.deepEqual(
      post?.categories.map((category) => category.id),
      [world.id],
    );
    problem(await call(`/tags/${world.id}`, { method: 'DELETE' }), 409);
    assert.equal((await call(`/tags/${world.id}?force=true`, { method: 'DELETE' })).statusCode, 204);
    assert.deepEqual((await ctx.services.posts.findDetail(tagged.id))?.categories, []);
  });

  it('rate limits per key: 429 with Retry-After past the setting api_v2_rate_limit', async () => {
    const limited = await ctx.createUser();
    await ctx.services.settings.set('api_v2_rate_limit', '3');
    try {
      for (let n = 0; n < 3; n++) {
        const ok = await call('/me', { as: limited });
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.headers['ratelimit-remaining'], String(2 - n));
      }
      const refused = problem(await call('/me', { as: limited }), 429);
      assert.match(refused.detail ?? '', /3 requests a minute/);
      const again = await call('/me', { as: limited });
      assert.ok(Number(again.headers['retry-after']) >= 1);
      // Another caller has a count of its own.
      assert.equal((await call('/me', { as: await ctx.createUser() })).statusCode, 200);
    } finally {
      await ctx.services.settings.delete('api_v2_rate_limit');
    }
  });

  it('tags: merging a tag into one of its own children moves the child up to its place', async () => {
    const make = async (body: Record<string, unknown>) =>
      (await call('/tags', { method: 'POST', body })).json().data as { id: number };
    const root = await make({ name: 'Merge root', type: 'post_category' });
    const parent = await make({ name: 'Merge parent', type: 'post_category', parent_id: root.id });
    const child = await make({ name: 'Merge child', type: 'post_category', parent_id: parent.id });
    const merged = await call(`/tags/${parent.id}/merge`, { method: 'POST', body: { into: child.id } });
    assert.equal(merged.statusCode, 200, merged.body);
    assert.equal(merged.json().data.parent_id, root.id, 'the child takes the merged tag\u2019s place');
    problem(await call(`/tags/${parent.id}`), 404);
  });

  it('people: accounts for administrators; members and roles for site admins, not site admins\u2019 roles', async () => {
    const siteAdmin = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    const newcomer = await ctx.createUser();
    const listed = await call(`/users?q=${encodeURIComponent(newcomer.email)}`);
    assert.deepEqual(
      (listed.json().data as Array<{ id: number }>).map((user) => user.id),
      [newcomer.id],
    );
    problem(await call('/users', { as: siteAdmin }), 403);
    assert.equal((await call(`/users/${newcomer.id}`, { as: newcomer })).statusCode, 200, 'oneself');
    problem(await call(`/users/${admin.id}`, { as: newcomer }), 403);

    // A site admin makes the newcomer a contributor, then an editor; a site admin they may not make.
    const granted = await call(`/websites/${site}/members/${newcomer.id}`, {
      method: 'PUT',
      as: siteAdmin,
      body: { role: 'contributor' },
    });
    assert.equal(granted.statusCode, 200, granted.body);
    assert.equal(
      (
        await call(`/websites/${site}/members/${newcomer.id}`, {
          method: 'PUT',
          as: siteAdmin,
          body: { role: 'editor' },
        })
      ).json().data.role,
      'editor',
    );
    problem(
      await call(`/websites/${site}/members/${newcomer.id}`, {
        method: 'PUT',
        as: siteAdmin,
        body: { role: 'site_admin' },
      }),
      403,
    );
    problem(
      await call(`/websites/${site}/members/${newcomer.id}`, {
        method: 'PUT',
        as: siteAdmin,
        body: { role: 'owner' },
      }),
      422,
    );
    problem(
      await call(`/websites/${site}/members/${siteAdmin.id}`, { method: 'DELETE', as: siteAdmin }),
      403,
    );
    problem(await call(`/websites/${other}/members`, { as: siteAdmin }), 404);
    problem(await call(`/websites/${site}/members`, { as: editor }), 403);
    const members = (await call(`/websites/${site}/members`, { as: siteAdmin })).json().data as Array<{
      user: { id: number };
      role: string;
    }>;
    assert.equal(members.find((member) => member.user.id === newcomer.id)?.role, 'editor');
    // The newcomer's next request sees the role: as an editor they see the website's drafts.
    assert.equal((await call('/posts?filter[status]=draft', { as: newcomer })).statusCode, 200);
    assert.equal(
      (await call(`/websites/${site}/members/${newcomer.id}`, { method: 'DELETE', as: siteAdmin }))
        .statusCode,
      204,
    );
    problem(await call(`/websites/${site}/members/${newcomer.id}`, { method: 'DELETE', as: siteAdmin }), 404);

    // Accounts: disabling stops the token at once; the last administrator stays.
    const disabled = await call(`/users/${newcomer.id}`, { method: 'PATCH', body: { is_active: false } });
    assert.equal(disabled.json().data.is_active, false);
    problem(await call('/me', { as: newcomer }), 401);
    problem(
      await call(`/users/${newcomer.id}`, { method: 'PATCH', as: siteAdmin, body: { is_active: true } }),
      403,
    );
    const audit = (await call('/audit?filter[resource_type]=membership&per_page=10')).json().data as Array<{
      action: string;
    }>;
    assert.ok(audit.some((entry) => entry.action === 'membership.grant'));
  });

  it('pages: editors create and change them, drafts hidden from others, 409 while a menu links to one', async () => {
    const created = await call('/pages', {
      method: 'POST',
      as: editor,
      body: { title: { en: 'About', fr: 'À propos' }, content: '<p>Us</p>', status: 'draft' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const page = created.json().data as { id: number; website_ids: number[]; slug: string };
    assert.deepEqual(page.website_ids, [site]);
    problem(await call('/pages', { method: 'POST', as: author, body: { title: 'Mine' } }), 403);
    problem(await call(`/pages/${page.id}`, { as: author }), 404);
    const authorsList = (await call('/pages', { as: author })).json().data as Array<{ id: number }>;
    assert.ok(!authorsList.some((item) => item.id === page.id), 'a draft is the editors\u2019');
    const published = await call(`/pages/${page.id}`, {
      method: 'PATCH',
      as: editor,
      body: { status: 'published', slug: 'about-us' },
    });
    assert.equal(published.json().data.slug, 'about-us');
    // If-Match: the ETag read guards the next write; a stale one is a 412 and changes nothing.
    const read = await call(`/pages/${page.id}`, { as: editor });
    const etag = String(read.headers.etag);
    assert.equal(etag, String(published.headers.etag));
    assert.equal(
      (await call(`/pages/${page.id}`, { as: editor, headers: { 'if-none-match': etag } })).statusCode,
      304,
    );
    const fresh = await call(`/pages/${page.id}`, {
      method: 'PATCH',
      as: editor,
      body: { template: 'wide' },
      headers: { 'if-match': etag },
    });
    assert.equal(fresh.statusCode, 200, fresh.body);
    problem(
      await call(`/pages/${page.id}`, {
        method: 'PATCH',
        as: editor,
        body: { template: 'x' },
        headers: { 'if-match': etag },
      }),
      412,
    );
    assert.equal((await call(`/pages/${page.id}`, { as: editor })).json().data.template, 'wide');
    assert.equal((await call(`/pages/${page.id}`, { as: author })).statusCode, 200);
    problem(await call(`/pages/${page.id}`, { method: 'PATCH', as: author, body: { title: 'Ours' } }), 403);
    problem(
      await call('/pages', { method: 'POST', as: editor, body: { title: 'x', status: 'secret' } }),
      422,
    );

    await ctx.services.menus.sync(
      site,
      [
        {
          order: 1,
          name: 'About',
          type: 'page',
          pageId: page.id,
          url: null,
          target: '_self',
          icon: null,
          parentPageId: null,
        },
      ],
      {
        locales: { defaultLocale: 'en', supported: ['en'], localized: false },
      },
    );
    const refused = problem(await call(`/pages/${page.id}`, { method: 'DELETE', as: editor }), 409);
    assert.match(refused.detail ?? '', /1 menu item/);
    assert.equal(
      (await call(`/pages/${page.id}?force=true`, { method: 'DELETE', as: editor })).statusCode,
      204,
    );
    problem(await call(`/pages/${page.id}`), 404);
  });

  it('system: settings without secrets, cache flushes, updates for administrators', async () => {
    await ctx.services.settings.set('app_secret', 'do-not-show');
    const settings = (await call('/settings')).json().data as Record<string, string>;
    assert.equal(settings.app_secret, undefined, 'secrets are never shown');
    assert.ok(INSTALLED_SETTING in settings);
    const changed = await call('/settings', {
      method: 'PATCH',
      body: { registration_role: 'contributor', obsolete: null },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json().data.registration_role, 'contributor');
    const refused = problem(await call('/settings', { method: 'PATCH', body: { app_secret: 'mine' } }), 422);
    assert.ok(refused.errors?.app_secret);
    assert.equal(await ctx.services.settings.get('app_secret'), 'do-not-show');
    problem(await call('/settings', { method: 'PATCH', body: { 'Bad Key': 'x' } }), 422);
    problem(await call('/settings', { as: editor }), 403);
    await ctx.services.settings.delete('registration_role');

    const siteAdmin = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    assert.equal(
      (await call('/cache/flush', { method: 'POST', as: siteAdmin, body: { website_id: site } })).statusCode,
      204,
    );
    problem(await call('/cache/flush', { method: 'POST', as: siteAdmin, body: {} }), 403);
    problem(await call('/cache/flush', { method: 'POST', as: siteAdmin, body: { website_id: other } }), 403);
    assert.equal((await call('/cache/flush', { method: 'POST', body: {} })).statusCode, 204);

    problem(await call('/updates', { method: 'POST', as: siteAdmin, body: {} }), 403);
    const progress = await call('/updates/progress');
    assert.deepEqual(progress.json().data, { item: 'core', running: false });
  });

  it('unknown routes and methods are problems too', async () => {
    problem(await call('/nothing-here'), 404);
    problem(await call('/posts', { method: 'DELETE' }), 404);
  });

  it('OpenAPI 3.1: a valid document that covers every registered route', async () => {
    const response = await ctx.request({ method: 'GET', url: '/api/v2/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(document));
    const documented = new Set<string>();
    for (const [path, operations] of Object.entries(document.paths as Record<string, object>)) {
      for (const method of Object.keys(operations)) documented.add(`${method.toUpperCase()} ${path}`);
    }
    const routes = ctx.app.registeredRoutes.filter(
      (route) =>
        route.url.startsWith('/api/v2/') &&
        route.method !== 'HEAD' &&
        !route.url.startsWith('/api/v2/docs') &&
        route.url !== '/api/v2/openapi.json',
    );
    assert.ok(routes.length >= 10);
    for (const route of routes) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      assert.ok(documented.has(`${route.method} ${path}`), `${route.method} ${path} is not documented`);
    }
    // Every operation names its answers, the problems included.
    for (const operations of Object.values(
      document.paths as Record<string, Record<string, { responses: object }>>,
    )) {
      for (const operation of Object.values(operations))
        assert.ok(Object.keys(operation.responses).length >= 2);
    }
  });
});
