// What the outside attack of issue 21 found, each as it was sent (issue 21 #8): no request without
// login may end in a 500 on either database. NUL characters anywhere in the input, ids beyond the
// columns' range, JSON nested thousands deep, tens of thousands of ids.
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('issue 21 #8: hostile input answers 4xx, never 500', () => {
  let ctx: TestContext;
  let admin: TestUser;

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    admin = await ctx.createUser({ admin: true });
    await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.request({ method: 'GET', url, headers: { host: 'site.test' } });
  const api = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    ctx.request({
      method: 'POST',
      url: `/api/v1${url}`,
      headers: { host: 'site.test', 'content-type': 'application/json', ...headers },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  it('a NUL in a path is no such page (404)', async () => {
    for (const url of ['/post/search/a%00b', '/user/a%00b/posts', '/post/a%00b', '/tag/a%00b']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
    }
  });

  it('a NUL in a form field or a query is 422 naming the field, before anything else looks at it', async () => {
    const login = await ctx.request({
      method: 'POST',
      url: '/user/login/submit',
      headers: { host: 'site.test', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a%00b%40x.test&password=x',
    });
    assert.equal(login.statusCode, 422);
    assert.match(login.body, /The email must not contain a NUL character\./);
    const search = await get('/search?q=a%00b');
    assert.ok([404, 422].includes(search.statusCode), String(search.statusCode));
  });

  it('a NUL in an API field is the 422 envelope with the field', async () => {
    const response = await api('/posts', { api_token: admin.token, keywords: 'a\u0000b' });
    assert.equal(response.statusCode, 422);
    const body = response.json();
    assert.equal(body.message, 'Validation failed');
    assert.deepEqual(body.data.errors, { keywords: ['The keywords must not contain a NUL character.'] });
    const store = await api('/posts/store', { api_token: admin.token, title: 'x\u0000' });
    assert.equal(store.statusCode, 422);
  });

  it('an id beyond the column range is no 500', async () => {
    for (const payload of [
      { author_id: 2147483648 },
      { author_id: '99999999999999' },
      { website_id: 2147483648 },
    ]) {
      const response = await api('/posts', { api_token: admin.token, ...payload });
      assert.ok(
        response.statusCode < 500,
        `${JSON.stringify(payload)}: ${response.statusCode} ${response.body}`,
      );
    }
    const show = await api('/posts/2147483648', { api_token: admin.token });
    assert.ok(show.statusCode < 500, show.body);
  });

  it('JSON nested 10,000 deep is 400, not a stack overflow', async () => {
    const deep = `{"api_token":"${admin.token}","title":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const response = await api('/posts/store', deep);
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().status, 'fail');
  });

  it('40,000 tag ids are refused (422), not sent to the database', async () => {
    const ids = Array.from({ length: 40_000 }, (_, i) => i + 1);
    const response = await api('/posts/store', {
      api_token: admin.token,
      title: 'Many tags',
      tag_ids: ids,
      tags: ids,
    });
    assert.equal(response.statusCode, 422, response.body.slice(0, 300));
    assert.equal(response.json().message, 'Validation failed');
  });

  it('issue 21 #15: parallel creates of one title with no slug all succeed, each with its own slug', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        api('/posts/store', { api_token: admin.token, title: 'Same title', content: 'x' }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    assert.deepEqual(
      [...new Set(statuses)],
      [200],
      JSON.stringify(answers.find((a) => a.statusCode !== 200)?.json()),
    );
    const slugs = answers.map((answer) => answer.json().data.slug as string);
    assert.equal(new Set(slugs).size, 30);
    assert.ok(slugs.every((slug) => slug.startsWith('same-title')));
  });

  it('issue 21 #12: no framing by other sites, and a Content-Security-Policy on pages and API answers', async () => {
    const page = await get('/');
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['x-frame-options'], 'SAMEORIGIN');
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'self'/);
    assert.match(csp, /object-src 'none'/);
    const json = await api('/posts', { api_token: admin.token });
    assert.equal(json.headers['x-frame-options'], 'SAMEORIGIN');
    assert.equal(json.headers['x-content-type-options'], 'nosniff');
    assert.equal(json.headers['referrer-policy'], 'strict-origin-when-cross-origin');
    assert.match(String(json.headers['content-security-policy']), /default-src 'none'/);
    // Headers that only mean something to an HTML document (or to IE8 and Flash) stay on pages.
    assert.equal(page.headers['cross-origin-opener-policy'], 'same-origin');
    assert.equal(page.headers['x-permitted-cross-domain-policies'], 'none');
    for (const documentOnly of ['cross-origin-opener-policy', 'x-download-options', 'x-xss-protection']) {
      assert.equal(json.headers[documentOnly], undefined, documentOnly);
    }
    // A website whose administrators added code of their own keeps it working.
    const id = (await ctx.services.websites.findIdByDomain('site.test'))!;
    await websiteWrites(ctx.services).update(id, { head_code: '<script>window.analytics = 1</script>' });
    try {
      const relaxed = String((await get('/')).headers['content-security-policy']);
      assert.match(relaxed, /script-src 'self' 'unsafe-inline' https:/);
      assert.match(relaxed, /frame-ancestors 'self'/);
    } finally {
      await websiteWrites(ctx.services).update(id, { head_code: '' });
    }
  });

  it('issue 21 #12: an absolute-form request target is refused (400), not served under another name', async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = ctx.app.server.address() as AddressInfo;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('GET http://evil.example/ HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n');
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.equal((await get('/')).statusCode, 200, 'origin-form targets are served as ever');
  });

  it('issue 21 #16: a create retried with the same Idempotency-Key answers the first answer, once', async () => {
    const key = `retry-${Date.now()}`;
    const payload = { api_token: admin.token, title: 'Exactly once', content: 'x' };
    const count = async () =>
      Number(
        (
          await ctx.services.database.db
            .selectFrom('posts')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('title', '=', 'Exactly once')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const first = await api('/posts/store', payload, { 'idempotency-key': key });
    assert.equal(first.statusCode, 200);
    const again = await api('/posts/store', payload, { 'idempotency-key': key });
    assert.equal(again.statusCode, 200);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await count(), 1);
    // The same key with another request is refused; a bad key too.
    const other = await api(
      '/posts/store',
      { ...payload, title: 'Something else' },
      { 'idempotency-key': key },
    );
    assert.equal(other.statusCode, 422);
    assert.deepEqual(other.json().data.errors, {
      idempotency_key: ['This Idempotency-Key was used with a different request.'],
    });
    const bad = await api('/posts/store', payload, { 'idempotency-key': 'has space' });
    assert.equal(bad.statusCode, 422);
    // Concurrent retries: one post, every answer the first one or a 409 while it runs.
    const racing = `race-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        api('/posts/store', { ...payload, title: 'Raced once' }, { 'idempotency-key': racing }),
      ),
    );
    assert.ok(
      answers.every((answer) => [200, 409].includes(answer.statusCode)),
      answers.map((a) => a.statusCode).join(),
    );
    const raced = await ctx.services.database.db
      .selectFrom('posts')
      .select('id')
      .where('title', '=', 'Raced once')
      .execute();
    assert.equal(raced.length, 1);
    // Without a key, every create is a create.
    await api('/posts/store', payload);
    assert.equal(await count(), 2);
  });

  it('issue 21 #4: a tag type or locale of megabytes is refused (422) before it can name a cache entry', async () => {
    const huge = 'x'.repeat(2 * 1024 * 1024);
    for (const payload of [{ type: huge }, { type: 'category', locale: huge }]) {
      const response = await api('/tags', { api_token: admin.token, ...payload });
      assert.equal(response.statusCode, 422);
      assert.equal(response.json().message, 'Validation failed');
    }
    const keywords = await api('/posts', { api_token: admin.token, keywords: 'k'.repeat(9 * 1024 * 1024) });
    assert.ok([413, 422].includes(keywords.statusCode), String(keywords.statusCode));
  });

  it('issue 21 #8: a long slug (up to the 190 accepted) has a page, not a 414', async () => {
    const slug = `long-${'a'.repeat(180)}`;
    const created = await api('/posts/store', {
      api_token: admin.token,
      title: 'Long slug',
      content: 'x',
      slug,
    });
    assert.equal(created.statusCode, 200, created.body);
    assert.equal((await get(`/post/${slug}`)).statusCode, 200);
    assert.equal((await api(`/posts/${slug}`, { api_token: admin.token })).statusCode, 200);
    const tooLong = await api('/posts/store', {
      api_token: admin.token,
      title: 'Longer',
      content: 'x',
      slug: 'b'.repeat(191),
    });
    assert.equal(tooLong.statusCode, 422);
  });
});
