// @fastify/compress's hook runs only when it can compress (issue 42): answers stay what they were —
// JSON and pages compressed for a client that accepts an encoding, small bodies and clients that
// accept none answered as they are, with the same bytes.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { nothingToCompress } from '../../src/http/compression.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

describe('compression only where it can happen', () => {
  let ctx: TestContext;
  let token = '';
  const get = (url: string, headers: Record<string, string> = {}) =>
    ctx.request({
      method: 'GET',
      url,
      headers: { host: 'site.test', authorization: `Bearer ${token}`, ...headers },
    });

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.enableApi();
    await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    token = (await ctx.createUser({ admin: true })).token;
    for (let k = 0; k < 20; k++) {
      await insertPost(ctx.services.database.db, { title: `Post number ${k} about compression` });
    }
  });
  after(() => ctx.close());

  it('compresses a large JSON answer and a page for a client that accepts gzip, and only then', async () => {
    for (const url of ['/api/v1/posts', '/']) {
      const plain = await get(url);
      assert.equal(plain.statusCode, 200, url);
      assert.equal(plain.headers['content-encoding'], undefined, url);
      assert.ok(plain.rawPayload.length >= 1024, `${url} is above the threshold`);
      const gzipped = await get(url, { 'accept-encoding': 'gzip' });
      assert.equal(gzipped.headers['content-encoding'], 'gzip', url);
      assert.match(String(gzipped.headers.vary), /accept-encoding/i, url);
      const body = zlib.gunzipSync(gzipped.rawPayload).toString('utf8');
      // The page carries per-request nonces; the API list is the same bytes.
      if (url.startsWith('/api/')) assert.equal(body, plain.body, url);
      else assert.match(body, /<html/);
    }
  });

  it('answers a small body as it is, whatever the client accepts', async () => {
    const small = await get('/healthz', { 'accept-encoding': 'gzip, br' });
    assert.equal(small.statusCode, 200);
    assert.equal(small.headers['content-encoding'], undefined);
    assert.deepEqual(JSON.parse(small.body), { status: 'ok', database: 'ok' });
  });

  it('leaves streams and unknown payloads to the plugin', () => {
    const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;
    const big = 'x'.repeat(2000);
    assert.equal(nothingToCompress(request({}), big), true);
    assert.equal(nothingToCompress(request({ 'accept-encoding': 'gzip' }), big), false);
    assert.equal(nothingToCompress(request({ 'accept-encoding': 'gzip' }), 'x'.repeat(100)), true);
    // 400 characters of three bytes each: 1,200 bytes, above the threshold.
    assert.equal(nothingToCompress(request({ 'accept-encoding': 'gzip' }), '€'.repeat(400)), false);
    assert.equal(nothingToCompress(request({ 'accept-encoding': 'gzip' }), Buffer.alloc(2000)), false);
    assert.equal(nothingToCompress(request({}), { pipe() {} }), false);
    assert.equal(nothingToCompress(request({ 'accept-encoding': 'gzip' }), null), true);
  });
});
