// The installation through API v2: settings (administrators; secrets never shown or set), cache
// flushes (a website's: its site admins too; all: administrators), core updates (administrators).
import { z } from 'zod';
import { AUTH_MODES } from '../../domain/system/api-switches.js';
import { cacheFlushInput, settingsInput, updateRequestInput } from '../../domain/system/operations.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import { listOf, noContent } from './conventions.js';
import { Problem } from './problem.js';
import type { V2Router } from './router.js';

const settingsSchema = z
  .object({
    data: z.record(z.string(), z.string()),
    meta: z.object({
      defaults: z
        .record(z.string(), z.string())
        .describe('The value in effect of each of these settings while it is not set.'),
    }),
  })
  .meta({
    id: 'Settings',
    description:
      'Every setting by key, secrets left out. `registration_role` is one of reader, contributor, ' +
      'author (another value: 422).',
  });
const flushBody = cacheFlushInput.strict();
const updateBody = updateRequestInput.strict();

const apiSwitchSchema = z
  .object({
    key: z.string().describe('The spec\u2019s name of the switch (section 5).'),
    enabled: z.boolean().nullable().describe('Null: the endpoint has no switch of its own.'),
    auth_mode: z
      .enum(AUTH_MODES)
      .nullable()
      .describe('The setting `<key>_should_auth`; null for a switch of a group.'),
  })
  .meta({ id: 'ApiSwitch' });

export function registerSystemRoutes(router: V2Router, services: FaceServices): void {
  router.route({
    method: 'GET',
    url: '/api-switches',
    summary: 'API v1\u2019s switches and auth modes',
    description:
      'Administrators. Each is a setting (`<key>` on or off, `<key>_should_auth`: none, simple or ' +
      'basic), changed with PATCH /settings.',
    tags: ['system'],
    response: { 200: listOf(apiSwitchSchema) },
    handler: async (request) => ({
      data: (await services.systemOps.apiSwitches(await actorOf(services, request))).map((entry) => ({
        key: entry.key,
        enabled: entry.enabled,
        auth_mode: entry.authMode,
      })),
    }),
  });

  router.route({
    method: 'POST',
    url: '/mail/test',
    summary: 'Send a test mail to yourself',
    description:
      'Administrators. Through the mailer (SMTP when SMTP_URL is set, else the log); the answer ' +
      'says which, and whether it went.',
    tags: ['system'],
    response: {
      200: z.object({
        data: z.object({
          to: z.string(),
          transport: z.enum(['smtp', 'log']),
          sent: z.boolean(),
          error: z.string().nullable(),
        }),
      }),
    },
    handler: async (request) => ({
      data: await services.systemOps.sendTestMail(await actorOf(services, request)),
    }),
  });

  router.route({
    method: 'GET',
    url: '/settings',
    summary: 'Settings',
    description:
      'Administrators; the API switches are settings too (docs/configuration.md, "Settings that control the API").',
    tags: ['system'],
    response: { 200: settingsSchema },
    handler: async (request) => {
      const actor = await actorOf(services, request);
      return {
        data: await services.systemOps.settings(actor),
        meta: { defaults: await services.systemOps.settingDefaults(actor) },
      };
    },
  });

  router.route({
    method: 'PATCH',
    url: '/settings',
    summary: 'Change settings',
    description: '`{"key": "value"}`; `null` removes a setting. Secrets are refused (422).',
    tags: ['system'],
    body: settingsInput,
    response: { 200: settingsSchema },
    handler: async (request) => {
      const actor = await actorOf(services, request);
      return {
        data: await services.systemOps.setSettings(actor, request.body),
        meta: { defaults: await services.systemOps.settingDefaults(actor) },
      };
    },
  });

  router.route({
    method: 'POST',
    url: '/cache/flush',
    summary: 'Flush the caches',
    description: 'A website\u2019s pages and data (its site admins too), or everything (administrators).',
    tags: ['system'],
    body: flushBody,
    response: { 204: z.null() },
    handler: noContent(async (request) => {
      const body = flushBody.parse(request.body ?? {});
      await services.systemOps.flushCache(await actorOf(services, request), body.website_id);
    }),
  });

  router.route({
    method: 'POST',
    url: '/updates',
    summary: 'Update the core or a package',
    description: 'Administrators; runs the update and answers its outcome (409 while another runs).',
    tags: ['system'],
    body: updateBody,
    response: { 200: z.object({ data: z.object({ version: z.string() }) }) },
    handler: async (request) => {
      const actor = await actorOf(services, request);
      const body = updateBody.parse(request.body ?? {});
      const result = await services.systemOps.triggerUpdate(actor, body, request.log);
      switch (result.outcome) {
        case 'updated':
          return { data: { version: result.version } };
        case 'disabled':
          throw new Problem(
            403,
            'forbidden',
            'Core update disabled',
            'The setting disable_core_update is on.',
          );
        case 'invalid':
          throw new Problem(
            422,
            'validation',
            'Invalid update request',
            'The package or version is not valid.',
          );
        case 'busy':
          throw new Problem(409, 'conflict', 'Update in progress', 'Another update is running.');
        case 'failed':
          throw new Problem(500, 'server', 'Update failed', result.reason);
      }
    },
  });

  const progressQuery = z
    .object({ item: z.string().max(214).optional().describe('Default: core.') })
    .strict();
  router.route({
    method: 'GET',
    url: '/updates/progress',
    summary: 'Whether an update is running',
    tags: ['system'],
    querystring: progressQuery,
    response: { 200: z.object({ data: z.object({ item: z.string(), running: z.boolean() }) }) },
    handler: async (request) => {
      const item = progressQuery.parse(request.query).item ?? 'core';
      const running = await services.systemOps.updateRunning(await actorOf(services, request), item);
      return { data: { item, running } };
    },
  });
}
