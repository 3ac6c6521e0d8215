// API keys with scopes (issue 20): a key works wherever a token works (body, query, Bearer), never
// grants more than its user holds, a read-only key calls reads only, a key limited to websites is
// refused elsewhere (403 `This action is unauthorized.`), and a revoked or expired key is an unknown
// token (401).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const UNAUTHORIZED = {
  code: 403,
  status: 'fail',
  message: 'This action is unauthorized.',
  data: [],
  extra: [],
};
const INVALID_TOKEN = { status: 'fail', message: 'Invalid token' };

describe('API keys (issue 20)', () => {
  let ctx: TestContext;
  let writer: TestUser;
  let admin: TestUser;
  let site1: number;
  let site2: number;

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    admin = await ctx.createUser({ admin: true });
    writer = await ctx.createUser();
    site1 = await websiteWrites(ctx.services).create({
      siteName: 'One',
      domain: 'one.test',
      userId: writer.id,
    });
    site2 = await websiteWrites(ctx.services).create({
      siteName: 'Two',
      domain: 'two.test',
      userId: writer.id,
    });
  });
  after(() => ctx.close());

  const call = async (
    url: string,
    secret: string,
    payload: Record<string, unknown> = {},
    host = 'one.test',
  ) => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1${url}`,
      headers: { host, authorization: `Bearer ${secret}` },
      payload,
    });
    return { status: response.statusCode, body: response.json() };
  };
  const keyFor = async (
    user: TestUser,
    options: { websiteIds?: number[]; readOnly?: boolean; expiresAt?: Date } = {},
  ) => (await ctx.services.apiKeys.create(user.id, { name: 'test key', ...options })).secret;

  it('issue 34 #13: at most 50 keys in use per user; a revoked or expired one frees its place (422 with a clear message)', async () => {
    const owner = await ctx.createUser();
    const created: number[] = [];
    for (let i = 0; i < 49; i++)
      created.push((await ctx.services.apiKeys.create(owner.id, { name: `k${i}` })).key.id);
    // An expired key does not hold a place.
    await ctx.services.apiKeys.create(owner.id, { name: 'soon', expiresAt: new Date(Date.now() + 60_000) });
    const v2 = (name: string) =>
      ctx.request({
        method: 'POST',
        url: '/api/v2/keys',
        headers: { host: 'one.test', authorization: `Bearer ${owner.token}` },
        payload: { name },
      });
    // 50 in use now (49 + the one expiring in a minute): the 51st is refused with a clear message.
    const refused = await v2('one too many');
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(refused.body, /50 API keys in use, the most one account may hold/);
    await ctx.services.apiKeys.revoke(owner.id, created[0]!);
    assert.equal((await v2('after a revoke')).statusCode, 201);
    assert.equal((await v2('full again')).statusCode, 422);
    await ctx.services.database.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('name', '=', 'soon')
      .where('user_id', '=', owner.id)
      .execute();
    assert.equal((await v2('after an expiry')).statusCode, 201);
  });

  it('a key works as its user, in the body and as a Bearer token', async () => {
    const secret = await keyFor(writer);
    assert.equal((await call('/posts', secret)).status, 200);
    const inBody = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts/store',
      headers: { host: 'one.test' },
      payload: { api_token: secret, title: 'By key', content: 'x' },
    });
    assert.equal(inBody.statusCode, 200, inBody.body);
    const post = await ctx.services.posts.findDetail(inBody.json().data.id);
    assert.equal(post?.author?.id, writer.id);
  });

  it('a read-only key reads and never writes, even an administrator’s', async () => {
    const readOnly = await keyFor(writer, { readOnly: true });
    assert.equal((await call('/posts', readOnly)).status, 200);
    assert.deepEqual(await call('/posts/store', readOnly, { title: 'No', content: 'x' }), {
      status: 403,
      body: UNAUTHORIZED,
    });
    const adminReadOnly = await keyFor(admin, { readOnly: true });
    assert.equal((await call('/posts', adminReadOnly)).status, 200);
    assert.equal((await call('/posts/store', adminReadOnly, { title: 'No', content: 'x' })).status, 403);
    assert.equal((await call('/tags/store', adminReadOnly, { name: 'No' })).status, 403);
  });

  it('a key limited to a website writes there only, and is refused on another website', async () => {
    const limited = await keyFor(writer, { websiteIds: [site1] });
    assert.equal((await call('/posts/store', limited, { title: 'Here', content: 'x' })).status, 200);
    assert.deepEqual(await call('/posts', limited, {}, 'two.test'), { status: 403, body: UNAUTHORIZED });
    // The user may write to site 2, the key may not.
    assert.equal(
      (await call('/posts/store', limited, { title: 'There', content: 'x', website_id: site2 })).status,
      403,
    );
    const own = await keyFor(writer);
    assert.equal(
      (await call('/posts/store', own, { title: 'There', content: 'x', website_id: site2 })).status,
      200,
    );
    // An administrator's limited key cannot make an all-sites post either.
    const adminLimited = await keyFor(admin, { websiteIds: [site1] });
    assert.equal(
      (await call('/posts/store', adminLimited, { title: 'All', content: 'x', website_id: [] })).status,
      403,
    );
  });

  it('a revoked or expired key is an unknown token (401)', async () => {
    const { key, secret } = await ctx.services.apiKeys.create(writer.id, { name: 'soon revoked' });
    assert.equal((await call('/posts', secret)).status, 200);
    await ctx.services.apiKeys.revoke(writer.id, key.id);
    const revoked = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts/store',
      headers: { host: 'one.test', authorization: `Bearer ${secret}` },
      payload: { title: 'x', content: 'x' },
    });
    assert.deepEqual([revoked.statusCode, revoked.json()], [401, INVALID_TOKEN]);
    const soon = await ctx.services.apiKeys.create(writer.id, {
      name: 'soon expired',
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    await ctx.services.database.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', soon.key.id)
      .execute();
    const expired = soon.secret;
    const answer = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts/store',
      headers: { host: 'one.test', authorization: `Bearer ${expired}` },
      payload: { title: 'x', content: 'x' },
    });
    assert.equal(answer.statusCode, 401);
  });

  it('issue 20 #6: every post write records who (user, key), what, on which website, from where, and the field names only', async () => {
    const { key, secret } = await ctx.services.apiKeys.create(writer.id, { name: 'audited' });
    const created = await call('/posts/store', secret, { title: 'Audited', content: '<p>secret body</p>' });
    assert.equal(created.status, 200);
    const id = created.body.data.id as number;
    assert.equal((await call(`/posts/update/${id}`, secret, { title: 'Audited again' })).status, 200);
    assert.equal((await call(`/posts/delete/${id}`, secret)).status, 200);
    const entries = await ctx.services.audit.list({ resourceType: 'post', resourceId: String(id) });
    assert.deepEqual(
      entries.map((entry) => entry.action),
      ['post.delete', 'post.update', 'post.create'],
    );
    for (const entry of entries) {
      assert.equal(entry.userId, writer.id);
      assert.equal(entry.apiKeyId, key.id);
      assert.equal(entry.surface, 'api');
      assert.equal(entry.websiteId, site1);
      assert.ok(entry.requestId);
    }
    const create = entries.at(-1)!;
    assert.match(create.summary ?? '', /title/);
    assert.doesNotMatch(JSON.stringify(entries), /secret body|folio_key_/);
  });

  it('issue 20 #6: a tag write is recorded too', async () => {
    const secret = await keyFor(writer);
    const stored = await call('/tags/store', secret, { name: 'Audited tag', type: 'post_tag' });
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    const [entry] = await ctx.services.audit.list({ resourceType: 'tag' });
    assert.equal(entry?.action, 'tag.create');
    assert.equal(entry?.userId, writer.id);
    assert.equal(entry?.surface, 'api');
    assert.match(entry?.summary ?? '', /name/);
  });
});
