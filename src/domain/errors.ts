// Errors the domain raises for a face (API v1, API v2, the public site, the CLI) to translate, each
// once per face: the API v1 plugin answers them in the spec's envelope, the site re-renders its form,
// the CLI prints them. They carry no HTTP details.

/** An error named after its class (`error.name` is `'NotFoundError'` for a NotFoundError, and so on). */
export class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Input that breaks a rule, keyed by field like a validation error. `messages` are written out
 * already; `issues` are a schema's findings that each face words in its own style (API v1: the
 * Laravel messages of src/http/validation-messages.ts).
 */
export class ValidationError extends DomainError {
  constructor(
    readonly messages: Record<string, string[]>,
    readonly issues: readonly ValidationIssue[] = [],
  ) {
    super('invalid input');
  }
}

/** A schema's finding, as zod reports it (the faces word it). */
export interface ValidationIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
  [detail: string]: unknown;
}

/** One field, one message: the common case of a rule checked by hand. */
export class InputError extends ValidationError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super({ [field]: [message] });
    this.message = message;
  }
}

/** The actor may not do this (policy.ts decided). API v1: 403 `This action is unauthorized.` */
export class ForbiddenError extends DomainError {
  constructor(message = 'This action is unauthorized.') {
    super(message);
  }
}

export class NotFoundError extends DomainError {}

/** The write conflicts with the state of the resource (a stale edit, a resource in use). */
export class ConflictError extends DomainError {}

/**
 * A write made against a version of the resource that is no longer current (API v2's `If-Match`):
 * someone changed it since the writer read it. Nothing was written.
 */
export class StaleWriteError extends ConflictError {
  constructor() {
    super('The resource has changed since it was read.');
  }
}

/**
 * An uploaded file is larger than the limit (API v2: 413), or is not of a type accepted (415). `field`
 * names the file in the input (`files.1`).
 */
export class FileTooLargeError extends DomainError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export class UnsupportedFileError extends DomainError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A limit on how often something may be done refused it (invitations, searches): each face answers
 * 429 with `Retry-After` and the message, which says what was limited and when to try again.
 */
export class TooManyRequestsError extends DomainError {
  constructor(
    message: string,
    /** Seconds until the limit lets the request through again. */
    readonly retryAfter: number,
  ) {
    super(message);
  }
}

/** The database did not answer (down, restarting): each face answers 503 with `Retry-After`. */
export { isDatabaseUnavailable, isInvalidValue, isStorageFull } from '../db/errors.js';

/** Seconds a client is told to wait while the database is not answering. */
export const UNAVAILABLE_RETRY_SECONDS = 5;
