// Multi-site routing: every request finds its website by Host (primary or alias, port ignored),
// through the cache, which every website or domain change flushes.
import { faceServices } from '../../src/services.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { currentWebsiteId } from '../../src/http/website-context.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('host routing', () => {
  let ctx: TestContext;
  let main: number;
  let other: number;

  before(async () => {
    ctx = await createTestContext({
      extend: (app, services) => {
        app.get('/test/website', async (request: FastifyRequest) => ({
          website: await currentWebsiteId(faceServices(services), request),
        }));
      },
    });
    main = await websiteWrites(ctx.services).create({ siteName: 'Main', domain: 'main.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    await websiteWrites(ctx.services).addDomain(main, 'www.main.test');
  });
  after(() => ctx.close());

  const websiteFor = async (host: string) =>
    (await ctx.request({ method: 'GET', url: '/test/website', headers: { host } })).json().website as
      number | null;

  it('finds the website by primary domain, alias, any port and any case', async () => {
    assert.equal(await websiteFor('main.test'), main);
    assert.equal(await websiteFor('www.main.test'), main);
    assert.equal(await websiteFor('WWW.Main.Test:8080'), main);
    assert.equal(await websiteFor('other.test:443'), other);
  });

  it('an unknown host has no website', async () => {
    assert.equal(await websiteFor('nobody.test'), null);
    assert.equal(await websiteFor('[::1]:3000'), null);
  });

  it('a domain change is seen on the next request (the websites cache tag is flushed)', async () => {
    assert.equal(await websiteFor('moved.test'), null); // now cached as unknown
    await websiteWrites(ctx.services).addDomain(other, 'moved.test');
    assert.equal(await websiteFor('moved.test'), other);
    await websiteWrites(ctx.services).removeDomain(other, 'moved.test');
    assert.equal(await websiteFor('moved.test'), null);
    await websiteWrites(ctx.services).update(main, { domain: 'renamed-main.test' });
    assert.equal(await websiteFor('main.test'), null);
    assert.equal(await websiteFor('renamed-main.test'), main);
  });

  it('resolution is cached: no query for a host seen before', async () => {
    assert.equal(await websiteFor('other.test'), other);
    // Behind the cache's back: the cached answer stays until a change goes through the service.
    await ctx.services.database.db.deleteFrom('domains').where('domain', '=', 'other.test').execute();
    assert.equal(await websiteFor('other.test'), other);
    await ctx.services.cache.flushTags(['websites']);
    assert.equal(await websiteFor('other.test'), null);
  });

  it('an unknown host falls back to the website named by default_website_id', async () => {
    await ctx.services.settings.set('default_website_id', String(other));
    try {
      assert.equal(await websiteFor('elsewhere.test'), other);
      assert.equal(await websiteFor('www.main.test'), main);
    } finally {
      await ctx.services.settings.delete('default_website_id');
    }
  });

  it('a public page on an unknown host is a clear 404 page, with the host escaped', async () => {
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    const response = await ctx.request({ method: 'GET', url: '/', headers: { host: 'unknown.test' } });
    assert.equal(response.statusCode, 404);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /No website is configured for unknown\.test\./);
    const known = await ctx.request({
      method: 'GET',
      url: '/missing-page',
      headers: { host: 'www.main.test' },
    });
    assert.equal(known.statusCode, 404);
    assert.match(known.body, /Page not found/);
    const api = await ctx.request({
      method: 'GET',
      url: '/api/v1/unknown',
      headers: { host: 'unknown.test' },
    });
    assert.deepEqual(api.json(), { code: 404, status: 'fail', message: 'Not found', data: [], extra: [] });
  });
});
