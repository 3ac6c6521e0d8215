// The saves of one editor, one at a time (issue 34 #14, #15). An autosave and a click on Save never
// travel together: each save waits for the answer to the one before, and is built only when its turn
// comes, so it carries the form as it is then and the version (ETag, sent as If-Match) the previous
// save returned; two saves of one editor can no longer be told "someone else saved this post".
//
// A save that gets no answer (the network is down, or the server or its proxy answers 502/503/504) is
// not lost and does not hang: the editor is told (`onTrouble`), and the same save is tried again
// after 1, 2, 4, 8, 16, then every 30 seconds (a server's Retry-After when it says more), at once
// when the browser says it is back online, or when the user asks (retryNow). When an answer comes,
// the trouble is over and the queue goes on.

/** Why the last try of a save got no answer, and when the next try is. */
export interface SaveTrouble {
  /** Tries so far. */
  attempts: number;
  /** When the next try starts (ms since the epoch). */
  retryAt: number;
  /** The server's status (502, 503, 504), or null when the request got no answer at all. */
  status: number | null;
}

export interface SaveHooks {
  /** A save started or ended: true while a request is on its way (not while waiting to retry). */
  onBusy(busy: boolean): void;
  /** A save got no answer (with when the next try is), or null when it finally did. */
  onTrouble(trouble: SaveTrouble | null): void;
}

/** A random Idempotency-Key (crypto.randomUUID needs https; getRandomValues does not). */
export function idempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) =>
    byte.toString(16).padStart(2, '0'),
  ).join('');
}

/** Answers that mean "not now" rather than "no": the save is tried again. */
const TRANSIENT = new Set([502, 503, 504]);
const MAX_DELAY_MS = 30_000;

/** The wait before try `attempts + 1`: 1 s, 2 s, 4 s … 30 s, or the server's Retry-After (at most 5 min). */
export function retryDelay(attempts: number, retryAfter: string | null = null): number {
  const backoff = Math.min(MAX_DELAY_MS, 1000 * 2 ** Math.max(0, attempts - 1));
  const seconds = retryAfter !== null && /^\d{1,6}$/.test(retryAfter.trim()) ? Number(retryAfter) : 0;
  return Math.max(backoff, Math.min(seconds * 1000, 300_000));
}

export class SaveQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private wake: (() => void) | null = null;
  private closed = false;
  private readonly online = () => this.retryNow();

  constructor(private readonly hooks: SaveHooks) {
    window.addEventListener('online', this.online);
  }

  /**
   * Queues a save. `send` is called when every earlier save is settled (and again on each retry): it
   * builds the request from what is current then, or answers null when there is nothing left to
   * save. `settle` takes the answer before the next save starts (so that one carries the new ETag).
   * Resolves with what `settle` returns, or null (nothing sent, or the editor closed).
   */
  enqueue<T extends { response: Response }, R>(
    send: () => Promise<T | null>,
    settle: (answer: T) => Promise<R> | R,
  ): Promise<R | null> {
    const turn = this.tail.then(async () => {
      const answer = await this.attempt(send);
      return answer ? settle(answer) : null;
    });
    this.tail = turn.catch(() => undefined);
    return turn;
  }

  /** Tries a save that is waiting for its next try now. */
  retryNow(): void {
    this.wake?.();
  }

  /** The editor is gone: no more tries (a waiting save resolves with null). */
  close(): void {
    this.closed = true;
    window.removeEventListener('online', this.online);
    this.wake?.();
  }

  private async attempt<T extends { response: Response }>(send: () => Promise<T | null>): Promise<T | null> {
    for (let attempts = 1; !this.closed; attempts++) {
      let answer: T | null;
      let reached = true;
      this.hooks.onBusy(true);
      try {
        answer = await send();
      } catch {
        // fetch rejects when no answer came (offline, connection refused or reset, DNS).
        answer = null;
        reached = false;
      } finally {
        this.hooks.onBusy(false);
      }
      const status = answer?.response.status ?? null;
      if (reached && !(status !== null && TRANSIENT.has(status))) {
        this.hooks.onTrouble(null);
        return answer;
      }
      await this.pause(attempts, status, answer?.response.headers.get('retry-after') ?? null);
    }
    return null;
  }

  private async pause(attempts: number, status: number | null, retryAfter: string | null): Promise<void> {
    const delay = retryDelay(attempts, retryAfter);
    this.hooks.onTrouble({ attempts, retryAt: Date.now() + delay, status });
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, delay);
      this.wake = done;
    });
  }
}
