// One job queue for background work (issue 38). Jobs live in the `jobs` table (0033_jobs) on both
// databases: a node claims a due job by a conditional UPDATE that sets a lease (`locked_until`), so
// two nodes never run the same job at once; a job whose node died (even by kill -9) is claimed again
// once its lease lapses. A failed attempt is retried with exponential backoff and jitter until
// `maxAttempts`, then the job stays `failed` (with its error) until an administrator retries it.
// `uniqueKey` makes enqueueing idempotent: a second enqueue with the same key is a no-op.
//
// Why not pg-boss (the field's library, which issue 38 named): bench/job-queue.ts measures both on one
// PostgreSQL (outbox writes, bursts with one and two nodes, delay at idle, connections; figures in
// bench/RESULTS.md) and test/unit/job-queue-contract.test.ts holds both to one contract. This queue
// enqueues in the operation's own (ambient) transaction, runs the same code on SQLite, keeps the
// integer ids API v2 and the CLI show and a unique key that holds until the job is pruned, and holds
// no pool of its own, at the speed pg-boss has here. The claim is pg-boss's: SKIP LOCKED.
import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../domain/clock.js';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed';

export interface EnqueueOptions {
  /** A second job with the same key is not added (returns null). */
  uniqueKey?: string;
  runAt?: Date;
  maxAttempts?: number;
}

export interface JobView {
  id: number;
  queue: string;
  status: JobStatus;
  attempts: number;
  maxAttempts: number;
  runAt: string;
  lastError: string | null;
  payload: unknown;
  createdAt: string;
  updatedAt: string;
}

export type JobHandler = (payload: unknown, job: { id: number; attempt: number }) => Promise<void>;

export interface JobQueue {
  enqueue(queue: string, payload: unknown, options?: EnqueueOptions): Promise<number | null>;
  /** Registers the handler of a queue on this node. */
  work(queue: string, handler: JobHandler): void;
  /** Claims and runs the due jobs of the queues this node works (once); returns how many ran. */
  runDue(limit?: number): Promise<number>;
  /** Runs due jobs every `intervalMs` until stop(). */
  start(intervalMs?: number): void;
  stop(): Promise<void>;
  list(filter?: { status?: JobStatus; limit?: number }): Promise<JobView[]>;
  /** Puts a failed (or queued) job back to run now; false when there is no such job. */
  retry(id: number): Promise<boolean>;
  /** A running job's handler is still at work: its lease starts again (long jobs call it as they go). */
  extendLease(id: number): Promise<void>;
  /** Deletes the jobs done before `before` (failed ones stay until retried); answers how many. */
  pruneDone(before: Date): Promise<number>;
}

export interface JobQueueOptions {
  leaseMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  defaultMaxAttempts?: number;
  random?: () => number;
  /** Claim with `FOR UPDATE SKIP LOCKED` (PostgreSQL). */
  skipLocked?: boolean;
}

/** Jobs run by one `runDue` of the worker, after which it checks it is still running. */
const RUN_BATCH = 20;

const iso = (value: Date | string): string => (typeof value === 'string' ? value : value.toISOString());

/** Exponential backoff with full jitter between half and all of the step. */
export function backoffMs(attempt: number, base: number, max: number, random: () => number): number {
  const step = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(step / 2 + (step / 2) * random());
}

export class TableJobQueue implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private readonly leaseMs: number;
  private readonly base: number;
  private readonly max: number;
  private readonly defaultMaxAttempts: number;
  private readonly random: () => number;
  private readonly skipLocked: boolean;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    options: JobQueueOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 5 * 60_000;
    this.base = options.backoffBaseMs ?? 30_000;
    this.max = options.backoffMaxMs ?? 6 * 3_600_000;
    this.defaultMaxAttempts = options.defaultMaxAttempts ?? 12;
    this.random = options.random ?? Math.random;
    this.skipLocked = options.skipLocked ?? false;
  }

  async enqueue(queue: string, payload: unknown, options: EnqueueOptions = {}): Promise<number | null> {
    const now = this.clock.now().toISOString();
    const row = await this.db
      .insertInto('jobs')
      .values({
        queue,
        payload: JSON.stringify(payload ?? null),
        unique_key: options.uniqueKey ?? null,
        status: 'queued',
        attempts: 0,
        max_attempts: options.maxAttempts ?? this.defaultMaxAttempts,
        run_at: (options.runAt ?? this.clock.now()).toISOString(),
        locked_until: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('unique_key').doNothing())
      .returning('id')
      .executeTakeFirst();
    return row ? Number(row.id) : null;
  }

  work(queue: string, handler: JobHandler): void {
    this.handlers.set(queue, handler);
  }

  async extendLease(id: number): Promise<void> {
    const now = this.clock.now();
    await this.db
      .updateTable('jobs')
      .set({
        locked_until: new Date(now.getTime() + this.leaseMs).toISOString(),
        updated_at: now.toISOString(),
      })
      .where('id', '=', id)
      .where('status', '=', 'running')
      .execute();
  }

  async runDue(limit = RUN_BATCH): Promise<number> {
    const queues = [...this.handlers.keys()];
    if (queues.length === 0) return 0;
    let ran = 0;
    // One job claimed at a time, right before it runs: a claimed job's lease starts when it starts.
    for (; ran < limit; ran += 1) {
      const job = await this.claimNext(queues);
      if (!job) break;
      await this.execute(job);
    }
    return ran;
  }

  /**
   * Claims the next due job of these queues (queued and due, or running with a lapsed lease) in one
   * statement: an UPDATE of the row a sub-select picks. On PostgreSQL the pick is a CTE with `FOR UPDATE
   * SKIP LOCKED`, so nodes claiming at once take different jobs instead of queueing behind one row lock
   * (pg-boss claims the same way); SQLite has one writer, so the statement alone is atomic there.
   * Null when nothing is due, or (without SKIP LOCKED) when another node took the job first.
   */
  private async claimNext(queues: string[]) {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const lease = new Date(now.getTime() + this.leaseMs).toISOString();
    const due = (eb: ExpressionBuilder<Database, 'jobs'>) =>
      eb.or([
        eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', nowIso)]),
        eb.and([eb('status', '=', 'running'), eb('locked_until', '<', nowIso)]),
      ]);
    const next = this.db
      .selectFrom('jobs')
      .select('id')
      .where('queue', 'in', queues)
      .where(due)
      .orderBy('run_at')
      .limit(1);
    const claimed = (eb: ExpressionBuilder<Database, 'jobs'>) => ({
      status: 'running',
      locked_until: lease,
      attempts: eb('jobs.attempts', '+', 1),
      updated_at: nowIso,
    });
    if (this.skipLocked) {
      // The pick in a CTE, which PostgreSQL runs once: as an `IN (…)` sub-select it may run again for
      // each row the UPDATE scans, locking and claiming more than one job.
      return this.db
        .with('next', () => next.forUpdate().skipLocked())
        .updateTable('jobs')
        .from('next')
        .set(claimed)
        .whereRef('jobs.id', '=', 'next.id')
        .returning(['jobs.id', 'jobs.queue', 'jobs.payload', 'jobs.attempts', 'jobs.max_attempts'])
        .executeTakeFirst();
    }
    return (
      this.db
        .updateTable('jobs')
        .set(claimed)
        .where('id', 'in', next)
        // Checked again on the row itself: a claim that waited for another's lock (PostgreSQL without
        // SKIP LOCKED) sees the row as that claim left it, not as its sub-select read it.
        .where(due)
        .returning(['id', 'queue', 'payload', 'attempts', 'max_attempts'])
        .executeTakeFirst()
    );
  }

  private async execute(job: {
    id: number;
    queue: string;
    payload: string;
    attempts: number;
    max_attempts: number;
  }): Promise<void> {
    const handler = this.handlers.get(job.queue);
    const attempt = Number(job.attempts);
    try {
      if (!handler) throw new Error(`no handler for queue ${job.queue}`);
      await handler(JSON.parse(job.payload), { id: Number(job.id), attempt });
      await this.db
        .updateTable('jobs')
        .set({
          status: 'done',
          locked_until: null,
          last_error: null,
          updated_at: this.clock.now().toISOString(),
        })
        .where('id', '=', job.id)
        .execute();
    } catch (error) {
      const message = (error instanceof Error ? error.message : String(error)).slice(0, 2000);
      const now = this.clock.now();
      const final = attempt >= Number(job.max_attempts);
      const next = new Date(now.getTime() + backoffMs(attempt, this.base, this.max, this.random));
      await this.db
        .updateTable('jobs')
        .set({
          status: final ? 'failed' : 'queued',
          run_at: final ? now.toISOString() : next.toISOString(),
          locked_until: null,
          last_error: message,
          updated_at: now.toISOString(),
        })
        .where('id', '=', job.id)
        .execute();
    }
  }

  start(intervalMs = 1000): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.running = this.running.then(() => this.drain()).catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  /**
   * Runs due jobs until none is left (or the queue is stopped): a burst (a post published to many
   * webhooks, an import's images) is worked through at once, not `RUN_BATCH` jobs per tick.
   */
  private async drain(): Promise<void> {
    let ran = RUN_BATCH;
    while (this.timer && ran === RUN_BATCH) ran = await this.runDue(RUN_BATCH);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  async list(filter: { status?: JobStatus; limit?: number } = {}): Promise<JobView[]> {
    let query = this.db
      .selectFrom('jobs')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(Math.min(filter.limit ?? 100, 500));
    if (filter.status) query = query.where('status', '=', filter.status);
    const rows = await query.execute();
    return rows.map((row) => ({
      id: Number(row.id),
      queue: row.queue,
      status: row.status as JobStatus,
      attempts: Number(row.attempts),
      maxAttempts: Number(row.max_attempts),
      runAt: iso(row.run_at),
      lastError: row.last_error,
      payload: JSON.parse(row.payload) as unknown,
      createdAt: iso(row.created_at),
      updatedAt: iso(row.updated_at),
    }));
  }

  async pruneDone(before: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('jobs')
      .where('status', '=', 'done')
      .where('updated_at', '<', before.toISOString())
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async retry(id: number): Promise<boolean> {
    const now = this.clock.now().toISOString();
    const result = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'queued',
        run_at: now,
        locked_until: null,
        max_attempts: eb('max_attempts', '+', 1),
        updated_at: now,
      }))
      .where('id', '=', id)
      .where('status', 'in', ['failed', 'queued'])
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
