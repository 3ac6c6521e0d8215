// Comments under posts: storing (validated, sanitized, moderated), the thread of a post (one query,
// the tree built in memory), and likes and reports counted once per voter. No HTTP here: the public
// site's routes call this service.
import sanitizeHtml from 'sanitize-html';
import { pageTags } from '../cache-tags.js';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import { nowIso } from '../clock.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { ContentChanges } from '../changes.js';
import type { OperationRunner, WriteScope } from '../run.js';
import type { Actor } from '../policy.js';
import type { Clock } from '../clock.js';
import type { HeldComment } from './comment-notices.js';
import { INSTALLATION_MODERATION_SETTING, containsHeldWord, moderationSettings } from './comment-rules.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import { isStorableId } from '../ids.js';
import type { SettingsService } from '../system/settings.js';
import { toIso } from '../values.js';

export const COMMENT_SETTINGS = {
  /** Comments on or off for every website (default on). */
  enabled: 'enable_comments',
  /** The installation's moderation mode (comment-rules.ts; a website may have its own). */
  moderation: INSTALLATION_MODERATION_SETTING,
  /** Reports after which an approved comment is held for moderation again (default 5; 0 never). */
  reportThreshold: 'comments_report_threshold',
} as const;

export const DEFAULT_REPORT_THRESHOLD = 5;

export const MAX_COMMENT_LENGTH = 5000;
export const MAX_NAME_LENGTH = 100;
export const MAX_EMAIL_LENGTH = 255;
/** Replies deeper than this are shown at this depth (under their deepest shown ancestor). */
export const MAX_THREAD_DEPTH = 5;
/** The most comments one thread shows (the oldest first). */
export const MAX_THREAD_SIZE = 1000;

export type CommentStatus = 'pending' | 'approved' | 'spam';
export type VoteKind = 'like' | 'report';

/** The cache tag of one post's pages: flushed when its thread changes. */
/** The full-page cache tag of a post's pages (flushed when its thread changes). */
export const postCacheTag = pageTags.post;

export interface CommentAuthor {
  id: number;
  name: string;
  email: string;
}

export interface NewComment {
  postId: unknown;
  parentId?: unknown;
  content: unknown;
  name?: unknown;
  email?: unknown;
  /** The signed-in visitor, or null for an anonymous comment (then name and email are required). */
  user: CommentAuthor | null;
  /** The website the comment is posted on: the post must be shown there. */
  websiteId: number;
  ipHash: string;
  userAgent: string;
  /** Who writes, for the audit log (absent: not recorded). */
  actor?: Actor;
}

export interface StoredComment {
  id: number;
  postId: number;
  postSlug: string;
  status: CommentStatus;
}

export interface CommentNode {
  id: number;
  parent_id: number | null;
  author_name: string;
  /** Sanitized HTML (see sanitizeComment). */
  content: string;
  status: CommentStatus;
  pending: boolean;
  likes: number;
  created_at: string;
  depth: number;
  children: CommentNode[];
}

export interface VoteOutcome {
  /** The vote was new (false: this voter had voted already). */
  counted: boolean;
  likes: number;
  reports: number;
  postId: number;
  postSlug: string;
}

/** Input that breaks a rule: field -> messages (R-V2 forms), a ValidationError like every other. */
export class CommentInputError extends ValidationError {
  constructor(readonly errors: Record<string, string[]>) {
    super(errors);
  }
}

/** Comments are switched off (COMMENT_SETTINGS.enabled): nothing is stored or counted. Faces: 403. */
export class CommentsClosedError extends ForbiddenError {
  constructor() {
    super('Comments are closed.');
  }
}

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'b', 'strong', 'i', 'em', 'code', 'pre', 'blockquote', 'a', 'ul', 'ol', 'li'],
  allowedAttributes: { a: ['href', 'rel'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  // Tags outside the list are dropped with their text kept; script/style/textarea… with their content.
  disallowedTagsMode: 'discard',
  transformTags: {
    // Links of visitors carry no weight for search engines and no access to this page.
    a: (_tag, attribs) => ({
      tagName: 'a',
      attribs: {
        ...(attribs.href ? { href: attribs.href } : {}),
        rel: 'nofollow ugc noopener noreferrer',
      },
    }),
  },
};

/** A visitor's comment as HTML that is safe to show: a few inline tags, http(s)/mailto links only. */
export function sanitizeComment(text: string): string {
  return sanitizeHtml(text.replace(/\r\n?/g, '\n'), SANITIZE_OPTIONS).trim();
}

// A practical email check (one @, a dot in the domain, no spaces); the address is never mailed to.
const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

function stringField(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** An id field: a positive integer (number or digits), else an error message; null when absent. */
function idField(value: unknown, attr: string): number | null | string {
  if (value === undefined || value === null || value === '') return null;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (!/^\d{1,16}$/.test(text)) return `The ${attr} must be an integer.`;
  return Number(text);
}

export class CommentsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    /** Told when a post's pages show something new (the page cache flushes that post's pages). */
    private readonly changes: ContentChanges,
    /** Every write runs as one operation (run.ts): the row, its audit row and its announcement. */
    private readonly runner: OperationRunner,
    private readonly audit?: AuditLog,
    /** Told of every comment held for moderation, once it is committed (the administrators' mail). */
    private readonly onHeld?: (comment: HeldComment) => void,
  ) {}

  async enabled(): Promise<boolean> {
    return this.settings.flag(COMMENT_SETTINGS.enabled, true);
  }

  /**
   * Throws CommentsClosedError when comments are off. `store` and `vote` ask it themselves; a face may
   * ask it first to refuse before spending its own checks (a rate limit) on a closed site.
   */
  async requireOpen(): Promise<void> {
    if (!(await this.enabled())) throw new CommentsClosedError();
  }

  /**
   * The status of a new comment on a website: its moderation mode decides (comment-rules.ts), and a
   * comment it would publish is held all the same when it contains one of the website's held words.
   */
  private async statusOf(
    websiteId: number,
    author: { userId: number | null; email: string | null },
    content: string,
  ): Promise<CommentStatus> {
    const rules = await moderationSettings(this.settings, websiteId);
    let approved: boolean;
    switch (rules.mode) {
      case 'none':
        approved = true;
        break;
      case 'anonymous':
        approved = author.userId !== null;
        break;
      case 'first':
        approved = await this.approvedBefore(author);
        break;
      case 'all':
        approved = false;
        break;
    }
    return approved && !containsHeldWord(content, rules.heldWords) ? 'approved' : 'pending';
  }

  /** Has this commenter (the user, or anyone with this email address) a comment approved already? */
  private async approvedBefore(author: { userId: number | null; email: string | null }): Promise<boolean> {
    const email = author.email?.trim().toLowerCase() ?? '';
    if (author.userId === null && email === '') return false;
    const row = await this.db
      .selectFrom('comments')
      .select('id')
      .where('status', '=', 'approved')
      .where((eb) =>
        eb.or([
          ...(author.userId === null ? [] : [eb('user_id', '=', author.userId)]),
          ...(email === '' ? [] : [eb(eb.fn('lower', ['author_email']), '=', email)]),
        ]),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** A published post of type `post` shown on the website, or null. */
  async commentablePost(postId: number, websiteId: number): Promise<{ id: number; slug: string } | null> {
    if (!isStorableId(postId)) return null;
    const row = await this.db
      .selectFrom('posts')
      .select(['posts.id', 'posts.slug'])
      .where('posts.id', '=', postId)
      .where('posts.type', '=', 'post')
      .where((eb) => publishedOn(eb, websiteId))
      .executeTakeFirst();
    return row ?? null;
  }

  /**
   * Validates, sanitizes and stores a comment; its status follows the moderation setting. One
   * operation (run.ts): the checks, the row, its audit row and its announcement commit together.
   */
  store(input: NewComment): Promise<StoredComment> {
    return this.runner.run((scope) => this.storeIn(input, scope));
  }

  private async storeIn(input: NewComment, scope: WriteScope): Promise<StoredComment> {
    await this.requireOpen();
    const errors: Record<string, string[]> = {};
    const fail = (field: string, message: string) => (errors[field] ??= []).push(message);

    const postId = idField(input.postId, 'post id');
    if (postId === null) fail('post_id', 'The post id field is required.');
    else if (typeof postId === 'string') fail('post_id', postId);
    const parentId = idField(input.parentId, 'parent id');
    if (typeof parentId === 'string') fail('parent_id', parentId);

    const rawContent = stringField(input.content);
    let content = '';
    if (input.content !== undefined && input.content !== null && rawContent === undefined) {
      fail('content', 'The content must be a string.');
    } else if ((rawContent ?? '').trim() === '') {
      fail('content', 'The content field is required.');
    } else if (rawContent!.length > MAX_COMMENT_LENGTH) {
      fail('content', `The content may not be greater than ${MAX_COMMENT_LENGTH} characters.`);
    } else {
      content = sanitizeComment(rawContent!);
      if (content === '') fail('content', 'The content field is required.');
    }

    let name: string;
    let email: string | null;
    if (input.user) {
      name = input.user.name;
      email = input.user.email;
    } else {
      name = (stringField(input.name) ?? '').trim();
      email = (stringField(input.email) ?? '').trim();
      if (name === '') fail('name', 'The name field is required.');
      else if (name.length > MAX_NAME_LENGTH)
        fail('name', `The name may not be greater than ${MAX_NAME_LENGTH} characters.`);
      if (email === '') fail('email', 'The email field is required.');
      else if (email.length > MAX_EMAIL_LENGTH)
        fail('email', `The email may not be greater than ${MAX_EMAIL_LENGTH} characters.`);
      else if (!EMAIL.test(email)) fail('email', 'The email must be a valid email address.');
    }

    let post: { id: number; slug: string } | null = null;
    if (typeof postId === 'number') {
      post = await this.commentablePost(postId, input.websiteId);
      if (!post) fail('post_id', 'The selected post id is invalid.');
    }
    // A reply answers a published comment of the same post.
    if (post && typeof parentId === 'number') {
      const parent = isStorableId(parentId)
        ? await this.db
            .selectFrom('comments')
            .select('id')
            .where('id', '=', parentId)
            .where('post_id', '=', post.id)
            .where('status', '=', 'approved')
            .executeTakeFirst()
        : undefined;
      if (!parent) fail('parent_id', 'The selected parent id is invalid.');
    }
    if (Object.keys(errors).length > 0 || !post) throw new CommentInputError(errors);

    const status = await this.statusOf(input.websiteId, { userId: input.user?.id ?? null, email }, content);
    const now = nowIso(this.clock);
    const row = await this.db
      .insertInto('comments')
      .values({
        post_id: post.id,
        user_id: input.user?.id ?? null,
        parent_id: typeof parentId === 'number' ? parentId : null,
        website_id: input.websiteId,
        author_name: name,
        author_email: email,
        content,
        status,
        ip_hash: input.ipHash,
        user_agent: input.userAgent.slice(0, 500),
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (status === 'approved') await this.threadChanged(post.id);
    else {
      const held: HeldComment = {
        commentId: row.id,
        postId: post.id,
        postSlug: post.slug,
        websiteId: input.websiteId,
        authorName: name,
        content,
      };
      // The moderators hear of a held comment only once it is kept.
      scope.afterCommit(() => this.onHeld?.(held));
    }
    if (input.actor) {
      await recordWrite(this.audit, input.actor, {
        action: 'comment.create',
        resourceType: 'comment',
        resourceId: row.id,
        websiteIds: [input.websiteId],
        input: { post_id: post.id, content, ...(parentId ? { parent_id: parentId } : {}) },
      });
    }
    return { id: row.id, postId: post.id, postSlug: post.slug, status };
  }

  /**
   * The comments shown under a post: the approved ones, plus the viewer's own pending ones, as a
   * tree (one query). Replies to a comment that is not shown are not shown either.
   */
  async thread(postId: number, viewerId: number | null): Promise<{ comments: CommentNode[]; count: number }> {
    if (!isStorableId(postId)) return { comments: [], count: 0 };
    const rows = await this.db
      .selectFrom('comments')
      .select(['id', 'parent_id', 'author_name', 'content', 'status', 'likes', 'created_at'])
      .where('post_id', '=', postId)
      .where((eb) =>
        viewerId === null
          ? eb('status', '=', 'approved')
          : eb.or([
              eb('status', '=', 'approved'),
              eb.and([eb('status', '=', 'pending'), eb('user_id', '=', viewerId)]),
            ]),
      )
      .orderBy('id', 'asc') // a parent is always older than its replies
      .limit(MAX_THREAD_SIZE)
      .execute();

    const nodes = new Map<number, CommentNode>();
    const roots: CommentNode[] = [];
    for (const row of rows) {
      const node: CommentNode = {
        id: row.id,
        parent_id: row.parent_id,
        author_name: row.author_name ?? '',
        content: row.content,
        status: row.status as CommentStatus,
        pending: row.status === 'pending',
        likes: Number(row.likes),
        created_at: toIso(row.created_at),
        depth: 0,
        children: [],
      };
      if (row.parent_id === null) {
        roots.push(node);
      } else {
        let parent = nodes.get(row.parent_id);
        if (!parent) continue; // its parent is not shown
        // Too deep: shown beside its parent, under the deepest ancestor that may have replies.
        while (parent.depth >= MAX_THREAD_DEPTH - 1 && parent.parent_id !== null) {
          const up = nodes.get(parent.parent_id);
          if (!up) break;
          parent = up;
        }
        node.depth = parent.depth + 1;
        parent.children.push(node);
      }
      nodes.set(row.id, node);
    }
    let count = 0;
    const countShown = (list: CommentNode[]) =>
      list.forEach((node) => {
        count += 1;
        countShown(node.children);
      });
    countShown(roots);
    return { comments: roots, count };
  }

  /**
   * A like or a report of a published comment shown on the website, counted once per voter (a unique
   * row, then an atomic increment: no read-modify-write). Enough reports from distinct signed-in users
   * (voters `u:…`) hold the comment for moderation again; anonymous reports are counted for the
   * moderators but hide nothing (one person with many addresses could hide any comment). Null when
   * there is no such comment. One operation (run.ts): the vote and its announcement commit together.
   */
  vote(commentId: number, kind: VoteKind, voter: string, websiteId: number): Promise<VoteOutcome | null> {
    return this.runner.run(() => this.voteIn(commentId, kind, voter, websiteId));
  }

  private async voteIn(
    commentId: number,
    kind: VoteKind,
    voter: string,
    websiteId: number,
  ): Promise<VoteOutcome | null> {
    await this.requireOpen();
    if (!isStorableId(commentId)) return null;
    const comment = await this.db
      .selectFrom('comments')
      .innerJoin('posts', 'posts.id', 'comments.post_id')
      .select(['comments.id', 'comments.post_id', 'posts.slug'])
      .where('comments.id', '=', commentId)
      .where('comments.status', '=', 'approved')
      .where((eb) => publishedOn(eb, websiteId))
      .executeTakeFirst();
    if (!comment) return null;
    const threshold = await this.reportThreshold();
    const now = nowIso(this.clock);

    const outcome = await this.db.transaction().execute(async (trx) => {
      // ON CONFLICT DO NOTHING: of two concurrent identical votes, one inserts and the other counts 0.
      const inserted = await trx
        .insertInto('comment_votes')
        .values({ comment_id: commentId, kind, voter, created_at: now })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      const counted = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
      if (counted) {
        let update = trx.updateTable('comments').where('id', '=', commentId);
        if (kind === 'like') {
          update = update.set((eb) => ({ likes: eb('likes', '+', 1) }));
        } else {
          update = update.set((eb) => ({ reports: eb('reports', '+', 1) }));
        }
        await update.execute();
        if (kind === 'report' && threshold > 0 && voter.startsWith('u:')) {
          const byUsers = await trx
            .selectFrom('comment_votes')
            .select((eb) => eb.fn.countAll<number | string>().as('count'))
            .where('comment_id', '=', commentId)
            .where('kind', '=', 'report')
            .where('voter', 'like', 'u:%')
            .executeTakeFirstOrThrow();
          if (Number(byUsers.count) >= threshold) {
            await trx
              .updateTable('comments')
              .set({ status: 'pending' })
              .where('id', '=', commentId)
              .where('status', '=', 'approved')
              .execute();
          }
        }
      }
      const after = await trx
        .selectFrom('comments')
        .select(['likes', 'reports', 'status'])
        .where('id', '=', commentId)
        .executeTakeFirstOrThrow();
      return { counted, after };
    });
    if (outcome.counted) {
      // A like changes a number on the post's pages; a comment held after reports leaves the thread.
      if (kind === 'like' || outcome.after.status !== 'approved') await this.threadChanged(comment.post_id);
    }
    return {
      counted: outcome.counted,
      likes: Number(outcome.after.likes),
      reports: Number(outcome.after.reports),
      postId: comment.post_id,
      postSlug: comment.slug,
    };
  }

  private async reportThreshold(): Promise<number> {
    const value = Number((await this.settings.get(COMMENT_SETTINGS.reportThreshold))?.trim());
    return Number.isInteger(value) && value >= 0 ? value : DEFAULT_REPORT_THRESHOLD;
  }

  /** The post's pages show another thread or count: announced like every other content change. */
  private async threadChanged(postId: number): Promise<void> {
    await this.changes.announce({ kind: 'comments', postId });
  }
}

/** WHERE the post (the query's `posts`) is published, not deleted, and shown on the website. */
function publishedOn<TB extends keyof Database>(
  eb: ExpressionBuilder<Database, TB>,
  websiteId: number,
): Expression<SqlBool> {
  const e = eb as unknown as ExpressionBuilder<Database, 'posts'>;
  return e.and([
    e('posts.status', '=', 'published'),
    e('posts.deleted_at', 'is', null),
    visibleOnWebsite(e, 'post', e.ref('posts.id'), websiteId),
  ]);
}
