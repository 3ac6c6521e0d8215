// Folio's job queue (the `jobs` table, src/jobs/queue.ts) against pg-boss, the well-kept library of
// the field (issue 38), on the same PostgreSQL, for the work Folio gives a queue:
// - the outbox write: a job enqueued in the transaction of the change that caused it (a row written
//   beside it), each in its own transaction; pg-boss sends through the caller's client (`db` option);
// - draining a burst of no-op jobs, with one worker and with two (two "nodes", each with its own pool),
//   counting duplicates (there must be none);
// - the delay from commit to the handler at idle, each queue polling as it does by default
//   (Folio's worker ticks every second; pg-boss polls every 2 s);
// - the connections each holds while it works.
// Rounds alternate which queue goes first, so the load of a shared machine falls on both alike.
// SQLite has no pg-boss: Folio's queue alone is measured there (the outbox write and one worker).
// Writes its section of bench/RESULTS.md (between jobs markers).
// Usage: npx tsx bench/job-queue.ts [--rounds=3] [--outbox=500] [--burst=3000] [--idle=8]
//   PostgreSQL: BENCH_JOBS_DATABASE_URL (postgres://postgres@127.0.0.1:5432/folio_bench_jobs), dropped
//   and created anew, dropped at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { loadConfig } from '../src/config.js';
import { migrate, openDatabase } from '../src/db/database.js';
import type { DatabaseHandle } from '../src/db/database.js';
import { systemClock } from '../src/domain/clock.js';
import { TableJobQueue } from '../src/jobs/queue.js';
import { writeAtomically } from './report.js';
import { dropPostgresDatabase, recreatePostgresDatabase } from './seed.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    outbox: { type: 'string', default: '500' },
    burst: { type: 'string', default: '3000' },
    idle: { type: 'string', default: '8' },
    out: { type: 'string', default: path.join(import.meta.dirname, 'RESULTS.md') },
  },
});
const ROUNDS = Number(values.rounds);
const OUTBOX = Number(values.outbox);
const BURST = Number(values.burst);
const IDLE = Number(values.idle);
const PG_URL = process.env.BENCH_JOBS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/folio_bench_jobs';
const QUEUE = 'bench';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const elapsedMs = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;

/** One implementation under test, as the benchmark drives it. */
interface Contender {
  name: string;
  /** Enqueues one job in a transaction that also writes a row; answers the ms it took. */
  outboxWrite(i: number): Promise<number>;
  /** Enqueues `count` jobs (not timed). */
  fill(count: number): Promise<void>;
  /** Starts `nodes` workers whose handler calls `seen`; answers how to stop them. */
  work(nodes: number, seen: (i: number) => void, idle: boolean): Promise<() => Promise<void>>;
  /** Removes every job. */
  clear(): Promise<void>;
}

interface Figures {
  outboxMs: number[];
  drain1: number[];
  drain2: number[];
  duplicates: number;
  idleMs: number[];
  connections: number[];
}

function folioQueue(url: string, dialect: 'sqlite' | 'postgres'): Contender & { close(): Promise<void> } {
  const open = () => openDatabase(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }).database);
  const main = open();
  const queueOf = (database: DatabaseHandle) =>
    new TableJobQueue(database.db, systemClock, {
      skipLocked: dialect === 'postgres',
      defaultMaxAttempts: 3,
    });
  const queue = queueOf(main);
  return {
    name: "Folio's table queue",
    async outboxWrite(i) {
      const start = process.hrtime.bigint();
      await main.transact(async () => {
        await sql`insert into bench_outbox (note) values (${`change ${i}`})`.execute(main.db);
        await queue.enqueue(QUEUE, { i });
      });
      return elapsedMs(start);
    },
    async fill(count) {
      for (let i = 0; i < count; i += 1) await queue.enqueue(QUEUE, { i });
    },
    async work(nodes, seen) {
      // Each node with its own database handle (pool), as two app processes have.
      const handles = Array.from({ length: nodes }, () => (dialect === 'sqlite' ? main : open()));
      const workers = handles.map((handle) => {
        const worker = queueOf(handle);
        worker.work(QUEUE, async (payload) => seen((payload as { i: number }).i));
        worker.start(1000);
        return worker;
      });
      return async () => {
        await Promise.all(workers.map((worker) => worker.stop()));
        await Promise.all(handles.filter((handle) => handle !== main).map((handle) => handle.close()));
      };
    },
    async clear() {
      await main.db.deleteFrom('jobs').execute();
    },
    close: () => main.close(),
  };
}

function pgBoss(url: string): Contender & { start(): Promise<void>; close(): Promise<void> } {
  const boss = new PgBoss({ connectionString: url, schema: 'pgboss' });
  boss.on('error', (error) => console.error('pg-boss:', error));
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  return {
    name: 'pg-boss 10',
    async start() {
      await boss.start();
      await boss.createQueue(QUEUE);
    },
    async outboxWrite(i) {
      const start = process.hrtime.bigint();
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('insert into bench_outbox (note) values ($1)', [`change ${i}`]);
        await boss.send(QUEUE, { i }, { db: { executeSql: (text, values) => client.query(text, values) } });
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
      return elapsedMs(start);
    },
    async fill(count) {
      for (let from = 0; from < count; from += 500) {
        await boss.insert(
          Array.from({ length: Math.min(500, count - from) }, (_, k) => ({
            name: QUEUE,
            data: { i: from + k },
          })),
        );
      }
    },
    async work(nodes, seen, idle) {
      // Each node a PgBoss of its own (its own pool), as two app processes have; pg-boss's defaults
      // at idle (a poll every 2 s, one job per fetch); for a burst, 100 jobs per fetch every 0.5 s
      // (its shortest interval), which lets it keep up with Folio's worker.
      const others = await Promise.all(
        Array.from({ length: nodes }, async () => {
          const node = new PgBoss({
            connectionString: url,
            schema: 'pgboss',
            supervise: false,
            schedule: false,
          });
          node.on('error', (error) => console.error('pg-boss:', error));
          await node.start();
          await node.work(
            QUEUE,
            idle ? {} : { batchSize: 100, pollingIntervalSeconds: 0.5 },
            async (jobs) => {
              for (const job of jobs) seen((job.data as { i: number }).i);
            },
          );
          return node;
        }),
      );
      return async () => {
        await Promise.all(others.map((node) => node.stop({ graceful: true, wait: true, timeout: 5000 })));
      };
    },
    async clear() {
      await pool.query('delete from pgboss.job');
    },
    async close() {
      await boss.stop({ graceful: true, wait: true, timeout: 5000 });
      await pool.end();
    },
  };
}

/** Connections to the benchmark's database other than this query's. */
async function connections(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

/** The seconds `nodes` workers take to run `count` queued jobs, and how many ran twice. */
async function drain(contender: Contender, url: string | null, nodes: number, figures: Figures) {
  await contender.fill(BURST);
  const seen = new Map<number, number>();
  let total = 0;
  const start = process.hrtime.bigint();
  const stop = await contender.work(
    nodes,
    (i) => {
      total += 1;
      seen.set(i, (seen.get(i) ?? 0) + 1);
    },
    false,
  );
  let peak = 0;
  while (seen.size < BURST) {
    await sleep(50);
    if (url && nodes === 2) peak = Math.max(peak, await connections(url));
  }
  const seconds = elapsedMs(start) / 1000;
  await stop();
  figures.duplicates += total - seen.size;
  if (url && nodes === 2) figures.connections.push(peak);
  (nodes === 1 ? figures.drain1 : figures.drain2).push(BURST / seconds);
  await contender.clear();
}

/** Commit-to-handler delays at idle, workers polling at their defaults. */
async function idleDelay(contender: Contender, figures: Figures) {
  let started: bigint | null = null;
  let arrived: (() => void) | null = null;
  const stop = await contender.work(
    1,
    () => {
      if (started !== null) figures.idleMs.push(elapsedMs(started));
      arrived?.();
    },
    true,
  );
  for (let k = 0; k < IDLE; k += 1) {
    await sleep(300 + Math.random() * 1500);
    const done = new Promise<void>((resolve, reject) => {
      arrived = resolve;
      setTimeout(() => reject(new Error(`${contender.name}: no job at idle within 30 s`)), 30_000).unref();
    });
    started = process.hrtime.bigint();
    await contender.outboxWrite(-1 - k);
    await done;
  }
  await stop();
  await contender.clear();
}

async function measure(contender: Contender, url: string | null, figures: Figures, twoNodes: boolean) {
  for (let i = 0; i < OUTBOX; i += 1) figures.outboxMs.push(await contender.outboxWrite(i));
  await contender.clear();
  await drain(contender, url, 1, figures);
  if (twoNodes) await drain(contender, url, 2, figures);
  await idleDelay(contender, figures);
}

const emptyFigures = (): Figures => ({
  outboxMs: [],
  drain1: [],
  drain2: [],
  duplicates: 0,
  idleMs: [],
  connections: [],
});

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(0));
const row = (name: string, figures: Figures) =>
  `| ${name} | ${ms(quantile(figures.outboxMs, 0.5))} / ${ms(quantile(figures.outboxMs, 0.99))} | ` +
  `${Math.round(median(figures.drain1))} | ${figures.drain2.length ? Math.round(median(figures.drain2)) : '–'} | ` +
  `${figures.duplicates} | ${ms(quantile(figures.idleMs, 0.5))} / ${ms(quantile(figures.idleMs, 0.99))} | ` +
  `${figures.connections.length ? Math.max(...figures.connections) : '–'} |`;

async function main() {
  const load = os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  console.log(`load average ${load}`);
  // PostgreSQL: both queues on one database.
  await recreatePostgresDatabase(PG_URL);
  const pgFigures = { folio: emptyFigures(), boss: emptyFigures() };
  try {
    const setup = openDatabase(loadConfig({ DATABASE_URL: PG_URL, LOG_LEVEL: 'silent' }).database);
    await migrate(setup);
    await sql`create table bench_outbox (id serial primary key, note text not null)`.execute(setup.db);
    await setup.close();
    const folio = folioQueue(PG_URL, 'postgres');
    const boss = pgBoss(PG_URL);
    await boss.start();
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? (['folio', 'boss'] as const) : (['boss', 'folio'] as const);
      for (const which of order) {
        console.log(`round ${round + 1}: ${which === 'folio' ? folio.name : boss.name}`);
        await measure(which === 'folio' ? folio : boss, PG_URL, pgFigures[which], true);
      }
    }
    await folio.close();
    await boss.close();
  } finally {
    await dropPostgresDatabase(PG_URL);
  }
  // SQLite: Folio's queue alone.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-jobs-'));
  const sqliteUrl = `sqlite:${path.join(dir, 'jobs.sqlite')}`;
  const sqliteFigures = emptyFigures();
  try {
    const setup = openDatabase(loadConfig({ DATABASE_URL: sqliteUrl, LOG_LEVEL: 'silent' }).database);
    await migrate(setup);
    await sql`create table bench_outbox (id integer primary key autoincrement, note text not null)`.execute(
      setup.db,
    );
    await setup.close();
    const folio = folioQueue(sqliteUrl, 'sqlite');
    for (let round = 0; round < ROUNDS; round += 1) await measure(folio, null, sqliteFigures, false);
    await folio.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const section = [
    '<!-- jobs:start -->',
    "## The job queue (issue 38): Folio's table queue against pg-boss",
    '',
    `_Written by \`npx tsx bench/job-queue.ts\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC ` +
      `(${os.cpus().length} CPU cores, load average at the start ${load}). ` +
      `${ROUNDS} rounds, alternating which queue goes first; ${OUTBOX} outbox writes, bursts of ${BURST} no-op jobs, ` +
      `${IDLE} jobs at idle per round._`,
    '',
    '| Queue | Outbox write: a row and its job in one transaction, p50 / p99 ms | Burst drained, 1 node (jobs/s) | 2 nodes (jobs/s) | Jobs run twice | Commit to handler at idle, p50 / p99 ms | Connections, 2 nodes draining |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    row("PostgreSQL, Folio's table queue", pgFigures.folio),
    row('PostgreSQL, pg-boss 10.4.2', pgFigures.boss),
    row("SQLite, Folio's table queue", sqliteFigures),
    '',
    "How each works here: Folio's worker ticks every second and, while it finds jobs, runs them 20 at a " +
      'time without waiting for the next tick, claiming one job per statement (on PostgreSQL a CTE with ' +
      '`FOR UPDATE SKIP LOCKED`); the outbox write is an insert through the transaction the operation ' +
      "already holds. pg-boss's workers fetch with `SKIP LOCKED` too (at idle its defaults: a poll " +
      'every 2 s, one job per fetch; for a burst, batches of 100 every 0.5 s, its shortest interval, ' +
      'which bounds its drain at 200 jobs/s a node: larger batches would raise it); its outbox write goes through the caller\u2019s client (`send(…, { db })`). ' +
      "A burst's time runs from the workers' start, so it includes each one's first poll (Folio's first " +
      'tick comes after a second; pg-boss fetches at once): a small burst favours pg-boss. Connections are the ' +
      "database's own count (pg_stat_activity) while two nodes drain, the benchmark's connections included.",
    '<!-- jobs:end -->',
  ].join('\n');
  console.log(section);
  const file = values.out;
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const pattern = /<!-- jobs:start -->[\s\S]*<!-- jobs:end -->/;
  writeAtomically(
    file,
    pattern.test(current) ? current.replace(pattern, section) : `${current.trimEnd()}\n\n${section}\n`,
  );
}

// The queues' own timers do not keep the process alive (they are unref'd): this does, until the end.
const keepAlive = setInterval(() => undefined, 1000);
try {
  await main();
} finally {
  clearInterval(keepAlive);
}
