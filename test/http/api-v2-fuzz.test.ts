// What an API v2 client that sends nonsense meets (issue 23 "Bad input and edges"): every route of
// the published OpenAPI document, called by an administrator with hostile ids in its path, broken
// and mistyped bodies and mistyped query parameters, answers a 4xx problem (never a 500, never
// another shape), and nothing the calls name exists afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

interface Operation {
  method: string;
  path: string;
  parameters?: Array<{ name: string; in: string; schema?: { type?: string } }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
}

/** Ids no resource has, or that no column can hold, or that are no number at all. */
const HOSTILE_IDS = ['999999999', '0', '-1', '9223372036854775808', 'abc', '1.5', '%00', '1e3', "1'--"];
/** A value of the wrong type for a field of this type. */
function wrongValueFor(schema: JsonSchema | undefined): unknown[] {
  const type = Array.isArray(schema?.type) ? schema?.type[0] : schema?.type;
  switch (type) {
    case 'string':
      return [12345, { nested: true }, 'x'.repeat(100_000)];
    case 'integer':
    case 'number':
      return ['not a number', 1.5, -1, 2 ** 63, { nested: true }];
    case 'boolean':
      return ['yes please', 7];
    case 'array':
      return ['not a list', [{ deep: [[[]]] }], Array.from({ length: 5000 }, (_, i) => i)];
    case 'object':
      return ['not an object', [1, 2]];
    default:
      return [{ unexpected: true }, null];
  }
}
/** Routes that act on the machine rather than on data: fuzzing them proves nothing and costs much. */
const SKIPPED = new Set(['POST /api/v2/updates', 'POST /api/v2/session', 'DELETE /api/v2/session']);

describe('API v2: every documented route answers hostile input with a 4xx problem', () => {
  let ctx: TestContext;
  let admin: TestUser;
  let operations: Operation[];

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    admin = await ctx.createUser({ admin: true });
    await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    const document = (await ctx.request({ method: 'GET', url: '/api/v2/openapi.json' })).json<{
      paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
    }>();
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => ({ ...operation, method: method.toUpperCase(), path })),
    );
  });
  after(() => ctx.close());

  const send = (method: string, url: string, payload?: string, contentType = 'application/json') =>
    ctx.request({
      method: method,
      url,
      headers: {
        host: 'site.test',
        authorization: `Bearer ${admin.token}`,
        ...(payload === undefined ? {} : { 'content-type': contentType }),
      },
      ...(payload === undefined ? {} : { payload }),
    });
  const failures: string[] = [];
  let checked = 0;
  const check = (label: string, response: LightMyRequestResponse) => {
    checked += 1;
    const type = String(response.headers['content-type'] ?? '');
    if (response.statusCode >= 500)
      failures.push(`${label}: ${response.statusCode} ${response.body.slice(0, 200)}`);
    else if (response.statusCode >= 400 && !type.startsWith('application/problem+json'))
      failures.push(`${label}: ${response.statusCode} answered as ${type}`);
  };
  /** A route's path with each `{param}` replaced by `id` (or by 1 where `id` is null). */
  const pathWith = (path: string, id: string | null) =>
    path.replace(/\{[^}]+\}/g, () => (id === null ? '1' : encodeURIComponent(id).replace('%2500', '%00')));

  it('the document lists the routes (the fuzzing below reaches them all)', () => {
    assert.ok(operations.length >= 60, `only ${operations.length} operations`);
  });

  it('hostile ids in the path: 4xx problems', async () => {
    for (const operation of operations) {
      if (SKIPPED.has(`${operation.method} ${operation.path}`) || !operation.path.includes('{')) continue;
      for (const id of HOSTILE_IDS) {
        const body = ['POST', 'PUT', 'PATCH'].includes(operation.method) ? '{}' : undefined;
        const url = pathWith(operation.path, id);
        check(`${operation.method} ${url}`, await send(operation.method, url, body));
      }
    }
    assert.deepEqual(failures.splice(0), []);
    assert.ok(checked > 200, `only ${checked} calls`);
  });

  it('broken bodies (not JSON, not an object, another content type, unknown and mistyped fields): 4xx problems', async () => {
    for (const operation of operations) {
      const key = `${operation.method} ${operation.path}`;
      if (SKIPPED.has(key) || !['POST', 'PUT', 'PATCH'].includes(operation.method)) continue;
      // The path's ids are unknown ones: a body that passed its checks would still find nothing.
      const url = pathWith(operation.path, '999999999');
      for (const payload of ['{"title": ', '[1,2,3]', '"text"', 'null', '{"__proto__": {"x": 1}}']) {
        check(`${key} ${payload}`, await send(operation.method, url, payload));
      }
      check(`${key} as text/plain`, await send(operation.method, url, 'hello', 'text/plain'));
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      for (const [field, fieldSchema] of Object.entries(schema?.properties ?? {})) {
        for (const value of wrongValueFor(fieldSchema)) {
          const label = `${key} ${field}=${JSON.stringify(value).slice(0, 40)}`;
          check(label, await send(operation.method, url, JSON.stringify({ [field]: value })));
        }
      }
    }
    assert.deepEqual(failures.splice(0), []);
  });

  it('mistyped, repeated and unknown query parameters on every read: 4xx problems or a normal answer', async () => {
    for (const operation of operations) {
      const key = `${operation.method} ${operation.path}`;
      if (SKIPPED.has(key) || operation.method !== 'GET') continue;
      const url = pathWith(operation.path, null);
      const queries = [
        'colour=red',
        'page=-1',
        'per_page=abc',
        'page=1&page=2',
        'filter=x',
        'filter[x][y]=1',
      ];
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'query') continue;
        const name = parameter.name.replace(/\[/g, '%5B').replace(/\]/g, '%5D');
        queries.push(`${name}=%00`, `${name}=${'z'.repeat(5000)}`, `${name}[]=1`);
      }
      for (const query of queries) check(`GET ${url}?${query}`, await send('GET', `${url}?${query}`));
    }
    assert.deepEqual(failures.splice(0), []);
  });
});
