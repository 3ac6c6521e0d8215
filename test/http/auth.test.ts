// Switches, authentication modes and the admin role (spec section 5, R-A1..R-A8), through the real app.
import { faceServices } from '../../src/services.js';
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ApiRouter } from '../../src/api/v1/router.js';
import { success } from '../../src/api/v1/envelope.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';

const DISABLED = { status: 403, message: 'API access is disabled' };
const INVALID_TOKEN = { status: 'fail', message: 'Invalid token' };
const ADMIN_REQUIRED = { status: 'fail', message: 'Admin access required' };

describe('API switches and authentication', () => {
  let ctx: TestContext;
  let user: TestUser;
  let admin: TestUser;

  before(async () => {
    ctx = await createTestContext({
      // Endpoints that exist only for this test: an admin-only one and one that always needs a user.
      extend: async (app, services) => {
        await app.register(
          async (api) => {
            const router = new ApiRouter(api, faceServices(services));
            router.route(['POST'], '/test/admin', { switchKey: null, adminOnly: true }, async (request) =>
              success('admin ok', { id: request.apiUser?.id ?? null }),
            );
            router.route(
              ['POST'],
              '/test/user',
              { switchKey: 'svc_api_test', userRequired: true },
              async (request) => success('user ok', { id: request.apiUser?.id ?? null }),
            );
            router.finish();
          },
          { prefix: '/api/v1' },
        );
      },
    });
    user = await ctx.createUser();
    admin = await ctx.createUser({ admin: true });
  });
  after(() => ctx.close());
  beforeEach(async () => {
    await ctx.services.database.db.deleteFrom('settings').execute();
    await ctx.enableApi(); // a write through the service also drops its snapshot
    await ctx.services.settings.set('svc_api_test', '1');
  });

  const listPosts = (token?: string) =>
    ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      payload: token === undefined ? {} : { api_token: token },
    });

  it('R-A2: an endpoint switch that was never set is off', async () => {
    await ctx.services.settings.delete('svc_api_posts_index');
    const response = await listPosts(user.token);
    assert.equal(response.statusCode, 403);
    assert.deepEqual(response.json(), DISABLED);
  });

  it('R-A2: a switched-off endpoint gives 403 with a numeric status', async () => {
    await ctx.services.settings.set('svc_api_posts_index', 'off');
    const response = await listPosts(user.token);
    assert.equal(response.statusCode, 403);
    assert.equal(response.body, '{"status":403,"message":"API access is disabled"}');
  });

  it('R-A2: the global switch is on until set, and turns every endpoint off', async () => {
    await ctx.services.settings.delete('enable_api_access');
    assert.equal((await listPosts(user.token)).statusCode, 200);
    await ctx.services.settings.set('enable_api_access', 'false');
    const response = await listPosts(user.token);
    assert.equal(response.statusCode, 403);
    assert.deepEqual(response.json(), DISABLED);
    const adminOnly = await ctx.request({
      method: 'POST',
      url: '/api/v1/test/admin',
      payload: { api_token: admin.token },
    });
    assert.deepEqual([adminOnly.statusCode, adminOnly.json()], [403, DISABLED]);
  });

  it('R-A7: a disabled switch answers before authentication', async () => {
    await ctx.services.settings.set('svc_api_posts_index', '0');
    const response = await listPosts('not a token');
    assert.deepEqual([response.statusCode, response.json()], [403, DISABLED]);
  });

  it('R-A3, R-A6: simple mode is the default; a missing or unknown token is 401', async () => {
    for (const token of [undefined, '', 'folio_unknown']) {
      const response = await listPosts(token);
      assert.equal(response.statusCode, 401, `token ${String(token)}`);
      assert.equal(response.body, '{"status":"fail","message":"Invalid token"}');
    }
  });

  it('R-A5: the token is read from the JSON body, a form field, the query string, or a Bearer header', async () => {
    const fromBody = await listPosts(user.token);
    assert.equal(fromBody.statusCode, 200);
    const fromForm = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `api_token=${encodeURIComponent(user.token)}`,
    });
    assert.equal(fromForm.statusCode, 200);
    const fromQuery = await ctx.request({
      method: 'GET',
      url: `/api/v1/posts?api_token=${encodeURIComponent(user.token)}`,
    });
    assert.equal(fromQuery.statusCode, 200);
    const fromHeader = await ctx.request({
      method: 'GET',
      url: '/api/v1/posts',
      headers: { authorization: `Bearer ${user.token}` },
    });
    assert.equal(fromHeader.statusCode, 200);
  });

  it('R-A6: the token of a disabled user is refused like an unknown one', async () => {
    const disabled = await ctx.createUser();
    await ctx.services.users.setActive(disabled.id, false);
    const response = await listPosts(disabled.token);
    assert.deepEqual([response.statusCode, response.json()], [401, INVALID_TOKEN]);
  });

  it('R-A6: a replaced (revoked) token is refused', async () => {
    const rotated = await ctx.createUser();
    await ctx.services.users.issueToken(rotated.id);
    assert.equal((await listPosts(rotated.token)).statusCode, 401);
  });

  it('R-A3: mode none makes the endpoint public', async () => {
    await ctx.services.settings.set('svc_api_posts_index_should_auth', 'none');
    assert.equal((await listPosts()).statusCode, 200);
    assert.equal((await ctx.request({ method: 'GET', url: '/api/v1/posts' })).statusCode, 200);
    // A bad token on a public endpoint is simply not used.
    assert.equal((await listPosts('folio_unknown')).statusCode, 200);
  });

  it('R-A3: mode basic takes email and password, and nothing else', async () => {
    await ctx.services.settings.set('svc_api_posts_index_should_auth', 'basic');
    const basic = (email: string, password: string) =>
      ctx.request({
        method: 'GET',
        url: '/api/v1/posts',
        headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
      });
    assert.equal((await basic(user.email, user.password)).statusCode, 200);
    const wrong = await basic(user.email, 'wrong password');
    assert.deepEqual([wrong.statusCode, wrong.json()], [401, INVALID_TOKEN]);
    assert.equal((await basic('nobody@example.test', user.password)).statusCode, 401);
    assert.equal((await listPosts(user.token)).statusCode, 401);
    const garbage = await ctx.request({
      method: 'GET',
      url: '/api/v1/posts',
      headers: { authorization: 'Basic %%%' },
    });
    assert.equal(garbage.statusCode, 401);
  });

  it('issue 21 #2: Basic attempts count against the login limits (per account, shared with the form)', async () => {
    await ctx.services.settings.set('svc_api_posts_index_should_auth', 'basic');
    const target = await ctx.createUser();
    const basic = (password: string, address: string) =>
      ctx.request({
        method: 'GET',
        url: '/api/v1/posts',
        remoteAddress: address,
        headers: { authorization: `Basic ${Buffer.from(`${target.email}:${password}`).toString('base64')}` },
      });
    const { max } = ctx.services.throttle.limits.loginPerAccount;
    for (let i = 0; i < max; i++) assert.equal((await basic('wrong', '10.7.0.1')).statusCode, 401);
    // Past the account's limit from this address even the right password waits there; another
    // address is not locked out (issue 21 #7).
    assert.equal((await basic(target.password, '10.7.0.2')).statusCode, 200);
    const refused = await basic(target.password, '10.7.0.1');
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.deepEqual(
      { code: refused.json().code, status: refused.json().status },
      { code: 429, status: 'fail' },
    );
    assert.match(refused.json().message, /^Too many login attempts\. Please try again in \d+ minutes?\.$/);
  });

  it('R-A3: an unknown mode counts as simple', async () => {
    await ctx.services.settings.set('svc_api_posts_index_should_auth', 'whatever');
    assert.equal((await listPosts()).statusCode, 401);
    assert.equal((await listPosts(user.token)).statusCode, 200);
  });

  it('R-A4: an endpoint that always needs a user ignores mode none', async () => {
    await ctx.services.settings.set('svc_api_test_should_auth', 'none');
    const anonymous = await ctx.request({ method: 'POST', url: '/api/v1/test/user', payload: {} });
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [401, INVALID_TOKEN]);
    const known = await ctx.request({
      method: 'POST',
      url: '/api/v1/test/user',
      payload: { api_token: user.token },
    });
    assert.equal(known.statusCode, 200);
    assert.deepEqual(known.json().data, { id: user.id });
  });

  it('R-A7: admin-only endpoints check the token first (401), then the role (403)', async () => {
    const anonymous = await ctx.request({ method: 'POST', url: '/api/v1/test/admin', payload: {} });
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [401, INVALID_TOKEN]);
    const nonAdmin = await ctx.request({
      method: 'POST',
      url: '/api/v1/test/admin',
      payload: { api_token: user.token },
    });
    assert.equal(nonAdmin.statusCode, 403);
    assert.equal(nonAdmin.body, '{"status":"fail","message":"Admin access required"}');
    assert.deepEqual(nonAdmin.json(), ADMIN_REQUIRED);
    const ok = await ctx.request({
      method: 'POST',
      url: '/api/v1/test/admin',
      payload: { api_token: admin.token },
    });
    assert.equal(ok.statusCode, 200);
    assert.deepEqual(ok.json(), {
      code: 200,
      status: 'success',
      message: 'admin ok',
      data: { id: admin.id },
      extra: [],
    });
  });

  it('a settings change takes effect on the next request', async () => {
    assert.equal((await listPosts(user.token)).statusCode, 200);
    await ctx.services.settings.set('svc_api_posts_index', 'no');
    assert.equal((await listPosts(user.token)).statusCode, 403);
    await ctx.services.settings.set('svc_api_posts_index', 'yes');
    assert.equal((await listPosts(user.token)).statusCode, 200);
  });
});
