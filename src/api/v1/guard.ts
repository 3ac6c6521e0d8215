// Endpoint switches, authentication modes and the admin role (spec section 5, R-A1..R-A8).
// Every API route declares an EndpointPolicy; `guard` turns it into a preHandler that runs the checks
// in the order of R-A7: switches (403) -> authentication (401) -> admin role (403).
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { User } from '../../domain/people/users.js';
import type { ApiKey } from '../../domain/people/api-keys.js';
import { actorOf } from './actor.js';
import type { FaceServices } from '../../services.js';
import { AUTH_MODES, GLOBAL_SWITCH } from '../../domain/system/api-switches.js';
import type { AuthMode } from '../../domain/system/api-switches.js';
import { ApiError, adminRequired, apiDisabled, failure, invalidToken } from './envelope.js';

export interface EndpointPolicy {
  /** The endpoint's own switch (`svc_api_…`); null when only the global switch covers it (R-A2). */
  switchKey: string | null;
  /** Other switches that must all be on, such as the model switch `enable_api_website`. */
  alsoRequires?: readonly string[];
  /** A legacy switch that turns the endpoint on by itself (`enable_api_tag_store`). */
  legacySwitch?: string;
  /** A switch that turns the endpoint off only when explicitly set to a false value. */
  vetoSwitch?: string;
  /** Prefix of the `<key>_should_auth` mode setting; defaults to `switchKey`. Null: no auth at all. */
  authKey?: string | null;
  /** The endpoint always needs a user, whatever the mode (R-A4). */
  userRequired?: boolean;
  /** Only admins may call it (spec 5.5); implies `userRequired`. */
  adminOnly?: boolean;
  /** It only reads: the one kind of endpoint a read-only API key may call. */
  read?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated API user, or null when the endpoint's auth mode is `none`. */
    apiUser: User | null;
    /** The API key the user came with (issue 20), or null for the user's token. */
    apiKey: ApiKey | null;
  }
}

/** A token or an API key (`folio_key_…`, with its scope): the user it names, or null. */
async function identify(
  services: FaceServices,
  request: FastifyRequest,
  token: string,
): Promise<User | null> {
  const found = await services.authentication.credential(token);
  request.apiKey = found?.key ?? null;
  return found?.user ?? null;
}

/** The token of the request (R-A5): `api_token` in the body, then the query, then a Bearer header. */
export function requestToken(request: FastifyRequest): string | null {
  const fromBody = fieldOf(request.body, 'api_token');
  if (fromBody !== null) return fromBody;
  const fromQuery = fieldOf(request.query, 'api_token');
  if (fromQuery !== null) return fromQuery;
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1] ?? null;
}

function fieldOf(source: unknown, key: string): string | null {
  if (typeof source !== 'object' || source === null) return null;
  const value = (source as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** `Authorization: Basic base64(email:password)`, or null. */
export function basicCredentials(request: FastifyRequest): { email: string; password: string } | null {
  const header = request.headers.authorization;
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

async function isEnabled(services: FaceServices, policy: EndpointPolicy): Promise<boolean> {
  const { settings } = services;
  if (!(await settings.flag(GLOBAL_SWITCH, true))) return false;
  for (const key of policy.alsoRequires ?? []) {
    if (!(await settings.flag(key, false))) return false;
  }
  if (policy.vetoSwitch && !(await settings.flag(policy.vetoSwitch, true))) return false;
  if (policy.switchKey === null) return true;
  if (await settings.flag(policy.switchKey, false)) return true;
  return policy.legacySwitch !== undefined && (await settings.flag(policy.legacySwitch, false));
}

async function authMode(services: FaceServices, policy: EndpointPolicy): Promise<AuthMode | null> {
  const key = policy.authKey === undefined ? policy.switchKey : policy.authKey;
  const needsUser = policy.userRequired === true || policy.adminOnly === true;
  if (key === null) return needsUser ? 'simple' : null;
  const value = (await services.settings.get(`${key}_should_auth`))?.trim().toLowerCase();
  // Absent or unrecognized means `simple`: secure by default (R-A3).
  const mode: AuthMode = AUTH_MODES.includes(value as AuthMode) ? (value as AuthMode) : 'simple';
  return mode === 'none' && needsUser ? 'simple' : mode;
}

async function authenticate(
  request: FastifyRequest,
  services: FaceServices,
  mode: AuthMode,
): Promise<User | null> {
  if (mode === 'basic') {
    const credentials = basicCredentials(request);
    if (!credentials) return null;
    // Basic credentials are a password login: the login form's limits per account and per address
    // count them too (issue 21 #2), so neither face can be used to guess around the other.
    const address = request.ip || 'unknown';
    const verdict = await services.throttle.loginAttempt(credentials.email, address);
    if (!verdict.allowed) throw tooManyAttempts(verdict.retryAfter);
    const user = await services.authentication.password(credentials.email, credentials.password);
    if (user) await services.throttle.loginSucceeded(credentials.email, address);
    return user;
  }
  const token = requestToken(request);
  return token ? identify(services, request, token) : null;
}

/** 429 with `Retry-After`, in the envelope: the login limits refused a Basic attempt. */
function tooManyAttempts(retryAfter: number): ApiError {
  const minutes = Math.max(1, Math.ceil(retryAfter / 60));
  return new ApiError(
    429,
    failure(
      429,
      `Too many login attempts. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    ),
    { 'retry-after': String(retryAfter) },
  );
}

export function guard(services: FaceServices, policy: EndpointPolicy): preHandlerAsyncHookHandler {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    if (!(await isEnabled(services, policy))) throw apiDisabled();
    const mode = await authMode(services, policy);
    if (mode === null || mode === 'none') {
      // A public endpoint still knows a caller who sends a valid token.
      const token = requestToken(request);
      request.apiUser = token ? await identify(services, request, token) : null;
    } else {
      request.apiUser = await authenticate(request, services, mode);
      if (!request.apiUser) throw invalidToken();
    }
    // Installation-wide endpoints: an administrator with an unlimited key (the policy decides).
    if (
      policy.adminOnly &&
      !(await services.policy.can(await actorOf(services, request), 'installation.administer', {}))
    ) {
      throw adminRequired();
    }
    // A key never does more than its scope allows: a read-only key calls reads only, and a key
    // limited to websites is refused on a request for another website (the policy decides).
    if (request.apiKey)
      services.policy.requireKeyScope(await actorOf(services, request), policy.read === true);
  };
}
