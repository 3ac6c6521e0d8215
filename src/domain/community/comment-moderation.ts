// Moderating comments (issue 22, dead end 5): held comments can be listed, approved, marked as spam or
// deleted. Every change announces the threads it touched, so the posts' cached pages follow.
import type { Db } from '../../db/database.js';
import type { OperationRunner } from '../run.js';
import { madeOnWebsite } from '../websites/bindings.js';
import type { ContentChanges } from '../changes.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import type { CommentStatus } from './comments.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import { z } from 'zod';
import { sanitizeComment, MAX_COMMENT_LENGTH } from './comments.js';
import {
  heldWordsKey,
  moderationSettings,
  moderationSettingsInput,
  siteModerationKey,
  storeWords,
} from './comment-rules.js';
import type { ModerationSettings } from './comment-rules.js';
import { ConflictError, ForbiddenError, InputError, NotFoundError } from '../errors.js';
import { parse } from '../schema-fields.js';
import type { SettingsService } from '../system/settings.js';
import type { Actor, Policy } from '../policy.js';
import { isStorableId } from '../ids.js';
import { toIso } from '../values.js';

export const MODERATION_STATUSES = [
  'pending',
  'approved',
  'spam',
] as const satisfies readonly CommentStatus[];
/** The most comments one call changes or lists. */
export const MAX_MODERATION_BATCH = 500;

export interface ModeratedComment {
  id: number;
  postId: number;
  postTitle: string;
  parentId: number | null;
  authorName: string | null;
  authorEmail: string | null;
  userId: number | null;
  /** Sanitized when stored (CommentsService.store). */
  content: string;
  status: CommentStatus;
  reports: number;
  createdAt: string;
  /** The comment it answers (issue 34 #20: a reply shows what it answers), or null. */
  parent?: { id: number; authorName: string | null; content: string } | null;
}

/** How many comments each tab of the moderation queue holds (issue 34 #20). */
export interface ModerationCounts {
  pending: number;
  reported: number;
  spam: number;
  approved: number;
}

export interface ModerationQuery {
  /** Comments under posts shown on this website (bound to it, or to every website). */
  websiteId?: number;
  status?: CommentStatus;
  /** Only comments someone reported (and not marked as spam), the most reported first. */
  reported?: boolean;
  limit?: number;
}

export const replyInput = z.object({ content: z.string().trim().min(1).max(MAX_COMMENT_LENGTH) }).strict();

/** The most held comments the post page lists for a moderator (the count says how many there are). */
export const MAX_WAITING_SHOWN = 50;

export interface WaitingComments {
  /** Every held comment of the post. */
  count: number;
  /** The oldest MAX_WAITING_SHOWN of them. */
  items: {
    id: number;
    authorName: string;
    authorEmail: string;
    /** Sanitized when stored (CommentsService.store). */
    content: string;
    createdAt: string;
  }[];
}

export const MODERATION_ACTIONS = ['approve', 'spam', 'delete'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

/** A moderation of several comments at once (the panel's and API v2's bulk action). */
export const moderateInput = z.object({
  ids: z.array(z.int().min(1)).min(1).max(MAX_MODERATION_BATCH),
  action: z.enum(MODERATION_ACTIONS),
});

export class CommentModeration {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly changes: ContentChanges,
    /** For the actor-aware operations (listOn, moderateOn): who may moderate, and the record. */
    private readonly deps: {
      policy: Policy;
      audit?: AuditLog;
      settings?: SettingsService;
      /** Every write runs as one operation (run.ts). */
      runner: OperationRunner;
    },
  ) {}

  /**
   * The comments of a website for an actor who moderates it (its editors and site admins, and
   * administrators): ForbiddenError for anyone else.
   */
  async listOn(actor: Actor, websiteId: number, query: Omit<ModerationQuery, 'websiteId'>) {
    await this.requireModerator(actor, websiteId);
    const comments = await this.list({ ...query, websiteId });
    // The comments the replies answer, in one query (a deleted one: null).
    const parentIds = [...new Set(comments.flatMap((comment) => comment.parentId ?? []))];
    const parents =
      parentIds.length === 0
        ? []
        : await this.db
            .selectFrom('comments')
            .select(['id', 'author_name', 'content'])
            .where('id', 'in', parentIds)
            .execute();
    const byId = new Map(parents.map((row) => [row.id, row]));
    return comments.map((comment) => {
      const parent = comment.parentId === null ? undefined : byId.get(comment.parentId);
      return {
        ...comment,
        parent: parent ? { id: parent.id, authorName: parent.author_name, content: parent.content } : null,
      };
    });
  }

  /** How many comments each tab of the website's queue holds, for an actor who moderates it. */
  async countsOn(actor: Actor, websiteId: number): Promise<ModerationCounts> {
    await this.requireModerator(actor, websiteId);
    const rows = await this.db
      .selectFrom('comments')
      .innerJoin('posts', 'posts.id', 'comments.post_id')
      .select((eb) => [
        'comments.status',
        eb.fn.countAll<string | number>().as('total'),
        eb.fn
          .sum<string | number | null>(eb.case().when('comments.reports', '>', 0).then(1).else(0).end())
          .as('reported'),
      ])
      .where((eb) => madeOnWebsite(eb, websiteId))
      .groupBy('comments.status')
      .execute();
    const counts: ModerationCounts = { pending: 0, reported: 0, spam: 0, approved: 0 };
    for (const row of rows) {
      const status = row.status as keyof ModerationCounts;
      if (status in counts && status !== 'reported') counts[status] = Number(row.total);
      if (row.status !== 'spam') counts.reported += Number(row.reported ?? 0);
    }
    return counts;
  }

  /**
   * Approves, marks as spam or deletes comments shown on a website the actor moderates; comments
   * of other websites are left alone (answered as not found). Answers the ids acted on.
   */
  /**
   * Moderates comments by id wherever they were made (the CLI's `comment:approve|spam|delete`):
   * administrators only. Answers the ids it changed.
   */
  async moderateAll(actor: Actor, ids: readonly number[], action: ModerationAction): Promise<number[]> {
    return this.deps.runner.run(async () => {
      if (!(await this.deps.policy.can(actor, 'comment.moderate_all', {}))) throw new ForbiddenError();
      const valid = [...new Set(ids)].filter(isStorableId);
      if (valid.length > MAX_MODERATION_BATCH) {
        throw new InputError('ids', `At most ${MAX_MODERATION_BATCH} comments at a time.`);
      }
      if (valid.length === 0) return [];
      const done = await this.moderated(valid, action);
      for (const id of done) {
        await recordWrite(this.deps.audit, actor, {
          action: `comment.${action}`,
          resourceType: 'comment',
          resourceId: id,
          websiteIds: [],
        });
      }
      return done;
    });
  }

  async moderateOn(
    actor: Actor,
    websiteId: number,
    ids: readonly number[],
    action: ModerationAction,
  ): Promise<number[]> {
    return this.deps.runner.run(async () => {
      await this.requireModerator(actor, websiteId);
      const valid = [...new Set(ids)].filter(isStorableId);
      if (valid.length > MAX_MODERATION_BATCH) {
        throw new InputError('ids', `At most ${MAX_MODERATION_BATCH} comments at a time.`);
      }
      if (valid.length === 0) return [];
      const shown = await this.db
        .selectFrom('comments')
        .innerJoin('posts', 'posts.id', 'comments.post_id')
        .select('comments.id')
        .where('comments.id', 'in', valid)
        .where((eb) => madeOnWebsite(eb, websiteId))
        .execute();
      const done = await this.moderated(
        shown.map((row) => row.id),
        action,
      );
      for (const id of done) {
        await recordWrite(this.deps.audit, actor, {
          action: `comment.${action}`,
          resourceType: 'comment',
          resourceId: id,
          websiteIds: [websiteId],
        });
      }
      return done;
    });
  }

  /**
   * The held comments of one post shown on a website, for the post page's "N comments waiting"
   * notice: null unless the actor moderates the website (the notice is then not shown at all).
   */
  async waitingOn(actor: Actor, websiteId: number, postId: number): Promise<WaitingComments | null> {
    if (actor.userId === null || !isStorableId(postId)) return null;
    if (!(await this.moderates(actor, websiteId))) return null;
    const where = this.db
      .selectFrom('comments')
      .innerJoin('posts', 'posts.id', 'comments.post_id')
      .where('comments.post_id', '=', postId)
      .where('comments.status', '=', 'pending')
      .where((eb) => madeOnWebsite(eb, websiteId));
    const [counted, rows] = await Promise.all([
      where.select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow(),
      where
        .select([
          'comments.id',
          'comments.author_name',
          'comments.author_email',
          'comments.content',
          'comments.created_at',
        ])
        .orderBy('comments.id', 'asc')
        .limit(MAX_WAITING_SHOWN)
        .execute(),
    ]);
    return {
      count: Number(counted.count),
      items: rows.map((row) => ({
        id: row.id,
        authorName: row.author_name ?? '',
        authorEmail: row.author_email ?? '',
        content: row.content,
        createdAt: toIso(row.created_at),
      })),
    };
  }

  private async moderates(actor: Actor, websiteId: number): Promise<boolean> {
    return this.deps.policy.can(actor, 'comment.moderate', { websiteId });
  }

  /** NotFoundError when the actor does not see the website at all, ForbiddenError unless they moderate it. */
  private async requireModerator(actor: Actor, websiteId: number): Promise<void> {
    if (!(await this.deps.policy.can(actor, 'website.see', { websiteId })))
      throw new NotFoundError('Website not found');
    if (!(await this.moderates(actor, websiteId))) throw new ForbiddenError();
  }

  /** The website's moderation mode and held words, for its moderators. */
  async settingsOn(actor: Actor, websiteId: number): Promise<ModerationSettings> {
    await this.requireModerator(actor, websiteId);
    return moderationSettings(this.requireSettings(), websiteId);
  }

  /**
   * Changes the website's moderation mode (null: the installation's) and held words: whoever manages
   * the website (its site admins, owners, administrators).
   */
  async setSettingsOn(actor: Actor, websiteId: number, raw: unknown): Promise<ModerationSettings> {
    return this.deps.runner.run(async () => {
      const input = parse(moderationSettingsInput, raw);
      const policy = this.deps.policy;
      if (!(await policy.can(actor, 'website.see', { websiteId })))
        throw new NotFoundError('Website not found');
      if (!(await policy.can(actor, 'website.settings', { websiteId }))) throw new ForbiddenError();
      const settings = this.requireSettings();
      const values: Record<string, string> = {};
      if (input.mode === null) await settings.delete(siteModerationKey(websiteId));
      else if (input.mode !== undefined) values[siteModerationKey(websiteId)] = input.mode;
      if (input.held_words !== undefined) values[heldWordsKey(websiteId)] = storeWords(input.held_words);
      if (Object.keys(values).length > 0) await settings.setMany(values);
      await recordWrite(this.deps.audit, actor, {
        action: 'comment.settings',
        resourceType: 'website',
        resourceId: websiteId,
        websiteIds: [websiteId],
        input,
      });
      return moderationSettings(settings, websiteId);
    });
  }

  /**
   * The actor answers a comment shown on the website (their editors and site admins): the reply is
   * theirs, published at once, under the same post; a held comment answered is approved with it.
   */
  async replyOn(actor: Actor, websiteId: number, commentId: number, raw: unknown): Promise<ModeratedComment> {
    return this.deps.runner.run(async () => {
      await this.requireModerator(actor, websiteId);
      const input = parse(replyInput, raw);
      const content = sanitizeComment(input.content);
      if (content === '') throw new InputError('content', 'The content field is required.');
      if (!isStorableId(commentId) || actor.userId === null) throw new NotFoundError('Comment not found');
      const userId = actor.userId;
      const reply = await this.db.transaction().execute(async (trx) => {
        const parent = await trx
          .selectFrom('comments')
          .innerJoin('posts', 'posts.id', 'comments.post_id')
          .select(['comments.id', 'comments.post_id', 'comments.status', 'posts.title'])
          .where('comments.id', '=', commentId)
          .where((eb) => madeOnWebsite(eb, websiteId))
          .executeTakeFirst();
        if (!parent) throw new NotFoundError('Comment not found');
        if (parent.status === 'spam') {
          throw new ConflictError('The comment is marked as spam: approve it before answering it.');
        }
        const author = await trx
          .selectFrom('users')
          .select(['name', 'email'])
          .where('id', '=', userId)
          .executeTakeFirstOrThrow();
        const now = nowIso(this.clock);
        if (parent.status === 'pending') {
          await trx
            .updateTable('comments')
            .set({ status: 'approved', updated_at: now })
            .where('id', '=', parent.id)
            .execute();
        }
        const row = await trx
          .insertInto('comments')
          .values({
            post_id: parent.post_id,
            user_id: userId,
            parent_id: parent.id,
            website_id: websiteId,
            author_name: author.name,
            author_email: author.email,
            content,
            status: 'approved',
            ip_hash: null,
            user_agent: null,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return {
          id: row.id,
          postId: parent.post_id,
          postTitle: parent.title,
          parentId: parent.id,
          authorName: author.name,
          authorEmail: author.email,
          userId,
          content,
          status: 'approved' as const,
          reports: 0,
          createdAt: now,
        };
      });
      await this.announce([{ post_id: reply.postId }]);
      await recordWrite(this.deps.audit, actor, {
        action: 'comment.reply',
        resourceType: 'comment',
        resourceId: reply.id,
        websiteIds: [websiteId],
        input: { parent_id: commentId, content },
      });
      return reply;
    });
  }

  private requireSettings(): SettingsService {
    if (!this.deps.settings) throw new Error('CommentModeration without settings');
    return this.deps.settings;
  }

  /** Comments, newest first, by status and website. */
  async list(query: ModerationQuery = {}): Promise<ModeratedComment[]> {
    let select = this.db
      .selectFrom('comments')
      .innerJoin('posts', 'posts.id', 'comments.post_id')
      .select([
        'comments.id',
        'comments.post_id',
        'posts.title as post_title',
        'comments.parent_id',
        'comments.author_name',
        'comments.author_email',
        'comments.user_id',
        'comments.content',
        'comments.status',
        'comments.reports',
        'comments.created_at',
      ]);
    if (query.status !== undefined) select = select.where('comments.status', '=', query.status);
    if (query.reported) {
      select = select.where('comments.reports', '>', 0).where('comments.status', '<>', 'spam');
    }
    const websiteId = query.websiteId;
    if (websiteId !== undefined) {
      // Comments made on the website (issue 34 #7), not those made on another website under a post
      // both show.
      select = select.where((eb) => madeOnWebsite(eb, websiteId));
    }
    const limit = Math.min(Math.max(query.limit ?? 100, 1), MAX_MODERATION_BATCH);
    if (query.reported) select = select.orderBy('comments.reports', 'desc');
    const rows = await select.orderBy('comments.id', 'desc').limit(limit).execute();
    return rows.map((row) => ({
      id: row.id,
      postId: row.post_id,
      postTitle: row.post_title,
      parentId: row.parent_id,
      authorName: row.author_name,
      authorEmail: row.author_email,
      userId: row.user_id,
      content: row.content,
      status: row.status as CommentStatus,
      reports: row.reports,
      createdAt: toIso(row.created_at),
    }));
  }

  /**
   * Sets the status of comments, as the system (no actor, not audited: tests and tools); answers the
   * ids that exist (changed or already so). One operation: the threads it touched are announced.
   */
  setStatus(ids: readonly number[], status: CommentStatus): Promise<number[]> {
    return this.deps.runner.run(async () => {
      const found = await this.writeStatus(ids, status);
      await this.announce(found);
      return found.map((row) => row.id);
    });
  }

  /** Deletes comments (and their replies), as the system (as setStatus); answers the ids that existed. */
  delete(ids: readonly number[]): Promise<number[]> {
    return this.deps.runner.run(async () => {
      const found = await this.deleteRows(ids);
      await this.announce(found);
      return found.map((row) => row.id);
    });
  }

  /** The moderation's write, in the operation: answers the ids acted on, announcing their threads. */
  private async moderated(ids: readonly number[], action: ModerationAction): Promise<number[]> {
    const found =
      action === 'delete'
        ? await this.deleteRows(ids)
        : await this.writeStatus(ids, action === 'approve' ? 'approved' : 'spam');
    await this.announce(found);
    return found.map((row) => row.id);
  }

  /** Sets the status of the comments that exist; answers them (the caller announces). */
  private async writeStatus(
    ids: readonly number[],
    status: CommentStatus,
  ): Promise<{ id: number; post_id: number }[]> {
    if (!(MODERATION_STATUSES as readonly string[]).includes(status)) {
      throw new InputError('status', 'The selected status is invalid.');
    }
    const found = await this.existing(ids);
    if (found.length === 0) return [];
    const done = found.map((row) => row.id);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('comments')
        .set({ status, updated_at: nowIso(this.clock), ...(status === 'approved' ? { reports: 0 } : {}) })
        .where('id', 'in', done)
        .execute();
      // An approval answers the reports: they leave the reported queue, and later reports count anew.
      if (status === 'approved') {
        await trx
          .deleteFrom('comment_votes')
          .where('comment_id', 'in', done)
          .where('kind', '=', 'report')
          .execute();
      }
    });
    return found;
  }

  /** Deletes the comments that exist (and their replies); answers them (the caller announces). */
  private async deleteRows(ids: readonly number[]): Promise<{ id: number; post_id: number }[]> {
    const found = await this.existing(ids);
    if (found.length === 0) return [];
    await this.db
      .deleteFrom('comments')
      .where(
        'id',
        'in',
        found.map((row) => row.id),
      )
      .execute();
    return found;
  }

  private async existing(ids: readonly number[]): Promise<{ id: number; post_id: number }[]> {
    if (ids.length > MAX_MODERATION_BATCH) {
      throw new InputError('ids', `At most ${MAX_MODERATION_BATCH} comments at a time.`);
    }
    const valid = [...new Set(ids)].filter(isStorableId);
    if (valid.length === 0) return [];
    return this.db.selectFrom('comments').select(['id', 'post_id']).where('id', 'in', valid).execute();
  }

  /** Announces the threads of these comments (each post once), inside the operation. */
  private async announce(rows: readonly { post_id: number }[]): Promise<void> {
    for (const postId of new Set(rows.map((row) => row.post_id))) {
      await this.changes.announce({ kind: 'comments', postId });
    }
  }
}
