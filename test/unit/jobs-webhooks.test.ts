// The job queue (issue 38): unique enqueue, one run across two nodes sharing the database, retry with
// backoff after a failure, a job claimed by a dead node taken over after its lease, failed jobs
// retried by hand; and Standard Webhooks signatures against the specification's test vector.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TableJobQueue } from '../../src/jobs/queue.js';
import { sign, verify, webhookHeaders } from '../../src/jobs/standard-webhooks.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

describe('job queue on the jobs table', () => {
  let ctx: TestContext;
  const clock = manualClock(new Date('2026-05-01T00:00:00.000Z'));
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  const node = (skipLocked = false) =>
    new TableJobQueue(ctx.services.database.db, clock, {
      leaseMs: 60_000,
      backoffBaseMs: 10_000,
      random: () => 1,
      skipLocked,
    });

  it('adds one job per unique key', async () => {
    const queue = node();
    const first = await queue.enqueue('unique-test', { n: 1 }, { uniqueKey: 'event-1:hook-1' });
    const second = await queue.enqueue('unique-test', { n: 2 }, { uniqueKey: 'event-1:hook-1' });
    assert.ok(first);
    assert.equal(second, null);
    const jobs = (await queue.list()).filter((job) => job.queue === 'unique-test');
    assert.equal(jobs.length, 1);
    assert.deepEqual(jobs[0]!.payload, { n: 1 });
  });

  // With SKIP LOCKED (PostgreSQL's production claim) and without it (the row checked again).
  for (const skipLocked of [false, true]) {
    it(`runs a job once when two nodes sharing the database work the queue (skip locked: ${skipLocked})`, async (t) => {
      if (skipLocked && ctx.services.database.dialect !== 'postgres') return t.skip('PostgreSQL only');
      const runs: unknown[] = [];
      const a = node(skipLocked);
      const b = node(skipLocked);
      const queue = `once-${skipLocked}`;
      for (const worker of [a, b]) worker.work(queue, async (payload) => void runs.push(payload));
      for (let i = 0; i < 10; i += 1) await a.enqueue(queue, { i });
      await Promise.all([a.runDue(), b.runDue(), a.runDue(), b.runDue()]);
      assert.equal(runs.length, 10);
      assert.equal(new Set(runs.map((run) => JSON.stringify(run))).size, 10);
      const done = (await a.list({ status: 'done' })).filter((job) => job.queue === queue);
      assert.equal(done.length, 10);
    });
  }

  it('retries a failed job after a backoff and keeps the error', async () => {
    const queue = node();
    let calls = 0;
    queue.work('flaky', async () => {
      calls += 1;
      if (calls === 1) throw new Error('receiver answered 500');
    });
    const id = await queue.enqueue('flaky', {});
    await queue.runDue();
    let job = (await queue.list()).find((row) => row.id === id)!;
    assert.equal(job.status, 'queued');
    assert.equal(job.lastError, 'receiver answered 500');
    assert.equal(job.attempts, 1);
    await queue.runDue();
    assert.equal(calls, 1, 'not before the backoff');
    clock.advance(10_001);
    await queue.runDue();
    assert.equal(calls, 2);
    job = (await queue.list()).find((row) => row.id === id)!;
    assert.equal(job.status, 'done');
  });

  it('takes over a job whose node died after its lease lapsed', async () => {
    const dead = node();
    dead.work('lease', () => new Promise<void>(() => undefined)); // claims, then never finishes
    const id = await dead.enqueue('lease', { x: 1 });
    void dead.runDue();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const alive = node();
    const runs: number[] = [];
    alive.work('lease', async (_payload, job) => void runs.push(job.id));
    await alive.runDue();
    assert.deepEqual(runs, [], 'the lease still holds');
    clock.advance(60_001);
    await alive.runDue();
    assert.deepEqual(runs, [id]);
  });

  it('leaves a job failed after its last attempt until an administrator retries it', async () => {
    const queue = node();
    let fail = true;
    queue.work('fragile', async () => {
      if (fail) throw new Error('boom');
    });
    const id = (await queue.enqueue('fragile', {}, { maxAttempts: 1 }))!;
    await queue.runDue();
    assert.equal((await queue.list({ status: 'failed' })).find((job) => job.id === id)?.lastError, 'boom');
    assert.equal(await queue.retry(999_999), false);
    assert.equal(await queue.retry(id), true);
    fail = false;
    await queue.runDue();
    assert.equal((await queue.list()).find((job) => job.id === id)?.status, 'done');
  });
});

describe('Standard Webhooks signatures', () => {
  it('matches the specification test vector', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const signature = sign(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('verifies its own headers and refuses a changed body', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const headers = webhookHeaders(secret, 'msg_1', new Date('2026-05-01T00:00:00Z'), '{"a":1}');
    const ts = Number(headers['webhook-timestamp']);
    assert.equal(verify(secret, 'msg_1', ts, '{"a":1}', headers['webhook-signature']!), true);
    assert.equal(verify(secret, 'msg_1', ts, '{"a":2}', headers['webhook-signature']!), false);
  });
});
