// The panel talks only to API v2, through the typed client generated from its OpenAPI document, with
// the session cookie of the site; writes carry the CSRF token from GET /api/v2/session.
import createClient from 'openapi-fetch';
import type { Middleware } from 'openapi-fetch';
import type { paths } from '../../clients/typescript/schema.js';

let csrf: Promise<string> | null = null;

/** The session's CSRF token, asked once (for calls made without the typed client, e.g. uploads). */
export function csrfToken(): Promise<string> {
  csrf ??= fetch('/api/v2/session', { credentials: 'same-origin' })
    .then((response) => response.json() as Promise<{ data: { csrf_token: string } }>)
    .then((body) => body.data.csrf_token);
  return csrf;
}

const csrfMiddleware: Middleware = {
  async onRequest({ request }) {
    if (request.method === 'GET' || request.method === 'HEAD') return request;
    request.headers.set('x-csrf-token', await csrfToken());
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });
api.use(csrfMiddleware);

/** An API v2 error answer (RFC 9457 problem details), as far as the screens show it. */
export interface Problem {
  status?: number;
  title: string;
  detail?: string | null;
  errors?: Record<string, string[]>;
}

/** What to tell the user of a problem: its first field error, else its detail, else its title. */
export const problemText = (problem: Problem): string =>
  Object.values(problem.errors ?? {})[0]?.[0] ?? problem.detail ?? problem.title;
