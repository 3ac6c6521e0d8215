// Tells a process when another process (another app node, or the CLI) changed shared data, so that
// in-process caches such as the settings snapshot stay correct without a query on every request.
//
// - SQLite: `PRAGMA data_version` changes whenever another connection commits; reading it costs no I/O.
// - PostgreSQL: LISTEN/NOTIFY on one channel, the payload naming what changed.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';
import type { DatabaseHandle } from './database.js';
import { pgDriver } from './database.js';

export interface ChangeFeed {
  /** Changes whenever another process may have changed data of this channel since the last call. */
  revision(channel: string): number;
  /** Tells the other processes that data of this channel changed. */
  publish(channel: string): Promise<void>;
  close(): Promise<void>;
}

const PG_CHANNEL = 'folio_changes';

/** How long SQLite's data_version is trusted before it is read again (milliseconds). */
export const SQLITE_REVISION_MS = 1;

export function createChangeFeed(handle: DatabaseHandle, log: (message: string) => void): ChangeFeed {
  if (handle.sqlite) {
    // Prepared once: `sqlite.pragma()` would compile the statement again on every call, and settings
    // read the revision several times per request.
    // The value is also kept for SQLITE_REVISION_MS: the several reads of one request, and of the
    // requests served meanwhile, cost one, and another process's commit is seen at most that late.
    // (Kept until the event loop's next turn instead, a busy server read it for nearly every request:
    // 6 % of a cached page's CPU, issue 42.)
    const dataVersion = handle.sqlite.prepare('PRAGMA data_version').pluck();
    let current = 0;
    let readAt = Number.NEGATIVE_INFINITY;
    return {
      revision: () => {
        const now = performance.now();
        if (now - readAt >= SQLITE_REVISION_MS) {
          current = dataVersion.get() as number;
          readAt = now;
        }
        return current;
      },
      publish: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
  }
  return new PostgresChangeFeed(handle, log);
}

class PostgresChangeFeed implements ChangeFeed {
  private readonly revisions = new Map<string, number>();
  /** Bumped whenever the listener (re)connects: notifications may have been missed meanwhile. */
  private epoch = 0;
  private listening = false;
  private client: pg.Client | null = null;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private started = false;
  /** Payloads are `<channel> <sender>`: a feed ignores its own notifications (it bumped already). */
  private readonly sender = randomUUID();

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly log: (message: string) => void,
  ) {}

  revision(channel: string): number {
    // The LISTEN connection opens on first use, so short-lived CLI commands never open it.
    if (!this.started) {
      this.started = true;
      this.connect();
    }
    // Without a live listener nothing can be trusted: every call is a new revision.
    if (!this.listening) return ++this.epoch * 1_000_000;
    return this.epoch * 1_000_000 + (this.revisions.get(channel) ?? 0);
  }

  async publish(channel: string): Promise<void> {
    this.bump(channel); // this process sees its own change at once
    await sql`select pg_notify(${PG_CHANNEL}, ${`${channel} ${this.sender}`})`.execute(this.handle.db);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = null;
    this.listening = false;
    if (client) await client.end().catch(() => undefined);
  }

  private bump(channel: string): void {
    this.revisions.set(channel, (this.revisions.get(channel) ?? 0) + 1);
  }

  private connect(): void {
    if (this.closed) return;
    const client = new (pgDriver().Client)(this.handle.pgOptions ?? undefined);
    this.client = client;
    const retry = (reason: string) => {
      if (this.client !== client) return;
      this.listening = false;
      this.client = null;
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.log(`change feed: ${reason}; reconnecting in 1s`);
      this.retryTimer = setTimeout(() => this.connect(), 1000);
      this.retryTimer.unref();
    };
    client.on('error', (error) => retry(error.message));
    client.on('end', () => retry('connection ended'));
    client.on('notification', (message) => {
      const [channel, sender] = (message.payload ?? '').split(' ');
      if (message.channel === PG_CHANNEL && channel && sender !== this.sender) this.bump(channel);
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${PG_CHANNEL}`))
      .then(() => {
        if (this.client !== client) return;
        this.epoch++;
        this.listening = true;
      })
      .catch((error: Error) => retry(error.message));
  }
}
