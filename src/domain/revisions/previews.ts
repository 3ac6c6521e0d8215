// Shareable preview links (issue 37 #3): a link to a draft, scheduled or pending post, a draft page,
// or someone's autosave of either, that anyone holding it may open until it expires (setting
// `preview_link_days`, default 7) or is revoked. The token is 32 random bytes (base64url); only its
// SHA-256 is stored, so a token is unguessable and a stolen table opens nothing. Issuing and revoking
// are for those who may change the post or page (the policy's answer), audited. Resolving a token
// that is malformed, unknown, expired, revoked, or whose post is gone, is one NotFoundError that says
// nothing of whether the post exists.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/database.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { AutosaveService } from './autosaves.js';
import type { Clock } from '../clock.js';
import { nowIso } from '../clock.js';
import type { ContentKind, EditableContent } from './content-access.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { Page, PagesService } from '../pages/store.js';
import type { Actor } from '../policy.js';
import { statusAt } from '../posts/model.js';
import type { PostDetail } from '../posts/model.js';
import type { PostsService } from '../posts/store.js';
import type { OperationRunner } from '../run.js';
import { parse } from '../schema-fields.js';
import type { SettingsService } from '../system/settings.js';
import type { TranslationMap } from '../translations.js';
import { toIso } from '../values.js';

export const PREVIEW_DAYS_SETTING = 'preview_link_days';
export const DEFAULT_PREVIEW_DAYS = 7;
const MAX_PREVIEW_DAYS = 365;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const issuePreviewInput = z
  .object({
    /** The link shows the issuer's autosave of the post (their unsaved edits), not the saved version. */
    autosave: z.boolean().optional(),
  })
  .strict();

export interface PreviewLink {
  id: number;
  resourceType: ContentKind;
  resourceId: number;
  autosave: boolean;
  createdBy: number | null;
  createdAt: string;
  expiresAt: string;
}

/** A resolved token: what it shows (an autosave's fields already laid over the saved version). */
export type PreviewTarget =
  { kind: 'post'; link: PreviewLink; post: PostDetail } | { kind: 'page'; link: PreviewLink; page: Page };

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

type Row = {
  id: number;
  resource_type: string;
  resource_id: number;
  autosave_user_id: number | null;
  created_by: number | null;
  created_at: Date | string;
  expires_at: Date | string;
  revoked_at: Date | string | null;
};

const COLUMNS = [
  'id',
  'resource_type',
  'resource_id',
  'autosave_user_id',
  'created_by',
  'created_at',
  'expires_at',
  'revoked_at',
] as const;

function linkOf(row: Row): PreviewLink {
  return {
    id: Number(row.id),
    resourceType: row.resource_type as ContentKind,
    resourceId: Number(row.resource_id),
    autosave: row.autosave_user_id !== null,
    createdBy: row.created_by === null ? null : Number(row.created_by),
    createdAt: toIso(row.created_at) ?? String(row.created_at),
    expiresAt: toIso(row.expires_at) ?? String(row.expires_at),
  };
}

export class PreviewLinks {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      runner: OperationRunner;
      access: EditableContent;
      posts: PostsService;
      pages: PagesService;
      autosaves: AutosaveService;
      settings: SettingsService;
      audit?: AuditLog;
    },
  ) {}

  /** Issues a link; the token is returned once and never stored (`websiteIds`: where it shows). */
  async issue(
    actor: Actor,
    kind: ContentKind,
    ref: string,
    raw: unknown,
  ): Promise<{ link: PreviewLink; token: string; websiteIds: number[] }> {
    const input = parse(issuePreviewInput, raw ?? {});
    return this.deps.runner.run(async () => {
      const target = await this.editable(actor, kind, ref);
      const autosave = input.autosave === true;
      if (autosave) {
        if (actor.userId === null || !(await this.deps.autosaves.forPreview(kind, target.id, actor.userId))) {
          throw new ValidationError({ autosave: ['There is no autosave of yours to preview.'] });
        }
      } else if (target.public) {
        throw new ValidationError({
          status: [`A published ${kind} needs no preview link: its address is public.`],
        });
      }
      const token = randomBytes(32).toString('base64url');
      const now = this.deps.clock.now();
      const days = await this.days();
      const row = await this.deps.db
        .insertInto('preview_links')
        .values({
          token_hash: hashToken(token),
          resource_type: kind,
          resource_id: target.id,
          autosave_user_id: autosave ? actor.userId : null,
          created_by: actor.userId,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + days * 86_400_000).toISOString(),
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      const link = linkOf(row);
      await recordWrite(this.deps.audit, actor, {
        action: 'preview.issue',
        resourceType: kind,
        resourceId: target.id,
        websiteIds: target.websiteIds,
        input: { link: link.id, autosave, expires_at: link.expiresAt },
      });
      return { link, token, websiteIds: target.websiteIds };
    });
  }

  /** The live (not expired, not revoked) links of a post or page. */
  async list(actor: Actor, kind: ContentKind, ref: string): Promise<PreviewLink[]> {
    const target = await this.editable(actor, kind, ref);
    const rows = await this.deps.db
      .selectFrom('preview_links')
      .select(COLUMNS)
      .where('resource_type', '=', kind)
      .where('resource_id', '=', target.id)
      .where('revoked_at', 'is', null)
      .orderBy('id', 'desc')
      .limit(100)
      .execute();
    const now = nowIso(this.deps.clock);
    return rows.map(linkOf).filter((link) => link.expiresAt > now);
  }

  /** Revokes a link: from now on it answers 404. */
  async revoke(actor: Actor, id: number): Promise<void> {
    return this.deps.runner.run(async () => {
      const row =
        Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647
          ? await this.deps.db
              .selectFrom('preview_links')
              .select(COLUMNS)
              .where('id', '=', id)
              .executeTakeFirst()
          : undefined;
      if (!row || row.revoked_at !== null) throw new NotFoundError('Preview link not found');
      const link = linkOf(row);
      const target = await this.editable(actor, link.resourceType, String(link.resourceId));
      await this.deps.db
        .updateTable('preview_links')
        .set({ revoked_at: nowIso(this.deps.clock) })
        .where('id', '=', id)
        .execute();
      await recordWrite(this.deps.audit, actor, {
        action: 'preview.revoke',
        resourceType: link.resourceType,
        resourceId: link.resourceId,
        websiteIds: target.websiteIds,
        input: { link: id },
      });
    });
  }

  /**
   * What a token shows, for anyone holding it; `websiteId`: only what shows on that website (the
   * site's route). Every failure is the same NotFoundError.
   */
  async resolve(token: unknown, websiteId?: number): Promise<PreviewTarget> {
    const missing = () => new NotFoundError('Preview not found');
    if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) throw missing();
    const row = await this.deps.db
      .selectFrom('preview_links')
      .select(COLUMNS)
      .where('token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row || row.revoked_at !== null) throw missing();
    const link = linkOf(row);
    if (link.expiresAt <= nowIso(this.deps.clock)) throw missing();
    const overlay =
      row.autosave_user_id === null
        ? null
        : await this.deps.autosaves.forPreview(
            link.resourceType,
            link.resourceId,
            Number(row.autosave_user_id),
          );
    const shows = (ids: readonly number[]) =>
      websiteId === undefined || ids.length === 0 || ids.includes(websiteId);
    // The autosave's texts over the saved ones; it holds the default locale's texts: no other
    // locale's may hide them.
    const overlaid = <T extends { title: string; content: string | null; translations: TranslationMap }>(
      item: T,
    ): T =>
      overlay
        ? {
            ...item,
            title: overlay.title ?? item.title,
            content: overlay.content ?? item.content,
            translations: {},
          }
        : item;
    if (link.resourceType === 'post') {
      const post = await this.deps.posts.findDetail(link.resourceId);
      if (!post || !shows(post.websiteIds)) throw missing();
      const excerpt = overlay?.excerpt === undefined ? {} : { excerpt: overlay.excerpt };
      return { kind: 'post', link, post: { ...overlaid(post), ...excerpt } };
    }
    const page = await this.deps.pages.findById(link.resourceId);
    if (!page || !shows(page.websiteIds)) throw missing();
    return { kind: 'page', link, page: overlaid(page) };
  }

  private async editable(
    actor: Actor,
    kind: ContentKind,
    ref: string,
  ): Promise<{ id: number; websiteIds: number[]; public: boolean }> {
    if (kind === 'post') {
      const post = await this.deps.access.post(actor, ref);
      const status = statusAt(post.status, post.publishedAt, nowIso(this.deps.clock));
      return { id: post.id, websiteIds: post.websiteIds, public: status === 'published' };
    }
    const page = await this.deps.access.page(actor, ref);
    return { id: page.id, websiteIds: page.websiteIds, public: page.status === 'published' };
  }

  private async days(): Promise<number> {
    const raw = Number(await this.deps.settings.get(PREVIEW_DAYS_SETTING));
    return Number.isFinite(raw) && raw > 0 ? Math.min(raw, MAX_PREVIEW_DAYS) : DEFAULT_PREVIEW_DAYS;
  }
}
