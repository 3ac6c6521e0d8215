// A website's `homepage` (spec: website field "homepage (identifier)"; issue 25 #6): a page's slug
// makes `/` show that page, the posts staying at `/blog`, and the page's own address redirects home.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { insertPost } from '../support/seed.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('a website whose home page is a page', () => {
  let ctx: TestContext;
  let admin: TestUser;
  let site: number;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.enableApi();
    admin = await ctx.createUser({ admin: true });
    site = await websiteWrites(ctx.services).create({ siteName: 'Harbour', domain: 'site.test' });
    await websiteWrites(ctx.services).update(site, { enabled_page_cache: true });
    await ctx.services.pages.create({
      title: 'Welcome aboard',
      slug: 'welcome',
      content: '<p>Ferries, tides and the fish market.</p>',
      status: 'published',
      websiteIds: [site],
    });
    await insertPost(ctx.services.database.db, { title: 'Tide tables', slug: 'tide-tables' });
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.request({ method: 'GET', url, headers: { host: 'site.test' } });
  const setHomepage = async (homepage: string | null) => {
    const response = await ctx.request({
      method: 'PATCH',
      url: `/api/v2/websites/${site}`,
      headers: { host: 'site.test', authorization: `Bearer ${admin.token}` },
      payload: { homepage },
    });
    assert.equal(response.statusCode, 200, response.body);
  };

  it('without one, / lists the posts; with one, / shows the page and the posts stay at /blog', async () => {
    assert.match((await get('/')).body, /Tide tables/);
    assert.equal((await get('/')).headers['x-folio-cache'], 'hit');

    await setHomepage('welcome');
    const home = await get('/');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /Ferries, tides and the fish market\./);
    assert.match(home.body, /<link rel="canonical" href="[^"]*\/"/);
    assert.match((await get('/blog')).body, /Tide tables/);

    const own = await get('/page/welcome');
    assert.equal(own.statusCode, 301);
    assert.equal(own.headers.location, '/');
  });

  it('a page that is gone or unpublished leaves the posts at /, and they come back when it does', async () => {
    await setHomepage('not-written-yet');
    assert.match((await get('/')).body, /Tide tables/);
    await ctx.services.pageOps.create(
      { userId: null, isAdmin: true, websiteId: null },
      {
        title: 'Written now',
        slug: 'not-written-yet',
        content: '<p>Here at last.</p>',
        status: 'published',
        website_ids: [site],
      },
    );
    // The page's creation flushes the cached home (it depended on the list of pages).
    assert.match((await get('/')).body, /Here at last\./);
  });

  it('clearing it brings the posts back at /', async () => {
    await setHomepage(null);
    const home = await get('/');
    assert.match(home.body, /Tide tables/);
    assert.equal((await get('/page/welcome')).statusCode, 200);
  });
});
