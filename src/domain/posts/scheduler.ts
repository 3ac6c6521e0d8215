// Scheduled publishing: a `scheduled` post whose published_at has come becomes `published` without
// anyone calling the API. Every app node runs this job; the work is one conditional UPDATE in the
// database (PostsService.publishDue), so each post is published exactly once however many nodes run.
// Each run also compacts the post counters (PostsService.compactCounts).
// With `announce`, the publishing runs as one operation (run.ts) that records a `post.publish` audit
// entry per post by the system: its outbox rows make the event durable, so webhooks tell
// `post.published` once, whichever node published it.
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { Actor } from '../policy.js';
import type { PostsService } from './index.js';
import type { OperationRunner } from '../run.js';
import type { ContentChanges } from '../changes.js';

/** Folio itself, publishing what was scheduled (the audit log's "by the system"). */
const SCHEDULER_ACTOR: Actor = Object.freeze({
  userId: null,
  isAdmin: true,
  websiteId: null,
  origin: Object.freeze({ surface: 'system' as const }),
});

export interface SchedulerOptions {
  /** How often to look for due posts, in milliseconds. */
  intervalMs?: number;
  onPublished?: (ids: number[]) => void;
  onError?: (error: unknown) => void;
  /**
   * Publish in an operation, audited and announced, so that the caches and the listeners (webhooks)
   * hear of each post. Without it (tests of the timing alone) nothing is told.
   */
  announce?: { runner: OperationRunner; audit: AuditLog; changes: ContentChanges };
}

export const DEFAULT_SCHEDULER_INTERVAL_MS = 15_000;

export class PostScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number[]> | null = null;

  constructor(
    private readonly posts: PostsService,
    private readonly options: SchedulerOptions = {},
  ) {}

  /** Runs once now, then every interval. The timer never keeps the process alive by itself. */
  start(): void {
    if (this.timer) return;
    void this.tick();
    this.timer = setInterval(
      () => void this.tick(),
      this.options.intervalMs ?? DEFAULT_SCHEDULER_INTERVAL_MS,
    );
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  private publishDue(): Promise<number[]> {
    const announce = this.options.announce;
    if (!announce) return this.posts.publishDue();
    return announce.runner.run(async () => {
      const ids = await this.posts.publishDue();
      if (ids.length > 0) await announce.changes.announce({ kind: 'post', ids });
      for (const id of ids) {
        const post = await this.posts.findDetail(id);
        await recordWrite(announce.audit, SCHEDULER_ACTOR, {
          action: 'post.publish',
          resourceType: 'post',
          resourceId: id,
          websiteIds: post?.websiteIds ?? [],
        });
      }
      return ids;
    });
  }

  /** One run: publishes what is due; returns the ids this run published. Runs never overlap. */
  async tick(): Promise<number[]> {
    if (this.running) return [];
    this.running = this.publishDue()
      .then((ids) => {
        if (ids.length > 0) this.options.onPublished?.(ids);
        return ids;
      })
      .catch((error: unknown) => {
        this.options.onError?.(error);
        return [] as number[];
      })
      // Then the post counters' delta rows are folded (they grow by a few rows per post write).
      .then(async (ids) => {
        await this.posts.compactCounts().catch((error: unknown) => this.options.onError?.(error));
        return ids;
      })
      .finally(() => (this.running = null));
    return this.running;
  }
}
