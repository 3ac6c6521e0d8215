// What every public page knows about its request: the website (from the Host), the visitor's locale
// (from the optional `/{locale}` prefix, R-F3) and the signed-in user, if any. Set by the frontend's
// hooks before a route handler runs; read with frontendState(request).
import type { FastifyRequest } from 'fastify';
import type { LocaleSettings } from '../domain/locales.js';
import type { Actor } from '../domain/policy.js';
import { localizedPath } from '../domain/locales.js';
import type { User } from '../domain/people/users.js';
import type { Website } from '../domain/websites/store.js';
import type { Translate } from './theme-i18n.js';
import { requestSlot } from '../http/request-slots.js';

export { SESSION_COOKIE } from '../http/session-cookie.js';

export interface FrontendState {
  website: Website;
  /** The locale the page renders in: the URL's prefix, else the default locale. */
  locale: string;
  locales: LocaleSettings;
  /** The signed-in visitor (session cookie), or null. Pages for a user are never cached. */
  user: User | null;
  /** The cache's flush count when the request began (before it read any data): see fragments.ts. */
  flushCount: number;
  /**
   * The page's words in its locale, from the website's theme catalogues (theme-i18n.ts), for the
   * titles, headings and messages a route hands to its template.
   */
  t: Translate;
}

const states = requestSlot<FrontendState>('frontendState');

export function setFrontendState(request: FastifyRequest, state: FrontendState): void {
  states.set(request, state);
}

export function frontendState(request: FastifyRequest): FrontendState {
  const state = states.get(request);
  if (!state) throw new Error('frontend state read outside a frontend route');
  return state;
}

export function maybeFrontendState(request: FastifyRequest): FrontendState | undefined {
  return states.get(request);
}

/** A path of this website in the visitor's locale: `/post/x` or `/fr/post/x`. */
export function urlFor(state: FrontendState, path: string): string {
  return localizedPath(path, state.locale, state.locales);
}

/** The visitor as the policy and the audit log see them: the site's surface, this request. */
export function siteActor(request: FastifyRequest, state: FrontendState): Actor {
  return {
    userId: state.user?.id ?? null,
    isAdmin: state.user?.isAdmin ?? false,
    websiteId: state.website.id,
    origin: { surface: 'site', requestId: request.id, clientIp: request.ip ?? null },
  };
}
