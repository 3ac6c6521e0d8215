// Scheduled publishing: a `scheduled` post whose published_at has come becomes `published` without
// anyone calling the API. Every app node runs this job; the work is one conditional UPDATE in the
// database (PostsService.publishDue), so each post is published exactly once however many nodes run.
// Each run also compacts the post counters (PostsService.compactCounts).
import type { PostsService } from './posts/index.js';

export interface SchedulerOptions {
  /** How often to look for due posts, in milliseconds. */
  intervalMs?: number;
  onPublished?: (ids: number[]) => void;
  onError?: (error: unknown) => void;
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

  /** One run: publishes what is due; returns the ids this run published. Runs never overlap. */
  async tick(): Promise<number[]> {
    if (this.running) return [];
    this.running = this.posts
      .publishDue()
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
