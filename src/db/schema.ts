// Table types for Kysely. Timestamps are written as ISO 8601 UTC strings and read back as a string
// (SQLite, TEXT) or a Date (PostgreSQL, timestamptz); flags are read back as 0/1 (SQLite) or booleans
// (PostgreSQL). Row mappers in the domain normalize both with toIso() and Boolean().
import type { ColumnType, Generated } from 'kysely';

/** Written as an ISO string; read as a string or Date depending on the dialect. */
export type Timestamp = ColumnType<Date | string, string, string>;
/** Written as a boolean; read as a boolean or 0/1 depending on the dialect. */
export type Flag = ColumnType<boolean | number, boolean | undefined, boolean>;

export interface UsersTable {
  id: Generated<number>;
  name: string;
  email: string;
  username: string | null;
  password_hash: string;
  is_admin: Flag;
  is_active: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The language the person chose (`zh_TW`): the panel's and their mails'; null: not chosen. */
  locale: string | null;
}

export interface ApiTokensTable {
  id: Generated<number>;
  user_id: number;
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
}

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: Timestamp;
}

export interface WebsitesTable {
  id: Generated<number>;
  user_id: number | null;
  site_name: string;
  site_slogan: string | null;
  site_seo_keywords: string | null;
  site_seo_description: string | null;
  site_logo: string | null;
  site_favicon: string | null;
  /** The home page's cover image (0057). */
  site_cover: string | null;
  theme: Generated<string>;
  homepage: string | null;
  remark: string | null;
  meta_verification: string | null;
  head_code: string | null;
  body_code: string | null;
  analytics: string | null;
  license: string | null;
  enabled_page_cache: Flag;
  enabled_data_cache: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Every domain of every website: one primary per website, the rest are aliases. */
export interface DomainsTable {
  id: Generated<number>;
  website_id: number;
  domain: string;
  is_primary: Flag;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A user's role on one website (issue 20); the installation's administrators are `users.is_admin`. */
export interface MembershipsTable {
  id: Generated<number>;
  user_id: number;
  website_id: number;
  role: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One write through any surface: who, what, when, from where (issue 20). */
export interface AuditLogTable {
  id: Generated<number>;
  created_at: Timestamp;
  user_id: number | null;
  api_key_id: number | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  website_id: number | null;
  surface: string;
  request_id: string | null;
  client_ip: string | null;
  summary: string | null;
}

/** Announcements of committed operations not yet made (0028_outbox, domain/run.ts). */
export interface OutboxTable {
  id: Generated<number>;
  created_at: Timestamp;
  topic: string;
  payload: string;
  claimed_at: Timestamp | null;
}

/** A snapshot of a post or page after a save (0030_revisions, domain/revisions/revisions.ts). */
export interface RevisionsTable {
  id: Generated<number>;
  resource_type: string;
  resource_id: number;
  action: string;
  status: string;
  published: number;
  user_id: number | null;
  api_key_id: number | null;
  surface: string;
  created_at: Timestamp;
  data: string;
}

/** A shareable preview link; only the token's SHA-256 is kept (0046_preview_links, domain/revisions/previews.ts). */
export interface PreviewLinksTable {
  id: Generated<number>;
  token_hash: string;
  resource_type: string;
  resource_id: number;
  autosave_user_id: number | null;
  created_by: number | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
}

/** One autosaved copy per post and user (0047_autosaves, domain/revisions/autosaves.ts). */
export interface AutosavesTable {
  id: Generated<number>;
  resource_type: string;
  resource_id: number;
  user_id: number;
  base_version: string | null;
  data: string;
  updated_at: Timestamp;
}

/** Background jobs (0033_jobs, src/jobs/queue.ts). */
export interface JobsTable {
  id: Generated<number>;
  queue: string;
  payload: string;
  unique_key: string | null;
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  max_attempts: number;
  run_at: Timestamp;
  locked_until: Timestamp | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Webhooks (0050_webhooks, domain/webhooks/). */
export interface WebhooksTable {
  id: Generated<number>;
  website_id: number | null;
  url: string;
  events: string;
  secret: string;
  active: number;
  failures: ColumnType<number, number | undefined, number>;
  disabled_reason: string | null;
  created_by: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Every attempt to deliver a webhook message (0050_webhooks). */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  job_id: number | null;
  message_id: string;
  event: string;
  attempt: number;
  request_body: string;
  status_code: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  created_at: Timestamp;
}

/** A named API key with scopes (issue 20); only its SHA-256 is stored. */
export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  prefix: string;
  key_hash: string;
  read_only: Flag;
  /** A content key: reads what a visitor sees, nothing else (migration 0020). */
  content_only: Flag;
  /** Made for chosen websites (migration 0025): with none of them left, the key works nowhere. */
  limited: Flag;
  expires_at: Timestamp | null;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: Timestamp;
}

/** An invitation to a website's role by email, with a one-time link (migration 0021). */
export interface InvitesTable {
  id: Generated<number>;
  website_id: number;
  email: string;
  role: string;
  token_hash: string;
  invited_by: number | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  accepted_at: Timestamp | null;
  accepted_by: number | null;
}

/** The first answer to a create sent with an `Idempotency-Key` (kept 24 hours). */
export interface IdempotencyKeysTable {
  /** Who sent it: `user:ID`, or `anonymous`. */
  caller: string;
  /** The operation (`api.v1.posts.store`). */
  scope: string;
  key: string;
  /** SHA-256 of the request's input: the same key with another input is refused. */
  fingerprint: string;
  /** Null while the first request runs. */
  status: number | null;
  body: string | null;
  created_at: Timestamp;
}

/** A change of email waiting for the new address to confirm it. */
export interface EmailChangesTable {
  id: Generated<number>;
  user_id: number;
  new_email: string;
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** One step of a post's review (issue 20 #4): submitted, approved or returned with a note. */
export interface PostReviewsTable {
  id: Generated<number>;
  post_id: number;
  user_id: number | null;
  decision: string;
  note: string | null;
  created_at: Timestamp;
}

/** The websites an API key is limited to (none: every website its user may reach). */
export interface ApiKeyWebsitesTable {
  api_key_id: number;
  website_id: number;
}

/** Binds any model (post, tag, page, menu, user) to a website: one mechanism for all of them. */
export interface WebsiteBindingsTable {
  website_id: number;
  model_type: string;
  model_id: number;
}

export interface PostsTable {
  id: Generated<number>;
  /** `post`, or another post-like kind such as `link`. */
  type: Generated<string>;
  author_id: number | null;
  title: string;
  slug: string;
  excerpt: string | null;
  content: string;
  keywords: string | null;
  thumbnail: string | null;
  status: Generated<string>;
  published_at: Timestamp | null;
  meta_title: string | null;
  meta_description: string | null;
  meta_keywords: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

export interface TagsTable {
  id: Generated<number>;
  name: string;
  slug: string;
  type: Generated<string>;
  parent_id: number | null;
  description: string | null;
  icon: string | null;
  sort: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TaggablesTable {
  tag_id: number;
  taggable_type: string;
  taggable_id: number;
}

/** Live posts per tag, website bucket and status, kept by triggers (migration 0019_post_counts). */
export interface PostCountsTable {
  id: Generated<number>;
  /** 0: every post. */
  tag_id: number;
  /** 0: every post; -1: global posts (bound to no website); else posts bound to that website. */
  website_id: number;
  status: string;
  /** A delta: a count is the sum of its key's rows (see compactPostCounts). */
  total: number;
}

export interface TranslationsTable {
  id: Generated<number>;
  model_type: string;
  model_id: number;
  field: string;
  locale: string;
  value: string;
}

export interface PagesTable {
  id: Generated<number>;
  author_id: number | null;
  title: string;
  slug: string;
  content: string | null;
  /** `plain` renders the content, `template` renders a theme template. */
  type: Generated<string>;
  template: string | null;
  status: Generated<string>;
  /** For search engines; null: the title, and the start of the content (migration 0025). */
  meta_title: string | null;
  meta_description: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: Timestamp | null;
}

/** A named menu of a website (`header`, `footer`, …): the handle is unique on the website. */
export interface MenusTable {
  id: Generated<number>;
  website_id: number;
  handle: string;
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MenuItemsTable {
  id: Generated<number>;
  website_id: number;
  /** Null only in rows older than named menus that the migration could not place (none). */
  menu_id: number | null;
  parent_id: number | null;
  /** The spec's `order`; named `position` to stay clear of the SQL keyword. */
  position: Generated<number>;
  name: string;
  type: string;
  page_id: number | null;
  post_id: number | null;
  tag_id: number | null;
  url: string | null;
  target: Generated<string>;
  icon: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MediaTable {
  id: Generated<number>;
  user_id: number | null;
  disk: Generated<string>;
  path: string;
  url: string;
  mime_type: string;
  size: number;
  width: number | null;
  height: number | null;
  source_url: string | null;
  sha256: string;
  created_at: Timestamp;
  /** The name it was uploaded with (0017); null for thumbnails and downloaded images. */
  file_name: string | null;
  /** Base texts (0017); other locales in `translations` (model type `media`). */
  alt: string | null;
  caption: string | null;
  /** JSON array of StoredVariant (0017): WebP and smaller sizes; null when none were made. */
  variants: string | null;
  /** Null only for rows written before 0017 by code that does not set it. */
  updated_at: Timestamp | null;
}

export interface CommentsTable {
  id: Generated<number>;
  post_id: number;
  user_id: number | null;
  parent_id: number | null;
  author_name: string | null;
  author_email: string | null;
  content: string;
  /** `pending`, `approved` or `spam`. */
  status: Generated<string>;
  likes: Generated<number>;
  reports: Generated<number>;
  ip_hash: string | null;
  user_agent: string | null;
  /** The website it was made on (migration 0026); null: made before that was kept. */
  website_id: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ClicksTable {
  id: Generated<number>;
  model_type: string;
  model_id: number;
  /** `view`, `like`, `fav` or `click`. */
  kind: Generated<string>;
  user_id: number | null;
  visitor_hash: string | null;
  created_at: Timestamp;
  /** The website it happened on (0022); null for rows counted before. */
  website_id: Generated<number | null>;
}

/** One like or report per comment and voter (0007): `u:`/`v:` hash of a user or a visitor. */
export interface CommentVotesTable {
  comment_id: number;
  /** `like` or `report`. */
  kind: string;
  voter: string;
  created_at: Timestamp;
}

/** The URL and icon of a post of type `link` (0007). */
export interface LinksTable {
  post_id: number;
  url: string;
  icon: string | null;
}

/** Update lock and progress per item: `core` or a package name. */
export interface UpdateStateTable {
  item: string;
  updating: Flag;
  locked_at: Timestamp | null;
  version: string | null;
  updated_at: Timestamp;
  /** Random token of the run holding the lock (0004); null when idle. */
  lock_owner: string | null;
}

/** A visitor session of the public site (0006); the session id itself is never stored. */
export interface SessionsTable {
  id: Generated<number>;
  /** SHA-256 of the session id, hex. */
  token_hash: string;
  user_id: number;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** A one-time password reset token (0006), stored as its SHA-256. */
export interface PasswordResetsTable {
  id: Generated<number>;
  token_hash: string;
  user_id: number;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface PendingRegistrationsTable {
  id: Generated<number>;
  /** SHA-256 of the confirmation link's token, hex. */
  token_hash: string;
  /** Normalized (trimmed, lower-case); one pending registration per email. */
  email: string;
  name: string;
  /** The username asked for, or null (made from the name at confirmation). */
  username: string | null;
  password_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** An old URL of a website answered with a 301 (0055_redirects, domain/public/redirects.ts). */
export interface RedirectsTable {
  id: Generated<number>;
  website_id: number;
  from_path: string;
  post_id: number | null;
  page_id: number | null;
  to_url: string | null;
  created_at: Timestamp;
}

/** Exports and imports of API v2 and the panel (0056_transfers, domain/porting/transfers.ts). */
export interface TransfersTable {
  id: Generated<number>;
  kind: string;
  status: string;
  website_id: number | null;
  user_id: number | null;
  job_id: number | null;
  options: string;
  phase: string | null;
  done: ColumnType<number, number | undefined, number>;
  total: ColumnType<number, number | undefined, number>;
  file: string | null;
  bytes: ColumnType<number | string | null, number | null | undefined, number | null>;
  result: string | null;
  error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
  expires_at: Timestamp | null;
}

export interface Database {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  settings: SettingsTable;
  websites: WebsitesTable;
  domains: DomainsTable;
  website_bindings: WebsiteBindingsTable;
  memberships: MembershipsTable;
  audit_log: AuditLogTable;
  outbox: OutboxTable;
  revisions: RevisionsTable;
  preview_links: PreviewLinksTable;
  autosaves: AutosavesTable;
  jobs: JobsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_public_posts: { post_id: number };
  api_keys: ApiKeysTable;
  invites: InvitesTable;
  api_key_websites: ApiKeyWebsitesTable;
  idempotency_keys: IdempotencyKeysTable;
  email_changes: EmailChangesTable;
  post_reviews: PostReviewsTable;
  posts: PostsTable;
  tags: TagsTable;
  taggables: TaggablesTable;
  post_counts: PostCountsTable;
  translations: TranslationsTable;
  pages: PagesTable;
  menus: MenusTable;
  menu_items: MenuItemsTable;
  media: MediaTable;
  comments: CommentsTable;
  clicks: ClicksTable;
  update_state: UpdateStateTable;
  comment_votes: CommentVotesTable;
  links: LinksTable;
  sessions: SessionsTable;
  password_resets: PasswordResetsTable;
  pending_registrations: PendingRegistrationsTable;
  redirects: RedirectsTable;
  transfers: TransfersTable;
}
