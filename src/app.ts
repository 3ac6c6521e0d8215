// Builds the Fastify app over a set of services. No side effects at import: the CLI and the tests
// call buildApp() and decide when to listen.
import { randomUUID } from 'node:crypto';
import fastifyCompress from '@fastify/compress';
import fastifyCookie from '@fastify/cookie';
import Fastify, { LogController } from 'fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { apiNotFound } from './api/v1/errors.js';
import { apiV1 } from './api/v1/index.js';
import { apiV2 } from './api/v2/index.js';
import { adminPanel } from './admin/index.js';
import { frontend } from './frontend/index.js';
import { installBodyParsers, parseQueryString } from './http/body.js';
import {
  COMPRESSIBLE_TYPES,
  COMPRESS_THRESHOLD,
  skipCompressionWhenNothingToDo,
} from './http/compression.js';
import { installHostGuard } from './http/host-guard.js';
import { RequestLogger, requestLoggerFactory } from './http/request-logger.js';
import { declareRequestSlots } from './http/request-slots.js';
import { batchedLogDestination } from './http/log-stream.js';
import { installSecurityHeaders } from './http/security-headers.js';
import { installInputGuard } from './http/input-guard.js';
import { installErrorHandling } from './http/errors.js';
import { installMediaFiles } from './http/media-files.js';
import { installMultipartGuard, uploadLimits } from './http/multipart.js';
import type { QueryCounter } from './http/query-counter.js';
import { faceServices } from './services.js';
import type { Services } from './services.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route the app registered, in order (tests check the OpenAPI documents against it). */
    registeredRoutes: ReadonlyArray<{ method: string; url: string }>;
  }
}

export interface AppOptions {
  /** Pino logger options, or false for none (tests). Defaults to the configured level. */
  logger?: boolean | { level: string };
  /** Counts SQL queries per request into `x-folio-queries` (FOLIO_QUERY_COUNTER=1, benchmarks only). */
  queryCounter?: QueryCounter;
}

/**
 * A URL as logs may show it: an `api_token` value, a password reset token, a registration's
 * confirmation token, an invitation's token or an email change's token is never logged.
 */
export function redactUrl(url: string): string {
  // Most URLs hold nothing to redact: no regex runs for them (a log line per request at `info`).
  // A query can name `api_token` only with the word itself or with percent-escapes (`api%5Ftoken`,
  // `%74oken`): a query with neither is left as it is without a replace per pair.
  let redacted = url;
  if (url.includes('?') && (url.includes('%') || TOKEN_WORD.test(url))) {
    redacted = url.replace(/([?&])([^=&#]*)=([^&#]*)/g, (pair, separator: string, key: string) =>
      isTokenKey(key) ? `${separator}${key}=[redacted]` : pair,
    );
  }
  if (!url.includes('/user/')) return redacted;
  return redacted
    .replace(/(\/user\/password\/reset\/)[^/?#]+/g, '$1[redacted]')
    .replace(/(\/user\/register\/confirm\/)[^/?#]+/g, '$1[redacted]')
    .replace(/(\/user\/invite\/)[^/?#]+/g, '$1[redacted]')
    .replace(/(\/user\/settings\/email\/)[^/?#]+/g, '$1[redacted]');
}

const TOKEN_WORD = /token/i;

/** `api_token` in any spelling the query parser reads as it: `api%5Ftoken`, `API_TOKEN`, `api_token[]`. */
function isTokenKey(key: string): boolean {
  let decoded = key;
  try {
    decoded = decodeURIComponent(key.replaceAll('+', ' '));
  } catch {
    // A malformed escape: judge the key as it is.
  }
  return /^api_token(\[.*\])?$/i.test(decoded.trim());
}

/**
 * One log line per request, when it completes, naming the request too, instead of Fastify's two
 * (incoming, completed): at `info` the second line cost a cached page a tenth of its CPU (issue 26 #6).
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    const log = reply.log;
    // Written by the parent logger with the request's id: no child logger is made for it.
    if (log instanceof RequestLogger) {
      if (error) log.lineAt('error', { ...line, err: error }, 'request errored');
      else log.lineAt('info', line, 'request completed');
    } else if (error) log.error({ ...line, err: error }, 'request errored');
    else log.info(line, 'request completed');
  }
}

const requestSerializer = (request: FastifyRequest) => ({
  method: request.method,
  url: redactUrl(request.url),
  host: request.host,
  remoteAddress: request.ip,
});

export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  // The faces get operations and queries only (services.ts); this composition root keeps the rest.
  const faces = faceServices(services);
  const logger = options.logger ?? { level: config.logLevel };
  const app = Fastify({
    logger:
      logger === false
        ? false
        : {
            ...(logger === true ? {} : logger),
            serializers: { req: requestSerializer },
            // A person at a terminal reads lines; anything else (a file, a collector) gets JSON, in
            // batches (log-stream.ts). Tests hand over a logger of their own.
            ...(options.logger
              ? {}
              : process.stdout.isTTY
                ? {
                    transport: {
                      target: 'pino-pretty',
                      options: { translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' },
                    },
                  }
                : { stream: batchedLogDestination() }),
          },
    bodyLimit: config.bodyLimit,
    // A number of hops trusts that many proxies nearest to the server (proxy-addr's hop count).
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(config.trustProxy)
        : config.trustProxy,
    genReqId: () => randomUUID(),
    // maxParamLength: a slug may be 190 characters, percent-encoded up to 9 bytes each (Fastify's
    // default of 100 answered 414 for the pages of long slugs, issue 21 #8).
    routerOptions: { querystringParser: parseQueryString, ignoreTrailingSlash: true, maxParamLength: 2048 },
    // Keep-alive connections that are idle close at once on shutdown; busy ones finish first.
    forceCloseConnections: 'idle',
    logController: new OneLinePerRequest(),
    // No pino child logger per request: one is made only when the request logs a line of its own.
    ...(logger === false ? {} : { childLoggerFactory: requestLoggerFactory }),
  });

  // Every request is made with the per-request state of Folio's modules (request-slots.ts).
  declareRequestSlots(app);

  // Every route as registered (method and URL): the API documents are checked against it.
  const routes: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  app.decorate('registeredRoutes', routes);
  app.decorateRequest('apiUser', null);
  app.decorateRequest('apiKey', null);
  options.queryCounter?.install(app);
  // While the app is stopping, a response that was in flight when close() began is the last on its
  // connection: `Connection: close` ends a keep-alive connection that would otherwise stay open.
  let stopping = false;
  app.addHook('preClose', async () => {
    stopping = true;
  });
  // Callback hooks on the hot path: an async hook costs a promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (stopping) reply.header('connection', 'close');
    done(null, payload);
  });

  const site = frontend(faces);
  installErrorHandling(app, faces, {
    notFoundPage: (request, reply) => site.notFoundPage(request, reply),
  });
  await installSecurityHeaders(app, { https: config.appUrl.startsWith('https:') });
  await app.register(fastifyCookie);
  // After the cookie parser: the answer's hooks read cookies.
  installHostGuard(app);
  // Text answers (pages, CSS, JS, XML, robots.txt) are compressed; images, already compressed, never.
  await app.register(fastifyCompress, {
    global: true,
    customTypes: COMPRESSIBLE_TYPES,
    threshold: COMPRESS_THRESHOLD,
  });
  app.addHook('onRoute', skipCompressionWhenNothingToDo);
  await installBodyParsers(app);
  // Multipart bodies are read only by the routes that take files (routeWithFiles).
  installMultipartGuard(app, uploadLimits(config));
  installInputGuard(app);

  // Uploaded and downloaded media at /media/…, from the storage driver (STORAGE_URL). URLs built on a
  // CDN or the bucket's public URL (MEDIA_BASE_URL, public=1) still answer here: references written
  // before a move between drivers keep working.
  const mediaStore = services.media.store;
  installMediaFiles(app, mediaStore);

  app.get('/healthz', async (request, reply) => {
    try {
      await sql`select 1`.execute(services.database.db);
      return { status: 'ok', database: 'ok' };
    } catch (error) {
      request.log.error({ err: error }, 'health check: database unavailable');
      return reply.code(503).send({ status: 'fail', database: 'unavailable' });
    }
  });

  // Readiness (issue 40 #4): a load balancer sends requests to this node only while its database,
  // Redis (when configured) and media storage answer; /healthz above is the liveness check.
  app.get('/readyz', async (request, reply) => {
    const parts = await services.readiness();
    const ready = Object.values(parts).every((state) => state !== 'unavailable');
    if (!ready) request.log.warn({ parts }, 'readiness check: not ready');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'fail', ...parts });
  });

  await app.register(apiV1(faces), { prefix: '/api/v1' });
  await app.register(apiV2(faces), { prefix: '/api/v2' });
  // APP_URL's media address, which older rows may hold absolute: the panel shows those by their path.
  await app.register(adminPanel, {
    prefix: '/admin',
    mediaBase: `${config.appUrl.replace(/\/+$/, '')}/media/`,
  });
  await app.register(apiNotFound, { prefix: '/api' });
  await app.register(site);
  return app;
}
