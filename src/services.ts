// Wires the domain services over one database connection. Both the HTTP app and the CLI use it.
import { TableJobQueue } from './jobs/queue.js';
import type { JobQueue } from './jobs/queue.js';
import { JobOperations } from './domain/system/job-operations.js';
import { WebhookService } from './domain/webhooks/webhooks.js';
import { SearchIndexService } from './domain/posts/search.js';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryCache } from './cache/cache.js';
import type { Cache } from './cache/cache.js';
import { RedisCache } from './cache/redis-cache.js';
import { newRedis } from './lib/redis-client.js';
import { sql } from 'kysely';
import type { Config } from './config.js';
import { createChangeFeed } from './db/change-feed.js';
import type { ChangeFeed } from './db/change-feed.js';
import { migrate, openDatabase } from './db/database.js';
import fs from 'node:fs';
import { BACKUP_KEEP_SETTING, DEFAULT_BACKUP_KEEP, backupBeforeUpdate } from './domain/system/backup.js';
import { INSTALLATION_OPERATOR } from './domain/policy.js';
import type { DatabaseHandle, OpenOptions } from './db/database.js';
import { systemClock } from './domain/clock.js';
import type { Clock } from './domain/clock.js';
import {
  AccountsService,
  DEFAULT_REGISTRATION_LIFETIME,
  DEFAULT_RESET_LIFETIME,
  REGISTRATION_LIFETIME_SETTING,
  REGISTRATION_ROLE_SETTING,
  REGISTRATION_SETTING,
  RESET_LIFETIME_SETTING,
} from './domain/people/accounts.js';
import { AuthoringService } from './domain/posts/authoring.js';
import { WebsiteBindings } from './domain/websites/bindings.js';
import { ClicksService } from './domain/community/clicks.js';
import { CommentModeration } from './domain/community/comment-moderation.js';
import { CommentsService } from './domain/community/comments.js';
import { LinksService } from './domain/community/links.js';
import { LinkOperations } from './domain/community/link-operations.js';
import { MediaLibrary } from './domain/media/library.js';
import { MediaOperations } from './domain/media/operations.js';
import { RateLimits } from './lib/rate-limits.js';
import { Idempotency } from './domain/system/idempotency.js';
import { memoryBudget } from './cache/memory-budget.js';
import type { MemoryBudget } from './cache/memory-budget.js';
import { LoginThrottle } from './domain/people/login-throttle.js';
import { CommentNotices } from './domain/community/comment-notices.js';
import { createMailer } from './domain/system/mailer.js';
import type { Mailer } from './domain/system/mailer.js';
import { MediaService } from './domain/media/files.js';
import { MediaMaintenance } from './domain/media/maintenance.js';
import { createStore } from './storage/config.js';
import { Exporter } from './domain/porting/export.js';
import { FolioImporter } from './domain/porting/import-folio.js';
import { WordPressImporter } from './domain/porting/wxr.js';
import { GhostImporter } from './domain/porting/ghost.js';
import { TransferService } from './domain/porting/transfers.js';
import { AuthorInviter } from './domain/porting/invite-authors.js';
import { RedirectsService } from './domain/public/redirects.js';
import { ApiKeysService } from './domain/people/api-keys.js';
import { AUDIT_RETENTION_SETTING, AuditLog, DEFAULT_AUDIT_RETENTION_DAYS } from './domain/system/audit.js';
import { TagOperations } from './domain/tags/operations.js';
import { MemberOperations } from './domain/people/member-operations.js';
import { AuditReads } from './domain/system/audit-reads.js';
import { KeyOperations } from './domain/people/key-operations.js';
import { UserOperations } from './domain/people/user-operations.js';
import { PageOperations } from './domain/pages/operations.js';
import { MenuOperations } from './domain/menus/operations.js';
import { SystemOperations } from './domain/system/operations.js';
import { CredentialCache } from './domain/people/credential-cache.js';
import { MembershipsService } from './domain/people/memberships.js';
import { MenuReferences, MenusService } from './domain/menus/store.js';
import { PagesService } from './domain/pages/store.js';
import { Insights } from './domain/system/insights.js';
import { PostOperations, PostReads, PostReviewStore, PostsService } from './domain/posts/index.js';
import { InviteOperations } from './domain/people/invites.js';
import { Policy } from './domain/policy.js';
import { ResourceAbilities } from './domain/resource-abilities.js';
import { siteOrigin } from './domain/websites/urls.js';
import { PublicPostsService } from './domain/public/posts.js';
import { RevisionsService } from './domain/revisions/revisions.js';
import { AutosaveService } from './domain/revisions/autosaves.js';
import { EditableContent } from './domain/revisions/content-access.js';
import { PreviewLinks } from './domain/revisions/previews.js';
import { ContentChanges } from './domain/changes.js';
import { OperationRunner } from './domain/run.js';
import { cacheInvalidator } from './domain/cache-tags.js';
import { SafeFetcher } from './domain/safe-fetch.js';
import { DomainChecker } from './domain/websites/domain-check.js';
import { SearchLimit } from './domain/posts/search-limit.js';
import {
  DatabaseSessionStore,
  DEFAULT_SESSION_LIFETIME,
  RedisSessionStore,
  SESSION_LIFETIME_SETTING,
  SessionService,
} from './domain/people/sessions.js';
import { SettingsService } from './domain/system/settings.js';
import type { SettingsReads } from './domain/system/settings.js';
import { SiteReads } from './domain/public/site-reads.js';
import { TagReads } from './domain/tags/reads.js';
import { TagsService } from './domain/tags/store.js';
import { DEFAULT_LOCALE, TranslationsService } from './domain/translations.js';
import { DEFAULT_PAGE_CACHE_TTL, PAGE_CACHE_TTL_SETTING } from './frontend/page-cache.js';
import { FULL_CONTENT_SETTING } from './frontend/routes/feeds.js';
import { DEFAULT_POSTS_PER_PAGE, POSTS_PER_PAGE_SETTING } from './frontend/routes/listing.js';
import { NpmPackageManager } from './domain/system/npm.js';
import { UpdateService } from './domain/system/updates.js';
import type { PackageManager } from './domain/system/updates.js';
import { UsersService } from './domain/people/users.js';
import { Authentication } from './domain/people/authentication.js';
import { WebsitesService } from './domain/websites/store.js';
import { WebsiteOperations } from './domain/websites/operations.js';

/** What `GET /readyz` reports: each part this node needs, `none` for Redis when it is not configured. */
export interface Readiness {
  database: 'ok' | 'unavailable';
  redis: 'ok' | 'unavailable' | 'none';
  storage: 'ok' | 'unavailable';
}

export interface Services {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  feed: ChangeFeed;
  /** In-process by default; Redis, shared by every app node, when REDIS_URL is set. */
  cache: Cache;
  settings: SettingsService;
  translations: TranslationsService;
  bindings: WebsiteBindings;
  /** The full-text index of posts: its rebuild (`folio search:reindex`); triggers keep it. */
  searchIndex: SearchIndexService;
  users: UsersService;
  /** Roles per website (site admin, editor, author, contributor, reader). */
  memberships: MembershipsService;
  /** Who changed what, when and from where (issue 20). */
  audit: AuditLog;
  /** The audit log as its readers may read it (API v2, the CLI). */
  auditReads: AuditReads;
  /** Named API keys with scopes (websites, read-only, expiry). */
  apiKeys: ApiKeysService;
  /** The posts store (reads and writes, no permissions): operations and public reads use it. */
  posts: PostsService;
  /** Who may do what: the one policy every operation asks. */
  policy: Policy;
  /** What the actor may do to each post, page and menu an answer shows (API v2's `can`). */
  abilities: ResourceAbilities;
  /** The post operations (create, update, delete, list, show) every face calls. */
  postOps: PostOperations;
  /** The public site's cached reads, each reporting the cache tags of what it read. */
  siteReads: SiteReads;
  /** What readers of the public site may see: published, due posts of a website (spec 4.8). */
  publicPosts: PublicPostsService;
  /** Content changes announced by the services after commit (the full-page cache listens). */
  changes: ContentChanges;
  /**
   * The operation runner: one transaction per operation with its audit rows and outbox rows, the
   * announcements after commit; hooks for every write (run.ts).
   */
  runner: OperationRunner;
  /** Revisions of posts: written by the runner's write hook; list, show, compare, restore (issue 37). */
  revisions: RevisionsService;
  autosaves: AutosaveService;
  previews: PreviewLinks;
  /** The job queue of background work (src/jobs/queue.ts); `serve` works it. */
  jobs: JobQueue;
  /** Listing and retrying jobs for administrators (domain/system/job-operations.ts). */
  jobOps: JobOperations;
  /** Webhooks: their management, the runner's listener that queues deliveries, the delivery job. */
  webhooks: WebhookService;
  media: MediaService;
  /** The media library's records (items of a website, their texts, variants and uses). */
  mediaLibrary: MediaLibrary;
  /** Media library operations for a caller (API v2): upload, list, show, change, delete. */
  mediaOps: MediaOperations;
  /** Orphan files and moving the library between storage drivers (the CLI's media:prune, media:migrate). */
  mediaMaintenance: MediaMaintenance;
  /** Export to and import from a Folio archive, WordPress and Ghost (issue 39, domain/porting). */
  exporter: Exporter;
  folioImporter: FolioImporter;
  wordpressImporter: WordPressImporter;
  ghostImporter: GhostImporter;
  /** Exports and imports run as jobs for API v2 and the panel (domain/porting/transfers.ts). */
  transfers: TransferService;
  /** Invites the accounts an import made without a password (the CLI's --invite-authors, API v2). */
  authorInviter: AuthorInviter;
  /** Old URLs answered with a 301 (imported WordPress permalinks). */
  redirects: RedirectsService;
  /** Guarded downloads of remote images (localize_images). */
  fetcher: SafeFetcher;
  /** Whether a domain leads to this server (tests replace its resolver). */
  domainChecker: DomainChecker;
  websites: WebsitesService;
  /** Website writes and reads for a caller: the policy decides, the audit log records. */
  websiteOps: WebsiteOperations;
  /** Tag writes for a caller (API v2): create, change, delete, merge. */
  tagOps: TagOperations;
  /** The members of a website and their roles (API v2). */
  memberOps: MemberOperations;
  /** Invitations to a website's roles by email (a one-time link). */
  inviteOps: InviteOperations;
  /** Accounts, for administrators (API v2) and the CLI's operator. */
  userOps: UserOperations;
  /** A user's API keys (API v2's /keys, the CLI's key:*). */
  keyOps: KeyOperations;
  /** Page writes for a caller (API v2). */
  pageOps: PageOperations;
  menuOps: MenuOperations;
  /** Settings, cache flushes (API v2). */
  systemOps: SystemOperations;
  /** The dashboard's statistics of a website and the installation's health. */
  insights: Insights;
  tags: TagsService;
  /** Cached tag trees for the faces' answers. */
  tagReads: TagReads;
  pages: PagesService;
  menus: MenusService;
  /** Core and package updates with their cross-node lock (spec 4.6). */
  updates: UpdateService;
  /** Fixed-window counters per caller: in process, or in Redis (shared by all nodes) with REDIS_URL. */
  rateLimits: RateLimits;
  /** Answers of creates sent with an Idempotency-Key, kept 24 hours. */
  idempotency: Idempotency;
  /** The one memory budget of the in-process caches (CACHE_MEMORY_MB), split into shares. */
  memory: MemoryBudget;
  /** Comments under posts, their likes and reports. */
  comments: CommentsService;
  /** Held, approved and spam comments: list, approve, mark as spam, delete. */
  commentModeration: CommentModeration;
  /** The administrators' mail when a comment is held. */
  commentNotices: CommentNotices;
  /** Click analytics: views, clicks, likes and favourites of posts, links and pages. */
  clicks: ClicksService;
  /** The link directory (posts of type `link`). */
  links: LinksService;
  /** Link directory operations for a caller (API v2). */
  linkOps: LinkOperations;
  /** Visitor sessions of the public site: in the database, or in Redis when REDIS_URL is set. */
  sessions: SessionService;
  /** Login, registration and reset attempt limits: in memory, or in Redis when REDIS_URL is set. */
  throttle: LoginThrottle;
  /** Searches per client (issue 34 #11): the site's search pages and the APIs' keyword lists. */
  searchLimit: SearchLimit;
  /** Outgoing mail: SMTP when SMTP_URL is set, else the log. Tests replace it. */
  mailer: Mailer;
  /** Registration, profile and settings, password reset. */
  accounts: AccountsService;
  /** Writing posts from the public site (the posts service with the authors' rules). */
  authoring: AuthoringService;
  /**
   * Whether this node can serve (issue 40 #4, `GET /readyz`): the database, Redis (when configured)
   * and the media storage each answer within a couple of seconds.
   */
  readiness(): Promise<Readiness>;
  /** Closes the change feed and the database; call once, after the HTTP server has stopped. */
  close(): Promise<void>;
}

/**
 * The parts only the composition roots (this file, app.ts, the CLI's serve and migrate) hold: the
 * database, the cache, the stores, the runner and the job queue. A face never receives them.
 */
type InternalPart =
  | 'database'
  | 'feed'
  | 'cache'
  | 'translations'
  | 'bindings'
  | 'searchIndex'
  | 'users'
  | 'memberships'
  | 'audit'
  | 'apiKeys'
  | 'posts'
  | 'changes'
  | 'runner'
  | 'jobs'
  | 'media'
  | 'mediaLibrary'
  | 'fetcher'
  | 'domainChecker'
  | 'websites'
  | 'tags'
  | 'pages'
  | 'menus'
  | 'updates'
  | 'mailer'
  | 'commentNotices'
  | 'readiness'
  | 'close';

/**
 * What a face (API v1, API v2, the public site, the admin panel, the CLI's commands, install) receives:
 * operations and queries. A store, the cache, the database, the runner and the job queue are not in
 * it, so a face that reaches for one does not compile (issue 35 #1); `settings`, `websites` and
 * `policy` come as the reads a face may make.
 */
export interface FaceServices extends Omit<Services, InternalPart | 'settings' | 'policy'> {
  /** Settings as a face reads them; writes go through `systemOps`. */
  settings: SettingsReads;
  /** Which website a request is for (by host, id or domain). */
  websiteLookup: Pick<WebsitesService, 'find' | 'findIdByDomain' | 'resolveHost'>;
  /** The policy's questions a face may put: a yes or no, the key's scope, the panel's buttons. */
  policy: Pick<Policy, 'can' | 'requireKeyScope' | 'abilitiesOn'>;
  /**
   * The versioned cache as the page cache and the theme's fragments use it: read the versions of tags,
   * keep a page under them, ask whether it is current. Flushing is not in it: changes flush
   * (domain/cache-tags.ts).
   */
  cachedPages: Pick<Cache, 'isCurrent' | 'flushCount' | 'stamp' | 'getStamped' | 'setStamped'>;
  /** Who a token or API key belongs to, and who an email and password sign in. */
  authentication: Authentication;
  /** The menus of a website as its pages show them. */
  menuReads: Pick<MenusService, 'siteMenus'>;
  /** Where a stored media file is served. */
  mediaUrl(path: string): string;
}

/** The face's view of the services (the same objects, fewer of them, narrower). */
export function faceServices(services: Services): FaceServices {
  return Object.assign(Object.create(services) as Services, {
    websiteLookup: services.websites,
    cachedPages: services.cache,
    authentication: new Authentication(services.apiKeys, services.users),
    menuReads: services.menus,
    mediaUrl: (path: string) => services.media.store.url(path),
  });
}

export interface ServiceOptions extends OpenOptions {
  clock?: Clock;
  /** Prefix of the Redis cache keys (default `folio:`); tests give each context its own. */
  cachePrefix?: string;
  /** How long one cache command may take (default 1 s); tests on a loaded machine allow more. */
  cacheCommandTimeoutMs?: number;
  /** Where the services report trouble that is not tied to a request (change feed, cache). */
  warn?: (message: string) => void;
  /** Where updates run npm and publish assets: the directory holding package.json (default: cwd). */
  installDir?: string;
  /** Replaces npm for updates (tests). */
  packageManager?: PackageManager;
  /** false: saves keep no revision (bench/revisions.ts measures what revisions cost). Default true. */
  revisions?: boolean;
}

/** themes/ of the installation (one level above src/ and dist/ alike): folders with a layout. */
const THEMES_ROOT = fileURLToPath(new URL('../themes', import.meta.url));
async function installedThemes(): Promise<string[]> {
  const entries = await readdir(THEMES_ROOT, { withFileTypes: true }).catch(() => []);
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const usable = await Promise.all(
    names.map(async (name) => {
      const found = await stat(path.join(THEMES_ROOT, name, 'layout.liquid')).catch(() => null);
      return found?.isFile() ? name : null;
    }),
  );
  return usable.filter((name): name is string => name !== null).sort();
}

export function createServices(config: Config, options: ServiceOptions = {}): Services {
  const database = openDatabase(config.database, options);
  const clock = options.clock ?? systemClock;
  const feed = createChangeFeed(database, options.warn ?? ((message) => console.warn(message)));
  const { db } = database;
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const memory = memoryBudget(config.cacheMemoryMb);
  const cache: Cache = config.redisUrl
    ? new RedisCache({
        url: config.redisUrl,
        prefix: options.cachePrefix,
        commandTimeoutMs: options.cacheCommandTimeoutMs,
        warn,
        clock,
        copyBytes: memory.copies,
      })
    : new MemoryCache(memory.sharedCache, clock);
  const settings = new SettingsService(db, feed, clock);
  const translations = new TranslationsService(db);
  const defaultLocale = async () => (await settings.get('default_locale'))?.trim() || DEFAULT_LOCALE;
  const bindings = new WebsiteBindings(db);
  const changes = new ContentChanges(warn);
  changes.subscribe(cacheInvalidator(cache, bindings, new MenuReferences(db)));
  const runner = new OperationRunner({ db, transact: database.transact, clock, changes, warn });
  const jobs = new TableJobQueue(db, clock, {
    leaseMs: config.jobLeaseSeconds * 1000,
    skipLocked: database.dialect === 'postgres',
  });
  // STORAGE_URL's driver (the local disk at MEDIA_DIR when unset); MEDIA_BASE_URL puts a CDN in front.
  const mediaStore = createStore(config.storage ?? { driver: 'local', dir: config.mediaDir }, {
    mediaBaseUrl: config.mediaBaseUrl,
  });
  const media = new MediaService(db, mediaStore, clock);
  const mediaLibrary = new MediaLibrary(db, { store: mediaStore, translations, bindings });
  const fetcher = new SafeFetcher();
  const posts = new PostsService(db, clock, {
    translations,
    bindings,
    settings,
    media,
    fetcher,
    cache,
    appUrl: config.appUrl,
    warn,
    longReads: database.longReads,
  });
  const memberships = new MembershipsService(db, clock);
  const websites = new WebsitesService(db, clock, cache, translations, defaultLocale);
  const policy = new Policy({ websites, memberships, clock, settings });
  const audit = new AuditLog(db, clock);
  // A write not yet run by the runner is still an event that listeners (webhooks) hear of.
  audit.onUnscopedEvent((event) => runner.unscopedEvent(event));
  const domainChecker = new DomainChecker({
    settings,
    fetcher,
    scheme: () => new URL(config.appUrl).protocol,
  });
  const websiteOps = new WebsiteOperations(websites, policy, runner, changes, audit, {
    deleting: { library: mediaLibrary, media },
    checker: domainChecker,
    themes: installedThemes,
    userExists: async (id) => (await users.findById(id)) !== null,
  });
  // Sessions and attempt counters share one Redis connection of their own. Unlike the cache, a
  // session store that is down is an error (nobody is signed in), never a silent fallback.
  const redis = config.redisUrl
    ? newRedis(config.redisUrl, {
        keyPrefix: `${options.cachePrefix ?? 'folio:'}a:`,
        maxRetriesPerRequest: 1,
        commandTimeout: 2000,
        retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
      })
    : null;
  redis?.on('error', () => undefined); // reported by the commands that fail
  // Every rate limit (comments, votes, clicks, logins, registrations, resets) counts here.
  const rateLimits = new RateLimits({ redis, prefix: 'rl:', warn });
  const searchLimit = new SearchLimit(rateLimits, settings);
  const postOps = new PostOperations({
    store: posts,
    policy,
    runner,
    audit,
    searchLimit,
    changes,
    reviews: new PostReviewStore(db, clock),
    // Answers hold post URLs: nodes sharing a cache with another APP_URL must not share them.
    reads: new PostReads(posts, cache, `api:posts:${config.appUrl}:`, memory.answers),
  });
  const pages = new PagesService(db, clock, translations, bindings);
  const exporter = new Exporter({ db, store: mediaStore, policy });
  const updates = new UpdateService({
    db,
    clock,
    cache,
    settings,
    migrate: () => migrate(database),
    audit,
    releasePackage: config.releasePackage,
    backup: async () =>
      backupBeforeUpdate(database, clock.now(), {
        databaseUrl: config.database.url,
        // PostgreSQL's backups go beside the media directory (data/backups by default).
        dataDir: path.dirname(config.mediaDir),
        // Without pg_dump, the backup of a PostgreSQL database is a Folio archive with secrets.
        archive: async (file) => {
          await exporter.export(
            INSTALLATION_OPERATOR,
            { websiteId: null, withSecrets: true },
            fs.createWriteStream(file),
          );
        },
        keep: Number(await settings.get(BACKUP_KEEP_SETTING)) || DEFAULT_BACKUP_KEEP,
      }),
    packageManager:
      options.packageManager ??
      new NpmPackageManager({
        installDir: options.installDir ?? process.cwd(),
        releasePackage: config.releasePackage,
      }),
  });
  const credentials = new CredentialCache(feed);
  // A deleted website takes its rows of keys' scopes with it: remembered keys must be read again
  // (a key whose websites are all gone works nowhere; issue 34 #3).
  changes.subscribe(async (change) => {
    if (change.kind === 'website') await credentials.changed();
  });
  const users = new UsersService(db, clock, credentials);
  const tags = new TagsService(db, clock, translations, bindings);
  const tagOps = new TagOperations(tags, policy, settings, runner, changes, audit);
  const memberOps = new MemberOperations(db, memberships, policy, runner, audit);
  const apiKeys = new ApiKeysService(db, clock, audit, credentials);
  const userOps = new UserOperations(db, users, runner, audit, policy, apiKeys);
  const pageOps = new PageOperations(pages, policy, settings, runner, changes, audit);
  const revisions = new RevisionsService({
    db,
    clock,
    runner,
    posts,
    postOps,
    pages,
    pageOps,
    policy,
    settings,
    audit,
  });
  if (options.revisions !== false) revisions.install();
  const access = new EditableContent({ posts, pageOps, policy });
  const autosaves = new AutosaveService({ db, clock, runner, access }).install();
  const previews = new PreviewLinks({ db, clock, runner, access, posts, pages, autosaves, settings, audit });
  const menus = new MenusService(db, clock, cache, pages, translations);
  const menuOps = new MenuOperations(
    menus,
    policy,
    settings,
    async (id) => (await bindings.existing([id])).length > 0,
    runner,
    audit,
    (domain) => websites.findIdByDomain(domain),
    changes,
  );
  const systemOps = new SystemOperations({
    runner,
    settings,
    cache,
    policy,
    audit,
    changes,
    users,
    mailer: () => services.mailer,
    updates: () => services.updates,
    smtp: config.smtpUrl !== null,
    // The value in effect of a setting nobody set (issue 34 #20: the panel shows it), from the
    // constants the code that reads each setting falls back to.
    defaults: {
      [POSTS_PER_PAGE_SETTING]: String(DEFAULT_POSTS_PER_PAGE),
      [FULL_CONTENT_SETTING]: '0',
      [AUDIT_RETENTION_SETTING]: String(DEFAULT_AUDIT_RETENTION_DAYS),
      default_locale: DEFAULT_LOCALE,
      supported_locales: DEFAULT_LOCALE,
      [REGISTRATION_SETTING]: '1',
      [REGISTRATION_ROLE_SETTING]: 'reader',
      [SESSION_LIFETIME_SETTING]: String(DEFAULT_SESSION_LIFETIME),
      [RESET_LIFETIME_SETTING]: String(DEFAULT_RESET_LIFETIME),
      [REGISTRATION_LIFETIME_SETTING]: String(DEFAULT_REGISTRATION_LIFETIME),
      [PAGE_CACHE_TTL_SETTING]: String(DEFAULT_PAGE_CACHE_TTL),
    },
  });
  const sessions = new SessionService(
    redis ? new RedisSessionStore(redis) : new DatabaseSessionStore(db),
    users,
    settings,
    clock,
  );
  // A disabled account's sessions end for good: enabling it again signs nobody back in.
  users.whenDisabled((userId) => sessions.endAllOf(userId));
  const publicPosts = new PublicPostsService(db, clock, cache, database.longReads);
  const commentNotices = new CommentNotices(db, {
    websites,
    mailer: () => services.mailer,
    appUrl: config.appUrl,
    warn,
    rateLimits,
    defaultLocale,
  });
  const comments = new CommentsService(db, clock, settings, changes, runner, audit, (held) =>
    commentNotices.held(held),
  );
  const links = new LinksService(db, clock, {
    tags: tagOps,
    translations,
    bindings,
    cache,
    defaultLocale,
  });
  const clicks = new ClicksService(db, database.dialect, clock);
  const webhooks = new WebhookService({
    db,
    clock,
    policy,
    runner,
    audit,
    jobs,
    settings,
    websites,
    warn,
  }).install();
  const inviteOps = new InviteOperations({
    runner,
    db,
    clock,
    policy,
    users,
    memberships,
    websites,
    mailer: () => services.mailer,
    link: (website, token) => `${siteOrigin(website, config.appUrl)}/user/invite/${token}`,
    defaultLocale,
    audit,
    warn,
    rateLimits,
  });
  const folioImporter = new FolioImporter({
    db,
    store: mediaStore,
    policy,
    runner,
    audit,
    changes,
    revisions: options.revisions !== false ? revisions : undefined,
  });
  const ghostImporter = new GhostImporter({ policy, folio: folioImporter, fetcher, store: mediaStore });
  const wordpressImporter = new WordPressImporter({
    policy,
    fetcher,
    store: mediaStore,
    folio: folioImporter,
  });
  const authorInviter = new AuthorInviter({
    accounts: () => services.accounts,
    findWebsite: (id) => websites.find(id),
    appUrl: config.appUrl,
  });
  const transfers = new TransferService({
    db,
    clock,
    policy,
    runner,
    audit,
    jobs,
    settings,
    exporter,
    folioImporter,
    wordpressImporter,
    ghostImporter,
    authorInviter,
    // Beside the media directory, like the backups (data/transfers by default).
    dir: path.join(path.dirname(config.mediaDir), 'transfers'),
    domainOf: async (websiteId) => (await websites.find(websiteId))?.domain ?? null,
    websiteExists: async (websiteId) => (await websites.find(websiteId)) !== null,
    warn,
  }).install();
  const services: Services = {
    config,
    database,
    clock,
    feed,
    cache,
    settings,
    translations,
    bindings,
    users,
    memberships,
    policy,
    abilities: new ResourceAbilities({ websites, memberships, clock, settings }),
    postOps,
    audit,
    idempotency: new Idempotency(db, clock),
    apiKeys,
    posts,
    publicPosts,
    searchIndex: new SearchIndexService(db, jobs).install(),
    changes,
    runner,
    revisions,
    autosaves,
    previews,
    media,
    mediaLibrary,
    mediaOps: new MediaOperations({
      runner,
      db,
      media,
      library: mediaLibrary,
      policy,
      settings,
      changes,
      clock,
      audit,
    }),
    mediaMaintenance: new MediaMaintenance({
      db,
      runner,
      store: mediaStore,
      policy,
      changes,
      clock,
      audit,
      settings,
    }),
    exporter,
    redirects: new RedirectsService(db),
    folioImporter,
    ghostImporter,
    wordpressImporter,
    transfers,
    authorInviter,
    fetcher,
    websites,
    websiteOps,
    tags,
    tagOps,
    memberOps,
    inviteOps,
    userOps,
    keyOps: new KeyOperations({ runner, policy, apiKeys }),
    auditReads: new AuditReads({ audit, policy }),
    pageOps,
    systemOps,
    insights: new Insights({
      db,
      dialect: database.dialect,
      clock,
      cache,
      cacheKind: config.redisUrl ? 'redis' : 'memory',
      policy,
      updates,
      databaseFile:
        config.database.dialect === 'sqlite' && config.database.file !== ':memory:'
          ? config.database.file
          : null,
      mediaDir: mediaStore.disk === 'local' ? mediaStore.location : null,
    }),
    tagReads: new TagReads(tags, cache),
    pages,
    menus,
    menuOps,
    updates,
    rateLimits,
    memory,
    comments,
    jobs,
    jobOps: new JobOperations(jobs, policy),
    webhooks,
    commentModeration: new CommentModeration(db, clock, changes, { policy, audit, settings, runner }),
    commentNotices,
    clicks,
    links,
    linkOps: new LinkOperations({ runner, links, clicks, policy, settings, changes, audit }),
    sessions,
    throttle: new LoginThrottle(rateLimits),
    searchLimit,
    mailer: createMailer(config, warn),
    accounts: new AccountsService(db, clock, {
      users,
      sessions,
      settings,
      mailer: () => services.mailer,
      warn,
      changes,
      audit,
      policy,
    }),
    domainChecker,
    siteReads: new SiteReads({
      cache,
      clock,
      publicPosts,
      comments,
      pages,
      links,
    }),
    authoring: new AuthoringService(posts, postOps, policy, tags, settings, tagOps),
    async readiness() {
      const probe = async (check: () => Promise<unknown>): Promise<'ok' | 'unavailable'> => {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer in 2 s')), 2000);
        });
        try {
          await Promise.race([check(), late]);
          return 'ok';
        } catch {
          return 'unavailable';
        } finally {
          clearTimeout(timer);
        }
      };
      const [databaseState, redisState, storageState] = await Promise.all([
        probe(() => sql`select 1`.execute(db)),
        redis ? probe(() => redis.ping()) : Promise.resolve('none' as const),
        // A key nobody writes: an answer (found or not) proves the storage is reachable.
        probe(() => mediaStore.stat('.folio-readiness-probe')),
      ]);
      return { database: databaseState, redis: redisState, storage: storageState };
    },
    async close() {
      await services.accounts.drain();
      await runner.settle();
      await commentNotices.drain();
      await services.mailer.close();
      redis?.disconnect();
      await updates.releaseAll();
      await fetcher.close();
      await webhooks.close();
      await cache.close();
      await feed.close();
      await mediaStore.close();
      await database.close();
    },
  };
  return services;
}
