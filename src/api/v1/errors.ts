// How failures of API v1 routes become answers: always the envelope (spec section 7, R-G3, R-G4).
// Registered inside the API plugin, so it answers for the API's routes only (the site answers pages).
// A 500 never carries SQL, stack traces or secrets, only the request id that finds it in the log.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseFailureOn, frameworkError } from '../../http/errors.js';
import { ApiError, failure, validationFailed } from './envelope.js';
import { validationMessages } from '../../http/validation-messages.js';
import { ForbiddenError, TooManyRequestsError, ValidationError } from '../../domain/errors.js';

/** The envelope's error handler for the API routes of this plugin (the ApiRouter installs it). */
export function installApiErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError)
      return reply.code(error.statusCode).headers(error.headers).send(error.body);

    // The policy refused before any handler (an API key's scope: guard.ts).
    if (error instanceof ForbiddenError) return reply.code(403).send(failure(403, error.message));
    // A limit on how often (searches: issue 34 #11), in the envelope with the wait.
    if (error instanceof TooManyRequestsError) {
      return reply
        .code(429)
        .header('retry-after', String(error.retryAfter))
        .send(failure(429, error.message));
    }
    // Input refused before any handler (a NUL character: http/input-guard.ts).
    if (error instanceof ValidationError) {
      const failed = validationFailed(validationMessages(error));
      return reply.code(failed.statusCode).send(failed.body);
    }
    const known = frameworkError(error);
    if (known) return reply.code(known.code).send(failure(known.code, known.message));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send(failure(status, status === 404 ? 'Not found' : 'Bad request'));
    }

    const database = databaseFailureOn(error, request, reply);
    if (database) return reply.send(failure(database.code, database.message));
    request.log.error({ err: error }, 'request failed');
    const message = `Server Error: internal error, request ${request.id}`;
    const custom = request.routeOptions.config?.serverErrorBody;
    return reply.code(500).send(custom ? custom(message) : failure(500, message));
  });
}

/**
 * Unknown paths anywhere under /api answer the envelope's 404 too (R-G4), not the site's page: a plugin
 * of its own, registered with the prefix `/api`.
 */
export async function apiNotFound(app: FastifyInstance): Promise<void> {
  app.setNotFoundHandler(async (_request, reply) => reply.code(404).send(failure(404, 'Not found')));
}
