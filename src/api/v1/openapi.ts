// API v1 described as OpenAPI 3.1 (issue 23 #4), so that existing WNCMS clients get a contract: every
// route the ApiRouter registered, with its methods, its input (from the zod schema the route
// validates with) and the spec's envelope as its answer. Served at /api/v1/openapi.json.
import { z } from 'zod';
import { createPostInput, listPostsInput, updatePostInput } from '../../domain/posts/input.js';
import { syncMenuInput } from '../../domain/menus/input.js';
import { updateRequestInput } from '../../domain/system/operations.js';
import { existingTagsInput, storeTagInput, tagTreeInput } from '../../domain/tags/input.js';
import {
  createWebsiteInput,
  listWebsitesInput,
  updateWebsiteInput,
  websiteDomainInput,
} from '../../domain/websites/input.js';
import type { RegisteredRoute, RouteDoc } from './router.js';

/** What the document says of each route (spec 4.x); a route missing here fails the document's test. */
export const ROUTE_DOCS: Record<string, RouteDoc> = {
  '/posts': { summary: 'List posts (spec 4.1)', input: listPostsInput },
  '/posts/store': {
    summary: 'Create a post',
    description: 'JSON, form or multipart (a thumbnail file).',
    input: createPostInput,
  },
  '/posts/update/:slug': {
    summary: 'Update a post by id or slug; only sent fields change',
    input: updatePostInput,
  },
  '/posts/delete/:slug': { summary: 'Delete a post by id or slug' },
  '/posts/:slug': { summary: 'Show a post by id or slug' },
  '/tags': { summary: 'The tag tree of a type (spec 4.2)', input: tagTreeInput },
  '/tags/exist': { summary: 'Which of these tag ids exist', input: existingTagsInput },
  '/tags/store': { summary: 'Create a tag, or skip or update the duplicate', input: storeTagInput },
  '/menus': { summary: 'Menus index (placeholder, spec 4.3)' },
  '/menus/store': { summary: 'Menu store (logged only, spec 4.3)' },
  '/menus/sync': { summary: 'Replace a website’s menu (administrators)', input: syncMenuInput },
  '/menus/:id': { summary: 'One menu item with its page' },
  '/websites': { summary: 'Websites you may see (spec 4.4)', input: listWebsitesInput },
  '/websites/store': { summary: 'Create a website (administrators)', input: createWebsiteInput },
  '/websites/add-domain': { summary: 'Add a domain alias', input: websiteDomainInput },
  '/websites/remove-domain': { summary: 'Remove a domain', input: websiteDomainInput },
  '/websites/update/:id': { summary: 'Update a website', input: updateWebsiteInput },
  '/websites/delete/:id': { summary: 'Delete a website (administrators)' },
  '/websites/:id': { summary: 'Show a website' },
  '/pages': { summary: 'Pages index (placeholder, spec 4.5)' },
  '/pages/store': { summary: 'Pages store (placeholder)' },
  '/pages/:id': { summary: 'Pages show (placeholder)' },
  '/update': {
    summary: 'Update the core or a package (administrators, spec 4.6)',
    input: updateRequestInput,
  },
  '/update/progress': { summary: 'Progress of an update', input: z.object({ itemId: z.string() }) },
};

const envelope = {
  type: 'object',
  description:
    'The envelope of spec section 2: code, status, message, data, extra (some answers omit fields).',
  properties: {
    code: { type: 'integer' },
    status: { oneOf: [{ type: 'string', enum: ['success', 'fail'] }, { type: 'integer' }] },
    message: { type: 'string' },
    data: {},
    extra: {},
  },
  required: ['message'],
};

const failures: Record<string, string> = {
  '401': 'Invalid token (`{"status":"fail","message":"Invalid token"}`)',
  '403': 'API or endpoint disabled, admin role missing, or refused by the policy',
  '404': 'Not found',
  '422': 'Validation failed: `data.errors` maps each field to its messages',
};

/** JSON Schema of a route's input, with the token every authenticated call may carry. */
function inputSchema(route: RegisteredRoute): Record<string, unknown> {
  const doc = ROUTE_DOCS[route.url];
  const base = doc?.input
    ? (z.toJSONSchema(doc.input, {
        io: 'input',
        unrepresentable: 'any',
        target: 'draft-2020-12',
      }) as Record<string, unknown>)
    : { type: 'object', properties: {} };
  delete base.$schema;
  const properties = { ...((base.properties as Record<string, unknown> | undefined) ?? {}) };
  properties.api_token = {
    type: 'string',
    description: 'The caller\u2019s token (or `Authorization: Bearer`).',
  };
  return { ...base, type: 'object', properties };
}

export function apiV1Document(routes: readonly RegisteredRoute[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `/api/v1${route.url.replace(/:(\w+)/g, '{$1}')}`;
    const parameters = [...route.url.matchAll(/:(\w+)/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const item = (paths[path] ??= {});
    for (const method of route.methods) {
      if (method === 'HEAD') continue;
      const schema = inputSchema(route);
      const doc = ROUTE_DOCS[route.url];
      const operation: Record<string, unknown> = {
        summary: doc?.summary ?? route.url,
        ...(doc?.description ? { description: doc.description } : {}),
        tags: [route.url.split('/')[1] ?? 'api'],
        operationId: `${method.toLowerCase()}${route.url.replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
        ...(parameters.length > 0 ? { parameters } : {}),
        security: route.policy.authKey === null ? [] : [{ bearer: [] }, { token: [] }],
        responses: {
          '200': { description: 'Success', content: { 'application/json': { schema: envelope } } },
          ...Object.fromEntries(
            Object.entries(failures).map(([code, description]) => [
              code,
              { description, content: { 'application/json': { schema: envelope } } },
            ]),
          ),
        },
      };
      if (method === 'GET') {
        operation.parameters = [
          ...parameters,
          { name: 'api_token', in: 'query', required: false, schema: { type: 'string' } },
        ];
      } else {
        operation.requestBody = {
          required: false,
          content: {
            'application/json': { schema },
            'application/x-www-form-urlencoded': { schema },
          },
        };
      }
      item[method.toLowerCase()] = operation;
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Folio API v1 (WNCMS-compatible)',
      version: '1.0.0',
      description:
        'The contract of `shared/spec/api-v1.md`: every answer is the envelope; switches and auth modes ' +
        'are settings (docs/configuration.md, "Settings that control the API"). For new work use API v2 (/api/v2/docs).',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        token: { type: 'apiKey', in: 'query', name: 'api_token' },
      },
    },
    paths,
  };
}
