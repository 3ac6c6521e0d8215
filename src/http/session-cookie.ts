// The signed-in session's cookie, shared by every face a browser uses (the public site, API v2 for
// the admin panel): `folio_session` holds the session id and an HMAC of it made with the
// installation's secret (shared by every node), so a forged or altered cookie is refused before any
// lookup.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FaceServices } from '../services.js';

/** The visitor session cookie. A request carrying it is never served from or stored in the page cache. */
export const SESSION_COOKIE = 'folio_session';
/** The installation's secret for signing cookies (the sessions' setting), shared by all nodes. */
export async function appSecret(services: FaceServices): Promise<string> {
  return services.sessions.signingSecret();
}

/** The cookie's signature of a session id. */
export function sessionSignature(secret: string, id: string): string {
  return createHmac('sha256', secret).update(`session:${id}`).digest('base64url');
}

/** The session id of the request's cookie when its signature holds, else null. */
export async function sessionIdOf(services: FaceServices, request: FastifyRequest): Promise<string | null> {
  const cookie = request.cookies[SESSION_COOKIE];
  if (!cookie || cookie.length > 200) return null;
  const [id, mac, extra] = cookie.split('.');
  if (!id || !mac || extra !== undefined) return null;
  const expected = Buffer.from(sessionSignature(await appSecret(services), id));
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given) ? id : null;
}
