// Long deletes run in chunks that yield (issue 26 #1): on SQLite every statement runs on the event
// loop, so pruning months of audit entries or idempotency keys must let requests in between.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { deleteInChunks } from '../../src/db/chunked.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

/** Counts event-loop turns (setImmediate callbacks) until stopped. */
function turnCounter() {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  return {
    stop() {
      running = false;
      return turns;
    },
  };
}

describe('deletes in chunks', () => {
  const clock = manualClock(new Date('2026-03-01T12:00:00.000Z'));
  let ctx: TestContext;
  before(async () => (ctx = await createTestContext({ clock })));
  after(() => ctx.close());

  const oldAudit = (count: number, createdAt: string) =>
    ctx.services.database.db
      .insertInto('audit_log')
      .values(
        Array.from({ length: count }, (_, k) => ({
          created_at: createdAt,
          user_id: 1,
          action: 'post.update',
          resource_type: 'post',
          resource_id: String(k),
          surface: 'api',
        })),
      )
      .execute();

  it('deletes every matching row, chunk by chunk, letting the event loop run between chunks', async () => {
    for (let k = 0; k < 5; k++) await oldAudit(200, '2025-01-01T00:00:00.000Z');
    await oldAudit(30, '2026-02-28T00:00:00.000Z');
    const counter = turnCounter();
    const deleted = await deleteInChunks(
      ctx.services.database.db,
      'audit_log',
      ['id'],
      sql`created_at < ${'2026-01-01T00:00:00.000Z'}`,
      150,
    );
    const turns = counter.stop();
    assert.equal(deleted, 1000);
    // 1000 rows in chunks of 150: 7 statements, 6 yields in between (at least one turn each).
    assert.ok(turns >= 6, `the event loop turned ${turns} times during the delete`);
    const left = await ctx.services.database.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 30);
  });

  it('prunes the audit log past its retention and only that', async () => {
    await oldAudit(2500, '2025-06-01T00:00:00.000Z');
    assert.equal(await ctx.services.audit.prune(90), 2500);
    assert.equal((await ctx.services.audit.list({ limit: 100 })).length, 30);
  });

  it('prunes idempotency keys older than a day, keyed by their composite key', async () => {
    const { db } = ctx.services.database;
    const row = (key: string, createdAt: string) => ({
      caller: 'user:1',
      scope: 'test',
      key,
      fingerprint: 'f'.repeat(64),
      status: 201,
      body: '{}',
      created_at: createdAt,
    });
    await db
      .insertInto('idempotency_keys')
      .values(Array.from({ length: 2100 }, (_, k) => row(`old-${k}`, '2026-02-20T00:00:00.000Z')))
      .execute();
    await db.insertInto('idempotency_keys').values(row('fresh', '2026-03-01T11:00:00.000Z')).execute();
    assert.equal(await ctx.services.idempotency.prune(), 2100);
    const left = await db.selectFrom('idempotency_keys').select('key').execute();
    assert.deepEqual(
      left.map((r) => r.key),
      ['fresh'],
    );
  });
});
