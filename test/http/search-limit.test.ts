// Issue 34 #11: one client cannot fill the long-read queue with searches. Searches are counted per
// client address (an IPv6 client by its /64) in every face: the site's search pages (a themed 429
// page), API v1's `keywords` (the envelope), API v2's `q` (a problem), each with Retry-After.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RateLimits } from '../../src/lib/rate-limits.js';
import { MAX_SEARCHES_AT_ONCE, SearchLimit } from '../../src/domain/posts/search-limit.js';
import { TooManyRequestsError } from '../../src/domain/errors.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('issue 34 #11: searches per client', () => {
  let ctx: TestContext;
  let user: TestUser;
  let contentKey: string;

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    const website = await websiteWrites(ctx.services).create({ siteName: 'Search', domain: 'search.test' });
    user = await ctx.createUser();
    contentKey = (
      await ctx.services.apiKeys.create(user.id, { name: 'build', websiteIds: [website], contentOnly: true })
    ).secret;
    await ctx.services.settings.set('searches_per_minute', '3');
  });
  after(() => ctx.close());

  const site = (word: string, remoteAddress = '2001:db8:7:7::1') =>
    ctx.request({
      method: 'GET',
      url: `/post/search/${word}`,
      headers: { host: 'search.test' },
      remoteAddress,
    });
  const v1 = (word: string, remoteAddress: string) =>
    ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { host: 'search.test', authorization: `Bearer ${user.token}` },
      payload: { keywords: word },
      remoteAddress,
    });
  const v2 = (word: string, remoteAddress: string, credential = contentKey) =>
    ctx.request({
      method: 'GET',
      url: `/api/v2/posts?q=${word}`,
      headers: { host: 'search.test', authorization: `Bearer ${credential}` },
      remoteAddress,
    });

  it('issue 34 #11: the site answers a themed 429 page with Retry-After past the limit; other clients search on', async () => {
    // Three addresses of one /64 are one client.
    for (const [i, suffix] of ['1', '2', '3'].entries()) {
      const ok = await site(`word${i}`, `2001:db8:7:7::${suffix}`);
      assert.equal(ok.statusCode, 200, ok.body);
    }
    const refused = await site('word4', '2001:db8:7:7::99');
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.match(refused.headers['content-type'] as string, /text\/html/);
    assert.match(refused.body, /Too many searches/);
    assert.match(refused.body, /at most 3 a minute/);
    assert.match(refused.body, /<html/);
    assert.equal((await site('word5', '2001:db8:8:8::1')).statusCode, 200);
    // Pages that do not search are not counted.
    assert.equal(
      (
        await ctx.request({
          method: 'GET',
          url: '/post',
          headers: { host: 'search.test' },
          remoteAddress: '2001:db8:7:7::1',
        })
      ).statusCode,
      200,
    );
  });

  it('issue 34 #11: API v1 keywords answer 429 in the envelope; lists without keywords are not counted', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await v1(`a${i}`, '198.51.100.7')).statusCode, 200);
    const plain = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { host: 'search.test', authorization: `Bearer ${user.token}` },
      payload: {},
      remoteAddress: '198.51.100.7',
    });
    assert.equal(plain.statusCode, 200);
    const refused = await v1('a4', '198.51.100.7');
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    const body = refused.json();
    assert.equal(body.code, 429);
    assert.equal(body.status, 'fail');
    assert.match(
      body.message,
      /^Too many searches from your address \(at most 3 a minute\)\. Try again in \d+ seconds?\.$/,
    );
  });

  it('issue 34 #11: API v2 q answers a rate-limit problem with Retry-After', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await v2(`b${i}`, '198.51.100.8')).statusCode, 200);
    const refused = await v2('b4', '198.51.100.8');
    assert.equal(refused.statusCode, 429);
    assert.match(refused.headers['content-type'] as string, /application\/problem\+json/);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(refused.json().type, '/api/v2/docs#problem-rate-limit');
    assert.match(refused.json().detail, /Too many searches/);
  });

  it('issue 34 #11: a signed-in API v2 caller is held to the searches at once, not to the visitors\u2019 count a minute', async () => {
    // The admin panel's post list sends six searches per search (the list and a count per status).
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => v2(`panel${i}`, '198.51.100.9', user.token)),
    );
    assert.deepEqual(
      answers.map((answer) => answer.statusCode),
      Array(6).fill(200),
    );
  });

  it(`issue 34 #11: at most ${MAX_SEARCHES_AT_ONCE} searches of one client run at once`, async () => {
    const limit = new SearchLimit(new RateLimits(), { get: async () => '1000' });
    const gates: Array<() => void> = [];
    const slow = () => new Promise<string>((resolve) => gates.push(() => resolve('done')));
    const running = Array.from({ length: MAX_SEARCHES_AT_ONCE }, () => limit.run('2001:db8::1', slow));
    await assert.rejects(limit.run('2001:db8::2', slow), (error: unknown) => {
      assert.ok(error instanceof TooManyRequestsError);
      assert.equal(error.retryAfter, 1);
      return true;
    });
    // Another client is not held up; once one search ends, the client may start another.
    const other = limit.run('203.0.113.1', async () => 'other');
    assert.equal(await other, 'other');
    while (gates.length < MAX_SEARCHES_AT_ONCE) await new Promise((resolve) => setImmediate(resolve));
    gates.shift()!();
    await running[0];
    const next = limit.run('2001:db8::3', async () => 'next');
    assert.equal(await next, 'next');
    for (const open of gates) open();
    assert.deepEqual(await Promise.all(running), Array(MAX_SEARCHES_AT_ONCE).fill('done'));
  });
});
