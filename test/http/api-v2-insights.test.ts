// The dashboard's reads through API v2 (issue 25 #1): a website's views and clicks per day and its
// top posts, counted on the website the visitor saw them on (a post shown on every website counts
// on each separately), and the installation's health for administrators only. Who may read what:
// contributors and above read their website's statistics, a writer of another website gets 404, a
// reader 403; only administrators read the health.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import type { PackageManager } from '../../src/domain/system/updates.js';
import { UpdateStepError } from '../../src/domain/system/updates.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

const DAY = 24 * 60 * 60 * 1000;
const BROWSER =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

describe('API v2 insights: statistics and health', () => {
  let ctx: TestContext;
  const clock = manualClock(new Date('2026-03-10T12:00:00.000Z'));
  let latest: string | null = '9.0.0';
  const packageManager: PackageManager = {
    install: () => Promise.reject(new UpdateStepError('not in this test')),
    publishAssets: () => Promise.reject(new UpdateStepError('not in this test')),
    installedVersion: () => Promise.reject(new UpdateStepError('not in this test')),
    latestVersion: () => Promise.resolve(latest),
  };
  let site: number;
  let other: number;
  let admin: TestUser;
  let siteAdmin: TestUser;
  let author: TestUser;
  let reader: TestUser;
  let otherAdmin: TestUser;
  let popular: number;
  let quiet: number;
  let everywhere: number;
  let link: number;

  const call = (url: string, as: TestUser | null, host = 'site.test') =>
    ctx.request({
      method: 'GET',
      url: `/api/v2${url}`,
      headers: { host, ...(as ? { authorization: `Bearer ${as.token}` } : {}) },
    });
  const problem = (response: LightMyRequestResponse, status: number) => {
    assert.equal(response.statusCode, status, response.body);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    return response.json<{ status: number; errors?: Record<string, string[]> }>();
  };
  const view = (
    id: number,
    websiteId: number,
    kind: 'view' | 'click' = 'view',
    type: 'post' | 'link' = 'post',
  ) => ctx.services.clicks.record({ type, id, kind, userId: null, visitorHash: 'v'.repeat(64), websiteId });

  before(async () => {
    ctx = await createTestContext({ clock, packageManager });
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    admin = await ctx.createUser({ admin: true });
    siteAdmin = await ctx.createUser();
    author = await ctx.createUser();
    reader = await ctx.createUser();
    otherAdmin = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    await ctx.services.memberships.grant(author.id, site, 'author');
    await ctx.services.memberships.grant(reader.id, site, 'reader');
    await ctx.services.memberships.grant(otherAdmin.id, other, 'site_admin');
    const { db } = ctx.services.database;
    const create = async (title: string, websiteIds: number[]) => {
      const id = await insertPost(db, { title });
      for (const websiteId of websiteIds) {
        await db
          .insertInto('website_bindings')
          .values({ website_id: websiteId, model_type: 'post', model_id: id })
          .execute();
      }
      return id;
    };
    popular = await create('Popular', [site]);
    quiet = await create('Quiet', [site]);
    everywhere = await create('Everywhere', []);
    link = (await ctx.services.links.create({ name: 'Folio', url: 'https://folio.example/' })).id;

    // Two days ago: 2 views of Popular; yesterday: 1; today: 3 of Popular, 1 of Quiet, 2 clicks.
    clock.advance(-2 * DAY);
    for (let n = 0; n < 2; n++) assert.equal(await view(popular, site), 'recorded');
    clock.advance(DAY);
    await view(popular, site);
    clock.advance(DAY);
    for (let n = 0; n < 3; n++) await view(popular, site);
    await view(quiet, site);
    await view(link, site, 'click', 'link');
    await view(link, site, 'click', 'link');
    // The all-sites post: 4 views on the other website, 1 here.
    for (let n = 0; n < 4; n++) await view(everywhere, other);
    await view(everywhere, site);
    // 31 days ago: outside the 30 days.
    clock.advance(-31 * DAY);
    await view(quiet, site);
    await view(quiet, site);
    clock.advance(31 * DAY);
  });
  after(() => ctx.close());

  it('counts a website\u2019s views and clicks per day, today last, and ranks its posts by views', async () => {
    const response = await call('/stats?days=30', siteAdmin);
    assert.equal(response.statusCode, 200, response.body);
    const stats = response.json().data as {
      website_id: number;
      days: { date: string; views: number; clicks: number }[];
      totals: { views: number; clicks: number };
      top_posts: { id: number; title: string; views: number }[];
    };
    assert.equal(stats.website_id, site);
    assert.equal(stats.days.length, 30);
    assert.equal(stats.days.at(-1)?.date, '2026-03-10');
    assert.equal(stats.days[0]?.date, '2026-02-09');
    assert.deepEqual(stats.days.slice(-3), [
      { date: '2026-03-08', views: 2, clicks: 0 },
      { date: '2026-03-09', views: 1, clicks: 0 },
      { date: '2026-03-10', views: 5, clicks: 2 },
    ]);
    assert.deepEqual(stats.totals, { views: 8, clicks: 2 });
    assert.deepEqual(
      stats.top_posts.map((post) => [post.id, post.views]),
      [
        [popular, 6],
        [everywhere, 1], // ties: the newest post first
        [quiet, 1],
      ],
    );
    // The other website counts its own views of the all-sites post.
    const elsewhere = (await call('/stats', otherAdmin, 'other.test')).json().data;
    assert.deepEqual(
      elsewhere.top_posts.map((post: { id: number; views: number }) => [post.id, post.views]),
      [[everywhere, 4]],
    );
    // A shorter period.
    const week = (await call('/stats?days=2', author)).json().data;
    assert.deepEqual(week.totals, { views: 6, clicks: 2 });
  });

  it('a view counted through the public beacon is counted on the website of its Host', async () => {
    const before = (await call('/stats?days=1', admin, 'other.test')).json().data.totals.views as number;
    const beacon = await ctx.request({
      method: 'POST',
      url: '/clicks/record',
      remoteAddress: '203.0.113.9',
      headers: {
        host: 'other.test',
        origin: 'http://other.test',
        'sec-fetch-site': 'same-origin',
        'user-agent': BROWSER,
        'content-type': 'application/x-www-form-urlencoded;charset=UTF-8',
      },
      payload: new URLSearchParams({ type: 'post', id: String(everywhere), kind: 'view' }).toString(),
    });
    assert.ok(beacon.statusCode < 300, beacon.body);
    const afterward = (await call('/stats?days=1', admin, 'other.test')).json().data.totals.views;
    assert.equal(afterward, before + 1);
    assert.equal((await call('/stats?days=1', admin)).json().data.totals.views, 5);
  });

  it('another website\u2019s statistics are not found for its outsiders; a reader is refused; bad input is a problem', async () => {
    problem(await call(`/stats?website_id=${other}`, siteAdmin), 404);
    problem(await call('/stats', siteAdmin, 'other.test'), 404);
    problem(await call(`/stats?website_id=${site}`, otherAdmin, 'other.test'), 404);
    problem(await call('/stats', reader), 403);
    problem(await call('/stats', null), 401);
    assert.equal((await call(`/stats?website_id=${other}`, admin)).statusCode, 200);
    const bad = problem(await call('/stats?days=0', admin), 422);
    assert.ok(bad.errors?.days, JSON.stringify(bad));
    problem(await call('/stats?days=91', admin), 422);
    problem(await call('/stats?days=abc', admin), 422);
    problem(await call('/stats?colour=red', admin), 422);
  });

  it('the health of the installation, for administrators only', async () => {
    const response = await call('/system/health', admin);
    assert.equal(response.statusCode, 200, response.body);
    const health = response.json().data;
    assert.equal(health.database.ok, true);
    assert.equal(health.database.dialect, ctx.services.database.dialect);
    assert.equal(typeof health.database.latency_ms, 'number');
    assert.equal(health.cache.ok, true);
    assert.ok(['redis', 'memory'].includes(health.cache.kind));
    assert.ok(health.disk.length >= 1);
    for (const disk of health.disk) {
      assert.ok(disk.total_bytes > 0 && disk.free_bytes >= 0 && disk.free_bytes <= disk.total_bytes);
    }
    assert.equal(health.version, '0.1.0');
    assert.equal(health.latest_version, '9.0.0');
    assert.equal(health.update_available, true);

    for (const who of [siteAdmin, author, otherAdmin]) problem(await call('/system/health', who), 403);
    problem(await call('/system/health', null), 401);
  });

  it('no update is offered when the registry has nothing newer, and none is looked for when updates are disabled', async () => {
    // The registry's answer is kept for hours: a later clock asks again.
    latest = '0.1.0';
    clock.advance(7 * 60 * 60 * 1000);
    let health = (await call('/system/health', admin)).json().data;
    assert.equal(health.update_available, false);
    await ctx.services.settings.set('disable_core_update', '1');
    health = (await call('/system/health', admin)).json().data;
    assert.equal(health.latest_version, null);
    assert.equal(health.update_available, null);
    await ctx.services.settings.delete('disable_core_update');
    clock.advance(-7 * 60 * 60 * 1000);
  });
});
