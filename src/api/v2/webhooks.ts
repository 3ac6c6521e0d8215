// Webhooks and background jobs through API v2 (issue 38). A website's webhooks are managed by its site
// admins and administrators (/websites/{id}/webhooks), the installation's by administrators
// (/webhooks); one webhook by id for whoever manages it. The secret is in the answer of the create
// only. Jobs (the queue every node works) are the administrators' (/jobs).
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { WEBHOOK_EVENTS, createWebhookInput, updateWebhookInput } from '../../domain/webhooks/index.js';
import type { Webhook, WebhookDelivery } from '../../domain/webhooks/index.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import { pageResource } from './pages.js';
import { postResource } from './posts.js';
import { idOf, pathId, listOf, noContent } from './conventions.js';
import type { V2Router } from './router.js';
import { tagResource } from './tags.js';

const id = pathId('An id.');

const webhookSchema = z
  .object({
    id: z.int(),
    website_id: z.int().nullable().describe('Null: the installation\u2019s (every website\u2019s events).'),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    active: z.boolean(),
    failures: z.int().describe('Failed attempts in a row.'),
    disabled_reason: z
      .string()
      .nullable()
      .describe('Why Folio disabled it (its deliveries kept failing for about a day).'),
    created_by: z.int().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Webhook' });

const createdSchema = webhookSchema
  .extend({
    secret: z
      .string()
      .describe('`whsec_…`: signs every delivery (Standard Webhooks). Shown in this answer only.'),
  })
  .meta({ id: 'WebhookWithSecret' });

const deliverySchema = z
  .object({
    id: z.int(),
    webhook_id: z.int(),
    job_id: z.int().nullable(),
    message_id: z.string().describe('The `webhook-id` header: the same on every attempt of a message.'),
    event: z.string(),
    attempt: z.int(),
    request_body: z.string(),
    status_code: z.int().nullable().describe('Null: no answer (see error).'),
    response_body: z.string().nullable().describe('The first 1024 bytes of the answer.'),
    error: z.string().nullable(),
    duration_ms: z.int(),
    created_at: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

const jobSchema = z
  .object({
    id: z.int(),
    queue: z.string(),
    status: z.enum(['queued', 'running', 'done', 'failed']),
    attempts: z.int(),
    max_attempts: z.int(),
    run_at: z.string().describe('When it runs next (queued), or ran.'),
    last_error: z.string().nullable(),
    payload: z.unknown(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Job' });

const webhookJson = (hook: Webhook) => ({
  id: hook.id,
  website_id: hook.websiteId,
  url: hook.url,
  events: hook.events,
  active: hook.active,
  failures: hook.failures,
  disabled_reason: hook.disabledReason,
  created_by: hook.createdBy,
  created_at: hook.createdAt,
  updated_at: hook.updatedAt,
});

const deliveryJson = (delivery: WebhookDelivery) => ({
  id: delivery.id,
  webhook_id: delivery.webhookId,
  job_id: delivery.jobId,
  message_id: delivery.messageId,
  event: delivery.event,
  attempt: delivery.attempt,
  request_body: delivery.requestBody,
  status_code: delivery.statusCode,
  response_body: delivery.responseBody,
  error: delivery.error,
  duration_ms: delivery.durationMs,
  created_at: delivery.createdAt,
});

const createBody = createWebhookInput.describe('Events: ' + WEBHOOK_EVENTS.join(', ') + '.');

export function registerWebhookRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.webhooks;
  // Payloads show resources as this API does.
  ops.renderResources(async (type, resourceId) => {
    if (type === 'post') return postResource(services, resourceId);
    if (type === 'page') return pageResource(services, resourceId);
    if (type === 'tag') return tagResource(services, resourceId);
    return null;
  });
  const number = (value: unknown) => Number(value);

  // The installation's webhooks, then a website's: the same list and create, on another path.
  const scopes = [
    {
      url: '/webhooks',
      params: undefined,
      list: {
        summary: 'The installation\u2019s webhooks',
        description: 'Administrators. Told of every website\u2019s events.',
      },
      create: {
        summary: 'Add an installation-wide webhook',
        description: 'Administrators. The answer holds the secret, the only time it is shown.',
      },
      websiteOf: () => null,
    },
    {
      url: '/websites/:id/webhooks',
      params: z.object({ id }),
      list: { summary: 'A website\u2019s webhooks', description: 'Its site admins and administrators.' },
      create: {
        summary: 'Add a webhook to a website',
        description:
          'Its site admins and administrators. The answer holds the secret, the only time it is shown.',
      },
      websiteOf: (request: FastifyRequest) => idOf(request),
    },
  ];
  for (const { url, params, list, create, websiteOf } of scopes) {
    router.route({
      method: 'GET',
      url,
      ...list,
      tags: ['webhooks'],
      params,
      response: { 200: listOf(webhookSchema) },
      handler: async (request) => ({
        data: (await ops.list(await actorOf(services, request), websiteOf(request))).map(webhookJson),
      }),
    });

    router.route({
      method: 'POST',
      url,
      ...create,
      tags: ['webhooks'],
      params,
      body: createBody,
      response: { 201: z.object({ data: createdSchema }) },
      handler: async (request, reply) => {
        const hook = await ops.create(await actorOf(services, request), websiteOf(request), request.body);
        return reply.code(201).send({ data: { ...webhookJson(hook), secret: hook.secret } });
      },
    });
  }

  router.route({
    method: 'GET',
    url: '/webhooks/:id',
    summary: 'Get a webhook',
    tags: ['webhooks'],
    params: z.object({ id }),
    response: { 200: z.object({ data: webhookSchema }) },
    handler: async (request) => {
      return { data: webhookJson(await ops.show(await actorOf(services, request), idOf(request))) };
    },
  });

  router.route({
    method: 'PATCH',
    url: '/webhooks/:id',
    summary: 'Change a webhook',
    description: '`active: true` enables a webhook Folio disabled (its failures are forgotten).',
    tags: ['webhooks'],
    params: z.object({ id }),
    body: updateWebhookInput,
    response: { 200: z.object({ data: webhookSchema }) },
    handler: async (request) => {
      const hook = await ops.update(await actorOf(services, request), idOf(request), request.body);
      return { data: webhookJson(hook) };
    },
  });

  router.route({
    method: 'DELETE',
    url: '/webhooks/:id',
    summary: 'Delete a webhook',
    tags: ['webhooks'],
    params: z.object({ id }),
    response: { 204: z.null() },
    handler: noContent(async (request) => ops.delete(await actorOf(services, request), idOf(request))),
  });

  router.route({
    method: 'GET',
    url: '/webhooks/:id/deliveries',
    summary: 'The delivery log of a webhook',
    description: 'Every attempt, newest first (at most 200).',
    tags: ['webhooks'],
    params: z.object({ id }),
    querystring: z
      .object({
        limit: z
          .string()
          .regex(/^\d{1,3}$/)
          .optional(),
      })
      .strict(),
    response: { 200: listOf(deliverySchema) },
    handler: async (request) => {
      const query = request.query as { limit?: string };
      const list = await ops.deliveries(
        await actorOf(services, request),
        idOf(request),
        query.limit === undefined ? 50 : number(query.limit),
      );
      return { data: list.map(deliveryJson) };
    },
  });

  router.route({
    method: 'POST',
    url: '/webhooks/:id/deliveries/:delivery/redeliver',
    summary: 'Send a message again',
    description: 'The same message id and body, newly signed; once, in the background.',
    tags: ['webhooks'],
    params: z.object({ id, delivery: id }),
    response: { 202: z.object({ data: z.object({ job_id: z.int() }) }) },
    handler: async (request, reply) => {
      const queued = await ops.redeliver(
        await actorOf(services, request),
        idOf(request),
        idOf(request, 'delivery'),
      );
      return reply.code(202).send({ data: { job_id: queued.jobId } });
    },
  });

  router.route({
    method: 'POST',
    url: '/webhooks/:id/test',
    summary: 'Send a test event',
    description: 'Sends `webhook.test` now (active or not) and answers the delivery.',
    tags: ['webhooks'],
    params: z.object({ id }),
    response: { 200: z.object({ data: deliverySchema }) },
    handler: async (request) => {
      return { data: deliveryJson(await ops.test(await actorOf(services, request), idOf(request))) };
    },
  });

  router.route({
    method: 'GET',
    url: '/jobs',
    summary: 'Background jobs',
    description: 'Administrators. Newest first, with the error of a failed one.',
    tags: ['system'],
    querystring: z
      .object({
        status: z.enum(['queued', 'running', 'done', 'failed']).optional(),
        limit: z
          .string()
          .regex(/^\d{1,3}$/)
          .optional(),
      })
      .strict(),
    response: { 200: listOf(jobSchema) },
    handler: async (request) => {
      const query = request.query as { status?: string; limit?: string };
      const jobs = await services.jobOps.list(await actorOf(services, request), {
        status: query.status,
        limit: query.limit === undefined ? 100 : number(query.limit),
      });
      return {
        data: jobs.map((job) => ({
          id: job.id,
          queue: job.queue,
          status: job.status,
          attempts: job.attempts,
          max_attempts: job.maxAttempts,
          run_at: job.runAt,
          last_error: job.lastError,
          payload: job.payload,
          created_at: job.createdAt,
          updated_at: job.updatedAt,
        })),
      };
    },
  });

  router.route({
    method: 'POST',
    url: '/jobs/:id/retry',
    summary: 'Run a failed job again',
    description: 'Administrators. A failed (or waiting) job is queued to run now, with one more attempt.',
    tags: ['system'],
    params: z.object({ id }),
    response: { 204: z.null() },
    handler: noContent(async (request) =>
      services.jobOps.retry(await actorOf(services, request), idOf(request)),
    ),
  });
}
