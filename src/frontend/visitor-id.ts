// Who a public request comes from, without storing who they are: keyed hashes (HMAC with the
// installation's secret) of the IP address, or of the signed-in user. A raw IP is never stored, and the
// hashes cannot be reversed by trying every IPv4 address without the secret. Nothing the client
// chooses freely (a User-Agent) is part of a visitor's identity: changing it made a new voter.
// Also the small answers shared by the form endpoints (comments, clicks): JSON or a page, rate limits.
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { User } from '../domain/people/users.js';
import type { FaceServices } from '../services.js';
import { appSecret } from '../http/session-cookie.js';
import { clientBucket } from '../lib/client-address.js';

export interface VisitorIdentity {
  /** Hash of the IP address, stored with a comment. */
  ipHash: string;
  /** Hash of the client (an IPv6 client by its /64: lib/client-address.ts): the key of rate limits. */
  clientHash: string;
  /**
   * The "once per voter" key: `u:` and a signed-in user's hash, else `v:` and the IP's hash (the
   * comments service lets only signed-in users' reports hold a comment).
   */
  visitorHash: string;
}

function hmac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

export async function visitorIdentity(
  services: FaceServices,
  request: FastifyRequest,
  user: User | null,
): Promise<VisitorIdentity> {
  const secret = await appSecret(services);
  const ip = request.ip ?? '';
  return {
    ipHash: hmac(secret, `ip:${ip}`),
    clientHash: hmac(secret, `client:${clientBucket(ip)}`),
    visitorHash: user
      ? `u:${hmac(secret, `user:${user.id}`).slice(0, 62)}`
      : `v:${hmac(secret, `visitor:${ip}`).slice(0, 62)}`,
  };
}

/** The request asks for JSON (an AJAX form or an API-like client) rather than a page. */
export function wantsJson(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '');
  return /application\/json/i.test(accept) || request.headers['x-requested-with'] === 'XMLHttpRequest';
}

/** Rate-limit settings: hits per minute per IP hash, with their defaults. */
export const RATE_LIMITS = {
  comments: { setting: 'comments_per_minute', fallback: 5 },
  votes: { setting: 'comment_votes_per_minute', fallback: 30 },
  clicks: { setting: 'clicks_per_minute', fallback: 120 },
} as const;

/**
 * Counts one hit of the action for this client hash. Returns null when allowed; else sets 429 and
 * `Retry-After` on the reply and returns the number of seconds to wait.
 */
export async function rateLimited(
  services: FaceServices,
  reply: FastifyReply,
  action: keyof typeof RATE_LIMITS,
  clientHash: string,
): Promise<number | null> {
  const { setting, fallback } = RATE_LIMITS[action];
  const configured = Number((await services.settings.get(setting))?.trim());
  const limit = Number.isInteger(configured) && configured > 0 ? configured : fallback;
  const verdict = await services.rateLimits.hit(action, clientHash, { max: limit, windowSeconds: 60 });
  if (verdict.allowed) return null;
  reply.code(429).header('retry-after', String(verdict.retryAfter));
  return verdict.retryAfter;
}
