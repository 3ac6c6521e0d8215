// How failures become responses. API paths answer in the envelope (spec section 7, R-G3, R-G4);
// a 500 never carries SQL, stack traces or secrets, only the request id that finds it in the log.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, failure } from '../api/v1/envelope.js';
import type { Services } from '../services.js';
import { errorPage } from './html.js';
import { currentWebsite } from './website-context.js';

/** Client errors Fastify raises before a handler runs, with the message Folio answers. */
const FRAMEWORK_ERRORS: Record<string, { code: number; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 400, message: 'Invalid JSON body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 400, message: 'Invalid JSON body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 413, message: 'Request body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 415, message: 'Unsupported media type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 400, message: 'Invalid content length' },
};

export interface ErrorHandlingOptions {
  /** The public site's themed 404 for a known website (null: no website, or not installed). */
  notFoundPage?: (request: FastifyRequest, reply: FastifyReply) => Promise<string | null>;
}

export function installErrorHandling(
  app: FastifyInstance,
  services: Services,
  options: ErrorHandlingOptions = {},
): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) return reply.code(error.statusCode).send(error.body);

    const known = FRAMEWORK_ERRORS[error.code];
    if (known) return reply.code(known.code).send(failure(known.code, known.message));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send(failure(status, status === 404 ? 'Not found' : 'Bad request'));
    }

    request.log.error({ err: error }, 'request failed');
    const message = `Server Error: internal error, request ${request.id}`;
    const custom = request.routeOptions.config?.serverErrorBody;
    return reply.code(500).send(custom ? custom(message) : failure(500, message));
  });

  app.setNotFoundHandler(async (request, reply) => {
    reply.code(404);
    if (request.url.startsWith('/api/')) return reply.send(failure(404, 'Not found'));
    // Public pages: an unknown host is told so (has_website); a known one gets its theme's 404 page.
    if (options.notFoundPage) {
      try {
        const themed = await options.notFoundPage(request, reply);
        if (themed !== null) return reply.code(404).type('text/html; charset=utf-8').send(themed);
      } catch (error) {
        request.log.error({ err: error }, 'themed 404 page failed');
      }
    }
    const website = await currentWebsite(services, request);
    reply.type('text/html; charset=utf-8');
    return website
      ? errorPage(404, 'Page not found', 'The page you asked for does not exist.')
      : errorPage(404, 'Website not found', `No website is configured for ${request.hostname}.`);
  });
}
