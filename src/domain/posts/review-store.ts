// The review workflow's storage (issue 20 #4): each step changes the post's status and adds a row to
// its review history in one transaction, then announces the post's change. No actor, no permission:
// review.ts asks the policy first.
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import type { Db } from '../../db/database.js';
import { toIso } from '../values.js';
import { livePostsOn } from './queries.js';
import { POST_MODEL, REVIEW_STATUS } from './model.js';

export type ReviewDecision = 'submitted' | 'approved' | 'returned';

/** The newest step of a post's review, as its writer and its editors see it. */
export interface ReviewStep {
  decision: ReviewDecision;
  note: string | null;
  /** Who took the step (null: a user since deleted). */
  userId: number | null;
  userName: string | null;
  at: string;
}

export interface PendingPost {
  id: number;
  title: string;
  slug: string;
  authorId: number | null;
  authorName: string | null;
  submittedAt: string;
}

export interface ReviewWrite {
  postId: number;
  userId: number | null;
  decision: ReviewDecision;
  /** The status the post takes. */
  status: 'draft' | 'pending' | 'published' | 'scheduled';
  /** Approving: the publication time (null: now, unless the post has one). */
  publishedAt?: string | null;
  note?: string | null;
  /** The status the post must still have (a concurrent step loses: false is returned). */
  expectedStatus: string;
}

export class PostReviewStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Takes one step; false when the post no longer has the expected status (someone was first). */
  async step(write: ReviewWrite): Promise<boolean> {
    const now = nowIso(this.clock);
    const taken = await this.db.transaction().execute(async (trx) => {
      const changes: Record<string, unknown> = { status: write.status, updated_at: now };
      if (write.publishedAt !== undefined && write.publishedAt !== null)
        changes.published_at = write.publishedAt;
      const result = await trx
        .updateTable('posts')
        .set(changes)
        .where('id', '=', write.postId)
        .where('type', '=', POST_MODEL)
        .where('deleted_at', 'is', null)
        .where('status', '=', write.expectedStatus)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      if (write.status === 'published' && !write.publishedAt) {
        // Published now, unless the post already has a time of its own.
        await trx
          .updateTable('posts')
          .set({ published_at: now })
          .where('id', '=', write.postId)
          .where('published_at', 'is', null)
          .execute();
      }
      await trx
        .insertInto('post_reviews')
        .values({
          post_id: write.postId,
          user_id: write.userId,
          decision: write.decision,
          note: write.note ?? null,
          created_at: now,
        })
        .execute();
      return true;
    });
    return taken;
  }

  /** The newest review step of a post, or null when it was never submitted. */
  async latest(postId: number): Promise<ReviewStep | null> {
    const row = await this.db
      .selectFrom('post_reviews')
      .leftJoin('users', 'users.id', 'post_reviews.user_id')
      .select([
        'post_reviews.decision',
        'post_reviews.note',
        'post_reviews.user_id',
        'post_reviews.created_at',
        'users.name',
      ])
      .where('post_reviews.post_id', '=', postId)
      .orderBy('post_reviews.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row) return null;
    return {
      decision: row.decision as ReviewDecision,
      note: row.note,
      userId: row.user_id,
      userName: row.name ?? null,
      at: toIso(row.created_at),
    };
  }

  /** Posts waiting for review on a website (bound to it, or global), the longest waiting first. */
  async pendingOn(websiteId: number, limit: number): Promise<PendingPost[]> {
    const rows = await livePostsOn(this.db, websiteId)
      .leftJoin('users', 'users.id', 'posts.author_id')
      .select(['posts.id', 'posts.title', 'posts.slug', 'posts.author_id', 'posts.updated_at', 'users.name'])
      .where('posts.status', '=', REVIEW_STATUS)
      .orderBy('posts.updated_at', 'asc')
      .orderBy('posts.id', 'asc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      title: row.title,
      slug: row.slug,
      authorId: row.author_id,
      authorName: row.name ?? null,
      submittedAt: toIso(row.updated_at),
    }));
  }
}
