// Click analytics (spec 4.8, R-F1 frontend.clicks.record): one row per counted event for posts,
// links and pages (the rows R-F5 rankings count), bots by user agent not counted, likes and
// favourites once per visitor, cross-site beacons refused, rate limits, and no raw IP stored.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { isBot } from '../../src/domain/community/clicks.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext, exposeRouteNames } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

const BROWSER =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';

describe('clicks', () => {
  let ctx: TestContext;
  let postId: number;
  let linkId: number;
  let pageId: number;
  let draftId: number;
  let foreignPostId: number;
  let ipCounter = 0;
  let ip = '';

  before(async () => {
    ctx = await createTestContext({ extend: exposeRouteNames });
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    const other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    const { db } = ctx.services.database;
    postId = await insertPost(db, { title: 'Counted post' });
    draftId = await insertPost(db, { title: 'Draft post', status: 'draft' });
    foreignPostId = await insertPost(db, { title: 'Foreign post' });
    await db
      .insertInto('website_bindings')
      .values({ website_id: other, model_type: 'post', model_id: foreignPostId })
      .execute();
    linkId = (await ctx.services.links.create({ name: 'Folio', url: 'https://folio.example/' })).id;
    const now = new Date().toISOString();
    pageId = (
      await db
        .insertInto('pages')
        .values({ title: 'About', slug: 'about', content: 'x', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  });
  after(() => ctx.close());
  beforeEach(() => {
    ipCounter += 1;
    ip = `203.0.113.${ipCounter}`;
  });

  function record(fields: Record<string, string>, headers: Record<string, string> = {}, remoteAddress = ip) {
    const all: Record<string, string> = {
      host: 'site.test',
      origin: 'http://site.test',
      'sec-fetch-site': 'same-origin',
      'user-agent': BROWSER,
      'content-type': 'application/x-www-form-urlencoded;charset=UTF-8',
      ...headers,
    };
    for (const [name, value] of Object.entries(all)) if (value === '') delete all[name];
    return ctx.request({
      method: 'POST',
      url: '/clicks/record',
      remoteAddress,
      headers: all,
      payload: new URLSearchParams(fields).toString(),
    });
  }
  const clicks = (type: string, id: number) =>
    ctx.services.database.db
      .selectFrom('clicks')
      .selectAll()
      .where('model_type', '=', type)
      .where('model_id', '=', id)
      .orderBy('id')
      .execute();

  it('clicks.record: a view of a post is one row (model_type post, kind view), the IP only hashed', async () => {
    const response = await record({ type: 'post', id: String(postId) });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-test-route-name'], 'frontend.clicks.record');
    assert.deepEqual(response.json(), { status: 'success', recorded: true });
    const rows = await clicks('post', postId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.kind, 'view');
    assert.equal(rows[0]!.user_id, null);
    assert.match(rows[0]!.visitor_hash ?? '', /^v:[0-9a-f]{62}$/);
    assert.ok(!JSON.stringify(rows).includes(ip));
  });

  it('views and clicks are events: each one counts', async () => {
    const before = (await clicks('post', postId)).length;
    for (let i = 0; i < 3; i++) {
      assert.equal((await record({ type: 'post', id: String(postId), kind: 'view' })).json().recorded, true);
    }
    assert.equal((await record({ type: 'post', id: String(postId), kind: 'click' })).json().recorded, true);
    assert.equal((await clicks('post', postId)).length, before + 4);
  });

  it('likes and favourites count once per visitor, also when sent at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        record({ type: 'post', id: String(postId), kind: 'like' }, {}, '192.0.2.10'),
      ),
    );
    assert.deepEqual(
      results.map((response) => response.statusCode),
      Array(6).fill(200),
    );
    assert.equal(results.filter((response) => response.json().recorded).length, 1);
    assert.equal(
      (await record({ type: 'post', id: String(postId), kind: 'fav' }, {}, '192.0.2.10')).json().recorded,
      true,
    );
    // Another visitor likes too.
    assert.equal(
      (await record({ type: 'post', id: String(postId), kind: 'like' }, {}, '192.0.2.11')).json().recorded,
      true,
    );
    const counts = await ctx.services.clicks.counts('post', postId);
    assert.equal(counts.like, 2);
    assert.equal(counts.fav, 1);
  });

  it('concurrent views are all counted (insert only, no lost updates)', async () => {
    const before = (await clicks('post', postId)).length;
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        record({ type: 'post', id: String(postId) }, {}, `198.51.100.${i + 1}`),
      ),
    );
    assert.ok(results.every((response) => response.json().recorded === true));
    assert.equal((await clicks('post', postId)).length, before + 25);
  });

  it('links and pages are counted under their own model_type', async () => {
    assert.equal((await record({ type: 'link', id: String(linkId), kind: 'click' })).json().recorded, true);
    assert.equal((await record({ type: 'page', id: String(pageId) })).json().recorded, true);
    assert.deepEqual(
      (await clicks('link', linkId)).map((row) => row.kind),
      ['click'],
    );
    assert.equal((await clicks('page', pageId)).length, 1);
  });

  it('a target that is unknown, unpublished, of another type or not on this website is 404, not counted', async () => {
    const cases: Array<[string, number]> = [
      ['post', 999999],
      ['post', draftId],
      ['post', foreignPostId],
      ['post', linkId], // a link is not a post
      ['link', postId],
      ['page', 999999],
      ['post', 99999999999],
    ];
    for (const [type, id] of cases) {
      const response = await record({ type, id: String(id) });
      assert.equal(response.statusCode, 404, `${type} ${id}`);
      assert.deepEqual(response.json(), { status: 'fail', message: 'Not found' });
    }
    assert.equal((await clicks('post', draftId)).length, 0);
    assert.equal((await clicks('post', foreignPostId)).length, 0);
  });

  it('bots by user agent are not counted (and not told so)', async () => {
    const before = (await clicks('post', postId)).length;
    for (const agent of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      'facebookexternalhit/1.1',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0 Safari/537.36',
      'curl/8.5.0',
      'python-requests/2.31',
    ]) {
      const response = await record({ type: 'post', id: String(postId) }, { 'user-agent': agent });
      assert.equal(response.statusCode, 200, agent);
      assert.deepEqual(response.json(), { status: 'success', recorded: false });
    }
    assert.equal((await clicks('post', postId)).length, before);
    assert.equal(isBot(''), true, 'a browser always sends a user agent');
    assert.equal(isBot(undefined), true);
    assert.equal(isBot(BROWSER), false);
    assert.equal(
      isBot('Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'),
      false,
    );
  });

  it('validation: type, id and kind are checked (422)', async () => {
    const response = await record({ type: 'user', id: 'abc', kind: 'poke' });
    assert.equal(response.statusCode, 422);
    assert.deepEqual(response.json(), {
      status: 'fail',
      message: 'Validation failed',
      errors: {
        type: ['The selected type is invalid.'],
        id: ['The id must be an integer.'],
        kind: ['The selected kind is invalid.'],
      },
    });
    const missing = await record({});
    assert.deepEqual(missing.json().errors, {
      type: ['The type field is required.'],
      id: ['The id field is required.'],
    });
    const asJson = await ctx.request({
      method: 'POST',
      url: '/clicks/record',
      remoteAddress: ip,
      headers: { host: 'site.test', 'user-agent': BROWSER, 'content-type': 'application/json' },
      payload: JSON.stringify({ type: 'post', id: postId, kind: 'view' }),
    });
    assert.deepEqual(asJson.json(), { status: 'success', recorded: true });
  });

  it('CSRF: a beacon from another site is refused (403) and not counted', async () => {
    const before = (await clicks('post', postId)).length;
    const fromOrigin = await record(
      { type: 'post', id: String(postId) },
      { origin: 'https://evil.test', 'sec-fetch-site': '' },
    );
    assert.equal(fromOrigin.statusCode, 403);
    const fetchSite = await record(
      { type: 'post', id: String(postId) },
      { 'sec-fetch-site': 'cross-site', origin: '' },
    );
    assert.equal(fetchSite.statusCode, 403);
    assert.equal(fetchSite.json().status, 'fail');
    assert.equal((await clicks('post', postId)).length, before);
  });

  it('rate limit: more than clicks_per_minute from one address get 429 with Retry-After', async () => {
    await ctx.services.settings.set('clicks_per_minute', '3');
    try {
      for (let i = 0; i < 3; i++) {
        assert.equal((await record({ type: 'post', id: String(postId) })).statusCode, 200);
      }
      const limited = await record({ type: 'post', id: String(postId) });
      assert.equal(limited.statusCode, 429);
      assert.ok(Number(limited.headers['retry-after']) >= 1);
      assert.equal((await record({ type: 'post', id: String(postId) }, {}, '192.0.2.200')).statusCode, 200);
    } finally {
      await ctx.services.settings.delete('clicks_per_minute');
    }
  });

  it('GET is not a way to count', async () => {
    const response = await ctx.request({
      method: 'GET',
      url: '/clicks/record',
      headers: { host: 'site.test' },
    });
    assert.equal(response.statusCode, 404);
  });
});
