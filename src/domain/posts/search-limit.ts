// How many searches one client may run (issue 34 #11). A search no index serves runs as a long read
// (db/read-thread.ts: one at a time on SQLite, 32 waiting at most), so one client sending dozens at
// once filled the queue and everybody else's searches were refused. Two limits per client address
// (an IPv6 client by its /64: lib/client-address.ts), whatever the face (the site's search pages,
// API v1's `keywords`, API v2's `q`):
// - at most MAX_SEARCHES_AT_ONCE running at a time, in this process (the queue it protects is this
//   process's own);
// - at most `searches_per_minute` (setting, default 60) started a minute, over the installation's
//   rate limiter (shared by every node through Redis).
// A page the site's page cache answers never reaches the route, so it is not counted.
import { clientBucket } from '../../lib/client-address.js';
import type { RateLimits } from '../../lib/rate-limits.js';
import { TooManyRequestsError } from '../errors.js';
import type { SettingsService } from '../system/settings.js';

export const SEARCHES_PER_MINUTE_SETTING = 'searches_per_minute';
export const DEFAULT_SEARCHES_PER_MINUTE = 60;
/**
 * Searches of one client running at once (in one process). The admin panel's post list sends six at
 * once when it searches (the list and a count per status): a limit below that refused its own list.
 */
export const MAX_SEARCHES_AT_ONCE = 8;

export class SearchLimit {
  private readonly running = new Map<string, number>();

  constructor(
    private readonly limiter: RateLimits,
    private readonly settings: Pick<SettingsService, 'get'>,
  ) {}

  /**
   * Runs a search for the client at `address` within its limits; refused (nothing run):
   * TooManyRequestsError with the seconds to wait.
   */
  async run<T>(
    address: string | null | undefined,
    search: () => Promise<T>,
    options: { perMinute?: boolean } = {},
  ): Promise<T> {
    const client = clientBucket(address);
    const running = this.running.get(client) ?? 0;
    if (running >= MAX_SEARCHES_AT_ONCE) {
      throw new TooManyRequestsError(
        `Too many searches at once from your address (at most ${MAX_SEARCHES_AT_ONCE} at a time). Try again in a second.`,
        1,
      );
    }
    // Counted before the first await: searches arriving together see each other.
    this.running.set(client, running + 1);
    try {
      const perMinute = await this.perMinute();
      const verdict =
        options.perMinute === false
          ? { allowed: true, retryAfter: 0 }
          : await this.limiter.hit('search', client, { max: perMinute, windowSeconds: 60 });
      if (!verdict.allowed) {
        const wait = verdict.retryAfter;
        throw new TooManyRequestsError(
          `Too many searches from your address (at most ${perMinute} a minute). Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
          wait,
        );
      }
      return await search();
    } finally {
      const left = (this.running.get(client) ?? 1) - 1;
      if (left > 0) this.running.set(client, left);
      else this.running.delete(client);
    }
  }

  private async perMinute(): Promise<number> {
    const configured = Number((await this.settings.get(SEARCHES_PER_MINUTE_SETTING))?.trim());
    return Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_SEARCHES_PER_MINUTE;
  }
}
