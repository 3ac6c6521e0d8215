// FOLIO_QUERY_COUNTER=1 (benchmarks): every response says how many SQL queries its request made.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrate } from '../../src/db/database.js';
import { QUERY_COUNT_HEADER, QueryCounter } from '../../src/http/query-counter.js';
import { createServices } from '../../src/services.js';
import type { Services } from '../../src/services.js';
import { createTestContext, createTestDatabase, testConfig } from '../support/harness.js';
import type { TestContext, TestDatabase } from '../support/harness.js';
import { insertPost } from '../support/seed.js';

describe('query counter', () => {
  let database: TestDatabase;
  let services: Services;
  let app: FastifyInstance;
  const counter = new QueryCounter();

  before(async () => {
    database = await createTestDatabase();
    services = createServices(testConfig(database.url), {
      pgSchema: database.pgSchema,
      cachePrefix: `folio-test:${randomBytes(6).toString('hex')}:`,
      warn: () => undefined,
      onQuery: counter.onQuery,
    });
    await migrate(services.database);
    await services.settings.setMany({ enable_api_access: '1', svc_api_posts_index: '1' });
    await services.settings.set('svc_api_posts_index_should_auth', 'none');
    for (let i = 0; i < 3; i++) await insertPost(services.database.db, { title: `Post ${i}` });
    app = await buildApp(services, { logger: false, queryCounter: counter });
  });

  after(async () => {
    await app.close();
    await services.close();
    await database.drop();
  });

  it('counts the queries of each request, in x-folio-queries', async () => {
    const health = await app.inject({ url: '/healthz' });
    assert.equal(health.headers[QUERY_COUNT_HEADER], '1');
    // A keyword search, never served from the cache: its queries are made on every request.
    await app.inject({ url: '/api/v1/posts?keywords=post' }); // warms the caches (settings)
    const before = counter.total;
    const list = await app.inject({ url: '/api/v1/posts?keywords=post' });
    assert.equal(list.statusCode, 200);
    const counted = Number(list.headers[QUERY_COUNT_HEADER]);
    // The total, the page of posts and their tags, at least; and exactly what the database saw.
    assert.ok(counted >= 2, `counted ${counted}`);
    assert.equal(counted, counter.total - before);
  });

  it('counts a POST request whose body is read first', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/posts',
      payload: { page: 1, keywords: 'post' },
    });
    assert.equal(response.statusCode, 200);
    assert.ok(Number(response.headers[QUERY_COUNT_HEADER]) >= 2);
  });
});

describe('query counter off (the default)', () => {
  let ctx: TestContext;
  before(async () => (ctx = await createTestContext()));
  after(() => ctx.close());

  it('adds no header', async () => {
    const response = await ctx.request({ url: '/healthz' });
    assert.equal(response.headers[QUERY_COUNT_HEADER], undefined);
  });

  it('is read from FOLIO_QUERY_COUNTER', () => {
    assert.equal(loadConfig({}).queryCounter, false);
    assert.equal(loadConfig({ FOLIO_QUERY_COUNTER: '1' }).queryCounter, true);
  });
});
