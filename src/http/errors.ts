// How failures outside a face's own handling become answers: the public site's pages (HTML), and the
// client errors Fastify raises before a handler runs, shared by every face. API v1 answers its own
// failures in its envelope (src/api/v1/errors.ts), inside its plugin. A 500 never carries SQL, stack
// traces or secrets, only the request id that finds it in the log.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaceServices } from '../services.js';
import { errorPage } from './html.js';
import { currentWebsite } from './website-context.js';
import {
  TooManyRequestsError,
  UNAVAILABLE_RETRY_SECONDS,
  ValidationError,
  isDatabaseUnavailable,
  isInvalidValue,
  isStorageFull,
} from '../domain/errors.js';
import { validationMessages } from './validation-messages.js';

/** A client error raised by the shared HTTP layer (body parsing…): each face words it its way. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Client errors Fastify raises before a handler runs, with the message Folio answers. */
const FRAMEWORK_ERRORS: Record<string, { code: number; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 400, message: 'Invalid JSON body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 400, message: 'Invalid JSON body' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 413, message: 'Request body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 415, message: 'Unsupported media type' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 400, message: 'Invalid content length' },
};

/**
 * A failure of the database under a request (not of the request): how every face answers it, each in
 * its own shape (`message` for the API's envelope, `title` and `page` for the site's page).
 */
export interface DatabaseFailure {
  code: number;
  level: 'warn' | 'error';
  log: string;
  message: string;
  title: string;
  page: string;
  retryAfter?: number;
}

/** The database failures a request can meet, by how each is recognized. */
const DATABASE_FAILURES: ReadonlyArray<readonly [(error: unknown) => boolean, DatabaseFailure]> = [
  [
    isInvalidValue,
    {
      code: 400,
      level: 'warn',
      log: 'value refused by the database',
      message: 'Bad request',
      title: 'Bad request',
      page: 'The request could not be understood.',
    },
  ],
  [
    isStorageFull,
    {
      code: 507,
      level: 'error',
      log: 'the database disk is full',
      message: 'Insufficient storage: nothing was saved. Try again later.',
      title: 'Insufficient storage',
      page: 'Nothing was saved: the server is out of space. Please try again later.',
    },
  ],
  [
    isDatabaseUnavailable,
    {
      code: 503,
      level: 'warn',
      log: 'database unavailable',
      message: 'Service unavailable: the database is not answering. Try again shortly.',
      title: 'Temporarily unavailable',
      page: 'The site is not answering right now. Please try again shortly.',
      retryAfter: UNAVAILABLE_RETRY_SECONDS,
    },
  ],
];

/** The database refused a value, is out of space, or is not answering; else undefined. */
export function databaseFailure(error: unknown): DatabaseFailure | undefined {
  return DATABASE_FAILURES.find(([recognizes]) => recognizes(error))?.[1];
}

/**
 * For an error handler: when the error is a database failure, logs it and sets its status (and
 * `Retry-After`) on the reply, and answers the failure for the face to word; else undefined.
 */
export function databaseFailureOn(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): DatabaseFailure | undefined {
  const failure = databaseFailure(error);
  if (!failure) return undefined;
  request.log[failure.level]({ err: error }, failure.log);
  if (failure.retryAfter !== undefined) reply.header('retry-after', String(failure.retryAfter));
  reply.code(failure.code);
  return failure;
}

/** The status and message of an error every face answers the same way, or undefined. */
export function frameworkError(error: FastifyError | Error): { code: number; message: string } | undefined {
  if (error instanceof HttpError) return { code: error.statusCode, message: error.message };
  return FRAMEWORK_ERRORS[(error as FastifyError).code];
}

export interface ErrorHandlingOptions {
  /** The public site's themed 404 for a known website (null: no website, or not installed). */
  notFoundPage?: (request: FastifyRequest, reply: FastifyReply) => Promise<string | null>;
}

export function installErrorHandling(
  app: FastifyInstance,
  services: FaceServices,
  options: ErrorHandlingOptions = {},
): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.type('text/html; charset=utf-8');
    if (error instanceof ValidationError) {
      const messages = Object.values(validationMessages(error)).flat().join(' ');
      return reply.code(422).send(errorPage(422, 'Invalid input', messages));
    }
    if (error instanceof TooManyRequestsError) {
      return reply
        .code(429)
        .header('retry-after', String(error.retryAfter))
        .send(errorPage(429, 'Too many requests', error.message));
    }
    const known = frameworkError(error);
    if (known) return reply.code(known.code).send(errorPage(known.code, known.message, known.message));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const title = status === 404 ? 'Page not found' : 'Bad request';
      return reply.code(status).send(errorPage(status, title, 'The request could not be understood.'));
    }
    const database = databaseFailureOn(error, request, reply);
    if (database) return reply.send(errorPage(database.code, database.title, database.page));
    request.log.error({ err: error }, 'request failed');
    return reply
      .code(500)
      .send(errorPage(500, 'Server error', `Something went wrong on our side (request ${request.id}).`));
  });

  app.setNotFoundHandler(async (request, reply) => {
    reply.code(404);
    // Public pages: an unknown host is told so (has_website); a known one gets its theme's 404 page.
    if (options.notFoundPage) {
      try {
        const themed = await options.notFoundPage(request, reply);
        if (reply.sent) return reply;
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
