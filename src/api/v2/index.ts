// API v2, the management API: every route declared with zod schemas (router.ts), answered in JSON or
// RFC 9457 problem details (problem.ts), documented by the OpenAPI 3.1 document generated from the
// same schemas (@fastify/swagger over fastify-type-provider-zod's transform) at /api/v2/openapi.json,
// with a browsable reference at /api/v2/docs (Scalar, served from its package).
import { createHash } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { ValidationError } from '../../domain/errors.js';
import type { ValidationIssue } from '../../domain/errors.js';
import { jsonKeyOf, memoized } from '../../lib/memo.js';
import type { FaceServices } from '../../services.js';
import { registerAccountRoutes } from './account.js';
import { registerAuditRoutes } from './audit.js';
import { registerCommentRoutes } from './comments.js';
import { registerInsightRoutes } from './insights.js';
import { registerKeyRoutes } from './keys.js';
import { registerLinkRoutes } from './links.js';
import { registerMediaRoutes } from './media.js';
import { registerWebsiteRoutes } from './websites.js';
import { registerTagRoutes } from './tags.js';
import { registerInviteRoutes } from './invites.js';
import { registerPeopleRoutes } from './people.js';
import { registerPageRoutes } from './pages.js';
import { registerMenuRoutes } from './menus.js';
import { registerSystemRoutes } from './system.js';
import { registerPostRoutes } from './posts.js';
import { registerRevisionRoutes } from './revisions.js';
import { registerPreviewRoutes } from './previews.js';
import { registerWebhookRoutes } from './webhooks.js';
import { registerTransferRoutes } from './transfers.js';
import { installProblemHandler } from './problem.js';
import { V2Router } from './router.js';

export const API_V2_VERSION = '2.0.0';

const DESCRIPTION = `Folio's management API. JSON in, JSON out; errors are RFC 9457 problem details
(\`application/problem+json\`) with per-field \`errors\` on a 422.

Authenticate with an API key or a user's token as \`Authorization: Bearer …\` (\`npx folio key:create\`),
or, in a browser signed in to the site, with the session cookie plus \`X-CSRF-Token\` (GET /session)
on writes.

Conventions: \`?page=&per_page=\` with a \`Link\` header and \`meta.pagination\`; \`?sort=field\` or
\`-field\`; \`?filter[name]=value\`; \`?fields=a,b\`; \`?include=…\`; \`?locale=\` for one locale's text.
Reads answer an \`ETag\`; writes take \`If-Match\` (412 when the resource changed since) and creates
\`Idempotency-Key\`. Unknown fields are refused (422).`;

/** Headers of the inner answer that belong to its own connection, not to the one relaying it. */
const HOP_HEADERS = new Set(['content-length', 'connection', 'date', 'keep-alive', 'transfer-encoding']);

/**
 * The browsable reference (Scalar), built on its first visit: the plugin reads a 3.5 MB script and
 * loads OpenAPI parsers, about 14 MB that a node serving no one the reference never needs. It lives in
 * a private Fastify instance, at the same paths, and the API's scope relays its answers.
 */
function lazyReference(): () => Promise<FastifyInstance> {
  let built: Promise<FastifyInstance> | null = null;
  const build = async () => {
    const { default: scalarReference } = await import('@scalar/fastify-api-reference');
    const inner = Fastify({ logger: false });
    await inner.register(scalarReference, {
      routePrefix: '/api/v2/docs',
      configuration: {
        url: '/api/v2/openapi.json',
        withDefaultFonts: false,
        title: 'Folio API v2',
        // The reference talks to this server only: no Scalar agent (it calls Scalar's cloud).
        agent: { disabled: true },
      },
    });
    await inner.ready();
    return inner;
  };
  return () => {
    // A failed build is tried again on the next visit.
    built ??= build().catch((error: unknown) => {
      built = null;
      throw error;
    });
    return built;
  };
}

/**
 * The reference page runs Scalar's script from this server and one inline script (its settings): the
 * page's Content-Security-Policy allows exactly those (by hash), this server's own requests, and
 * nothing from elsewhere.
 */
function installReferencePolicy(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (
      !request.url.startsWith('/api/v2/docs') ||
      !type.startsWith('text/html') ||
      typeof payload !== 'string'
    ) {
      return done(null, payload);
    }
    const hashes = [...payload.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
      (match) =>
        `'sha256-${createHash('sha256')
          .update(match[1] ?? '')
          .digest('base64')}'`,
    );
    reply.header(
      'content-security-policy',
      [
        "default-src 'self'",
        `script-src 'self' ${hashes.join(' ')}`,
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
      ].join('; '),
    );
    done(null, payload);
  });
}

export function apiV2(services: FaceServices) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    // Requests are checked against the route's zod schema; the value handed on stays the raw input
    // (the operation parses it with its own schema). Answers are plain JSON: the schemas document them.
    app.setValidatorCompiler(({ schema, httpPart }) => {
      const check = (data: unknown) => {
        const result = (schema as z.ZodType).safeParse(data);
        if (result.success) return { value: data };
        return { error: new ValidationError({}, result.error.issues as unknown as ValidationIssue[]) };
      };
      if (httpPart !== 'querystring' && httpPart !== 'params') return check;
      // Query strings and path parameters repeat: their verdicts are remembered (bounded).
      const verdicts = new Map<string, ReturnType<typeof check>>();
      return (data: unknown) => {
        const key = jsonKeyOf(data);
        return key.length > 512 ? check(data) : memoized(verdicts, key, 500, () => check(data));
      };
    });
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    installProblemHandler(app);

    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Folio management API', version: API_V2_VERSION, description: DESCRIPTION },
        servers: [{ url: '/', description: 'This installation' }],
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', description: 'An API key (folio_key_…) or a token.' },
            session: { type: 'apiKey', in: 'cookie', name: 'folio_session' },
          },
        },
        tags: [
          { name: 'posts', description: 'Posts of every website' },
          { name: 'review', description: 'Submitting drafts, approving or sending them back' },
          { name: 'account', description: 'The caller' },
          { name: 'audit', description: 'Who changed what' },
          { name: 'comments', description: 'Moderation, replies and each website\u2019s moderation rules' },
          { name: 'keys', description: 'Your API keys' },
          { name: 'websites', description: 'Websites and their domains' },
          { name: 'tags', description: 'Tags and categories (trees per type)' },
          { name: 'people', description: 'Accounts, and the members of each website with their roles' },
          { name: 'pages', description: 'Pages of every website' },
          {
            name: 'menus',
            description: 'Named menus of each website (header, footer, …) and their item trees',
          },
          { name: 'media', description: 'The media library of each website: uploads, alt texts, uses' },
          { name: 'links', description: 'The link directory: links, their categories and clicks' },
          { name: 'system', description: 'Settings, caches, updates and background jobs' },
          {
            name: 'webhooks',
            description: 'Signed HTTP calls to your URLs when content changes (Standard Webhooks)',
          },
          {
            name: 'transfers',
            description: 'Exports and imports (Folio archives, WordPress, Ghost) run as background jobs',
          },
          {
            name: 'insights',
            description: 'A website\u2019s views and clicks; the installation\u2019s health',
          },
        ],
      },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });

    const router = new V2Router(app, services);
    registerPostRoutes(router, services);
    registerRevisionRoutes(router, services);
    registerPreviewRoutes(router, services);
    registerAccountRoutes(router, services);
    registerAuditRoutes(router, services);
    registerCommentRoutes(router, services);
    registerKeyRoutes(router, services);
    registerWebsiteRoutes(router, services);
    registerTagRoutes(router, services);
    registerPeopleRoutes(router, services);
    registerInviteRoutes(router, services);
    registerPageRoutes(router, services);
    registerMenuRoutes(router, services);
    registerMediaRoutes(router, services);
    registerLinkRoutes(router, services);
    registerSystemRoutes(router, services);
    registerInsightRoutes(router, services);
    registerWebhookRoutes(router, services);
    registerTransferRoutes(router, services);

    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
    // The reference page in a scope of its own: its policy hook runs on its answers, not on every
    // answer of the API (where it only looked at the URL to let it pass).
    await app.register(async (docs) => {
      installReferencePolicy(docs);
      const reference = lazyReference();
      const serve = async (request: FastifyRequest, reply: FastifyReply) => {
        const answer = await (await reference()).inject({ method: 'GET', url: request.url });
        // A path the reference does not have is the API's own 404 (a problem), as before.
        if (answer.statusCode === 404) return reply.callNotFound();
        reply.code(answer.statusCode);
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value);
        }
        // Text as a string: the policy hook hashes the page's inline scripts.
        const text = /^(text\/|application\/(json|yaml))/.test(String(answer.headers['content-type'] ?? ''));
        return reply.send(text ? answer.body : answer.rawPayload);
      };
      docs.get('/docs', { schema: { hide: true } }, serve);
      docs.get('/docs/*', { schema: { hide: true } }, serve);
    });
  };
}
