// Registers API routes with their policy, and answers every other method on a known path with 405
// in the envelope (R-G4). Fastify itself would answer 404 for a method it does not know.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import type { z } from 'zod';
import type { FaceServices } from '../../services.js';
import type { Json } from './envelope.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../domain/errors.js';
import { addRoute } from '../../http/multipart.js';
import { validationMessages } from '../../http/validation-messages.js';
import { ApiError, JsonText, validationFailed } from './envelope.js';
import { installApiErrorHandler } from './errors.js';
import { guard } from './guard.js';
import type { EndpointPolicy } from './guard.js';

/** A handler answers a body to serialize, or JSON text to send as it is (hot read paths). */
export type ApiHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<Json | JsonText>;

const JSON_TYPE = 'application/json; charset=utf-8';

/** What the OpenAPI document says of a route (openapi.ts). */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** The schema of its input (body or query), as the route validates it. */
  input?: z.ZodType;
}

export interface RegisteredRoute {
  methods: HTTPMethods[];
  url: string;
  policy: EndpointPolicy;
}

export interface ApiRouteOptions {
  /** Body for a 500 on this route, when it deviates from the envelope (tag store). */
  serverErrorBody?: (message: string) => Json;
  /** The route takes files (multipart, http/multipart.ts); every other route refuses them (415). */
  acceptsFiles?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    serverErrorBody?: (message: string) => Json;
  }
}

/**
 * The domain's errors in the spec's envelope, once for the whole API: a validation error is the 422
 * of R-V1 worded by the Laravel message table, a refusal of the policy 403 `This action is
 * unauthorized.` (Laravel's wording, where the spec is silent), a missing resource 404.
 */
function asApiError(error: unknown): never {
  if (error instanceof ValidationError) throw validationFailed(validationMessages(error));
  if (error instanceof ForbiddenError) throw ApiError.fail(403, error.message);
  if (error instanceof NotFoundError) throw ApiError.fail(404, error.message);
  if (error instanceof ConflictError) throw ApiError.fail(409, error.message);
  throw error;
}

const ALL_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export class ApiRouter {
  private readonly methodsByPath = new Map<string, Set<HTTPMethods>>();
  /** Every route, in order: the OpenAPI document describes them. */
  readonly routes: RegisteredRoute[] = [];

  constructor(
    private readonly app: FastifyInstance,
    private readonly services: FaceServices,
  ) {
    // Every API route answers its failures in the envelope; set before any route is added.
    installApiErrorHandler(app);
  }

  /** A route whose handler returns the response body; the status comes from its `code`, or 200. */
  route(
    methods: HTTPMethods[],
    url: string,
    policy: EndpointPolicy,
    handler: ApiHandler,
    options: ApiRouteOptions = {},
  ): void {
    this.routes.push({ methods, url, policy });
    const known = this.methodsByPath.get(url) ?? new Set<HTTPMethods>();
    for (const method of methods) known.add(method);
    if (methods.includes('GET')) known.add('HEAD'); // Fastify adds HEAD to GET routes itself
    this.methodsByPath.set(url, known);

    const route: RouteOptions = {
      method: methods,
      url,
      config: { serverErrorBody: options.serverErrorBody, acceptsFiles: options.acceptsFiles },
      preHandler: guard(this.services, policy),
      handler: async (request, reply) => {
        const body = await handler(request, reply).catch(asApiError);
        if (body instanceof JsonText) return reply.code(body.code).type(JSON_TYPE).send(body.body);
        const code = typeof body === 'object' && body !== null && 'code' in body ? Number(body.code) : 200;
        return reply.code(Number.isInteger(code) && code >= 200 && code < 600 ? code : 200).send(body);
      },
    };
    addRoute(this.app, this.services.config, route);
  }

  /** Adds the 405 answers; call after every route is declared. */
  finish(): void {
    for (const [url, known] of this.methodsByPath) {
      const others = ALL_METHODS.filter((method) => !known.has(method));
      if (others.length === 0) continue;
      const allow = [...known].join(', ');
      this.app.route({
        method: others,
        url,
        handler: async (_request, reply) => {
          reply.header('allow', allow);
          throw ApiError.fail(405, 'Method not allowed');
        },
      });
    }
  }
}
