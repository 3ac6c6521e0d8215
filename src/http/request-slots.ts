// Per-request state of Folio's modules (the request's website, its caller, its page-cache entry…),
// kept on the request itself in properties every request is made with. A WeakMap keyed by the
// request did the same, but each entry set on a new request costs V8 an ephemeron write barrier and
// work in every young-generation collection (issue 42: perf showed about 4 µs a request on API v2's
// get, in WeakMap sets, ephemeron barriers and scavenges); a declared property costs a store.
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface RequestSlot<T> {
  get(request: FastifyRequest): T | undefined;
  set(request: FastifyRequest, value: T): void;
  delete(request: FastifyRequest): void;
}

type Slotted = Record<string, unknown>;

const slotNames: string[] = [];

/**
 * A slot named `name` on every request. Declared at module load; `declareRequestSlots` gives every
 * request of the app the property from its creation (one shape for all requests, as Fastify's
 * decorateRequest advises). A request of an app that did not declare it still works (the property is
 * added when set).
 */
export function requestSlot<T>(name: string): RequestSlot<T> {
  const key = `folio${name[0]!.toUpperCase()}${name.slice(1)}`;
  if (slotNames.includes(key)) throw new Error(`request slot ${key} declared twice`);
  slotNames.push(key);
  return {
    get: (request) => ((request as unknown as Slotted)[key] ?? undefined) as T | undefined,
    set: (request, value) => {
      (request as unknown as Slotted)[key] = value;
    },
    delete: (request) => {
      (request as unknown as Slotted)[key] = null;
    },
  };
}

/** Gives every request of `app` each slot declared so far, empty (before any route is added). */
export function declareRequestSlots(app: FastifyInstance): void {
  for (const key of slotNames) {
    if (!app.hasRequestDecorator(key)) app.decorateRequest(key, null);
  }
}
