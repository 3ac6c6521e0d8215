// Checks every request's decoded input (path parameters, query, body) once, before any handler:
// - a NUL character is refused (PostgreSQL cannot store one, and no legitimate text carries it): 404
//   in the path (no such page), 422 naming the field in the query or the body;
// - a body nested deeper than MAX_DEPTH is refused (400): nothing Folio takes is nested more than a
//   few levels, and deep nesting is how a small body overflows the stack of recursive code.
// The walk is iterative, so a deep body cannot overflow it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '../domain/errors.js';
import { HttpError } from './errors.js';

export const MAX_DEPTH = 32;

/** The first string holding a NUL, as its field path, or a depth error, or null. */
function inspect(input: unknown): { nul: string } | { tooDeep: true } | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [
    { value: input, path: '', depth: 0 },
  ];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { nul: path };
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    // Below the top (params, query and body objects of any class), only what a parser made (arrays,
    // plain objects): an uploaded file is no input to walk.
    const proto = Object.getPrototypeOf(value) as unknown;
    if (depth > 0 && !Array.isArray(value) && proto !== Object.prototype && proto !== null) continue;
    if (depth >= MAX_DEPTH) return { tooDeep: true };
    const entries = Array.isArray(value)
      ? value.map((item, i) => [String(i), item] as const)
      : Object.entries(value);
    for (const [key, item] of entries) {
      if (key.includes('\u0000')) return { nul: path ? `${path}.${key.replaceAll('\u0000', '')}` : 'input' };
      stack.push({ value: item, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}

/** The error a request's decoded input earns (see above), or null when it is clean. */
export function checkInput(request: FastifyRequest): Error | null {
  const params = inspect(request.params);
  if (params) return new HttpError(404, 'Not found');
  for (const part of [request.query, request.body]) {
    const found = inspect(part);
    if (!found) continue;
    if ('tooDeep' in found) return new HttpError(400, 'Request body nested too deeply');
    const field = found.nul || 'input';
    return new ValidationError({ [field]: [`The ${field} must not contain a NUL character.`] });
  }
  return null;
}

export function installInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    done(checkInput(request) ?? undefined);
  });
}
