// Issue 38: Folio keeps its own job queue (the jobs table, src/jobs/queue.ts) where the field's library
// is pg-boss; bench/job-queue.ts measures both, and this test holds them to one contract, on the same
// PostgreSQL: a second enqueue with the same key adds nothing, a job runs once with two nodes working
// the queue, a failed job is retried and then done. Folio's queue must keep it on SQLite too.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { systemClock } from '../../src/domain/clock.js';
import { TableJobQueue } from '../../src/jobs/queue.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

/** What the contract needs of a queue. */
interface ContractQueue {
  enqueue(queue: string, data: { i: number }, uniqueKey?: string): Promise<unknown>;
  /** Starts workers on `nodes` nodes; the handler throws where `handle` does. */
  work(queue: string, nodes: number, handle: (i: number) => void): Promise<void>;
  stop(): Promise<void>;
}

const waitUntil = async (done: () => boolean, what: string, ms = 20_000) => {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

function contract(name: string, make: () => Promise<ContractQueue>, skip: () => string | false) {
  describe(name, () => {
    let queue: ContractQueue;
    before(async () => {
      if (!skip()) queue = await make();
    });
    after(async () => {
      if (queue) await queue.stop();
    });

    it('adds nothing for a second job with the same key', async (t) => {
      if (skip()) return t.skip(String(skip()));
      assert.ok(await queue.enqueue('unique', { i: 1 }, 'event-1:hook-1'));
      assert.equal(await queue.enqueue('unique', { i: 2 }, 'event-1:hook-1'), null);
      const runs: number[] = [];
      await queue.work('unique', 1, (i) => void runs.push(i));
      await waitUntil(() => runs.length >= 1, 'the job');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(runs, [1]);
    });

    it('runs each job once with two nodes working the queue', async (t) => {
      if (skip()) return t.skip(String(skip()));
      const runs: number[] = [];
      for (let i = 0; i < 60; i += 1) await queue.enqueue('once', { i });
      await queue.work('once', 2, (i) => void runs.push(i));
      await waitUntil(() => runs.length >= 60, '60 jobs');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(runs.length, 60, 'no job ran twice');
      assert.equal(new Set(runs).size, 60);
    });

    it('retries a failed job, which then succeeds', async (t) => {
      if (skip()) return t.skip(String(skip()));
      let calls = 0;
      let succeeded = false;
      await queue.enqueue('flaky', { i: 7 });
      await queue.work('flaky', 1, () => {
        calls += 1;
        if (calls === 1) throw new Error('receiver answered 500');
        succeeded = true;
      });
      await waitUntil(() => succeeded, 'the retry');
      assert.equal(calls, 2);
    });
  });
}

const onPostgres = () => Boolean(process.env.TEST_DATABASE_URL?.startsWith('postgres'));

describe('one contract for the job queue and for pg-boss (issue 38)', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  contract(
    "Folio's table queue",
    async () => {
      const workers: TableJobQueue[] = [];
      const node = () => {
        const worker = new TableJobQueue(ctx.services.database.db, systemClock, {
          skipLocked: ctx.services.database.dialect === 'postgres',
          backoffBaseMs: 20,
          backoffMaxMs: 20,
        });
        workers.push(worker);
        return worker;
      };
      const producer = node();
      return {
        enqueue: (queue, data, uniqueKey) => producer.enqueue(queue, data, { uniqueKey }),
        async work(queue, nodes, handle) {
          for (let n = 0; n < nodes; n += 1) {
            const worker = node();
            worker.work(queue, async (payload) => handle((payload as { i: number }).i));
            worker.start(50);
          }
        },
        stop: async () => void (await Promise.all(workers.map((worker) => worker.stop()))),
      };
    },
    () => false,
  );

  const schema = `pgboss_${randomBytes(4).toString('hex')}`;
  contract(
    'pg-boss 10 (the library it replaces)',
    async () => {
      const url = process.env.TEST_DATABASE_URL!;
      const bosses: PgBoss[] = [];
      const node = async () => {
        const boss = new PgBoss({ connectionString: url, schema, supervise: false, schedule: false });
        boss.on('error', () => undefined);
        await boss.start();
        bosses.push(boss);
        return boss;
      };
      const producer = await node();
      const made = new Set<string>();
      const queueOf = async (name: string) => {
        // pg-boss keeps one job per singletonKey only under a queue policy that says so ('short': one
        // queued at a time), and only while it is queued; Folio's key holds until the job is pruned.
        const policy = name === 'unique' ? 'short' : 'standard';
        if (!made.has(name)) await producer.createQueue(name, { name, policy, retryLimit: 3, retryDelay: 1 });
        made.add(name);
      };
      return {
        async enqueue(queue, data, uniqueKey) {
          await queueOf(queue);
          return producer.send(queue, data, uniqueKey ? { singletonKey: uniqueKey } : {});
        },
        async work(queue, nodes, handle) {
          await queueOf(queue);
          for (let n = 0; n < nodes; n += 1) {
            const boss = await node();
            await boss.work<{ i: number }>(
              queue,
              { pollingIntervalSeconds: 0.5, batchSize: 5 },
              async (jobs) => {
                for (const job of jobs) handle(job.data.i);
              },
            );
          }
        },
        async stop() {
          await Promise.all(bosses.map((boss) => boss.stop({ graceful: false, wait: true, timeout: 2000 })));
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await client.end();
        },
      };
    },
    () => (onPostgres() ? false : 'pg-boss runs on PostgreSQL only'),
  );
});
