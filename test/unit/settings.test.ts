import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../../src/services.js';
import type { Services } from '../../src/services.js';
import { createTestContext, testConfig } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

/** Reads a setting until it has the expected value, for at most two seconds. */
async function eventually(
  services: Services,
  key: string,
  expected: string | undefined,
): Promise<string | undefined> {
  const deadline = Date.now() + 2000;
  let value = await services.settings.get(key);
  while (value !== expected && Date.now() < deadline) {
    await sleep(20);
    value = await services.settings.get(key);
  }
  return value;
}

describe('settings', () => {
  let ctx: TestContext;
  let otherNode: Services;

  before(async () => {
    ctx = await createTestContext();
    // A second process's view of the same database: another app node, or the CLI.
    otherNode = createServices(testConfig(ctx.database.url), {
      pgSchema: ctx.database.pgSchema,
      warn: () => undefined,
    });
  });
  after(async () => {
    await otherNode.close();
    await ctx.close();
  });

  it('sets, reads, overwrites and deletes', async () => {
    const { settings } = ctx.services;
    assert.equal(await settings.get('site_title'), undefined);
    await settings.set('site_title', 'Folio');
    assert.equal(await settings.get('site_title'), 'Folio');
    await settings.set('site_title', 'Folio 2');
    assert.equal(await settings.get('site_title'), 'Folio 2');
    await settings.delete('site_title');
    assert.equal(await settings.get('site_title'), undefined);
  });

  it('reads boolean settings in every R-G5 form, with a fallback when unset or unreadable', async () => {
    const { settings } = ctx.services;
    assert.equal(await settings.flag('svc_api_posts_index', false), false);
    assert.equal(await settings.flag('enable_api_access', true), true);
    for (const [value, expected] of [
      ['on', true],
      ['no', false],
      ['1', true],
      ['FALSE', false],
    ] as const) {
      await settings.set('svc_api_posts_index', value);
      assert.equal(await settings.flag('svc_api_posts_index', !expected), expected);
    }
    await settings.set('svc_api_posts_index', 'sometimes');
    assert.equal(await settings.flag('svc_api_posts_index', false), false);
  });

  it('sees a change made by another process without a restart', async () => {
    await ctx.services.settings.get('warm'); // the snapshot is loaded and cached
    await otherNode.settings.set('warm', 'from the other node');
    assert.equal(await eventually(ctx.services, 'warm', 'from the other node'), 'from the other node');
    await otherNode.settings.delete('warm');
    assert.equal(await eventually(ctx.services, 'warm', undefined), undefined);
  });

  it('serves reads from its snapshot: no query while nothing changed', async () => {
    await ctx.services.settings.set('cached', 'yes');
    await ctx.services.settings.get('cached');
    // Change the table behind the service's back, without telling anyone: the snapshot still answers.
    await ctx.services.database.db
      .updateTable('settings')
      .set({ value: 'changed' })
      .where('key', '=', 'cached')
      .execute();
    assert.equal(await ctx.services.settings.get('cached'), 'yes');
  });

  it('current() answers the snapshot without a query while it is current, and null once it is not', async () => {
    const snapshot = await ctx.services.settings.all();
    assert.equal(ctx.services.settings.current(), snapshot);
    await otherNode.settings.set('elsewhere', String(Date.now()));
    const deadline = Date.now() + 2000;
    while (ctx.services.settings.current() !== null && Date.now() < deadline) await sleep(20);
    assert.equal(ctx.services.settings.current(), null);
    const reloaded = await ctx.services.settings.all();
    assert.notEqual(reloaded, snapshot);
    assert.equal(ctx.services.settings.current(), reloaded);
  });
});
