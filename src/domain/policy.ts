// Who may do what: the one answer for every face (API v1, the public site, the CLI and what comes
// next). A face never decides a permission; an operation asks `policy.require(actor, action, …)`.
//
// The rules today (issue 19; roles per site extend the table, issue 20):
// - administrators may do anything;
// - anyone may read a published post whose time has come;
// - a signed-in non-administrator may also read their own posts, whatever their status, and never
//   another user's draft or scheduled post;
// - they create, change, publish and delete only their own posts, and only on websites they may write
//   to: websites they own or are bound to (R-W7), and websites where they hold the contributor role or
//   above; never an all-sites (global) post. No role on a website means no more rights there than a
//   visitor's (issue 34 #1), unless the installation's setting `any_account_writes` restores WNCMS's
//   rule: any account writes (as an author) on the website the request is on;
// - once a post is public or scheduled, changing, unpublishing or deleting it needs the right to
//   publish it (a contributor's approved post is the editors', as in WordPress: issue 34 #13);
// - an API key limited to websites does only what its websites allow: its user's roles count only
//   there, an administrator's rights reach only there, and installation-wide actions (settings,
//   updates, accounts, other users' keys, caches, creating websites) need an unlimited key (issue 34 #2);
// - roles per website (issue 20): an editor or site admin of every website a post is on also reads,
//   changes, publishes and deletes other users' posts there; a contributor writes drafts there and
//   publishes nothing (their posts wait for an editor); a reader writes nothing there, even on the
//   website the request is on;
// - reviews (issue 20 #4): a writer who may change a draft submits it (status `pending`); an editor
//   or site admin of every website it is on approves it (publishes or schedules) or sends it back;
// - a caller without a user (an endpoint in `none` mode) may create a post where R-P8 puts it (the
//   request's website; global only when the request has none), attributed to nobody, and changes
//   nothing else;
// - websites: administrators, their owners and bound users (R-W7) and their site admins see and
//   change them and their domains; only administrators create or delete one; a website's head and
//   body code and analytics (code run on every page) and its owner are the administrators' alone:
//   others neither change them (R-W6) nor, through API v2 and the panel, see the code;
// - accounts (enable, disable, send a password reset, another user's API keys) are the
//   administrators';
// - menus are part of managing a website: the same people create, rename, delete and rebuild them
//   (never with a read-only key, nor with a key limited to other websites);
// - members: administrators manage every website's; a site admin its website's editors, authors,
//   contributors and readers (site admins are made and unmade by administrators);
// - tags have no owner: authors and above (and a website's owners and bound users) create them on
//   their websites; renaming, moving, merging and deleting one is an editor's (or site admin's, owner's)
//   of every website it is on (issue 34 #5); an all-sites tag is the administrators' alone (#4);
// - pages and links are the editors': an editor or site admin of every website one is on writes it;
//   one bound to no website (every website's) is the administrators';
// - the media library (issue 23): contributors and above of a website (and its owners, bound users
//   and site admins) browse its library and upload to it; they change and delete their own items
//   there, its editors and site admins any item; an item of every website (bound to none: post
//   thumbnails, downloaded images) is the administrators' to change or delete;
// - a website's statistics (views, clicks, top posts) are read by its contributors and above, its
//   owners and bound users; the installation's health by administrators only;
// - a website the actor has no role on, owns not and is not bound to is not shown at all (404), a
//   website they do see but may not do this on answers 403.
import type { AuditSurface } from './system/audit.js';
import type { Clock } from './clock.js';
import { ForbiddenError } from './errors.js';
import { roleAtLeast } from './people/memberships.js';
import type { SiteRole } from './people/memberships.js';
import type { MembershipsService } from './people/memberships.js';
import { InvalidDomainError, isReservedDomain, normalizeDomain } from './websites/store.js';
import type { WebsitesService } from './websites/store.js';

/** Who is acting, and on which website the request arrived (null: none resolved). */
export interface Actor {
  /** Null for a caller without a user (an endpoint whose auth mode is `none`). */
  userId: number | null;
  isAdmin: boolean;
  /** The website the request is on (its Host), or null. */
  websiteId: number | null;
  /** The scope of the API key the actor came with (issue 20); absent for a token or a session. */
  key?: KeyScope;
  /** Where the action comes from, for the audit log (absent: not recorded by surface). */
  origin?: ActorOrigin;
}

/** The installation's operator at the command line (the CLI): an administrator without an account. */
export const INSTALLATION_OPERATOR: Actor = Object.freeze({
  userId: null,
  isAdmin: true,
  websiteId: null,
  origin: Object.freeze({ surface: 'cli' as const }),
});

/** The surface, request and client an action came through (the audit log's "from where"). */
export interface ActorOrigin {
  surface: AuditSurface;
  requestId?: string | null;
  /** Only when the proxy settings let Folio know it. */
  clientIp?: string | null;
  apiKeyId?: number | null;
}

/** What an API key limits its user to: never more than the user holds. */
export interface KeyScope {
  readOnly: boolean;
  /** Empty: every website the user may reach. */
  websiteIds: readonly number[];
}

/** A post as the policy sees it. */
export interface PostFacts {
  authorId: number | null;
  status: string;
  publishedAt: string | null;
  /** Bound websites; empty: an all-sites (global) post. */
  websiteIds: readonly number[];
}

/** An item of the media library as the policy sees it. */
export interface MediaFacts {
  /** Who uploaded it. */
  userId: number | null;
  /** Bound websites; empty: every website's (stored before the library, or by administrators). */
  websiteIds: readonly number[];
}

/** Policy answers about one website, for faces that offer actions (see `Policy.abilitiesOn`). */
export interface WebsiteAbilities {
  createPosts: boolean;
  publishPosts: boolean;
  editOthersPosts: boolean;
  reviewPosts: boolean;
  moderateComments: boolean;
  managePages: boolean;
  uploadMedia: boolean;
  manageMenus: boolean;
  manageWebsite: boolean;
  manageMembers: boolean;
  readAudit: boolean;
  /** Rename, move, merge and delete the tags bound to this website (all-sites tags: administrators). */
  manageTags: boolean;
  /** Create tags on this website (pick existing ones: anyone who writes posts there). */
  createTags: boolean;
  /** Its views and clicks. */
  readStats: boolean;
}

/**
 * The installation's setting that restores WNCMS's rule "any account may write on the request's
 * website" (as an author where it holds no role). Default off: no role on a website, no writing there.
 */
export const ANY_ACCOUNT_WRITES_SETTING = 'any_account_writes';

/** Public now or on its way to be (scheduled): what only publishers change. */
function isPublicOrScheduled(status: string): boolean {
  return status === 'published' || status === 'scheduled';
}

/**
 * The actor of a request made with a credential (API v1, API v2): its user, narrowed by its API key.
 * A content key sees what a visitor sees, whoever created it (it acts with no user); any other key keeps
 * its scope (read-only, its websites) for the policy to apply.
 */
export function actorOfCredential(
  credential: {
    user: { id: number; isAdmin: boolean } | null;
    key: { readOnly: boolean; contentOnly: boolean; websiteIds: readonly number[] } | null;
  },
  websiteId: number | null,
  origin: ActorOrigin,
): Actor {
  const { user, key } = credential;
  const asVisitor = key?.contentOnly === true;
  return {
    userId: asVisitor ? null : (user?.id ?? null),
    isAdmin: asVisitor ? false : (user?.isAdmin ?? false),
    websiteId,
    origin,
    ...(key ? { key: { readOnly: key.readOnly, websiteIds: key.websiteIds } } : {}),
  };
}

/** A caller without a user (an endpoint in `none` mode). */
export function isAnonymous(actor: Actor): boolean {
  return actor.userId === null && !actor.isAdmin;
}

/**
 * Every question the policy answers: an action, and the facts it is decided on. Operations ask
 * `policy.require(actor, action, facts)` (or `can`, for a yes or no); the rule of each action is one
 * row of `RULES` below, and `test/unit/policy-table.test.ts` runs every row against every role.
 */
export interface PolicyActions {
  /** Read a post (refused: the operation answers "not found"). */
  'post.read': { post: PostFacts };
  /** Create a post bound to `websiteIds` (empty: global). */
  'post.create': { websiteIds: readonly number[] };
  /** Change `post` (and move it to `websiteIds` when given). */
  'post.update': { post: PostFacts; websiteIds?: readonly number[] };
  'post.delete': { post: PostFacts; websiteIds?: readonly number[] };
  /** Make public (or schedule) `post`, or a new post on `websiteIds`. */
  'post.publish': { post: PostFacts | null; websiteIds?: readonly number[] };
  /** Approve a post submitted for review, or send it back (issue 20 #4). */
  'post.review': { post: PostFacts };
  /** Name `authorId` as the author of `post` (absent: of a new post): R-P5, issue 34 #13. */
  'post.name_author': { authorId: number; post?: PostFacts };
  /** Create a tag bound to `websiteIds` (empty: all sites). */
  'tag.create': { websiteIds: readonly number[] };
  /** Rename, move, merge or delete a tag bound to `current` (rebound to `websiteIds`). */
  'tag.update': { websiteIds: readonly number[]; current: readonly number[] };
  'media.read': { websiteId: number };
  'media.upload': { websiteId: number };
  'media.update': { websiteId: number; item: MediaFacts };
  'media.delete': { websiteId: number; item: MediaFacts };
  /** Write editors' content (pages, links) bound to `websiteIds` (empty: every website's). */
  'content.write': { websiteIds: readonly number[] };
  /** Create, change and delete the website's menus. */
  'menu.manage': { websiteId: number };
  /** See the website at all (refused: "not found"). */
  'website.see': { websiteId: number };
  /** See every website (lists unfiltered). */
  'website.see_all': Record<string, never>;
  /** See every website the caller's key reaches (an administrator's key limited to websites: those). */
  'website.see_key_scope': Record<string, never>;
  /** See and change the website's fields and domains. */
  'website.manage': { websiteId: number };
  /** Change the website's own settings (comment moderation rules). */
  'website.settings': { websiteId: number };
  /** See and change the code a website puts on every page, and its owner (R-W6). */
  'website.code': Record<string, never>;
  /** Editor or site admin of the website: lists show them its posts of every status. */
  'website.edit': { websiteId: number };
  /** Moderate the comments shown on the website. */
  'comment.moderate': { websiteId: number };
  /** Moderate any comment of any website at once (the CLI's comment:*, API v2's installation queue). */
  'comment.moderate_all': Record<string, never>;
  'member.manage': { websiteId: number };
  /** Give `role` (null: take the role away) to a member who holds `current` there. */
  'member.grant': { websiteId: number; role: SiteRole | null; current: SiteRole | null };
  /** Read the audit log: of one website, or (`websiteId` absent) of the installation. */
  'audit.read': { websiteId?: number };
  /** Read the website's views, clicks and top posts. */
  'stats.read': { websiteId: number };
  /** Read accounts: every one (`userId` absent), or one (anyone reads their own). */
  'account.read': { userId?: number };
  /** Issue a new API token (the old one stops working) to `userId`. */
  'account.token': { userId: number };
  /** List, create and revoke the API keys of `userId`. */
  'key.manage': { userId: number };
  /** Create accounts, enable, disable, reset passwords, revoke other users' keys. */
  'account.manage': Record<string, never>;
  /** Read the installation's settings. */
  'installation.read': Record<string, never>;
  /** Call an administrators' endpoint of API v1 (updates, creating and deleting websites, menu sync). */
  'installation.administer': Record<string, never>;
  /** Change the installation: settings, core updates, cache flushes, creating and deleting websites. */
  'installation.manage': Record<string, never>;
  /** Be the installation's operator (the CLI): set secret settings. */
  'installation.operate': Record<string, never>;
  /**
   * Manage the webhooks of a website (null: the installation's, told of every website's events): its
   * site admins and administrators; the installation's, administrators. Never with a read-only key
   * (a webhook's target and secret are writes' business).
   */
  'webhook.manage': { websiteId: number | null };
  /**
   * Export a website to an archive and download it (issue 39): its site admins, owners, bound users and
   * administrators; the whole installation (`websiteId` null), administrators. Never with a read-only
   * key (an export is a job that writes a file).
   */
  'website.export': { websiteId: number | null };
  /** See and retry background jobs (issue 38). */
  'job.manage': Record<string, never>;
  /** Read the installation's health. */
  'health.read': Record<string, never>;
  /**
   * Be someone: a signed-in user or an administrator (lists of one's websites, the themes, a slug
   * check). A caller without a user (a content key, a disabled account's token) is refused.
   */
  'caller.identified': Record<string, never>;
  /** Keep a post's HTML as written; anyone else's is cut to the public site's allow-list. */
  'content.unfiltered_html': Record<string, never>;
}

export type PolicyAction = keyof PolicyActions;
export type PostAction = Extract<PolicyAction, `post.${string}`>;

type Rule<A extends PolicyAction> = (
  s: Standing,
  actor: Actor,
  facts: PolicyActions[A],
) => boolean | Promise<boolean>;

/** The rules, one row per action (see the list at the top of this file). */
const RULES: { readonly [A in PolicyAction]: Rule<A> } = {
  'post.read': (s, actor, { post }) => s.mayReadPost(actor, post),
  'post.create': (s, actor, { websiteIds }) => s.writesPost(actor, 'post.create', null, websiteIds),
  'post.update': (s, actor, { post, websiteIds }) => s.writesPost(actor, 'post.update', post, websiteIds),
  'post.delete': (s, actor, { post, websiteIds }) => s.writesPost(actor, 'post.delete', post, websiteIds),
  'post.publish': (s, actor, { post, websiteIds }) => s.writesPost(actor, 'post.publish', post, websiteIds),
  'post.review': (s, actor, { post }) => s.writesPost(actor, 'post.review', post),
  'post.name_author': (s, actor, { authorId, post }) =>
    post !== undefined
      ? post.authorId === authorId || s.adminOn(actor, post.websiteIds)
      : s.administers(actor) || (actor.userId !== null && actor.userId === authorId),
  'tag.create': (s, actor, { websiteIds }) => s.changesTag(actor, 'create', websiteIds, []),
  'tag.update': (s, actor, { websiteIds, current }) => s.changesTag(actor, 'update', websiteIds, current),
  'media.read': (s, actor, { websiteId }) => s.usesLibrary(actor, websiteId, false),
  'media.upload': (s, actor, { websiteId }) => s.usesLibrary(actor, websiteId, true),
  'media.update': (s, actor, { websiteId, item }) => s.changesMedia(actor, websiteId, item),
  'media.delete': (s, actor, { websiteId, item }) => s.changesMedia(actor, websiteId, item),
  'content.write': (s, actor, { websiteIds }) => s.writesContent(actor, websiteIds),
  'menu.manage': async (s, actor, { websiteId }) =>
    s.keyWrites(actor, [websiteId]) && (await s.managesWebsite(actor, websiteId)),
  'website.see': (s, actor, { websiteId }) => s.seesWebsite(actor, websiteId),
  'website.see_all': (s, actor) => s.administers(actor),
  'website.see_key_scope': (_s, actor) => actor.isAdmin,
  'website.manage': (s, actor, { websiteId }) => s.managesWebsite(actor, websiteId),
  'website.settings': async (s, actor, { websiteId }) =>
    s.keyWrites(actor, [websiteId]) && (await s.managesWebsite(actor, websiteId)),
  'website.code': (s, actor) => s.administers(actor),
  'website.edit': (s, actor, { websiteId }) => s.editsWebsite(actor, websiteId),
  'comment.moderate': (s, actor, { websiteId }) => s.editsWebsite(actor, websiteId),
  'comment.moderate_all': (s, actor) => s.administers(actor) && actor.key?.readOnly !== true,
  'member.manage': (s, actor, { websiteId }) => s.managesMembers(actor, websiteId),
  'member.grant': async (s, actor, { websiteId, role, current }) => {
    if (!(await s.managesMembers(actor, websiteId))) return false;
    if (s.adminOn(actor, [websiteId])) return true;
    // Site admins are made and unmade by administrators.
    return role !== 'site_admin' && current !== 'site_admin';
  },
  'audit.read': async (s, actor, { websiteId }) => {
    if (s.adminOn(actor, websiteId === undefined ? [] : [websiteId])) return true;
    if (websiteId === undefined || actor.userId === null || !s.inKeyScope(actor, websiteId)) return false;
    return (await s.rolesOf(actor)).get(websiteId) === 'site_admin';
  },
  'stats.read': async (s, actor, { websiteId }) =>
    s.inKeyScope(actor, websiteId) &&
    (s.adminOn(actor, [websiteId]) || (await s.contributesTo(actor, websiteId))),
  'account.read': (s, actor, { userId }) =>
    s.administers(actor) || (userId !== undefined && actor.userId !== null && actor.userId === userId),
  'account.manage': (s, actor) => s.administers(actor) && actor.key?.readOnly !== true,
  // A credential is changed with a credential, never with a key; the operator at the command line
  // issues them for anyone.
  'account.token': (s, actor, { userId }) => !actor.key && (actor.userId === userId || s.operates(actor)),
  'key.manage': (s, actor, { userId }) => !actor.key && (actor.userId === userId || s.operates(actor)),
  'installation.read': (s, actor) => s.administers(actor),
  'installation.administer': (s, actor) => s.administers(actor),
  'installation.manage': (s, actor) => s.administers(actor) && actor.key?.readOnly !== true,
  'installation.operate': (_s, actor) =>
    actor.isAdmin && actor.userId === null && actor.origin?.surface === 'cli',
  'webhook.manage': async (s, actor, { websiteId }) => {
    if (actor.key?.readOnly === true) return false;
    if (websiteId === null) return s.administers(actor);
    if (!s.inKeyScope(actor, websiteId)) return false;
    if (s.adminOn(actor, [websiteId])) return true;
    if (actor.userId === null) return false;
    return (await s.rolesOf(actor)).get(websiteId) === 'site_admin';
  },
  'website.export': async (s, actor, { websiteId }) => {
    if (actor.key?.readOnly === true) return false;
    if (websiteId === null) return s.administers(actor);
    return s.managesWebsite(actor, websiteId);
  },
  'job.manage': (s, actor) => s.administers(actor),
  'health.read': (s, actor) => s.administers(actor),
  'caller.identified': (_s, actor) => actor.userId !== null || actor.isAdmin,
  'content.unfiltered_html': (_s, actor) => actor.isAdmin,
};

/** Every action the policy knows (for tests and documentation). */
export const POLICY_ACTIONS = Object.keys(RULES) as PolicyAction[];

export class Policy {
  private readonly standing: Standing;

  constructor(deps: StandingDeps) {
    this.standing = new Standing(deps);
  }

  /** May the actor do `action` on what `facts` describe? */
  async can<A extends PolicyAction>(actor: Actor, action: A, facts: PolicyActions[A]): Promise<boolean> {
    return (RULES[action] as Rule<A>)(this.standing, actor, facts);
  }

  /** Throws ForbiddenError unless `can(...)`; `NotFoundError`-style refusals are the operation's. */
  async require<A extends PolicyAction>(actor: Actor, action: A, facts: PolicyActions[A]): Promise<void> {
    if (!(await this.can(actor, action, facts))) throw new ForbiddenError();
  }

  // What follows are not yes-or-no questions but the scopes queries are filtered by, and the
  // checks of a request's key.

  /** The time rules about publication are decided at. */
  now(): Date {
    return this.standing.now();
  }

  /**
   * An administrator's rights over these websites (empty: every website's content): with a key
   * limited to websites, only inside them, and never over all-sites content.
   */
  adminOn(actor: Actor, websiteIds: readonly number[]): boolean {
    return this.standing.adminOn(actor, websiteIds);
  }

  /**
   * Does a list of `websiteId`'s posts (null: of every website) show the actor's own posts of every
   * status: yes, but with a key limited to websites only on them.
   */
  listsOwnPosts(actor: Actor, websiteId: number | null): boolean {
    return (
      !this.standing.limited(actor) || (websiteId !== null && this.standing.inKeyScope(actor, websiteId))
    );
  }

  /** Published and due: what anybody may read. */
  isPublic(post: Pick<PostFacts, 'status' | 'publishedAt'>): boolean {
    return this.standing.isPublic(post);
  }

  /** Whether an API key limited to websites (if the actor came with one) reaches this website. */
  inKeyScope(actor: Actor, websiteId: number): boolean {
    return this.standing.inKeyScope(actor, websiteId);
  }

  /**
   * A request made with an API key: a read-only key may call reads only, and a key limited to
   * websites may not be used on a request for another website (403).
   */
  requireKeyScope(actor: Actor, isRead: boolean): void {
    if (!actor.key) return;
    if (actor.key.readOnly && !isRead) throw new ForbiddenError();
    const scope = actor.key.websiteIds;
    if (scope.length > 0 && actor.websiteId !== null && !scope.includes(actor.websiteId)) {
      throw new ForbiddenError();
    }
  }

  /** The websites a signed-in non-administrator may write posts to (see the rules above). */
  async writableWebsites(actor: Actor): Promise<Set<number>> {
    return this.standing.writableWebsites(actor);
  }

  /**
   * Whether the actor may name a website by this domain: anyone who may edit the website, except that
   * only administrators claim IP literals, `localhost` and special-use names (isReservedDomain).
   * Refused like any unusable domain: 422 `Invalid domain format`.
   */
  requireDomainClaim(actor: Actor, input: string): void {
    if (this.standing.administers(actor)) return;
    const domain = normalizeDomain(input);
    if (domain !== null && isReservedDomain(domain)) throw new InvalidDomainError();
  }

  /**
   * What the actor may do on a website, for a face that offers actions (the admin panel shows
   * "Publish" or "Submit for review" from it): each answer is a row of the table, asked as an
   * operation would ask it; the operations still ask again.
   */
  async abilitiesOn(actor: Actor, websiteId: number): Promise<WebsiteAbilities> {
    const on = [websiteId];
    const site = { websiteId };
    const writes = this.standing.keyWrites(actor, on);
    const answers = await allOf({
      createPosts: this.can(actor, 'post.create', { websiteIds: on }),
      publishPosts: this.can(actor, 'post.publish', { post: null, websiteIds: on }),
      edits: this.can(actor, 'website.edit', site),
      moderates: this.can(actor, 'comment.moderate', site),
      managePages: this.can(actor, 'content.write', { websiteIds: on }),
      uploadMedia: this.can(actor, 'media.upload', site),
      manageMenus: this.can(actor, 'menu.manage', site),
      manageWebsite: this.can(actor, 'website.manage', site),
      manageMembers: this.can(actor, 'member.manage', site),
      readAudit: this.can(actor, 'audit.read', site),
      manageTags: this.can(actor, 'tag.update', { websiteIds: on, current: on }),
      createTags: this.can(actor, 'tag.create', { websiteIds: on }),
      readStats: this.can(actor, 'stats.read', site),
    });
    const { createPosts, publishPosts, edits, moderates, ...asked } = answers;
    return {
      ...asked,
      createPosts,
      publishPosts: createPosts && publishPosts,
      editOthersPosts: edits && writes,
      reviewPosts: edits && writes,
      moderateComments: moderates && writes,
    };
  }
}

/** Awaits every promise of a record at once and answers the record of their values. */
async function allOf<T extends Record<string, Promise<unknown>>>(
  promises: T,
): Promise<{ [K in keyof T]: Awaited<T[K]> }> {
  const entries = await Promise.all(
    Object.entries(promises).map(async ([key, promise]) => [key, await promise] as const),
  );
  return Object.fromEntries(entries) as { [K in keyof T]: Awaited<T[K]> };
}

interface StandingDeps {
  websites: Pick<WebsitesService, 'accessibleIds'>;
  memberships: Pick<MembershipsService, 'rolesOf'>;
  clock: Clock;
  /** Installation settings (`any_account_writes`); absent: every setting at its default. */
  settings?: { get(key: string): Promise<string | undefined> };
}

/**
 * Where an actor stands: their roles, what they own, what their key reaches. The building blocks of
 * the rules above; not exported, so every decision goes through the table.
 */
class Standing {
  constructor(private readonly deps: StandingDeps) {}

  now(): Date {
    return this.deps.clock.now();
  }

  administers(actor: Actor): boolean {
    return actor.isAdmin && !this.limited(actor);
  }

  /** The installation's operator: someone at its command line, who holds its files and database anyway. */
  operates(actor: Actor): boolean {
    return actor.isAdmin && actor.userId === null && actor.origin?.surface === 'cli';
  }

  adminOn(actor: Actor, websiteIds: readonly number[]): boolean {
    if (!actor.isAdmin) return false;
    if (!this.limited(actor)) return true;
    return websiteIds.length > 0 && websiteIds.every((id) => this.inKeyScope(actor, id));
  }

  /** Came with an API key limited to websites. */
  limited(actor: Actor): boolean {
    return (actor.key?.websiteIds.length ?? 0) > 0;
  }

  inKeyScope(actor: Actor, websiteId: number): boolean {
    const scope = actor.key?.websiteIds ?? [];
    return scope.length === 0 || scope.includes(websiteId);
  }

  /** Whether a limited key reaches any of these websites (no key, or an unlimited one: yes). */
  private reachesAny(actor: Actor, websiteIds: readonly number[]): boolean {
    return !this.limited(actor) || websiteIds.some((id) => this.inKeyScope(actor, id));
  }

  /**
   * Whether an API key lets its actor write to these websites (empty: an all-sites resource): never
   * with a read-only key; with a key limited to websites, only there (and never all sites).
   */
  keyWrites(actor: Actor, websiteIds: readonly number[]): boolean {
    if (!actor.key) return true;
    if (actor.key.readOnly) return false;
    const scope = actor.key.websiteIds;
    if (scope.length === 0) return true;
    return websiteIds.length > 0 && websiteIds.every((id) => scope.includes(id));
  }

  isPublic(post: Pick<PostFacts, 'status' | 'publishedAt'>): boolean {
    if (post.status !== 'published') return false;
    return post.publishedAt === null || Date.parse(post.publishedAt) <= this.deps.clock.now().getTime();
  }

  /**
   * Read a post: administrators (within their key), its author, anybody once it is public, and an
   * editor of any website it is on (a global post's drafts stay the administrators').
   */
  async mayReadPost(actor: Actor, post: PostFacts): Promise<boolean> {
    if (this.adminOn(actor, post.websiteIds)) return true;
    if (actor.userId !== null && post.authorId === actor.userId && this.reachesAny(actor, post.websiteIds)) {
      return true;
    }
    if (this.isPublic(post)) return true;
    if (actor.userId === null) return false;
    const roles = await this.rolesOf(actor);
    return post.websiteIds.some((id) => roleAtLeast(roles.get(id), 'editor'));
  }

  /** The post rules: create, change, delete, publish, review (see the list at the top). */
  async writesPost(
    actor: Actor,
    action: Exclude<PostAction, 'post.read' | 'post.name_author'>,
    post: PostFacts | null,
    websiteIds?: readonly number[],
  ): Promise<boolean> {
    const targets = [...(post?.websiteIds ?? []), ...(websiteIds ?? [])];
    if (!this.keyWrites(actor, targets)) return false;
    if (this.adminOn(actor, targets)) return true;
    // Reviews are an editor's: of every website the post is on (a global post's, the administrators').
    if (action === 'post.review') return post !== null && (await this.editsAll(actor, post.websiteIds));
    if (action === 'post.publish') {
      // A contributor (or reader) on any of the websites submits drafts there; nothing goes public.
      if (actor.userId === null) return true; // R-P8's anonymous create decides on its own
      const roles = await this.rolesOf(actor);
      return targets.every((id) => !['contributor', 'reader'].includes(roles.get(id) ?? ''));
    }
    if (action === 'post.create') {
      if (actor.userId === null) {
        return actor.websiteId === null
          ? targets.length === 0
          : targets.length > 0 && targets.every((id) => id === actor.websiteId);
      }
      if (targets.length === 0) return false; // never a global post
      return this.writesToAll(actor, targets);
    }
    // update / delete: their own posts, or any post of websites where they are editor or above,
    // on websites they may write to, before and after; never a global post.
    if (post === null || actor.userId === null) return false;
    if (post.websiteIds.length === 0) return false; // a global post reaches every website
    if (websiteIds !== undefined && websiteIds.length === 0) return false;
    if (post.authorId !== actor.userId && !(await this.editsAll(actor, targets))) return false;
    // A public or scheduled post is changed, unpublished or deleted by those who may publish it.
    if (
      isPublicOrScheduled(post.status) &&
      !(await this.writesPost(actor, 'post.publish', post, websiteIds))
    ) {
      return false;
    }
    return this.writesToAll(actor, targets);
  }

  /** Tags: create one bound to `websiteIds`, or change one bound to `current` (rebound to `websiteIds`). */
  async changesTag(
    actor: Actor,
    change: 'create' | 'update',
    websiteIds: readonly number[],
    current: readonly number[],
  ): Promise<boolean> {
    if (!this.keyWrites(actor, [...current, ...websiteIds])) return false;
    // An all-sites tag (bound to none) shows on every website: the administrators' alone.
    if (this.adminOn(actor, [...current, ...websiteIds])) return true;
    if (actor.userId === null) return false;
    if (change === 'create') return websiteIds.length > 0 && this.authorsOnAll(actor, websiteIds);
    if (current.length === 0 || websiteIds.length === 0) return false;
    // Renaming, moving, merging and deleting: the taxonomy is the editors' (and site managers').
    for (const id of new Set([...current, ...websiteIds])) {
      if (!(await this.editsAll(actor, [id])) && !(await this.managesWebsite(actor, id))) return false;
    }
    return true;
  }

  /** Browse (`uploads` false) or upload to the website's media library. */
  async usesLibrary(actor: Actor, websiteId: number, uploads: boolean): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (uploads && !this.keyWrites(actor, [websiteId])) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    return this.contributesTo(actor, websiteId);
  }

  /** Change or delete an item of the media library, seen from `websiteId`. */
  async changesMedia(actor: Actor, websiteId: number, item: MediaFacts): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (!this.keyWrites(actor, item.websiteIds)) return false;
    if (this.adminOn(actor, item.websiteIds)) return true;
    if (actor.userId === null || item.websiteIds.length === 0) return false;
    if (await this.editsAll(actor, item.websiteIds)) return true;
    if (item.userId !== actor.userId) return false;
    for (const id of item.websiteIds) if (!(await this.contributesTo(actor, id))) return false;
    return true;
  }

  /**
   * Editors' content (pages, links) bound to these websites: an editor or site admin of every one of
   * them; content of every website (bound to none) is the administrators'. A read-only key writes
   * nothing; a key limited to websites writes only there, never all-sites content.
   */
  async writesContent(actor: Actor, websiteIds: readonly number[]): Promise<boolean> {
    if (actor.key && (actor.key.readOnly || (actor.key.websiteIds.length > 0 && websiteIds.length === 0))) {
      return false;
    }
    if (actor.isAdmin) return this.adminOn(actor, websiteIds);
    if (websiteIds.length === 0) return false;
    for (const id of new Set(websiteIds)) if (!(await this.editsWebsite(actor, id))) return false;
    return true;
  }

  /** Administrators, the website's owners and bound users (R-W7), and its site admins. */
  async managesWebsite(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    if (actor.userId === null) return false;
    // Owned, bound, or a site admin's (accessibleIds holds all three).
    return (await this.accessible(actor)).includes(websiteId);
  }

  /** Administrators, its owners and bound users, and anyone with a role on it. */
  async seesWebsite(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    if (actor.userId === null) return false;
    if ((await this.rolesOf(actor)).has(websiteId)) return true;
    return (await this.accessible(actor)).includes(websiteId);
  }

  /** Editor or site admin of this website (or an administrator). */
  async editsWebsite(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    return this.editsAll(actor, [websiteId]);
  }

  /** Administrators and the website's site admins. */
  async managesMembers(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    if (actor.userId === null) return false;
    return (await this.rolesOf(actor)).get(websiteId) === 'site_admin';
  }

  /** Websites the user owns, is bound to or is a site admin of, inside a limited key's websites. */
  private async accessible(actor: Actor): Promise<number[]> {
    if (actor.userId === null) return [];
    const ids = await this.deps.websites.accessibleIds(actor.userId);
    return this.limited(actor) ? ids.filter((id) => this.inKeyScope(actor, id)) : ids;
  }

  /** The actor's role on each website where they hold one (with a limited key: only its websites). */
  async rolesOf(actor: Actor): Promise<Map<number, SiteRole>> {
    if (actor.userId === null) return new Map();
    const roles = await this.deps.memberships.rolesOf(actor.userId);
    return new Map(
      roles
        .filter((membership) => this.inKeyScope(actor, membership.websiteId))
        .map((membership) => [membership.websiteId, membership.role]),
    );
  }

  /** Editor or site admin on every one of these websites. */
  private async editsAll(actor: Actor, websiteIds: readonly number[]): Promise<boolean> {
    if (actor.userId === null || websiteIds.length === 0) return false;
    const roles = await this.rolesOf(actor);
    return websiteIds.every((id) => roleAtLeast(roles.get(id), 'editor'));
  }

  /** Author or above (or as an author: see `effectiveRoles`) on every one of these websites. */
  private async authorsOnAll(actor: Actor, websiteIds: readonly number[]): Promise<boolean> {
    const roles = await this.effectiveRoles(actor);
    return websiteIds.every((id) => roleAtLeast(roles.get(id), 'author'));
  }

  /** Contributor or above of the website, or its owner or a user bound to it (never a reader). */
  async contributesTo(actor: Actor, websiteId: number): Promise<boolean> {
    if (actor.userId === null) return false;
    const role = (await this.rolesOf(actor)).get(websiteId);
    if (role !== undefined) return roleAtLeast(role, 'contributor');
    return (await this.accessible(actor)).includes(websiteId);
  }

  async writableWebsites(actor: Actor): Promise<Set<number>> {
    const writable = new Set<number>();
    for (const [id, role] of await this.effectiveRoles(actor)) {
      if (roleAtLeast(role, 'contributor')) writable.add(id);
    }
    return writable;
  }

  /**
   * The role the actor writes with on each website: their memberships, an author's on websites they
   * own or are bound to without a role there (R-W7), and, only when the installation's setting
   * `any_account_writes` is on, an author's on the request's website where they hold no role (WNCMS's
   * rule). With a key limited to websites, only its websites count.
   */
  private async effectiveRoles(actor: Actor): Promise<Map<number, SiteRole>> {
    const roles = await this.rolesOf(actor);
    if (actor.userId === null) return roles;
    for (const id of await this.accessible(actor)) if (!roles.has(id)) roles.set(id, 'author');
    const here = actor.websiteId;
    if (
      here !== null &&
      !roles.has(here) &&
      this.inKeyScope(actor, here) &&
      (await this.anyAccountWrites())
    ) {
      roles.set(here, 'author');
    }
    return roles;
  }

  /** The installation's setting `any_account_writes` (default off: no role, no writing). */
  private async anyAccountWrites(): Promise<boolean> {
    const value = (await this.deps.settings?.get(ANY_ACCOUNT_WRITES_SETTING))?.trim().toLowerCase();
    return value === '1' || value === 'true' || value === 'on' || value === 'yes';
  }

  private async writesToAll(actor: Actor, websiteIds: readonly number[]): Promise<boolean> {
    const writable = await this.writableWebsites(actor);
    return websiteIds.every((id) => writable.has(id));
  }
}
