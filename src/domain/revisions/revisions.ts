// Revisions of posts and pages (issue 37 #1): after every save, through any face, the runner's write
// hook (run.ts `onWrite`) stores a snapshot of the post or page in the save's own transaction — a
// rolled-back save leaves none. The last N revisions of each are kept (setting `revisions_keep`, default
// 50) plus every revision that was a published version. List, show, compare and restore are operations
// here; who may use them is the policy's answer (the people who may change the post or page).
import type * as DiffPackage from 'diff';
import { lazyModule } from '../../lib/lazy-module.js';
import { z } from 'zod';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { Clock } from '../clock.js';
import { nowIso } from '../clock.js';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { RevisionsTable } from '../../db/schema.js';
import { EditableContent } from './content-access.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { Actor, Policy } from '../policy.js';
import type { OperationRunner } from '../run.js';
import { currentWriteScope } from '../write-scope.js';
import type { DomainEvent } from '../write-scope.js';
import type { SettingsService } from '../system/settings.js';
import type { PageOperations } from '../pages/operations.js';
import type { Page, PagesService } from '../pages/store.js';
import type { PostDetail } from '../posts/model.js';
import { POST_SETTINGS } from '../posts/model.js';
import type { PostOperations } from '../posts/index.js';
import { positiveInteger } from '../../lib/whole-number.js';
import type { PostsService } from '../posts/store.js';
import { DEFAULT_LOCALE } from '../translations.js';
import type { TranslationMap } from '../translations.js';
import { toIso } from '../values.js';

const diff = lazyModule<typeof DiffPackage>('diff');

export const REVISIONS_KEEP_SETTING = 'revisions_keep';
export const DEFAULT_REVISIONS_KEEP = 50;
export const MAX_REVISION_PAGE_SIZE = 100;

export type RevisionKind = 'post' | 'page';

/** The writes that make a revision (the audit actions of posts/*.ts and page-operations.ts). */
const SAVES: Record<RevisionKind, Set<string>> = {
  post: new Set(['post.create', 'post.update', 'post.submit', 'post.approve', 'post.return', 'post.restore']),
  page: new Set(['page.create', 'page.update', 'page.restore']),
};
const isKind = (type: string): type is RevisionKind => type === 'post' || type === 'page';
/** Translatable fields: stored per locale (`{ locale: text }`). */
export const TEXT_FIELDS = ['title', 'content', 'excerpt', 'keywords'] as const;
export const PAGE_TEXT_FIELDS = ['title', 'content'] as const;
const PAGE_OTHER_FIELDS = [
  'slug',
  'type',
  'template',
  'status',
  'metaTitle',
  'metaDescription',
  'authorId',
  'websiteIds',
] as const;
const OTHER_FIELDS = [
  'slug',
  'status',
  'publishedAt',
  'thumbnail',
  'metaTitle',
  'metaDescription',
  'metaKeywords',
  'authorId',
  'tags',
  'categories',
  'websiteIds',
] as const;

export interface RevisionSnapshot {
  title: Record<string, string>;
  content: Record<string, string>;
  excerpt: Record<string, string>;
  keywords: Record<string, string>;
  slug: string;
  status: string;
  publishedAt: string | null;
  thumbnail: string | null;
  metaTitle: string | null;
  metaDescription: string | null;
  metaKeywords: string | null;
  authorId: number | null;
  tags: number[];
  categories: number[];
  websiteIds: number[];
}

/** A page as a revision keeps it: its texts per locale, its other fields as they were. */
export type PageSnapshot = Record<(typeof PAGE_TEXT_FIELDS)[number], Record<string, string>> & PageFields;
/** The fields of a page a revision keeps as they are. */
type PageFields = Pick<Page, (typeof PAGE_OTHER_FIELDS)[number]>;

export interface RevisionSummary {
  id: number;
  resourceType: RevisionKind;
  /** The post's or page's id. */
  resourceId: number;
  action: string;
  status: string;
  published: boolean;
  userId: number | null;
  apiKeyId: number | null;
  surface: string;
  createdAt: string;
}

export interface Revision<Data = RevisionSnapshot> extends RevisionSummary {
  data: Data;
}
export type PageRevision = Revision<PageSnapshot>;

export type TextDiffPart = { value: string; added?: boolean; removed?: boolean };
export interface RevisionComparison {
  from: RevisionSummary;
  to: RevisionSummary;
  /** Word-level diff of each translatable field per locale that differs. */
  text: Array<{ field: string; locale: string; parts: TextDiffPart[] }>;
  /** The other fields that differ. */
  fields: Array<{ field: string; from: unknown; to: unknown }>;
}

export interface RevisionsDeps {
  db: Db;
  clock: Clock;
  runner: OperationRunner;
  posts: PostsService;
  postOps: PostOperations;
  pages: PagesService;
  pageOps: PageOperations;
  policy: Policy;
  settings: SettingsService;
  audit?: AuditLog;
}

const SUMMARY_COLUMNS = [
  'id',
  'resource_type',
  'resource_id',
  'action',
  'status',
  'published',
  'user_id',
  'api_key_id',
  'surface',
  'created_at',
] as const;

/** What a revision records of the save that made it. */
type RevisionEvent = Pick<DomainEvent, 'action' | 'userId' | 'apiKeyId' | 'surface'>;

type SummaryRow = Pick<Selectable<RevisionsTable>, (typeof SUMMARY_COLUMNS)[number]>;

function summaryOf(row: SummaryRow): RevisionSummary {
  return {
    id: Number(row.id),
    resourceType: row.resource_type as RevisionKind,
    resourceId: Number(row.resource_id),
    action: row.action,
    status: row.status,
    published: Number(row.published) === 1,
    userId: row.user_id === null ? null : Number(row.user_id),
    apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    surface: row.surface,
    createdAt: toIso(row.created_at) ?? String(row.created_at),
  };
}

/** A restore's options: the status the post gets (absent: its status does not change). */
export const restoreInput = z.object({
  status: z.string().optional().describe('The status the post gets; absent: its status does not change.'),
});

export class RevisionsService {
  private readonly access: EditableContent;

  constructor(private readonly deps: RevisionsDeps) {
    this.access = new EditableContent(deps);
  }

  /** Registers the write hook: every post save writes its revision in the save's transaction. */
  install(): this {
    this.deps.runner.onWrite((event) => this.onWrite(event));
    return this;
  }

  private async onWrite(event: DomainEvent): Promise<void> {
    const kind = event.resourceType;
    if (!isKind(kind) || !SAVES[kind].has(event.action) || event.resourceId === null) return;
    // Hooks run when the operation's work is done: one revision per resource and operation, named
    // after its last save (a restore's update is the restore).
    const events = currentWriteScope()?.events ?? [];
    const later = events.slice(events.indexOf(event) + 1);
    if (
      later.some(
        (other) =>
          other.resourceType === kind &&
          other.resourceId === event.resourceId &&
          SAVES[kind].has(other.action),
      )
    ) {
      return;
    }
    await this.writeCurrent(kind, Number(event.resourceId), await this.defaultLocale(), event);
  }

  /**
   * The first revision of posts or pages an import brought without history of their own (issue 39:
   * imported content has a history like any other). Written in the caller's transaction.
   */
  async recordImported(actor: Actor, kind: RevisionKind, ids: readonly number[]): Promise<void> {
    const locale = await this.defaultLocale();
    const event = {
      action: `${kind}.import`,
      userId: actor.userId,
      apiKeyId: actor.origin?.apiKeyId ?? null,
      surface: actor.origin?.surface ?? 'system',
    };
    for (const id of ids) await this.writeCurrent(kind, id, locale, event);
  }

  /** A revision of the post or page as it is now (none when it is gone). */
  private async writeCurrent(
    kind: RevisionKind,
    id: number,
    locale: string,
    event: RevisionEvent,
  ): Promise<void> {
    if (kind === 'post') {
      const post = await this.deps.posts.findDetail(id);
      if (post) await this.write('post', id, post.status, snapshotOf(post, locale), event);
    } else {
      const page = await this.deps.pages.findById(id);
      if (page) await this.write('page', id, page.status, pageSnapshotOf(page, locale), event);
    }
  }

  private async write(
    kind: RevisionKind,
    id: number,
    status: string,
    data: RevisionSnapshot | PageSnapshot,
    event: RevisionEvent,
  ): Promise<void> {
    const db = this.deps.db;
    await db
      .insertInto('revisions')
      .values({
        resource_type: kind,
        resource_id: id,
        action: event.action,
        status,
        published: status === 'published' ? 1 : 0,
        user_id: event.userId,
        api_key_id: event.apiKeyId,
        surface: event.surface,
        created_at: nowIso(this.deps.clock),
        data: JSON.stringify(data),
      })
      .execute();
    await this.prune(kind, id);
  }

  /** Keeps the newest N revisions of a post and every published one. */
  private async prune(kind: RevisionKind, resourceId: number): Promise<void> {
    const keep = await this.keep();
    const db = this.deps.db;
    const cutoff = await db
      .selectFrom('revisions')
      .select('id')
      .where('resource_type', '=', kind)
      .where('resource_id', '=', resourceId)
      .orderBy('id', 'desc')
      .offset(keep)
      .limit(1)
      .executeTakeFirst();
    if (!cutoff) return;
    await db
      .deleteFrom('revisions')
      .where('resource_type', '=', kind)
      .where('resource_id', '=', resourceId)
      .where('id', '<=', Number(cutoff.id))
      .where('published', '=', 0)
      .execute();
  }

  private async keep(): Promise<number> {
    const raw = Number(await this.deps.settings.get(REVISIONS_KEEP_SETTING));
    return Number.isInteger(raw) && raw >= 1 ? raw : DEFAULT_REVISIONS_KEEP;
  }

  private async defaultLocale(): Promise<string> {
    return (await this.deps.settings.get(POST_SETTINGS.defaultLocale))?.trim() || DEFAULT_LOCALE;
  }

  /** The post, after the policy says the actor may see its history (those who may change it). */
  private postFor(actor: Actor, ref: string): Promise<PostDetail> {
    return this.access.post(actor, ref);
  }

  /** The page, after the policy says the actor may see its history (those who may change it). */
  private pageFor(actor: Actor, ref: string): Promise<Page> {
    return this.access.page(actor, ref);
  }

  private idFor(actor: Actor, kind: RevisionKind, ref: string): Promise<number> {
    return this.access.idOf(actor, kind, ref);
  }

  /** A page of a post's (or page's) revisions, newest first (an index serves it however many there are). */
  async list(
    actor: Actor,
    ref: string,
    query: { page?: unknown; pageSize?: unknown } = {},
    kind: RevisionKind = 'post',
  ): Promise<{ data: RevisionSummary[]; page: number; pageSize: number; total: number }> {
    const resourceId = await this.idFor(actor, kind, ref);
    const page = positive(query.page, 1, 'page', 1_000_000);
    const pageSize = positive(query.pageSize, 20, 'page_size', MAX_REVISION_PAGE_SIZE);
    const base = this.deps.db
      .selectFrom('revisions')
      .where('resource_type', '=', kind)
      .where('resource_id', '=', resourceId);
    const [rows, count] = await Promise.all([
      base
        .select([...SUMMARY_COLUMNS])
        .orderBy('id', 'desc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute(),
      base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { data: rows.map(summaryOf), page, pageSize, total: Number(count.n) };
  }

  async show(actor: Actor, ref: string, revisionId: unknown): Promise<Revision> {
    const post = await this.postFor(actor, ref);
    return this.revisionOf<RevisionSnapshot>('post', post.id, revisionId);
  }

  async showPage(actor: Actor, ref: string, revisionId: unknown): Promise<PageRevision> {
    const page = await this.pageFor(actor, ref);
    return this.revisionOf<PageSnapshot>('page', page.id, revisionId);
  }

  private async revisionOf<Data>(
    kind: RevisionKind,
    resourceId: number,
    revisionId: unknown,
  ): Promise<Revision<Data>> {
    const id = typeof revisionId === 'number' ? revisionId : Number(revisionId);
    if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) {
      throw new NotFoundError('Revision not found');
    }
    const row = await this.deps.db
      .selectFrom('revisions')
      .select([...SUMMARY_COLUMNS, 'data'])
      .where('id', '=', id)
      .where('resource_type', '=', kind)
      .where('resource_id', '=', resourceId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError('Revision not found');
    return { ...summaryOf(row), data: JSON.parse(row.data) as Data };
  }

  /** Compares two revisions: a word-level diff of the texts, field by field for the rest. */
  async compare(
    actor: Actor,
    ref: string,
    fromId: unknown,
    toId: unknown,
    kind: RevisionKind = 'post',
  ): Promise<RevisionComparison> {
    const resourceId = await this.idFor(actor, kind, ref);
    const [from, to] = await Promise.all([
      this.revisionOf<Record<string, unknown>>(kind, resourceId, fromId),
      this.revisionOf<Record<string, unknown>>(kind, resourceId, toId),
    ]);
    return kind === 'post'
      ? compareSnapshots(from, to, TEXT_FIELDS, OTHER_FIELDS)
      : compareSnapshots(from, to, PAGE_TEXT_FIELDS, PAGE_OTHER_FIELDS);
  }

  /**
   * Restores a revision: the post's fields become the revision's (its status only when `status` is
   * asked), through the post update operation — so the 412 flow (`ifVersion`), the policy and the
   * revision of the restore itself are the save's. Tags or websites deleted since are left out and named.
   */
  async restore(
    actor: Actor,
    ref: string,
    revisionId: unknown,
    options: { status?: unknown; ifVersion?: string } = {},
  ): Promise<{ post: PostDetail; missing: { tags: number[]; websites: number[] } }> {
    return this.deps.runner.run(async () => {
      const post = await this.postFor(actor, ref);
      const revision = await this.revisionOf<RevisionSnapshot>('post', post.id, revisionId);
      const data = revision.data;
      const [tagIds, websiteIds] = await Promise.all([
        this.existing('tags', [...data.tags, ...data.categories]),
        this.existing('websites', data.websiteIds),
      ]);
      const tags = data.tags.filter((id) => tagIds.has(id));
      const categories = data.categories.filter((id) => tagIds.has(id));
      const websites = data.websiteIds.filter((id) => websiteIds.has(id));
      const raw: Record<string, unknown> = {
        title: data.title,
        content: data.content,
        excerpt: nonEmpty(data.excerpt),
        keywords: nonEmpty(data.keywords),
        slug: data.slug,
        meta_title: data.metaTitle,
        meta_description: data.metaDescription,
        meta_keywords: data.metaKeywords,
        tags,
        categories,
      };
      if (websites.length > 0) raw.website_id = websites;
      const status = statusAsked(options.status);
      if (status !== undefined) {
        raw.status = status;
        if (status === data.status) raw.published_at = data.publishedAt;
      }
      const restored = await this.deps.postOps.update(actor, String(post.id), raw, {
        ifVersion: options.ifVersion,
      });
      await this.auditRestore(actor, 'post', restored, revision.id, options.status);
      return {
        post: restored,
        missing: {
          tags: [...data.tags, ...data.categories].filter((id) => !tagIds.has(id)),
          websites: data.websiteIds.filter((id) => !websiteIds.has(id)),
        },
      };
    });
  }

  /**
   * Restores a revision of a page: the page's fields become the revision's (its status only when
   * `status` is asked), through the page update operation — the 412 flow (`ifVersion`), the policy and
   * the revision of the restore itself are the save's. Websites deleted since are left out and named.
   */
  async restorePage(
    actor: Actor,
    ref: string,
    revisionId: unknown,
    options: { status?: unknown; ifVersion?: string } = {},
  ): Promise<{ page: Page; missing: { websites: number[] } }> {
    return this.deps.runner.run(async () => {
      const page = await this.pageFor(actor, ref);
      const revision = await this.revisionOf<PageSnapshot>('page', page.id, revisionId);
      const data = revision.data;
      const existing = await this.existing('websites', data.websiteIds);
      const websites = data.websiteIds.filter((id) => existing.has(id));
      const raw: Record<string, unknown> = {
        title: data.title,
        content: nonEmpty(data.content),
        slug: data.slug,
        type: data.type,
        template: data.template,
        meta_title: data.metaTitle,
        meta_description: data.metaDescription,
      };
      // A page bound to none is on every website; one whose websites are all gone keeps its own.
      if (websites.length > 0 || data.websiteIds.length === 0) raw.website_ids = websites;
      const status = statusAsked(options.status);
      if (status !== undefined) raw.status = status;
      const restored = await this.deps.pageOps.update(actor, page.id, raw, options.ifVersion);
      await this.auditRestore(actor, 'page', restored, revision.id, options.status);
      return { page: restored, missing: { websites: data.websiteIds.filter((id) => !existing.has(id)) } };
    });
  }

  /** Audits a restore; its event (after the update's) names the operation's one revision `*.restore`. */
  private auditRestore(
    actor: Actor,
    kind: RevisionKind,
    restored: { id: number; websiteIds: number[] },
    revisionId: number,
    status: unknown,
  ): Promise<void> {
    return recordWrite(this.deps.audit, actor, {
      action: `${kind}.restore`,
      resourceType: kind,
      resourceId: restored.id,
      websiteIds: restored.websiteIds,
      input: { revision: revisionId, status },
    });
  }

  private async existing(table: 'tags' | 'websites', ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.deps.db.selectFrom(table).select('id').where('id', 'in', ids).execute();
    return new Set(rows.map((row) => Number(row.id)));
  }
}

/** The status a restore asks for (undefined: the status does not change). */
function statusAsked(status: unknown): string | undefined {
  if (status !== undefined && typeof status !== 'string') {
    throw new ValidationError({ status: ['The selected status is invalid.'] });
  }
  return status;
}

function nonEmpty(map: Record<string, string>): Record<string, string> | null {
  return Object.values(map).some((text) => text !== '') ? map : null;
}

function positive(value: unknown, fallback: number, field: string, max: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const number = positiveInteger(value, 9);
  if (number === null) {
    throw new ValidationError({ [field]: [`The ${field.replace('_', ' ')} must be at least 1.`] });
  }
  return Math.min(number, max);
}

/** A translatable field as `{ locale: text }`: the stored text under the default locale, then the others. */
function localeMap(
  main: string | null,
  translations: Record<string, string> | undefined,
  defaultLocale: string,
): Record<string, string> {
  const map: Record<string, string> = {};
  if (main !== null && main !== '') map[defaultLocale] = main;
  for (const [locale, value] of Object.entries(translations ?? {})) {
    if (locale !== defaultLocale) map[locale] = value;
  }
  return map;
}

/** These translatable fields of a post or page, each as `{ locale: text }`. */
function localeMaps<Field extends string>(
  item: Record<Field, string | null> & { translations: TranslationMap },
  fields: readonly Field[],
  defaultLocale: string,
): Record<Field, Record<string, string>> {
  const maps = {} as Record<Field, Record<string, string>>;
  for (const field of fields) maps[field] = localeMap(item[field], item.translations[field], defaultLocale);
  return maps;
}

/** The post as a revision keeps it: each translatable field as `{ locale: text }`. */
export function snapshotOf(post: PostDetail, defaultLocale: string): RevisionSnapshot {
  return {
    ...localeMaps(post, TEXT_FIELDS, defaultLocale),
    slug: post.slug,
    status: post.status,
    publishedAt: post.publishedAt,
    thumbnail: post.thumbnail,
    metaTitle: post.metaTitle,
    metaDescription: post.metaDescription,
    metaKeywords: post.metaKeywords,
    authorId: post.author?.id ?? null,
    tags: post.tagList.map((tag) => tag.id).sort((a, b) => a - b),
    categories: post.categories.map((tag) => tag.id).sort((a, b) => a - b),
    websiteIds: [...post.websiteIds].sort((a, b) => a - b),
  };
}

/** The page as a revision keeps it: title and content as `{ locale: text }`, its other fields as they are. */
export function pageSnapshotOf(page: Page, defaultLocale: string): PageSnapshot {
  const others = Object.fromEntries(PAGE_OTHER_FIELDS.map((field) => [field, page[field]])) as PageFields;
  return {
    ...localeMaps(page, PAGE_TEXT_FIELDS, defaultLocale),
    ...others,
    websiteIds: [...page.websiteIds].sort((a, b) => a - b),
  };
}

export function compareSnapshots<Data extends object>(
  from: Revision<Data>,
  to: Revision<Data>,
  textFields: readonly string[] = TEXT_FIELDS,
  otherFields: readonly string[] = OTHER_FIELDS,
): RevisionComparison {
  const text: RevisionComparison['text'] = [];
  const before = from.data as Record<string, unknown>;
  const after = to.data as Record<string, unknown>;
  for (const field of textFields) {
    const a0 = (before[field] ?? {}) as Record<string, string>;
    const b0 = (after[field] ?? {}) as Record<string, string>;
    for (const locale of [...new Set([...Object.keys(a0), ...Object.keys(b0)])].sort()) {
      const a = a0[locale] ?? '';
      const b = b0[locale] ?? '';
      if (a === b) continue;
      const parts = diff()
        .diffWordsWithSpace(a, b)
        .map((part) => ({
          value: part.value,
          ...(part.added ? { added: true } : {}),
          ...(part.removed ? { removed: true } : {}),
        }));
      text.push({ field, locale, parts });
    }
  }
  const fields: RevisionComparison['fields'] = [];
  for (const field of otherFields) {
    const a = before[field] ?? null;
    const b = after[field] ?? null;
    if (JSON.stringify(a) !== JSON.stringify(b)) fields.push({ field, from: a, to: b });
  }
  const { data: _from, ...fromSummary } = from;
  const { data: _to, ...toSummary } = to;
  return { from: fromSummary, to: toSummary, text, fields };
}
