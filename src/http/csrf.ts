// CSRF protection for the public site's forms and API v2's cookie-authenticated calls, in two layers:
// 1. Every unsafe request must come from this site: a cross-site `Sec-Fetch-Site`, or an `Origin`
//    (else `Referer`) whose host is not the request's host, is refused.
// 2. A request that carries a visitor session (or is a login/registration form, which must not be
//    forgeable either) must also send the token of its form: `_token` (form field) or
//    `X-CSRF-Token` (header), equal to the `folio_csrf` cookie. The cookie holds a random nonce signed
//    with the installation's secret and bound to the visitor's session cookie: a token the attacker
//    got for themselves (and plants from another subdomain) does not verify with the victim's
//    session, and a token issued before login stops working after it.
// Anonymous forms on cached pages (comments) carry no token; layer 1 covers them, and there is no
// session whose authority a forged request could borrow.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FaceServices } from '../services.js';
import { SESSION_COOKIE, appSecret } from './session-cookie.js';
import { requestSlot } from './request-slots.js';

export const CSRF_COOKIE = 'folio_csrf';
export const CSRF_FIELD = '_token';
export const CSRF_HEADER = 'x-csrf-token';

/** What a token is bound to: the request's session cookie (whatever it holds), or nothing. */
function bindingOf(request: FastifyRequest): string {
  return request.cookies[SESSION_COOKIE] ?? '';
}

function sign(secret: string, nonce: string, binding: string): string {
  return createHmac('sha256', secret).update(`csrf:${nonce}:${binding}`).digest('base64url');
}

function validToken(secret: string, token: string, binding: string): boolean {
  const [nonce, signature, extra] = token.split('.');
  if (!nonce || !signature || extra !== undefined) return false;
  const expected = Buffer.from(sign(secret, nonce, binding));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const issuedTokens = requestSlot<string>('csrfToken');

function secureCookies(services: FaceServices): boolean {
  return services.config.appUrl.startsWith('https:');
}

/**
 * The token to put in a form (`<input type="hidden" name="_token">`). Sets the cookie when the
 * visitor has no valid one yet; a response that sets a cookie is never page-cached.
 */
export async function csrfToken(
  services: FaceServices,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<string> {
  // One token per request: a page asks for it in several places (its form, the header's logout).
  const issued = issuedTokens.get(request);
  if (issued) return issued;
  const secret = await appSecret(services);
  const current = request.cookies[CSRF_COOKIE];
  if (current && validToken(secret, current, bindingOf(request))) return current;
  const nonce = randomBytes(18).toString('base64url');
  const token = `${nonce}.${sign(secret, nonce, bindingOf(request))}`;
  issuedTokens.set(request, token);
  reply.setCookie(CSRF_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: secureCookies(services),
  });
  return token;
}

/** Layer 1: false when the browser says, or the Origin/Referer shows, that another site sent it. */
export function sameOrigin(request: FastifyRequest): boolean {
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') return false;
  // The browser says so (no page can forge a Sec-Fetch header; browsers send them to https sites
  // and localhost).
  if (fetchSite === 'same-origin') return true;
  const source = request.headers.origin ?? request.headers.referer;
  if (source === undefined) return true; // non-browser clients and old browsers send neither
  if (source === 'null') return false;
  try {
    return new URL(source).host.toLowerCase() === (request.headers.host ?? '').toLowerCase();
  } catch {
    return false;
  }
}

export interface CsrfOptions {
  /** Whether this request must carry the form token (it has a session, or it is a login form). */
  requireToken: (request: FastifyRequest) => boolean;
}

/**
 * Checks an unsafe request; returns null when it may go on, else the reason. The route answers the
 * reason as a 403 page (or JSON for AJAX endpoints) in its own shape.
 */
export async function checkCsrf(
  services: FaceServices,
  request: FastifyRequest,
  options: CsrfOptions,
): Promise<string | null> {
  if (!sameOrigin(request)) return 'Cross-site form submission refused.';
  if (!options.requireToken(request)) return null;
  const cookie = request.cookies[CSRF_COOKIE];
  const body = request.body as Record<string, unknown> | undefined;
  const sent =
    (typeof body?.[CSRF_FIELD] === 'string' ? body[CSRF_FIELD] : undefined) ?? request.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !cookie || sent.length !== cookie.length)
    return 'The form has expired; reload the page and try again.';
  if (!timingSafeEqual(Buffer.from(sent), Buffer.from(cookie)))
    return 'The form has expired; reload the page and try again.';
  return validToken(await appSecret(services), cookie, bindingOf(request))
    ? null
    : 'The form has expired; reload the page and try again.';
}
