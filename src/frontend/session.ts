// The visitor session of the public site over HTTP: the `folio_session` cookie (http/session-cookie.ts)
// holds the session id and its HMAC. The cookie is HttpOnly, SameSite=Lax, Secure when
// APP_URL is https, and lives as long as the session. Signing in always starts a new session
// (rotation: a session id planted before login is worth nothing after it).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../domain/people/users.js';
import type { FaceServices } from '../services.js';
import { SESSION_COOKIE, urlFor } from './context.js';
export { sessionIdOf };
import type { FrontendState } from './context.js';
import { appSecret, sessionIdOf, sessionSignature } from '../http/session-cookie.js';
import type { FrontendKit } from './index.js';

function secure(services: FaceServices): boolean {
  return services.config.appUrl.startsWith('https:');
}

/** Installs the session lookup that fills `state.user` on every public page. */
export function installVisitorLookup(kit: FrontendKit): void {
  const { services } = kit;
  kit.setVisitorLookup(async (request) => {
    const id = await sessionIdOf(services, request);
    if (id === null) return null;
    try {
      return await services.sessions.userOf(id);
    } catch (error) {
      // The session store is down (Redis): the visitor is treated as signed out, and it is logged.
      request.log.warn({ err: error }, 'session lookup failed');
      return null;
    }
  });
}

/** Starts a new session for the user (ending the request's old one) and sets the cookie. */
export async function signIn(
  services: FaceServices,
  request: FastifyRequest,
  reply: FastifyReply,
  user: User,
): Promise<void> {
  await endSessionOf(services, request);
  const session = await services.sessions.start(user.id);
  const secret = await appSecret(services);
  reply.setCookie(SESSION_COOKIE, `${session.id}.${sessionSignature(secret, session.id)}`, {
    ...cookieOptions(services),
    maxAge: session.maxAgeSeconds,
  });
}

/** Ends the request's session, if any, and clears the cookie. */
export async function signOut(
  services: FaceServices,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  await endSessionOf(services, request);
  reply.clearCookie(SESSION_COOKIE, cookieOptions(services));
}

/** Ends the session the request's cookie names, if any. */
async function endSessionOf(services: FaceServices, request: FastifyRequest): Promise<void> {
  const id = await sessionIdOf(services, request);
  if (id !== null) await services.sessions.end(id);
}

/** The session cookie's attributes (set and cleared with the same ones, or a browser keeps it). */
function cookieOptions(services: FaceServices) {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure: secure(services) } as const;
}

/**
 * A local path to go to after a form, from untrusted input: only a path of this site (`/…`, never
 * `//host` or `/\host`, which browsers read as another site), else the fallback.
 */
export function safeRedirect(target: unknown, fallback: string): string {
  if (typeof target !== 'string' || target.length > 2000) return fallback;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (!target.startsWith('/') || target.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(target)) {
    return fallback;
  }
  try {
    const url = new URL(target, 'http://folio.invalid');
    if (url.host !== 'folio.invalid') return fallback;
    // Normalizing can make a protocol-relative path: `/%2e//evil.example` becomes `//evil.example`.
    if (/^\/[/\\]/.test(url.pathname)) return fallback;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return fallback;
  }
}

/**
 * Sends an anonymous visitor of a page that needs a user to the login form (which brings them back
 * here afterwards); returns true when it did.
 */
export function redirectToLogin(request: FastifyRequest, reply: FastifyReply, state: FrontendState): boolean {
  if (state.user) return false;
  const back = request.method === 'GET' ? request.url : urlFor(state, '/');
  void reply.redirect(`${urlFor(state, '/user/login')}?redirect=${encodeURIComponent(back)}`, 302);
  return true;
}

/** The address the attempt counters use. */
export function clientAddress(request: FastifyRequest): string {
  return request.ip || 'unknown';
}
