// How API v2 declares a route: method, path, the zod schemas of its parameters, query, body and
// answers (the OpenAPI document is generated from them), and a handler. Every route but the
// document's own is authenticated first (auth.ts). A request that does not match its schemas is a
// 422 problem before the handler runs; the handler's operation parses the input again with its own
// schema (the one every face shares), so the route's schemas only add v2's strictness (unknown
// fields refused).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { z } from 'zod';
import type { FaceServices } from '../../services.js';
import { addRoute } from '../../http/multipart.js';
import { authenticate } from './auth.js';
import { commonProblems } from './schemas.js';

export interface V2Route {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  response: Record<number, z.ZodType>;
  /** No authentication (the document and the reference page). */
  public?: boolean;
  /** A multipart/form-data body with up to this many files (the body schema describes its fields). */
  files?: { max: number };
  /**
   * The body is a file sent as is, of this content type: the handler gets `{ upload: Readable }`,
   * unread (it streams it to disk under its own limit); other content types are a 415.
   */
  rawBody?: { contentType: string; description: string };
  /** The content types of the answer when it is not JSON (a download). */
  produces?: string[];
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

export class V2Router {
  constructor(
    private readonly app: FastifyInstance,
    private readonly services: FaceServices,
  ) {}

  route(route: V2Route): void {
    const schema: Record<string, unknown> = {
      summary: route.summary,
      description: route.description,
      tags: route.tags,
      response: route.public ? route.response : { ...commonProblems, ...route.response },
      ...(route.public ? {} : { security: [{ bearer: [] }, { session: [] }] }),
    };
    if (route.params) schema.params = route.params;
    if (route.querystring) schema.querystring = route.querystring;
    if (route.body) schema.body = route.body;
    if (route.produces) schema.produces = route.produces;
    if (route.rawBody) {
      schema.consumes = [route.rawBody.contentType];
      schema.body = z.unknown().describe(route.rawBody.description);
    }
    const options: RouteShorthandOptions = { schema };
    if (route.files) {
      schema.consumes = ['multipart/form-data'];
      options.config = { acceptsFiles: true, multipartOptions: { limits: { files: route.files.max } } };
    }
    if (!route.public) {
      // Before the body is read: an unknown caller never gets a body parsed, nor a 422 for it.
      options.onRequest = async (request, reply) => {
        await authenticate(this.services, request, reply);
      };
    }
    const definition = { method: route.method, url: route.url, ...options, handler: route.handler };
    const raw = route.rawBody;
    if (!raw) {
      addRoute(this.app, this.services.config, definition);
      return;
    }
    // A scope of its own, so that only this route takes the file's content type (unparsed).
    void this.app.register(async (scope) => {
      scope.addContentTypeParser(raw.contentType, (_request, payload, done) =>
        done(null, { upload: payload }),
      );
      addRoute(scope, this.services.config, definition);
    });
  }
}
