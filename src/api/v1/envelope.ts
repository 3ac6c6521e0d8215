// The response envelope of spec 2.1 and the error bodies of spec section 7, with their deviations.
// Key order is part of the contract (R-G2): code, status, message, data, extra.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json | undefined };

// A type alias, not an interface, so that an Envelope is also a Json value.
export type Envelope = {
  code: number;
  status: 'success' | 'fail';
  message: string;
  data: Json;
  extra: Json;
};

export function success(message: string, data: Json = [], extra: Json = [], code = 200): Envelope {
  return { code, status: 'success', message, data, extra };
}

/**
 * A response body already serialized to JSON: the router sends it as it is, with the status `code`
 * and the JSON content type. It must be exactly what JSON.stringify would give for the body it stands
 * for (key order included), so that answers do not depend on how they were built. Bytes (UTF-8) spare
 * the encoding of large answers on every request.
 */
export class JsonText {
  constructor(
    readonly code: number,
    readonly body: string | Buffer,
  ) {}
}

const successHead = (message: string, code: number) =>
  `{"code":${code},"status":"success","message":${JSON.stringify(message)},"data":`;
const SUCCESS_TAIL = ',"extra":[]}';

/**
 * `success(message, data)` as JSON bytes, for `data` that is already JSON text: the UTF-8 bytes of
 * `JSON.stringify(success(message, data))` without parsing or serializing `data` again.
 */
export function successText(message: string, dataText: string, code = 200): JsonText {
  return new JsonText(code, Buffer.from(`${successHead(message, code)}${dataText}${SUCCESS_TAIL}`));
}

export function failure(code: number, message: string, data: Json = [], extra: Json = []): Envelope {
  return { code, status: 'fail', message, data, extra };
}

/**
 * An error that ends the request with a given status and body. Thrown anywhere in the API layer;
 * the error handler sends it as it is.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Json,
    /** Headers of the answer (`Retry-After`…). */
    readonly headers: Record<string, string> = {},
  ) {
    const message = typeof body === 'object' && body !== null && 'message' in body ? body.message : undefined;
    super(typeof message === 'string' ? message : `HTTP ${statusCode}`);
    this.name = 'ApiError';
  }

  /** The standard envelope with `status: fail`. */
  static fail(code: number, message: string, data: Json = [], extra: Json = []): ApiError {
    return new ApiError(code, failure(code, message, data, extra));
  }
}

// Deviations listed in spec 2.1 and section 7.
export const apiDisabled = () => new ApiError(403, { status: 403, message: 'API access is disabled' });
export const invalidToken = () => new ApiError(401, { status: 'fail', message: 'Invalid token' });
export const adminRequired = () => new ApiError(403, { status: 'fail', message: 'Admin access required' });

/** Validation failure: 422 with `data.errors` mapping each field to its messages. */
export function validationFailed(errors: Record<string, string[]>): ApiError {
  return ApiError.fail(422, 'Validation failed', { errors });
}
