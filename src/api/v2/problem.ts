// API v2's errors: RFC 9457 problem details (`application/problem+json`), one mapping for the whole
// API from the domain's errors (ValidationError 422 with per-field `errors`, ForbiddenError 403,
// NotFoundError 404, StaleWriteError 412, ConflictError 409, an uploaded file too large 413 or of a
// type not taken 415, a limit on how often 429 with Retry-After) and from the framework's (a body too
// large 413, a content type it does not take 415, malformed JSON 400). A 500 never carries details,
// only the request id that finds it in the log.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ConflictError,
  FileTooLargeError,
  ForbiddenError,
  NotFoundError,
  StaleWriteError,
  TooManyRequestsError,
  UnsupportedFileError,
  ValidationError,
} from '../../domain/errors.js';
import { databaseFailureOn, frameworkError } from '../../http/errors.js';
import { validationMessages } from '../../http/validation-messages.js';

export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
/** Where the problem types are described (relative to the API; the reference page lists them). */
const TYPE_BASE = '/api/v2/docs#problem-';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  /** Per field (a dotted path): what is wrong with it. Validation problems only. */
  errors?: Record<string, string[]>;
  request_id?: string;
}

/** A problem a route answers on purpose (401, 404, 412, 428, …). */
export class Problem extends Error {
  constructor(
    readonly status: number,
    readonly name_: string,
    readonly title: string,
    readonly detail?: string,
    readonly headers: Record<string, string> = {},
    readonly errors?: Record<string, string[]>,
  ) {
    super(detail ?? title);
  }
}

export const unauthenticated = (detail = 'Send an API key or token as `Authorization: Bearer …`.') =>
  new Problem(401, 'unauthenticated', 'Authentication required', detail, {
    'www-authenticate': 'Bearer realm="folio"',
  });
export const notFound = (detail = 'No such resource.') => new Problem(404, 'not-found', 'Not found', detail);

function send(request: FastifyRequest, reply: FastifyReply, problem: ProblemBody): FastifyReply {
  return reply
    .code(problem.status)
    .type(PROBLEM_TYPE)
    .send({ ...problem, instance: request.url.split('?')[0], request_id: request.id });
}

const typeOf = (name: string) => `${TYPE_BASE}${name}`;

/**
 * The domain's refusals that are one problem each, its detail the error's message (a 429 also says
 * when to retry; a file's refusal also names its field in `errors`). The first that matches answers:
 * a StaleWriteError is a ConflictError too.
 */
const DOMAIN_PROBLEMS: ReadonlyArray<{
  error: abstract new (...args: never[]) => Error;
  name: string;
  title: string;
  status: number;
  detail?: (message: string) => string;
}> = [
  { error: ForbiddenError, name: 'forbidden', title: 'Forbidden', status: 403 },
  { error: NotFoundError, name: 'not-found', title: 'Not found', status: 404 },
  { error: TooManyRequestsError, name: 'rate-limit', title: 'Too many requests', status: 429 },
  {
    error: StaleWriteError,
    name: 'stale',
    title: 'Precondition failed',
    status: 412,
    detail: (message) => `${message} Read it again (its ETag) and repeat the change.`,
  },
  { error: FileTooLargeError, name: 'too-large', title: 'File too large', status: 413 },
  { error: UnsupportedFileError, name: 'unsupported-type', title: 'Unsupported file type', status: 415 },
  { error: ConflictError, name: 'conflict', title: 'Conflict', status: 409 },
];

/** The problem details of any error a v2 route throws. */
export function installProblemHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof Problem) {
      reply.headers(error.headers);
      return send(request, reply, {
        type: typeOf(error.name_),
        title: error.title,
        status: error.status,
        detail: error.detail,
        errors: error.errors,
      });
    }
    if (error instanceof ValidationError) {
      return send(request, reply, {
        type: typeOf('validation'),
        title: 'Validation failed',
        status: 422,
        detail: 'The request has fields that are missing or invalid; see `errors`.',
        errors: validationMessages(error),
      });
    }
    const mapped = DOMAIN_PROBLEMS.find((entry) => error instanceof entry.error);
    if (mapped) {
      if (error instanceof TooManyRequestsError) reply.header('retry-after', String(error.retryAfter));
      const field =
        error instanceof FileTooLargeError || error instanceof UnsupportedFileError ? error.field : null;
      return send(request, reply, {
        type: typeOf(mapped.name),
        title: mapped.title,
        status: mapped.status,
        detail: mapped.detail ? mapped.detail(error.message) : error.message,
        ...(field === null ? {} : { errors: { [field]: [error.message] } }),
      });
    }
    const known = frameworkError(error);
    if (known) {
      return send(request, reply, { type: typeOf('request'), title: known.message, status: known.code });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return send(request, reply, {
        type: typeOf('request'),
        title: 'Bad request',
        status,
        detail: error.message,
      });
    }
    const database = databaseFailureOn(error, request, reply);
    if (database) {
      return send(request, reply, {
        type: typeOf('database'),
        title: database.message,
        status: database.code,
      });
    }
    request.log.error({ err: error }, 'request failed');
    return send(request, reply, {
      type: typeOf('server'),
      title: 'Server error',
      status: 500,
      detail: 'The server failed; the request id finds it in the log.',
    });
  });
  app.setNotFoundHandler((request, reply) =>
    send(request, reply, {
      type: typeOf('not-found'),
      title: 'Not found',
      status: 404,
      detail: 'No such route.',
    }),
  );
}
