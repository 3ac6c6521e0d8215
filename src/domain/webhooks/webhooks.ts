// Webhooks (issue 38): site admins and up point a URL of theirs at a website's events, administrators
// at the whole installation's. How an event travels:
//
//   operation commits (its outbox row written in the same transaction, run.ts)
//     → runner.onEvent (at least once: a dead node's rows are told by the next drain)
//     → `enqueue`: one job per (outbox row, webhook) with the unique key `webhook:<outbox id>:<webhook id>`,
//       so an event told twice is queued once
//     → the job queue (src/jobs/queue.ts; any node claims it under a lease)
//     → `deliver`: Standard Webhooks headers, through the SSRF guard, a short timeout, the first bytes
//       of the answer logged; a failure is retried with backoff and jitter for about a day, then the
//       webhook is disabled with the reason its owner sees.
//
// The secret is kept as-is (an HMAC key must be readable to sign; encrypting it with a key kept
// next to it would hide nothing) and is shown only in the answer that creates the webhook.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/queue.js';
import { newWebhookSecret, webhookHeaders } from '../../jobs/standard-webhooks.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { Clock } from '../clock.js';
import { ForbiddenError, InputError, NotFoundError } from '../errors.js';
import type { Actor, Policy } from '../policy.js';
import type { OperationRunner } from '../run.js';
import { SafeFetcher, SafeFetchError } from '../safe-fetch.js';
import { parse } from '../schema-fields.js';
import { toIso } from '../values.js';
import type { DomainEvent } from '../write-scope.js';
import { candidateEvents, postEvent, sharedContent, TEST_EVENT, WEBHOOK_EVENTS } from './events.js';
import type { WebhookEvent } from './events.js';

export const WEBHOOK_QUEUE = 'webhook.deliver';
/** Who reads a resource for a payload: the installation itself (its answers are not a caller's). */
export const WEBHOOK_READER: Actor = Object.freeze({
  userId: null,
  isAdmin: true,
  websiteId: null,
  origin: Object.freeze({ surface: 'system' as const }),
});
/**
 * Attempts of one message: the queue's backoff (30 s doubling to 6 h, each step jittered between half
 * and all of it) spreads 14 attempts over about a day (16 to 32 hours).
 */
export const WEBHOOK_MAX_ATTEMPTS = 14;
/** Hosts (comma-separated) whose private or loopback addresses webhooks may reach: administrators set it. */
export const WEBHOOK_ALLOWED_HOSTS_SETTING = 'webhook_allowed_hosts';
/** How much of an answer the delivery log keeps. */
export const RESPONSE_LOG_BYTES = 1024;
const MAX_WEBHOOKS_PER_OWNER = 50;
/** How long the delivery log and done jobs are kept. */
export const DELIVERY_LOG_DAYS = 30;

const httpUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
    } catch {
      return false;
    }
  }, 'The url must be an http or https URL without credentials.');

const eventList = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1)
  .max(WEBHOOK_EVENTS.length)
  .transform((events) => [...new Set(events)]);

export const createWebhookInput = z
  .object({ url: httpUrl, events: eventList, active: z.boolean().optional() })
  .strict();

export const updateWebhookInput = z
  .object({ url: httpUrl.optional(), events: eventList.optional(), active: z.boolean().optional() })
  .strict();

export interface Webhook {
  id: number;
  /** Null: the installation's (every website's events). */
  websiteId: number | null;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  /** Deliveries that failed in a row. */
  failures: number;
  /** Why it was disabled by Folio (null: it was not, or it was enabled again). */
  disabledReason: string | null;
  createdBy: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookDelivery {
  id: number;
  webhookId: number;
  jobId: number | null;
  messageId: string;
  event: string;
  attempt: number;
  requestBody: string;
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  durationMs: number;
  createdAt: string;
}

/** A job's payload: which message goes to which webhook. */
interface DeliveryJob {
  webhookId: number;
  messageId: string;
  event: string;
  websiteId: number | null;
  resourceType: string | null;
  resourceId: string | null;
  at: string;
  /** What the event said of itself (an import's counts): the payload's resource, as it was. */
  detail?: Record<string, unknown>;
  /** A redelivery asked by hand: one attempt, never disables the webhook. */
  manual?: boolean;
}

/**
 * Renders a resource as API v2 shows it (API v2 registers it: domain code does not know faces).
 * Null: it is gone.
 */
export type ResourceRenderer = (type: string, id: string) => Promise<unknown>;

type Row = {
  id: number;
  website_id: number | null;
  url: string;
  events: string;
  active: number;
  failures: number;
  disabled_reason: string | null;
  created_by: number | null;
  created_at: string | Date;
  updated_at: string | Date;
};

const toWebhook = (row: Row): Webhook => ({
  id: Number(row.id),
  websiteId: row.website_id === null ? null : Number(row.website_id),
  url: row.url,
  events: JSON.parse(row.events) as WebhookEvent[],
  active: Number(row.active) === 1,
  failures: Number(row.failures),
  disabledReason: row.disabled_reason,
  createdBy: row.created_by,
  createdAt: toIso(row.created_at),
  updatedAt: toIso(row.updated_at),
});

const COLUMNS = [
  'id',
  'website_id',
  'url',
  'events',
  'active',
  'failures',
  'disabled_reason',
  'created_by',
  'created_at',
  'updated_at',
] as const;

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  policy: Policy;
  runner: OperationRunner;
  audit: AuditLog;
  jobs: JobQueue;
  settings: { get(key: string): Promise<string | undefined> };
  websites: {
    find(id: number): Promise<{ id: number; domain: string; fields: Record<string, string | null> } | null>;
  };
  warn: (message: string) => void;
  /** Time allowed for the whole exchange with the receiver (default 5 s). */
  timeoutMs?: number;
}

export class WebhookService {
  private renderer: ResourceRenderer | null = null;
  private readonly guarded: SafeFetcher;
  /** For hosts an administrator allowed: any address. */
  private readonly trusted: SafeFetcher;
  private timeoutMs: number;

  constructor(private readonly deps: WebhookDeps) {
    this.timeoutMs = deps.timeoutMs ?? 5000;
    this.guarded = new SafeFetcher({ timeoutMs: this.timeoutMs, maxRedirects: 0 });
    this.trusted = new SafeFetcher({ timeoutMs: this.timeoutMs, maxRedirects: 0, allowAddress: () => true });
  }

  /** Hooks the service onto the runner's events and the job queue (once, at wiring). */
  install(): this {
    // After the answer: queueing costs the answer nothing (the outbox row waits for it).
    this.deps.runner.onEvent((event, outboxId) => this.enqueue(event, outboxId), { afterAnswer: true });
    this.deps.jobs.work(WEBHOOK_QUEUE, (payload, job) =>
      this.deliverJob(payload as DeliveryJob, job.id, job.attempt),
    );
    return this;
  }

  /** Time allowed for one delivery's exchange (tests shorten it). */
  setTimeoutMs(ms: number): void {
    this.timeoutMs = ms;
  }

  /** How payloads show resources (API v2's shapes). */
  renderResources(renderer: ResourceRenderer): void {
    this.renderer = renderer;
  }

  async close(): Promise<void> {
    await Promise.all([this.guarded.close(), this.trusted.close()]);
  }

  // ---- Operations (faces call these) ---------------------------------------------------------

  private async require(actor: Actor, websiteId: number | null): Promise<void> {
    if (!(await this.deps.policy.can(actor, 'webhook.manage', { websiteId }))) throw new ForbiddenError();
  }

  /** The webhooks of a website (null: the installation's), for those who manage them. */
  async list(actor: Actor, websiteId: number | null): Promise<Webhook[]> {
    await this.require(actor, websiteId);
    let query = this.deps.db.selectFrom('webhooks').select(COLUMNS).orderBy('id');
    query =
      websiteId === null ? query.where('website_id', 'is', null) : query.where('website_id', '=', websiteId);
    return (await query.execute()).map(toWebhook);
  }

  /** Every webhook, the installation's and every website's (administrators: the CLI's list). */
  async listEverywhere(actor: Actor): Promise<Webhook[]> {
    await this.require(actor, null);
    const rows = await this.deps.db.selectFrom('webhooks').select(COLUMNS).orderBy('id').execute();
    return rows.map(toWebhook);
  }

  /** One webhook, if the actor manages it (else: not found, nothing revealed). */
  async show(actor: Actor, id: number): Promise<Webhook> {
    const hook = await this.find(id);
    if (!hook || !(await this.deps.policy.can(actor, 'webhook.manage', { websiteId: hook.websiteId }))) {
      throw new NotFoundError('No such webhook.');
    }
    return hook;
  }

  private async find(id: number): Promise<Webhook | null> {
    if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) return null;
    const row = await this.deps.db
      .selectFrom('webhooks')
      .select(COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toWebhook(row) : null;
  }

  /** Makes a webhook; the answer holds its secret, the only time it is shown. */
  async create(actor: Actor, websiteId: number | null, raw: unknown): Promise<Webhook & { secret: string }> {
    const input = parse(createWebhookInput, raw);
    return this.deps.runner.run(async () => {
      await this.require(actor, websiteId);
      if (websiteId !== null && !(await this.deps.websites.find(websiteId))) {
        throw new NotFoundError('Website not found');
      }
      const count = await this.deps.db
        .selectFrom('webhooks')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) => (websiteId === null ? eb('website_id', 'is', null) : eb('website_id', '=', websiteId)))
        .executeTakeFirstOrThrow();
      if (Number(count.n) >= MAX_WEBHOOKS_PER_OWNER) {
        throw new InputError('url', `At most ${MAX_WEBHOOKS_PER_OWNER} webhooks per website.`);
      }
      const secret = newWebhookSecret();
      const now = this.deps.clock.now().toISOString();
      const row = await this.deps.db
        .insertInto('webhooks')
        .values({
          website_id: websiteId,
          url: input.url,
          events: JSON.stringify(input.events),
          secret,
          active: input.active === false ? 0 : 1,
          failures: 0,
          disabled_reason: null,
          created_by: actor.userId,
          created_at: now,
          updated_at: now,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      const hook = toWebhook(row);
      await this.audited(actor, 'webhook.create', hook, { url: input.url, events: input.events });
      return { ...hook, secret };
    });
  }

  /** Changes a webhook; `active: true` enables a disabled one again (its failures forgotten). */
  async update(actor: Actor, id: number, raw: unknown): Promise<Webhook> {
    const input = parse(updateWebhookInput, raw);
    return this.deps.runner.run(async () => {
      await this.show(actor, id);
      const patch: Record<string, unknown> = { updated_at: this.deps.clock.now().toISOString() };
      if (input.url !== undefined) patch.url = input.url;
      if (input.events !== undefined) patch.events = JSON.stringify(input.events);
      if (input.active !== undefined) {
        patch.active = input.active ? 1 : 0;
        if (input.active) Object.assign(patch, { failures: 0, disabled_reason: null });
      }
      await this.deps.db.updateTable('webhooks').set(patch).where('id', '=', id).execute();
      const hook = (await this.find(id))!;
      await this.audited(actor, 'webhook.update', hook, input);
      return hook;
    });
  }

  async delete(actor: Actor, id: number): Promise<void> {
    await this.deps.runner.run(async () => {
      const hook = await this.show(actor, id);
      await this.deps.db.deleteFrom('webhooks').where('id', '=', id).execute();
      await this.audited(actor, 'webhook.delete', hook);
    });
  }

  /** The delivery log of a webhook, newest first. */
  async deliveries(actor: Actor, id: number, limit = 50): Promise<WebhookDelivery[]> {
    await this.show(actor, id);
    const rows = await this.deps.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', id)
      .orderBy('id', 'desc')
      .limit(Math.max(1, Math.min(limit, 200)))
      .execute();
    return rows.map((row) => ({
      id: Number(row.id),
      webhookId: Number(row.webhook_id),
      jobId: row.job_id === null ? null : Number(row.job_id),
      messageId: row.message_id,
      event: row.event,
      attempt: Number(row.attempt),
      requestBody: row.request_body,
      statusCode: row.status_code === null ? null : Number(row.status_code),
      responseBody: row.response_body,
      error: row.error,
      durationMs: Number(row.duration_ms),
      createdAt: toIso(row.created_at),
    }));
  }

  /** Sends a logged message again (same message id, new signature), once, in the background. */
  async redeliver(actor: Actor, id: number, deliveryId: number): Promise<{ jobId: number }> {
    return this.deps.runner.run(async () => {
      const hook = await this.show(actor, id);
      const delivery = Number.isSafeInteger(deliveryId)
        ? await this.deps.db
            .selectFrom('webhook_deliveries')
            .select(['message_id', 'event'])
            .where('id', '=', deliveryId)
            .where('webhook_id', '=', id)
            .executeTakeFirst()
        : undefined;
      if (!delivery) throw new NotFoundError('No such delivery of this webhook.');
      const job: DeliveryJob = {
        webhookId: id,
        messageId: delivery.message_id,
        event: delivery.event,
        websiteId: hook.websiteId,
        resourceType: null,
        resourceId: null,
        at: this.deps.clock.now().toISOString(),
        manual: true,
      };
      const jobId = await this.deps.jobs.enqueue(WEBHOOK_QUEUE, job, { maxAttempts: 1 });
      await this.audited(actor, 'webhook.redeliver', hook, { delivery: deliveryId });
      return { jobId: jobId! };
    });
  }

  /**
   * Sends a test event now and answers how it went (the delivery, logged like any other). A test
   * is sent whether the webhook is active or not, and never counts toward disabling it.
   */
  async test(actor: Actor, id: number): Promise<WebhookDelivery> {
    const hook = await this.deps.runner.run(async () => {
      const found = await this.show(actor, id);
      await this.audited(actor, 'webhook.test', found);
      return found;
    });
    const job: DeliveryJob = {
      webhookId: id,
      messageId: `msg_test_${randomUUID()}`,
      event: TEST_EVENT,
      websiteId: hook.websiteId,
      resourceType: null,
      resourceId: null,
      at: this.deps.clock.now().toISOString(),
      manual: true,
    };
    const deliveryId = await this.send(job, null, 1);
    return (await this.deliveries(actor, id, 200)).find((delivery) => delivery.id === deliveryId)!;
  }

  private audited(actor: Actor, action: string, hook: Webhook, input?: unknown): Promise<void> {
    return recordWrite(this.deps.audit, actor, {
      action,
      resourceType: 'webhook',
      resourceId: hook.id,
      websiteIds: hook.websiteId === null ? [] : [hook.websiteId],
      input,
    });
  }

  /**
   * Hourly upkeep (every serving node; deletes are idempotent): the delivery log keeps
   * DELIVERY_LOG_DAYS days, the queue its done jobs as long.
   */
  async prune(): Promise<void> {
    const before = new Date(this.deps.clock.now().getTime() - DELIVERY_LOG_DAYS * 86_400_000);
    await this.deps.db
      .deleteFrom('webhook_deliveries')
      .where('created_at', '<', before.toISOString())
      .execute();
    await this.deps.jobs.pruneDone(before);
  }

  // ---- From a committed event to queued deliveries -------------------------------------------

  /** The runner's listener: one job per webhook that wants this event (idempotent per outbox row). */
  async enqueue(event: DomainEvent, outboxId: number): Promise<void> {
    const candidates = candidateEvents(event);
    if (candidates.length === 0) return;
    const { db } = this.deps;
    const shared = event.websiteIds.length === 0 && sharedContent(event.resourceType);
    let query = db.selectFrom('webhooks').select(['id', 'website_id', 'events']).where('active', '=', 1);
    if (!shared) {
      query = query.where((eb) =>
        event.websiteIds.length === 0
          ? eb('website_id', 'is', null)
          : eb.or([eb('website_id', 'is', null), eb('website_id', 'in', event.websiteIds)]),
      );
    }
    const hooks = (await query.execute())
      .map((row) => ({ ...row, events: JSON.parse(row.events) as string[] }))
      .filter((hook) => hook.events.some((name) => (candidates as readonly string[]).includes(name)));
    if (hooks.length === 0) return;
    const name = candidates.length === 1 ? candidates[0]! : await this.postChange(event);
    for (const hook of hooks) {
      if (!hook.events.includes(name)) continue;
      const job: DeliveryJob = {
        webhookId: Number(hook.id),
        messageId: `msg_${outboxId}_${hook.id}`,
        event: name,
        websiteId: hook.website_id ?? (event.websiteIds.length === 1 ? event.websiteIds[0]! : null),
        resourceType: event.resourceType,
        resourceId: event.resourceId,
        at: event.at,
        ...(event.detail ? { detail: event.detail } : {}),
      };
      await this.deps.jobs.enqueue(WEBHOOK_QUEUE, job, {
        uniqueKey: outboxId > 0 ? `webhook:${outboxId}:${hook.id}` : undefined,
        maxAttempts: WEBHOOK_MAX_ATTEMPTS,
      });
    }
  }

  /**
   * Published, updated or unpublished: whether the post is public now against whether webhooks last
   * saw it public (one conditional write each way, so two nodes telling changes of one post agree).
   */
  private async postChange(event: DomainEvent): Promise<WebhookEvent> {
    const { db } = this.deps;
    const id = Number(event.resourceId);
    if (!Number.isSafeInteger(id)) return 'post.updated';
    const post = await db
      .selectFrom('posts')
      .select(['status', 'published_at', 'deleted_at'])
      .where('id', '=', id)
      .executeTakeFirst();
    const publicNow =
      post !== undefined &&
      post.deleted_at === null &&
      this.deps.policy.isPublic({ status: post.status, publishedAt: toIso(post.published_at) });
    if (publicNow) {
      const added = await db
        .insertInto('webhook_public_posts')
        .values({ post_id: id })
        .onConflict((oc) => oc.column('post_id').doNothing())
        .executeTakeFirst();
      return postEvent(true, Number(added.numInsertedOrUpdatedRows ?? 0) === 0);
    }
    const removed = await db.deleteFrom('webhook_public_posts').where('post_id', '=', id).executeTakeFirst();
    return postEvent(false, Number(removed.numDeletedRows) > 0);
  }

  // ---- Delivery ------------------------------------------------------------------------------

  private async deliverJob(job: DeliveryJob, jobId: number, attempt: number): Promise<void> {
    const hook = await this.find(job.webhookId);
    // Deleted or disabled since: nothing to send (a disabled webhook's queue is dropped, not kept);
    // a message sent again by hand goes even to a disabled webhook (to check a fixed receiver).
    if (!hook || (!hook.active && !job.manual)) return;
    const deliveryId = await this.send(job, jobId, attempt);
    const row = await this.deps.db
      .selectFrom('webhook_deliveries')
      .select(['status_code', 'error'])
      .where('id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    const ok = row.status_code !== null && row.status_code >= 200 && row.status_code < 300;
    if (ok) {
      if (!job.manual) {
        await this.deps.db
          .updateTable('webhooks')
          .set({ failures: 0 })
          .where('id', '=', hook.id)
          .where('failures', '>', 0)
          .execute();
      }
      return;
    }
    const why = row.error ?? `HTTP ${row.status_code}`;
    if (!job.manual) await this.failed(hook, job, attempt, why);
    throw new Error(`webhook ${hook.id}: ${why}`);
  }

  /** Counts a failed attempt; the last attempt of a message disables the webhook, saying why. */
  private async failed(hook: Webhook, job: DeliveryJob, attempt: number, why: string): Promise<void> {
    const { db, clock } = this.deps;
    await db
      .updateTable('webhooks')
      .set((eb) => ({ failures: eb('failures', '+', 1) }))
      .where('id', '=', hook.id)
      .execute();
    if (attempt < WEBHOOK_MAX_ATTEMPTS) return;
    const reason =
      `Disabled on ${clock.now().toISOString()}: the ${job.event} message ${job.messageId} failed ` +
      `${attempt} times since ${job.at} (last: ${why}). Fix the receiver, then enable the webhook again.`;
    await db
      .updateTable('webhooks')
      .set({ active: 0, disabled_reason: reason.slice(0, 2000), updated_at: clock.now().toISOString() })
      .where('id', '=', hook.id)
      .execute();
    this.deps.warn(`webhook ${hook.id} disabled: ${why}`);
  }

  /** The body of a message: the one first sent under its id, or made now. */
  private async bodyOf(job: DeliveryJob): Promise<string> {
    const first = await this.deps.db
      .selectFrom('webhook_deliveries')
      .select('request_body')
      .where('webhook_id', '=', job.webhookId)
      .where('message_id', '=', job.messageId)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (first) return first.request_body;
    const site = job.websiteId === null ? null : await this.deps.websites.find(job.websiteId);
    let resource: unknown = job.detail ?? null;
    if (resource === null && job.resourceType !== null && job.resourceId !== null) {
      const rendered =
        this.renderer && !job.event.endsWith('.deleted')
          ? await this.renderer(job.resourceType, job.resourceId).catch(() => null)
          : null;
      resource = rendered ?? { id: /^\d+$/.test(job.resourceId) ? Number(job.resourceId) : job.resourceId };
    }
    return JSON.stringify({
      event: job.event,
      timestamp: job.at,
      website: site ? { id: site.id, domain: site.domain, name: site.fields.site_name ?? null } : null,
      resource_type: job.resourceType,
      resource,
    });
  }

  /** One attempt: signs, sends, logs. Answers the delivery's id. */
  private async send(job: DeliveryJob, jobId: number | null, attempt: number): Promise<number> {
    const { db, clock } = this.deps;
    const secret = await db
      .selectFrom('webhooks')
      .select(['secret', 'url'])
      .where('id', '=', job.webhookId)
      .executeTakeFirstOrThrow();
    const body = await this.bodyOf(job);
    const headers = {
      ...webhookHeaders(secret.secret, job.messageId, clock.now(), body),
      'content-type': 'application/json',
    };
    const started = performance.now();
    let statusCode: number | null = null;
    let responseBody: string | null = null;
    let error: string | null = null;
    try {
      const fetcher = (await this.allowedHost(secret.url)) ? this.trusted : this.guarded;
      const answer = await fetcher.post(secret.url, body, headers, {
        timeoutMs: this.timeoutMs,
        maxBytes: RESPONSE_LOG_BYTES,
      });
      statusCode = answer.status;
      responseBody = answer.body;
    } catch (caught) {
      error = caught instanceof SafeFetchError ? caught.message : `failed: ${(caught as Error).message}`;
    }
    const row = await db
      .insertInto('webhook_deliveries')
      .values({
        webhook_id: job.webhookId,
        job_id: jobId,
        message_id: job.messageId,
        event: job.event,
        attempt,
        request_body: body,
        status_code: statusCode,
        response_body: responseBody,
        error,
        duration_ms: Math.round(performance.now() - started),
        created_at: clock.now().toISOString(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  private async allowedHost(url: string): Promise<boolean> {
    const setting = (await this.deps.settings.get(WEBHOOK_ALLOWED_HOSTS_SETTING)) ?? '';
    const hosts = setting
      .split(',')
      .map((host) => host.trim().toLowerCase())
      .filter(Boolean);
    if (hosts.length === 0) return false;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return hosts.includes(host);
  }
}
