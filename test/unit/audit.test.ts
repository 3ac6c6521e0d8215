// The audit log (issue 20): entries name who, what, where and the changed fields, never values.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summarizeInput } from '../../src/domain/system/audit.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

describe('audit log', () => {
  const clock = manualClock(new Date('2026-01-10T12:00:00.000Z'));
  let ctx: TestContext;
  before(async () => (ctx = await createTestContext({ clock })));
  after(() => ctx.close());

  it('keeps the names of changed fields, never values or secrets', () => {
    assert.equal(
      summarizeInput({
        title: 'Secret plan',
        password: 'hunter2',
        api_token: 'folio_x',
        content: '<p>',
        _token: 'c',
      }),
      '*,content,title',
    );
    assert.equal(summarizeInput('a string body'), null);
    assert.equal(summarizeInput([1, 2]), null);
    assert.equal(summarizeInput({}), null);
    const many = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`field${String(i).padStart(2, '0')}`, i]),
    );
    assert.match(summarizeInput(many) ?? '', /^field00,.*,field39,…$/);
  });

  it('records entries and lists them newest first, filtered by website, user, resource and time', async () => {
    const { audit } = ctx.services;
    await audit.record({
      userId: 7,
      action: 'post.create',
      resourceType: 'post',
      resourceId: 1,
      websiteId: 1,
      surface: 'api',
      requestId: 'req-1',
      clientIp: '203.0.113.9',
      input: { title: 'x' },
    });
    clock.advance(60_000);
    await audit.record({
      userId: 8,
      action: 'post.update',
      resourceType: 'post',
      resourceId: 1,
      websiteId: 2,
      surface: 'site',
    });
    clock.advance(60_000);
    await audit.record({
      userId: 7,
      action: 'tag.create',
      resourceType: 'tag',
      resourceId: 'news',
      websiteId: 1,
      surface: 'cli',
    });

    const all = await audit.list();
    assert.deepEqual(
      all.map((e) => e.action),
      ['tag.create', 'post.update', 'post.create'],
    );
    assert.deepEqual(
      { ...all[2], id: 0 },
      {
        id: 0,
        createdAt: '2026-01-10T12:00:00.000Z',
        userId: 7,
        apiKeyId: null,
        action: 'post.create',
        resourceType: 'post',
        resourceId: '1',
        websiteId: 1,
        surface: 'api',
        requestId: 'req-1',
        clientIp: '203.0.113.9',
        summary: 'title',
      },
    );
    assert.deepEqual(
      (await audit.list({ websiteId: 1 })).map((e) => e.action),
      ['tag.create', 'post.create'],
    );
    assert.deepEqual(
      (await audit.list({ userId: 8 })).map((e) => e.action),
      ['post.update'],
    );
    assert.deepEqual((await audit.list({ resourceType: 'post', resourceId: '1' })).length, 2);
    assert.deepEqual(
      (await audit.list({ since: new Date('2026-01-10T12:00:30.000Z') })).map((e) => e.action),
      ['tag.create', 'post.update'],
    );
    assert.deepEqual(
      (await audit.list({ until: new Date('2026-01-10T12:00:30.000Z') })).map((e) => e.action),
      ['post.create'],
    );
    const firstPage = await audit.list({ limit: 2 });
    const next = await audit.list({ limit: 2, beforeId: firstPage[1]!.id });
    assert.deepEqual(
      next.map((e) => e.action),
      ['post.create'],
    );
  });

  it('prunes entries older than the retention', async () => {
    clock.advance(10 * 86_400_000);
    await ctx.services.audit.record({
      userId: 1,
      action: 'page.create',
      resourceType: 'page',
      surface: 'api',
    });
    assert.equal(await ctx.services.audit.prune(5), 3);
    assert.deepEqual(
      (await ctx.services.audit.list()).map((e) => e.action),
      ['page.create'],
    );
  });
});
