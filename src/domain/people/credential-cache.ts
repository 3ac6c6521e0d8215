// Who a token or API key names, remembered in process for a few seconds (issue 26 #4): the API
// looked it up with a query on every request (a fifth of the list's CPU). Any change to users, tokens
// or keys clears this process's entries at once and tells the other processes through the change feed
// (PostgreSQL: NOTIFY; SQLite: another process's commit changes `data_version`), so a revoked token,
// a disabled user or a revoked key is refused on the next request on every node. The TTL bounds what a
// change made behind Folio's back (SQL by hand) could leave.
import { LRUCache } from 'lru-cache';
import type { ChangeFeed } from '../../db/change-feed.js';

export const CREDENTIALS_CHANNEL = 'credentials';
const TTL_MS = 10_000;
/** Entries kept: unknown credentials are remembered too (a flood of guesses costs no query each). */
const MAX_ENTRIES = 10_000;

/** One cache for tokens and keys (keys name their kind: `token:…`, `key:…`), cleared together. */
export class CredentialCache {
  private readonly entries = new LRUCache<string, { value: object | null }>({
    max: MAX_ENTRIES,
    ttl: TTL_MS,
  });
  private revision: number | null = null;
  /** Bumped by every change made in this process (which SQLite's data_version does not count). */
  private generation = 0;

  constructor(private readonly feed: ChangeFeed) {}

  /** The value for a credential: remembered, or loaded (and remembered, null included). */
  async get<T extends object>(key: string, load: () => Promise<T | null>): Promise<T | null> {
    const revision = this.feed.revision(CREDENTIALS_CHANNEL);
    if (revision !== this.revision) {
      this.entries.clear();
      this.revision = revision;
    }
    const hit = this.entries.get(key);
    if (hit) return hit.value as T | null;
    const generation = this.generation;
    const value = await load();
    // A change made while this load ran has cleared the cache: the answer may be old, keep it not.
    if (this.generation === generation && this.feed.revision(CREDENTIALS_CHANNEL) === revision) {
      this.entries.set(key, { value });
    }
    return value;
  }

  /** Forgets every entry here and on every other process (after users, tokens or keys changed). */
  async changed(): Promise<void> {
    this.generation += 1;
    this.entries.clear();
    this.revision = null;
    await this.feed.publish(CREDENTIALS_CHANNEL);
  }
}
