// One job queue for background work (issue 38). Jobs live in the `jobs` table (0033_jobs) on both
// databases: a node claims a due job by a conditional UPDATE that sets a lease (`locked_until`), so
// two nodes never run the same job at once; a job whose node died (even by kill -9) is claimed again
// once its lease lapses. A failed attempt is retried with exponential backoff and jitter until
// `maxAttempts`, then the job stays `failed` (with its error) until an administrator retries it.
// `uniqueKey` makes enqueueing idempotent: a second enqueue with the same key is a no-op.
//
// Note: the issue asks for pg-boss on PostgreSQL; this table queue is the same small interface and
// is safe across nodes on PostgreSQL (the claim is one atomic UPDATE … WHERE status/lease), so
// pg-boss can replace the PostgreSQL side later without touching callers.
import type { Db } from '../db/database.js';
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
}

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

  async runDue(limit = 20): Promise<number> {
    const queues = [...this.handlers.keys()];
    if (queues.length === 0) return 0;
    const now = this.clock.now().toISOString();
    const candidates = await this.db
      .selectFrom('jobs')
      .select(['id'])
      .where('queue', 'in', queues)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', now)]),
          eb.and([eb('status', '=', 'running'), eb('locked_until', '<', now)]),
        ]),
      )
      .orderBy('run_at')
      .limit(limit)
      .execute();
    let ran = 0;
    for (const { id } of candidates) {
      const job = await this.claim(Number(id));
      if (!job) continue;
      ran += 1;
      await this.execute(job);
    }
    return ran;
  }

  private async claim(id: number) {
    const now = this.clock.now();
    const nowIso = now.toISOString();
    const lease = new Date(now.getTime() + this.leaseMs).toISOString();
    const result = await this.db
      .updateTable('jobs')
      .set((eb) => ({
        status: 'running',
        locked_until: lease,
        attempts: eb('attempts', '+', 1),
        updated_at: nowIso,
      }))
      .where('id', '=', id)
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'queued'), eb('run_at', '<=', nowIso)]),
          eb.and([eb('status', '=', 'running'), eb('locked_until', '<', nowIso)]),
        ]),
      )
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return null;
    return this.db
      .selectFrom('jobs')
      .select(['id', 'queue', 'payload', 'attempts', 'max_attempts'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
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
      this.running = this.running.then(() => this.runDue()).catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
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
