// The operation runner (issue 35 #4): every write runs in one frame, so that what hooks into writes
// (the caches, revisions, webhooks, a search index) hooks in here once, not in every face.
//
//   parse → one transaction { load, policy, write, audit row, in-transaction hooks, outbox rows }
//         → after commit: announce the changes and events, delete the outbox rows, after-commit work
//         → on error: roll back, undo what lies outside the database (files written)
//
// Stores and services called inside need not know: every query joins the ambient transaction
// (db/ambient.ts), `changes.announce` and the audit log keep what they announce and record with the
// write scope (write-scope.ts). An operation called inside another joins its transaction.
import type { z } from 'zod';
import type { Db } from '../db/database.js';
import type { ContentChange, ContentChanges } from './changes.js';
import { nowIso } from './clock.js';
import type { Clock } from './clock.js';
import type { Actor } from './policy.js';
import { parse } from './schema-fields.js';
import { currentWriteScope, withWriteScope, WriteScope } from './write-scope.js';
import type { DomainEvent } from './write-scope.js';

export type { DomainEvent } from './write-scope.js';
export { WriteScope } from './write-scope.js';

/** Called in the transaction for every event an operation records (revisions are written here). */
export type WriteHook = (event: DomainEvent) => Promise<void>;
/** Told after commit, once per event (at least once: a crashed node's rows are told by the next drain). */
export type EventListener = (event: DomainEvent, outboxId: number) => Promise<void>;

export interface RunnerDeps {
  db: Db;
  transact: <T>(work: () => Promise<T>) => Promise<T>;
  clock: Clock;
  changes: ContentChanges;
  warn: (message: string) => void;
}

/** An outbox row older than this is taken to be left behind by a node that stopped (drain). */
export const OUTBOX_GRACE_MS = 10_000;
/** A claim older than this is taken over: the node that claimed it stopped while announcing. */
export const OUTBOX_LEASE_MS = 60_000;
const DRAIN_BATCH = 200;

type OutboxItem = { topic: 'change'; payload: ContentChange } | { topic: 'event'; payload: DomainEvent };

export interface OperationSpec<I, F, R> {
  /** The one schema of the operation's input; faces derive theirs from it. */
  input: z.ZodType<I>;
  /** What the policy decides on, read in the transaction (throws NotFoundError for what is not there). */
  load?: (input: I, actor: Actor) => Promise<F>;
  /** The policy question (policy.require …): throws ForbiddenError. */
  authorize: (actor: Actor, input: I, facts: F) => Promise<void> | void;
  /** The write itself. */
  execute: (input: I, facts: F, actor: Actor, scope: WriteScope) => Promise<R>;
}

export interface EventListenerOptions {
  /**
   * Told after the operation has answered, not before (webhooks: queueing deliveries must not slow
   * the answer). The event's outbox row is kept until these listeners are done, so a node that stops
   * meanwhile leaves it to the drain; on one node they are told one event at a time, in commit order.
   */
  afterAnswer?: boolean;
}

export class OperationRunner {
  private readonly hooks: WriteHook[] = [];
  private readonly listeners: EventListener[] = [];
  private readonly laterListeners: EventListener[] = [];
  /** The events told after the answer, in order (settle() waits for it). */
  private later: Promise<void> = Promise.resolve();
  private draining: Promise<number> | null = null;

  constructor(private readonly deps: RunnerDeps) {}

  /** Runs `hook` in the transaction of every write, for each event it records. */
  onWrite(hook: WriteHook): void {
    this.hooks.push(hook);
  }

  /** Tells `listener` of every committed event. */
  onEvent(listener: EventListener, options: EventListenerOptions = {}): void {
    (options.afterAnswer ? this.laterListeners : this.listeners).push(listener);
  }

  /** Waits until the events told after the answer so far have been told (tests, shutdown). */
  async settle(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.later;
      await current;
    } while (current !== this.later);
  }

  /**
   * Runs `work` as one operation: one transaction, its announcements kept until commit. Inside
   * another operation, `work` joins it.
   */
  async run<T>(work: (scope: WriteScope) => Promise<T>): Promise<T> {
    const outer = currentWriteScope();
    if (outer) return work(outer);
    const scope = new WriteScope();
    let outboxIds: number[] = [];
    let result: T;
    try {
      result = await withWriteScope(scope, () =>
        this.deps.transact(async () => {
          const value = await work(scope);
          // A hook may record events of its own; those are hooked too (an index, not an iterator).
          for (let index = 0; index < scope.events.length; index++) {
            for (const hook of this.hooks) await hook(scope.events[index]!);
          }
          outboxIds = await this.writeOutbox(scope);
          scope.open = false;
          return value;
        }),
      );
    } catch (error) {
      await scope.rolledBack(this.deps.warn);
      throw error;
    }
    await this.tell(this.itemsOf(scope), outboxIds, { answering: true });
    await scope.committed(this.deps.warn);
    return result;
  }

  /**
   * An operation from its parts (the shape ../shared/examples/operation.md sketches): parse the
   * input, then in one transaction load the facts, ask the policy, write.
   */
  operation<I, F = undefined, R = void>(spec: OperationSpec<I, F, R>) {
    return async (actor: Actor, raw: unknown): Promise<R> => {
      const input = parse(spec.input, raw);
      return this.run(async (scope) => {
        const facts = (spec.load ? await spec.load(input, actor) : undefined) as F;
        await spec.authorize(actor, input, facts);
        return spec.execute(input, facts, actor, scope);
      });
    };
  }

  /**
   * An event recorded outside any operation (a write not yet on the runner): written to the outbox
   * and told at once, so that listeners (webhooks) miss no audited write.
   */
  async unscopedEvent(event: DomainEvent): Promise<void> {
    const item: OutboxItem = { topic: 'event', payload: event };
    const ids = await this.insertOutbox([item]);
    await this.tell([item], ids, { answering: true });
  }

  /**
   * Announces what stopped nodes left in the outbox (rows older than the grace period, unclaimed or
   * with a lapsed claim). Each row is claimed first, so two nodes draining at once tell it once.
   * Answers how many rows it told.
   */
  drain(): Promise<number> {
    this.draining ??= this.drainOnce().finally(() => (this.draining = null));
    return this.draining;
  }

  private async drainOnce(): Promise<number> {
    const { db, clock } = this.deps;
    const now = clock.now().getTime();
    const before = new Date(now - OUTBOX_GRACE_MS).toISOString();
    const lapsed = new Date(now - OUTBOX_LEASE_MS).toISOString();
    let told = 0;
    for (;;) {
      const rows = await db
        .selectFrom('outbox')
        .select(['id', 'topic', 'payload'])
        .where('created_at', '<', before)
        .where((eb) => eb.or([eb('claimed_at', 'is', null), eb('claimed_at', '<', lapsed)]))
        .orderBy('id')
        .limit(DRAIN_BATCH)
        .execute();
      if (rows.length === 0) return told;
      for (const row of rows) {
        const claimed = await db
          .updateTable('outbox')
          .set({ claimed_at: nowIso(clock) })
          .where('id', '=', row.id)
          .where((eb) => eb.or([eb('claimed_at', 'is', null), eb('claimed_at', '<', lapsed)]))
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) continue;
        let item: OutboxItem;
        try {
          item = { topic: row.topic, payload: JSON.parse(row.payload) as unknown } as OutboxItem;
        } catch {
          this.deps.warn(`outbox: row ${row.id} is not JSON; dropped`);
          await db.deleteFrom('outbox').where('id', '=', row.id).execute();
          continue;
        }
        await this.tell([item], [row.id]);
        told++;
      }
      if (rows.length < DRAIN_BATCH) return told;
    }
  }

  private itemsOf(scope: WriteScope): OutboxItem[] {
    return [
      ...scope.changes.map((payload): OutboxItem => ({ topic: 'change', payload })),
      ...scope.events.map((payload): OutboxItem => ({ topic: 'event', payload })),
    ];
  }

  private async writeOutbox(scope: WriteScope): Promise<number[]> {
    return this.insertOutbox(this.itemsOf(scope));
  }

  private async insertOutbox(items: OutboxItem[]): Promise<number[]> {
    if (items.length === 0) return [];
    const createdAt = nowIso(this.deps.clock);
    const rows = await this.deps.db
      .insertInto('outbox')
      .values(
        items.map((item) => ({
          created_at: createdAt,
          topic: item.topic,
          payload: JSON.stringify(item.payload),
        })),
      )
      .returning('id')
      .execute();
    return rows.map((row) => row.id);
  }

  /**
   * Tells the caches and listeners, then deletes the told rows. Listener failures are logged. When
   * `answering` (an operation waits to answer), listeners that asked to be told after the answer are
   * told in the background, and the rows of their events deleted once they are done (kept when one
   * failed: the drain tells the event again).
   */
  private async tell(
    items: OutboxItem[],
    ids: number[],
    options: { answering?: boolean } = {},
  ): Promise<void> {
    const done: number[] = [];
    const later: Array<{ event: DomainEvent; id: number }> = [];
    for (const [index, item] of items.entries()) {
      const id = ids[index];
      if (item.topic === 'change') {
        await this.deps.changes.dispatch(item.payload);
        if (id !== undefined) done.push(id);
        continue;
      }
      await this.callEach(this.listeners, item.payload, id ?? 0);
      if (this.laterListeners.length === 0) {
        if (id !== undefined) done.push(id);
      } else if (options.answering) {
        later.push({ event: item.payload, id: id ?? 0 });
      } else if (await this.callEach(this.laterListeners, item.payload, id ?? 0)) {
        if (id !== undefined) done.push(id);
      }
    }
    await this.deleteTold(done);
    if (later.length === 0) return;
    this.later = this.later.then(async () => {
      // Past the answer: the reply is written before this work takes the thread (SQLite's queries
      // run synchronously).
      await new Promise((resolve) => setImmediate(resolve));
      const told: number[] = [];
      for (const { event, id } of later) {
        if ((await this.callEach(this.laterListeners, event, id)) && id > 0) told.push(id);
      }
      await this.deleteTold(told);
    });
  }

  /** Calls each listener; answers whether all of them succeeded (failures are logged). */
  private async callEach(listeners: EventListener[], event: DomainEvent, id: number): Promise<boolean> {
    let ok = true;
    for (const listener of listeners) {
      try {
        await listener(event, id);
      } catch (error) {
        ok = false;
        this.deps.warn(`event ${event.action}: listener failed: ${(error as Error).message}`);
      }
    }
    return ok;
  }

  private async deleteTold(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.deps.db.deleteFrom('outbox').where('id', 'in', ids).execute();
    } catch (error) {
      // Left behind, the rows are told again by a drain: announcements are idempotent.
      this.deps.warn(`outbox: deleting told rows failed: ${(error as Error).message}`);
    }
  }
}
