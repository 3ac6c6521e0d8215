// The input of an API request: query parameters and body fields together, the body winning
// (like Laravel's `$request->input()`), so GET and POST callers are served alike.
import type { FastifyRequest } from 'fastify';

export function requestInput(request: FastifyRequest): Record<string, unknown> {
  const query = isRecord(request.query) ? request.query : {};
  const body = isRecord(request.body) ? request.body : {};
  return { ...query, ...body };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
