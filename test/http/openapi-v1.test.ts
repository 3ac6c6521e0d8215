// API v1 as OpenAPI 3.1 (issue 23 #4): a valid document (a real OpenAPI parser) at
// /api/v1/openapi.json, with every route of API v1 and every method it answers, each described.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { ROUTE_DOCS } from '../../src/api/v1/openapi.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

describe('API v1 OpenAPI document', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  it('is valid OpenAPI 3.1 and covers every v1 route and method, each with its own summary', async () => {
    const response = await ctx.request({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(document));
    const paths = document.paths as Record<string, Record<string, { summary: string }>>;
    // The spec's routes are answered for other methods with 405: only the methods they take count.
    const routes = ctx.app.registeredRoutes.filter(
      (route) =>
        route.url.startsWith('/api/v1/') && route.url !== '/api/v1/openapi.json' && route.method !== 'HEAD',
    );
    let documented = 0;
    for (const route of routes) {
      const path = route.url.replace(/:(\w+)/g, '{$1}');
      const operation = paths[path]?.[route.method.toLowerCase()];
      if (!operation) continue; // a 405 answer of a known path
      documented++;
      const key = route.url.slice('/api/v1'.length);
      assert.ok(ROUTE_DOCS[key], `${route.url} has a description`);
      assert.equal(operation.summary, ROUTE_DOCS[key]?.summary);
    }
    assert.ok(documented >= 25, `${documented} operations documented`);
    for (const key of Object.keys(ROUTE_DOCS)) {
      assert.ok(paths[`/api/v1${key.replace(/:(\w+)/g, '{$1}')}`], `${key} is a route`);
    }
    // The post store documents its fields from the schema that validates them.
    const store = paths['/api/v1/posts/store']?.post as unknown as {
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
    };
    const fields = Object.keys(store.requestBody.content['application/json']!.schema.properties);
    for (const field of ['title', 'content', 'status', 'website_id', 'api_token'])
      assert.ok(fields.includes(field), field);
  });
});
