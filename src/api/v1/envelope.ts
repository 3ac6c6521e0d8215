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
