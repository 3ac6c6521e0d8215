// Pages API placeholders (spec 4.5, R-Pg1): POST only, no token, `{status, message}` only.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

const PLACEHOLDERS: [string, string][] = [
  ['/api/v1/pages', 'Successfully fetched page index'],
  ['/api/v1/pages/store', 'Successfully fetched page store'],
  ['/api/v1/pages/12', 'Successfully fetched page show'],
  ['/api/v1/pages/some-slug', 'Successfully fetched page show'],
];

describe('pages API placeholders (R-Pg1)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());
  beforeEach(async () => {
    await ctx.services.database.db.deleteFrom('settings').execute();
    await ctx.enableApi();
  });

  it('answer exactly {status, message} without a token, and with any token', async () => {
    for (const [url, message] of PLACEHOLDERS) {
      for (const payload of [undefined, {}, { api_token: 'not-a-token' }]) {
        const response = await ctx.request({ method: 'POST', url, payload });
        assert.equal(response.statusCode, 200, url);
        assert.equal(response.body, JSON.stringify({ status: 'success', message }), url);
      }
    }
  });

  it('are POST only: every other method is 405 in the envelope', async () => {
    for (const [url] of PLACEHOLDERS) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const response = await ctx.request({ method, url });
        assert.equal(response.statusCode, 405, `${method} ${url}`);
        assert.deepEqual(response.json(), {
          code: 405,
          status: 'fail',
          message: 'Method not allowed',
          data: [],
          extra: [],
        });
      }
    }
  });

  it('R-A2: have no switch of their own, but the global switch turns them off', async () => {
    await ctx.services.database.db.deleteFrom('settings').execute(); // every endpoint switch unset
    assert.equal((await ctx.request({ method: 'POST', url: '/api/v1/pages' })).statusCode, 200);
    await ctx.services.settings.set('enable_api_access', 'false');
    for (const [url] of PLACEHOLDERS) {
      const response = await ctx.request({ method: 'POST', url });
      assert.equal(response.statusCode, 403);
      assert.equal(response.body, '{"status":403,"message":"API access is disabled"}');
    }
  });

  it('perform no page management: nothing is created', async () => {
    await ctx.request({ method: 'POST', url: '/api/v1/pages/store', payload: { title: 'x', content: 'y' } });
    const rows = await ctx.services.database.db.selectFrom('pages').select('id').execute();
    assert.equal(rows.length, 0);
  });
});
