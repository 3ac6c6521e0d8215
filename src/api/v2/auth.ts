// Who calls API v2: an API key or a user's token as `Authorization: Bearer …` (scripts, other
// servers), or the signed-in session cookie of the site (the admin panel, same origin), whose writes
// must also carry the CSRF token (`X-CSRF-Token`, from GET /api/v2/session) and come from this site.
// The answer is an Actor, on the website of the request's Host unless the route names another.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKey } from '../../domain/people/api-keys.js';
import { actorOfCredential } from '../../domain/policy.js';
import type { Actor } from '../../domain/policy.js';
import type { User } from '../../domain/people/users.js';
import { checkCsrf } from '../../http/csrf.js';
import { sessionIdOf } from '../../http/session-cookie.js';
import { currentWebsiteId } from '../../http/website-context.js';
import { requestSlot } from '../../http/request-slots.js';
import type { FaceServices } from '../../services.js';
import { Problem, unauthenticated } from './problem.js';

export interface Caller {
  user: User;
  key: ApiKey | null;
  /** Came with the session cookie (a browser), not a Bearer credential. */
  viaSession: boolean;
}

const callers = requestSlot<Caller>('apiV2Caller');
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S{1,512})\s*$/i.exec(header);
  if (!match?.[1]) throw unauthenticated('The Authorization header must be `Bearer <key or token>`.');
  return match[1];
}

/** Authenticates the request (401 problem otherwise) and remembers the caller for the route. */
export async function authenticate(
  services: FaceServices,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Caller> {
  const token = bearerOf(request);
  let caller: Caller | null = null;
  if (token !== null) {
    const found = await services.authentication.credential(token);
    if (found) caller = { ...found, viaSession: false };
    if (!caller) throw unauthenticated('The key or token is unknown, revoked or expired.');
  } else {
    const session = await sessionIdOf(services, request);
    const user = session === null ? null : await services.sessions.userOf(session);
    if (!user) throw unauthenticated();
    // A browser's write borrows the session's authority: it must prove it comes from this site.
    if (!SAFE_METHODS.has(request.method)) {
      const refused = await checkCsrf(services, request, { requireToken: () => true });
      if (refused) {
        throw new Problem(403, 'csrf', 'Cross-site request refused', `${refused} Send X-CSRF-Token.`);
      }
    }
    caller = { user, key: null, viaSession: true };
  }
  callers.set(request, caller);
  await withinRateLimit(services, reply, caller);
  if (caller.key?.contentOnly && !readsContent(request)) {
    throw new Problem(
      403,
      'forbidden',
      'Forbidden',
      'A content key reads published posts, pages, tags, links and menus, nothing else.',
    );
  }
  // A key never does more than its scope: read-only keys read, site keys stay on their sites.
  services.policy.requireKeyScope(await actorOf(services, request), SAFE_METHODS.has(request.method));
  return caller;
}

/** The routes a content key may call: reads of what the site publishes. */
const CONTENT_ROUTES = new Set(
  [
    '/posts',
    '/posts/:id',
    '/pages',
    '/pages/:id',
    '/tags',
    '/tags/:id',
    '/links',
    '/links/:id',
    '/menus/:id',
    '/websites/:id/menus',
    '/websites/:id/menus/:handle',
  ].map((path) => `/api/v2${path}`),
);

function readsContent(request: FastifyRequest): boolean {
  return SAFE_METHODS.has(request.method) && CONTENT_ROUTES.has(request.routeOptions.url ?? '');
}

/** Requests a key (or a user without one) may make per minute: setting `api_v2_rate_limit`. */
export const RATE_LIMIT_SETTING = 'api_v2_rate_limit';
export const DEFAULT_RATE_LIMIT = 600;

/** The per-minute limit the setting says (the default when it is not a positive integer). */
function rateLimitOf(value: string | undefined): number {
  const setting = Number(value ?? DEFAULT_RATE_LIMIT);
  return Number.isInteger(setting) && setting > 0 ? setting : DEFAULT_RATE_LIMIT;
}

/** Counts the request against its key's (or user's) limit: 429 with Retry-After past it. */
async function withinRateLimit(services: FaceServices, reply: FastifyReply, caller: Caller): Promise<void> {
  // The settings' snapshot when it is current: no promise on the hot path.
  const settings = services.settings.current();
  const max = rateLimitOf(
    settings ? settings.get(RATE_LIMIT_SETTING) : await services.settings.get(RATE_LIMIT_SETTING),
  );
  const who = caller.key ? `key:${caller.key.id}` : `user:${caller.user.id}`;
  // Every request hits it: counted in memory and added to the shared count in batches (rate-limits.ts);
  // most hits are answered without a promise.
  const counted = services.rateLimits.hitBatched('api-v2', who, { max, windowSeconds: 60 });
  const verdict = counted instanceof Promise ? await counted : counted;
  if (!verdict.allowed) {
    throw new Problem(
      429,
      'rate-limit',
      'Too many requests',
      `At most ${max} requests a minute with this key; try again in ${verdict.retryAfter} s.`,
      {
        'retry-after': String(verdict.retryAfter),
        'ratelimit-limit': String(max),
        'ratelimit-remaining': '0',
      },
    );
  }
  reply.header('ratelimit-limit', String(max)).header('ratelimit-remaining', String(verdict.remaining));
}

export function callerOf(request: FastifyRequest): Caller {
  const caller = callers.get(request);
  if (!caller) throw new Error('API v2 route without authentication');
  return caller;
}

/** The actor on the Host's website, made once per request (authentication asks, then the route). */
const hostActors = requestSlot<Promise<Actor>>('apiV2HostActor');

/** The caller as the policy sees them, on `websiteId` (default: the website of the request's Host). */
export function actorOf(
  services: FaceServices,
  request: FastifyRequest,
  websiteId?: number | null,
): Promise<Actor> {
  if (websiteId !== undefined) return makeActor(services, request, websiteId);
  let actor = hostActors.get(request);
  if (!actor) {
    actor = makeActor(services, request, undefined);
    hostActors.set(request, actor);
  }
  return actor;
}

async function makeActor(
  services: FaceServices,
  request: FastifyRequest,
  websiteId: number | null | undefined,
): Promise<Actor> {
  const { user, key } = callerOf(request);
  return actorOfCredential(
    { user, key },
    websiteId === undefined ? await currentWebsiteId(services, request) : websiteId,
    { surface: 'api-v2', requestId: request.id, clientIp: request.ip ?? null, apiKeyId: key?.id ?? null },
  );
}
