// Who is signed in and what they may do on this website (GET /api/v2/me), for every screen.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { components } from '../../clients/typescript/schema.js';

export type Me = components['schemas']['Me']['data'];
export type Abilities = NonNullable<Me['website']>['can'];

export const SessionContext = createContext<Me | null>(null);

/** The event a screen dispatches on `window` after a change /me reflects (the app reads /me again). */
export const ME_CHANGED = 'folio:me-changed';

export function useMe(): Me {
  const me = useContext(SessionContext);
  if (!me) throw new Error('useMe outside the signed-in app');
  return me;
}

const NOTHING: Abilities = {
  create_posts: false,
  publish_posts: false,
  edit_others_posts: false,
  review_posts: false,
  moderate_comments: false,
  manage_pages: false,
  upload_media: false,
  manage_menus: false,
  manage_website: false,
  manage_members: false,
  read_audit: false,
  manage_tags: false,
  create_tags: false,
  read_stats: false,
};

/** What the policy lets the signed-in user do here (the API checks again on every call). */
export function useAbilities(): Abilities {
  return useMe().website?.can ?? NOTHING;
}
