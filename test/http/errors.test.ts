// The envelope for failures: malformed JSON, oversized bodies, unknown routes, wrong methods and
// unexpected exceptions (spec 2.1 and section 7, R-G1..R-G4).
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';

const envelope = (code: number, message: string) => ({ code, status: 'fail', message, data: [], extra: [] });

describe('HTTP envelope and errors', () => {
  let ctx: TestContext;
  let user: TestUser;

  before(async () => {
    ctx = await createTestContext({
      config: { bodyLimit: 4096 },
    });
    await ctx.enableApi();
    user = await ctx.createUser();
  });
  after(() => ctx.close());

  /** A real API route whose service fails unexpectedly (the tag lookup of /tags/exist throws). */
  const explode = async (error: Error, send = (options: InjectOptions) => ctx.request(options)) => {
    const original = ctx.services.tags.existingIds.bind(ctx.services.tags);
    ctx.services.tags.existingIds = () => Promise.reject(error);
    try {
      return await send({
        method: 'POST',
        url: '/api/v1/tags/exist',
        payload: { api_token: user.token, tagIds: [1] },
      });
    } finally {
      ctx.services.tags.existingIds = original;
    }
  };

  it('R-G4: malformed JSON is 400 Invalid JSON body', async () => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { 'content-type': 'application/json' },
      payload: '{"api_token": ',
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), envelope(400, 'Invalid JSON body'));
  });

  it('R-G4: a JSON body that is not an object is 400', async () => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { 'content-type': 'application/json' },
      payload: '[1,2,3]',
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), envelope(400, 'The request body must be a JSON object'));
  });

  it('prototype poisoning in JSON is refused', async () => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { 'content-type': 'application/json' },
      payload: `{"api_token":"${user.token}","__proto__":{"isAdmin":true}}`,
    });
    assert.equal(response.statusCode, 400);
  });

  it('an empty JSON body is an empty object', async () => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}` },
      payload: '',
    });
    assert.equal(response.statusCode, 200);
  });

  it('R-G4: a body over the limit is 413 in the envelope', async () => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      payload: { api_token: user.token, keywords: 'x'.repeat(5000) },
    });
    assert.equal(response.statusCode, 413);
    assert.deepEqual(response.json(), envelope(413, 'Request body too large'));
  });

  it('an unsupported content type is 415 in the envelope', async () => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { 'content-type': 'application/x-unknown' },
      payload: 'x',
    });
    assert.equal(response.statusCode, 415);
    assert.deepEqual(response.json(), envelope(415, 'Unsupported media type'));
  });

  it('R-G4: an unknown /api/v1 path is 404 Not found in the envelope', async () => {
    for (const url of [
      '/api/v1/nothing-here',
      '/api/v1',
      '/api/v3/posts', // an API version that does not exist
      '/api/v1/posts/store/extra/segments',
    ]) {
      const response = await ctx.request({ method: 'POST', url, payload: { api_token: user.token } });
      assert.equal(response.statusCode, 404, url);
      assert.deepEqual(response.json(), envelope(404, 'Not found'), url);
    }
  });

  it('R-G4: a method the route does not accept is 405 with Allow', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH'] as const) {
      const response = await ctx.request({ method, url: '/api/v1/posts' });
      assert.equal(response.statusCode, 405);
      assert.deepEqual(response.json(), envelope(405, 'Method not allowed'));
      assert.equal(response.headers.allow, 'GET, POST, HEAD');
    }
  });

  it('R-G3: an unexpected exception is 500 with a request id, never the reason itself', async () => {
    const response = await explode(new Error('SELECT secret FROM users -- password=hunter2'));
    assert.equal(response.statusCode, 500);
    const requestId = response.headers['x-request-id'];
    assert.equal(typeof requestId, 'string');
    assert.deepEqual(
      response.json(),
      envelope(500, `Server Error: internal error, request ${String(requestId)}`),
    );
    assert.ok(!response.body.includes('hunter2'));
    assert.ok(!response.body.includes('SELECT'));
  });

  it('R-G1: the HTTP status equals the body code', async () => {
    const response = await ctx.request({
      method: 'GET',
      url: `/api/v1/posts?api_token=${user.token}&page=x`,
    });
    assert.equal(response.statusCode, 422);
    assert.equal(response.json().code, 422);
  });

  it('every response carries an x-request-id', async () => {
    const response = await ctx.request({ method: 'GET', url: '/api/v1/posts' });
    assert.match(String(response.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  it('/healthz checks the database', async () => {
    const response = await ctx.request({ method: 'GET', url: '/healthz' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok', database: 'ok' });
  });

  it('/readyz checks the database, Redis (when configured) and the media storage', async () => {
    const response = await ctx.request({ method: 'GET', url: '/readyz' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      status: 'ok',
      database: 'ok',
      redis: ctx.services.config.redisUrl ? 'ok' : 'none',
      storage: 'ok',
    });
  });

  it('logs never contain an api_token, and a 500 is logged with its request id', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const app = await buildApp(ctx.services, { logger: { level: 'info', stream } as never });
    await app.ready();
    await app.inject({ method: 'GET', url: `/api/v1/posts?api_token=${user.token}` });
    const failed = await explode(new Error('boom'), (options) => app.inject(options));
    await app.close();
    const log = lines.join('');
    assert.ok(log.includes('/api/v1/posts?api_token=[redacted]'));
    assert.ok(!log.includes(user.token));
    // One line per request, on completion, naming the request and its answer (issue 26 #6).
    const entries = lines.map(
      (line) =>
        JSON.parse(line) as {
          msg?: string;
          req?: { url?: string };
          res?: { statusCode?: number };
          responseTime?: number;
        },
    );
    assert.equal(entries.filter((entry) => entry.msg === 'incoming request').length, 0);
    const completed = entries.find((entry) => entry.msg === 'request completed');
    assert.equal(completed?.req?.url, '/api/v1/posts?api_token=[redacted]');
    assert.equal(typeof completed?.res?.statusCode, 'number');
    assert.equal(typeof completed?.responseTime, 'number');
    const errorLine = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((entry) => entry.level === 50);
    assert.equal(errorLine?.reqId, failed.headers['x-request-id']);
    assert.match(JSON.stringify(errorLine?.err), /boom/);
  });
});

describe('HTTP when the database is gone', () => {
  let ctx: TestContext;
  before(async () => (ctx = await createTestContext()));
  after(() => ctx.close());

  it('healthz says 503 and the API says 500 in the envelope, without details', async () => {
    await ctx.enableApi();
    const user = await ctx.createUser();
    await ctx.services.database.close();
    const health = await ctx.request({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 503);
    assert.deepEqual(health.json(), { status: 'fail', database: 'unavailable' });
    const ready = await ctx.request({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json().status, 'fail');
    assert.equal(ready.json().database, 'unavailable');
    assert.equal(ready.json().storage, 'ok');
    await ctx.services.settings.set('x', 'y').catch(() => undefined); // drop the snapshot
    const api = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      payload: { api_token: user.token },
    });
    assert.equal(api.statusCode, 500);
    assert.match(api.json().message, /^Server Error: internal error, request [0-9a-f-]{36}$/);
  });
});
