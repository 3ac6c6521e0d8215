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
import type { AuditSurface } from './audit.js';
import type { Clock } from './clock.js';
import { ForbiddenError } from './errors.js';
import { roleAtLeast } from './memberships.js';
import type { SiteRole } from './memberships.js';
import type { MembershipsService } from './memberships.js';
import { InvalidDomainError, isReservedDomain, normalizeDomain } from './websites.js';
import type { WebsitesService } from './websites.js';

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

export type PostAction =
  | 'post.read'
  | 'post.create'
  | 'post.update'
  | 'post.delete'
  | 'post.publish'
  /** Approve a post submitted for review, or send it back (issue 20 #4). */
  | 'post.review';
export type TagAction = 'tag.create' | 'tag.update';
export type MediaAction = 'media.read' | 'media.upload' | 'media.update' | 'media.delete';

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

export class Policy {
  constructor(
    private readonly deps: {
      websites: Pick<WebsitesService, 'accessibleIds'>;
      memberships: Pick<MembershipsService, 'rolesOf'>;
      clock: Clock;
      /** Installation settings (`any_account_writes`); absent: every setting at its default. */
      settings?: { get(key: string): Promise<string | undefined> };
    },
  ) {}

  /** The time rules about publication are decided at. */
  now(): Date {
    return this.deps.clock.now();
  }

  /** May the actor read this post? Reads refused answer "not found" (nothing is revealed). */
  canRead(actor: Actor, post: PostFacts): boolean {
    if (this.adminOn(actor, post.websiteIds)) return true;
    if (actor.userId !== null && post.authorId === actor.userId && this.reachesAny(actor, post.websiteIds)) {
      return true;
    }
    return this.isPublic(post);
  }

  /**
   * An administrator of the whole installation: an administrator without a key limited to websites.
   * Installation-wide actions (settings, updates, accounts, caches, websites) ask this.
   */
  administers(actor: Actor): boolean {
    return actor.isAdmin && !this.limited(actor);
  }

  /**
   * An administrator's rights over these websites (empty: every website's content): with a key
   * limited to websites, only inside them, and never over all-sites content.
   */
  adminOn(actor: Actor, websiteIds: readonly number[]): boolean {
    if (!actor.isAdmin) return false;
    if (!this.limited(actor)) return true;
    return websiteIds.length > 0 && websiteIds.every((id) => this.inKeyScope(actor, id));
  }

  /**
   * Does a list of `websiteId`'s posts (null: of every website) show the actor's own posts of every
   * status: yes, but with a key limited to websites only on them.
   */
  listsOwnPosts(actor: Actor, websiteId: number | null): boolean {
    return !this.limited(actor) || (websiteId !== null && this.inKeyScope(actor, websiteId));
  }

  /** Came with an API key limited to websites. */
  private limited(actor: Actor): boolean {
    return (actor.key?.websiteIds.length ?? 0) > 0;
  }

  /** Whether a limited key reaches any of these websites (no key, or an unlimited one: yes). */
  private reachesAny(actor: Actor, websiteIds: readonly number[]): boolean {
    return !this.limited(actor) || websiteIds.some((id) => this.inKeyScope(actor, id));
  }

  /** Published and due: what anybody may read. */
  isPublic(post: Pick<PostFacts, 'status' | 'publishedAt'>): boolean {
    if (post.status !== 'published') return false;
    return post.publishedAt === null || Date.parse(post.publishedAt) <= this.deps.clock.now().getTime();
  }

  /**
   * May the actor create a post bound to `websiteIds` (empty: global), or change or delete `post`
   * (and move it to `websiteIds` when given)?
   */
  async can(
    actor: Actor,
    action: PostAction,
    post: PostFacts | null,
    websiteIds?: readonly number[],
  ): Promise<boolean> {
    if (
      action !== 'post.read' &&
      !this.keyWrites(actor, [...(post?.websiteIds ?? []), ...(websiteIds ?? [])])
    ) {
      return false;
    }
    const targets = [...(post?.websiteIds ?? []), ...(websiteIds ?? [])];
    if (this.adminOn(actor, targets)) return true;
    if (action === 'post.read') return post !== null && (await this.mayRead(actor, post));
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
    if (isPublicOrScheduled(post.status) && !(await this.can(actor, 'post.publish', post, websiteIds))) {
      return false;
    }
    return this.writesToAll(actor, targets);
  }

  /**
   * May the actor name `authorId` as a post's author (R-P5: only an administrator names another
   * user; issue 34 #13: an editor does not make themselves the author of another's post). `post`:
   * the post changed (absent: a new one).
   */
  mayNameAuthor(actor: Actor, authorId: number, post?: PostFacts): boolean {
    if (post !== undefined) return post.authorId === authorId || this.adminOn(actor, post.websiteIds);
    return this.administers(actor) || (actor.userId !== null && actor.userId === authorId);
  }

  /**
   * May the actor read this post: `canRead`, or an editor (or site admin) of a website it is on (a
   * global post's drafts stay the administrators').
   */
  async mayRead(actor: Actor, post: PostFacts): Promise<boolean> {
    if (this.canRead(actor, post)) return true;
    if (actor.userId === null) return false;
    const roles = await this.rolesOf(actor);
    // An editor of any website the post is on sees it there (its drafts included).
    return post.websiteIds.some((id) => roleAtLeast(roles.get(id), 'editor'));
  }

  /**
   * May the actor see and manage this website (its fields and domains): administrators, its owner and
   * users bound to it (R-W7), and its site admins (issue 20).
   */
  async managesWebsite(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    if (actor.userId === null) return false;
    // Owned, bound, or a site admin's (accessibleIds holds all three).
    return (await this.accessible(actor)).includes(websiteId);
  }

  /** Websites the user owns, is bound to or is a site admin of, inside a limited key's websites. */
  private async accessible(actor: Actor): Promise<number[]> {
    if (actor.userId === null) return [];
    const ids = await this.deps.websites.accessibleIds(actor.userId);
    return this.limited(actor) ? ids.filter((id) => this.inKeyScope(actor, id)) : ids;
  }

  /**
   * May the actor create, change and delete this website's menus: whoever manages the website
   * (administrators, its owners and bound users, its site admins), with a key that writes there.
   */
  async managesMenus(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.keyWrites(actor, [websiteId])) return false;
    return this.managesWebsite(actor, websiteId);
  }

  /**
   * May the actor change the website's own settings (its comment moderation rules): whoever manages
   * the website, with a key that writes there.
   */
  async changesWebsiteSettings(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.keyWrites(actor, [websiteId])) return false;
    return this.managesWebsite(actor, websiteId);
  }

  /**
   * May the actor see and change the code a website puts into every page (head_code, body_code,
   * analytics) and its owner: administrators only (R-W6; issue 25 #6).
   */
  managesWebsiteCode(actor: Actor): boolean {
    return this.administers(actor);
  }

  /**
   * May the actor manage accounts (enable, disable, send a password reset, list and revoke another
   * user's API keys): administrators, never with a read-only key.
   */
  managesAccounts(actor: Actor): boolean {
    return this.administers(actor) && actor.key?.readOnly !== true;
  }

  /** May the actor read accounts (the list, another user's keys): administrators. */
  readsAccounts(actor: Actor): boolean {
    return this.administers(actor);
  }

  /**
   * May the actor change the installation (its settings, core updates, cache flushes, creating and
   * deleting websites): administrators with an unlimited key that writes.
   */
  managesInstallation(actor: Actor): boolean {
    return this.administers(actor) && actor.key?.readOnly !== true;
  }

  /**
   * Is the actor the installation's operator: someone at its command line (the CLI's actor), who
   * holds its files and database anyway. Only they set secret settings (SMTP passwords, tokens).
   */
  operatesInstallation(actor: Actor): boolean {
    return actor.isAdmin && actor.userId === null && actor.origin?.surface === 'cli';
  }

  /** May the actor read the installation's settings and jobs: administrators (an unlimited key). */
  readsInstallation(actor: Actor): boolean {
    return this.administers(actor);
  }

  /** May the actor manage the members of this website: administrators and its site admins. */
  async managesMembers(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    if (actor.userId === null) return false;
    return (await this.rolesOf(actor)).get(websiteId) === 'site_admin';
  }

  /**
   * May the actor give `role` (null: take the role away) on the website to a member who holds
   * `current` there: administrators any role; site admins every role but site admin (site admins are
   * made and unmade by administrators).
   */
  async grantsRole(
    actor: Actor,
    websiteId: number,
    role: SiteRole | null,
    current: SiteRole | null,
  ): Promise<boolean> {
    if (!(await this.managesMembers(actor, websiteId))) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    return role !== 'site_admin' && current !== 'site_admin';
  }

  /**
   * May the actor read the audit log: administrators all of it, a site admin the entries of their
   * website (named: `websiteId`).
   */
  async readsAudit(actor: Actor, websiteId: number | undefined): Promise<boolean> {
    if (this.adminOn(actor, websiteId === undefined ? [] : [websiteId])) return true;
    if (websiteId === undefined || actor.userId === null) return false;
    if (!this.inKeyScope(actor, websiteId)) return false;
    return (await this.rolesOf(actor)).get(websiteId) === 'site_admin';
  }

  /** Editor or site admin of this website (lists show them its posts of every status). */
  async editsWebsite(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    return this.editsAll(actor, [websiteId]);
  }

  /**
   * What the actor may do on a website, for a face that offers actions (the admin panel shows
   * "Publish" or "Submit for review" from it). Each answer is one of the rules above, asked as an
   * operation would ask it; the operations still ask again.
   */
  async abilitiesOn(actor: Actor, websiteId: number): Promise<WebsiteAbilities> {
    const on = [websiteId];
    const [
      createPosts,
      publishPosts,
      edits,
      content,
      media,
      menus,
      manageWebsite,
      manageMembers,
      readAudit,
      manageTags,
      readStats,
    ] = await Promise.all([
      this.can(actor, 'post.create', null, on),
      this.can(actor, 'post.publish', null, on),
      this.editsWebsite(actor, websiteId),
      this.editsContent(actor, on),
      this.canMedia(actor, 'media.upload', websiteId),
      this.managesMenus(actor, websiteId),
      this.managesWebsite(actor, websiteId),
      this.managesMembers(actor, websiteId),
      this.readsAudit(actor, websiteId),
      this.canTag(actor, 'tag.update', on, on),
      this.readsStats(actor, websiteId),
    ]);
    const createTags = await this.canTag(actor, 'tag.create', on);
    return {
      createPosts,
      publishPosts: createPosts && publishPosts,
      editOthersPosts: edits && this.keyWrites(actor, on),
      reviewPosts: edits && this.keyWrites(actor, on),
      moderateComments: (await this.moderatesComments(actor, websiteId)) && this.keyWrites(actor, on),
      managePages: content,
      uploadMedia: media,
      manageMenus: menus,
      manageWebsite,
      manageMembers,
      readAudit,
      manageTags,
      createTags,
      readStats,
    };
  }

  /**
   * May the actor write editors' content (pages, links) bound to these websites: an editor or site
   * admin of every one of them; content of every website (bound to none) is the administrators'.
   * A read-only key writes nothing; a key limited to websites writes only there, never all-sites content.
   */
  async editsContent(actor: Actor, websiteIds: readonly number[]): Promise<boolean> {
    if (actor.key && (actor.key.readOnly || (actor.key.websiteIds.length > 0 && websiteIds.length === 0))) {
      return false;
    }
    if (actor.isAdmin) return this.adminOn(actor, websiteIds);
    if (websiteIds.length === 0) return false;
    for (const id of new Set(websiteIds)) if (!(await this.editsWebsite(actor, id))) return false;
    return true;
  }

  /**
   * May the actor moderate the comments under posts shown on this website (approve, mark as spam,
   * delete, see the held ones): its editors and site admins, and administrators.
   */
  async moderatesComments(actor: Actor, websiteId: number): Promise<boolean> {
    return this.editsWebsite(actor, websiteId);
  }

  /**
   * Does the actor see this website at all: administrators, its owners and bound users, and anyone
   * with a role on it. Operations answer NotFoundError for the others (never revealing it exists).
   */
  async seesWebsite(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    if (actor.userId === null) return false;
    if ((await this.rolesOf(actor)).has(websiteId)) return true;
    return (await this.accessible(actor)).includes(websiteId);
  }

  /**
   * Does the actor see every website (lists of websites unfiltered): administrators with an unlimited
   * key. Others see those `seesWebsite` allows.
   */
  seesEveryWebsite(actor: Actor): boolean {
    return this.administers(actor);
  }

  /** May the actor read the website's statistics (views, clicks, top posts): see the rules above. */
  async readsStats(actor: Actor, websiteId: number): Promise<boolean> {
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    return this.contributesTo(actor, websiteId);
  }

  /** May the actor see and retry the background jobs of the installation (issue 38): administrators. */
  managesJobs(actor: Actor): boolean {
    return this.administers(actor);
  }

  /**
   * May the actor manage the webhooks of this website (null: the installation's, told of every
   * website's events): site admins of it and administrators; the installation's, administrators.
   * A read-only key manages none (a webhook's secret and target are writes' business).
   */
  async managesWebhooks(actor: Actor, websiteId: number | null): Promise<boolean> {
    if (actor.key?.readOnly === true) return false;
    if (websiteId === null) return this.managesInstallation(actor);
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (this.adminOn(actor, [websiteId])) return true;
    if (actor.userId === null) return false;
    return (await this.rolesOf(actor)).get(websiteId) === 'site_admin';
  }

  /** May the actor read the installation's health (database, cache, disk, version): administrators. */
  readsHealth(actor: Actor): boolean {
    return this.administers(actor);
  }

  /** The actor's role on each website where they hold one (with a limited key: only its websites). */
  private async rolesOf(actor: Actor): Promise<Map<number, SiteRole>> {
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

  /** Throws ForbiddenError unless `can(...)`. */
  async require(
    actor: Actor,
    action: PostAction,
    post: PostFacts | null,
    websiteIds?: readonly number[],
  ): Promise<void> {
    if (!(await this.can(actor, action, post, websiteIds))) throw new ForbiddenError();
  }

  /**
   * Tags: create one bound to `websiteIds` (none: all sites); change one bound to `current` (and
   * rebound to `websiteIds`). See the rules above.
   */
  async canTag(
    actor: Actor,
    action: TagAction,
    websiteIds: readonly number[],
    current: readonly number[] = [],
  ): Promise<boolean> {
    if (!this.keyWrites(actor, [...current, ...websiteIds])) return false;
    // An all-sites tag (bound to none) shows on every website: the administrators' alone.
    if (this.adminOn(actor, [...current, ...websiteIds])) return true;
    if (actor.userId === null) return false;
    if (action === 'tag.create') return websiteIds.length > 0 && this.authorsOnAll(actor, websiteIds);
    if (current.length === 0 || websiteIds.length === 0) return false;
    // Renaming, moving, merging and deleting: the taxonomy is the editors' (and site managers').
    for (const id of new Set([...current, ...websiteIds])) {
      if (!(await this.editsAll(actor, [id])) && !(await this.managesWebsite(actor, id))) return false;
    }
    return true;
  }

  /** Author or above (or as an author: see `effectiveRoles`) on every one of these websites. */
  private async authorsOnAll(actor: Actor, websiteIds: readonly number[]): Promise<boolean> {
    const roles = await this.effectiveRoles(actor);
    return websiteIds.every((id) => roleAtLeast(roles.get(id), 'author'));
  }

  async requireTag(
    actor: Actor,
    action: TagAction,
    websiteIds: readonly number[],
    current: readonly number[] = [],
  ): Promise<void> {
    if (!(await this.canTag(actor, action, websiteIds, current))) throw new ForbiddenError();
  }

  /**
   * The media library of `websiteId`: browse it and upload to it (`media.read`, `media.upload`), or
   * change or delete `item` (see the rules above).
   */
  async canMedia(actor: Actor, action: MediaAction, websiteId: number, item?: MediaFacts): Promise<boolean> {
    const reads = action === 'media.read';
    if (!this.inKeyScope(actor, websiteId)) return false;
    if (!reads && !this.keyWrites(actor, item ? item.websiteIds : [websiteId])) return false;
    if (this.adminOn(actor, item && !reads ? item.websiteIds : [websiteId])) return true;
    if (actor.userId === null) return false;
    if (action === 'media.read' || action === 'media.upload') return this.contributesTo(actor, websiteId);
    if (!item || item.websiteIds.length === 0) return false;
    if (await this.editsAll(actor, item.websiteIds)) return true;
    if (item.userId !== actor.userId) return false;
    for (const id of item.websiteIds) if (!(await this.contributesTo(actor, id))) return false;
    return true;
  }

  async requireMedia(actor: Actor, action: MediaAction, websiteId: number, item?: MediaFacts): Promise<void> {
    if (!(await this.canMedia(actor, action, websiteId, item))) throw new ForbiddenError();
  }

  /** Contributor or above of the website, or its owner or a user bound to it (never a reader). */
  private async contributesTo(actor: Actor, websiteId: number): Promise<boolean> {
    if (actor.userId === null) return false;
    const role = (await this.rolesOf(actor)).get(websiteId);
    if (role !== undefined) return roleAtLeast(role, 'contributor');
    return (await this.accessible(actor)).includes(websiteId);
  }

  /**
   * Whether an API key lets its actor write to these websites (empty: an all-sites resource): never
   * with a read-only key; with a key limited to websites, only there (and never all sites).
   */
  private keyWrites(actor: Actor, websiteIds: readonly number[]): boolean {
    if (!actor.key) return true;
    if (actor.key.readOnly) return false;
    const scope = actor.key.websiteIds;
    if (scope.length === 0) return true;
    return websiteIds.length > 0 && websiteIds.every((id) => scope.includes(id));
  }

  /** Whether an API key limited to websites (if the actor came with one) reaches this website. */
  inKeyScope(actor: Actor, websiteId: number): boolean {
    const scope = actor.key?.websiteIds ?? [];
    return scope.length === 0 || scope.includes(websiteId);
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

  /**
   * Whether the actor may name a website by this domain: anyone who may edit the website, except that
   * only administrators claim IP literals, `localhost` and special-use names (isReservedDomain).
   * Refused like any unusable domain: 422 `Invalid domain format`.
   */
  requireDomainClaim(actor: Actor, input: string): void {
    if (this.administers(actor)) return;
    const domain = normalizeDomain(input);
    if (domain !== null && isReservedDomain(domain)) throw new InvalidDomainError();
  }
}
