// Where the server's log lines go when nobody reads them at a terminal: stdout, in batches. pino
// writing each line with its own write(2) is a system call per request at `info`, most of what a
// request log line cost a cached page (issue 26 #6).
//
// Two parts:
// - the batch: lines are gathered in an array and joined once 64 KB are waiting, or 100 ms after the
//   first line, and at exit. (sonic-boom's own `minLength` batching measures the byte length of the
//   whole waiting text again for every line it appends: at 16,000 lines a second that was 11 % of a
//   cached page's CPU, issue 42.)
// - the writer: pino's destination (sonic-boom) takes each batch and writes it asynchronously,
//   retries while the reader is slow (EAGAIN on a full pipe), finishes partial writes and stops at a
//   closed stdout (EPIPE). A home-made fs.writeSync here once dropped every batch a full pipe refused:
//   a slow log reader (a container runtime, journald under load) lost lines (test/unit/log-stream.test.ts).
import fs from 'node:fs';
import pino from 'pino';

/** Bytes (UTF-16 units, near enough) gathered before a write. */
export const LOG_BATCH_BYTES = 64 * 1024;
/** At most this long between a line and its write (milliseconds). */
export const LOG_FLUSH_MS = 100;

export interface LogDestination {
  /** Takes one line (with its newline). */
  write(line: string): void;
  /** Hands what is waiting to the writer now (`logger.flush(done)` calls it with pino's callback). */
  flush(done?: (error?: Error) => void): void;
  /** Writes everything waiting before returning (at exit). */
  flushSync(): void;
  /**
   * Writes what is waiting, then closes the file descriptor; resolves once it is closed. Closing the
   * descriptor by hand instead, while a write was under way, left the writer a descriptor number the
   * process later gave to a pipe: at exit, sonic-boom's own flush retried that full pipe forever.
   */
  end(): Promise<void>;
}

/** How long a write at exit waits for a reader that takes nothing (a full pipe), in all. */
const EXIT_WRITE_PATIENCE_MS = 10_000;

/**
 * Writes `text` to `fd` whole before returning, waiting while a full pipe refuses it (EAGAIN on a
 * non-blocking stdout) for at most EXIT_WRITE_PATIENCE_MS; a closed reader (EPIPE) ends it.
 */
function writeAllSync(fd: number, text: string): void {
  let rest = Buffer.from(text);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const giveUpAt = Date.now() + EXIT_WRITE_PATIENCE_MS;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(fs.writeSync(fd, rest));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'EAGAIN' && code !== 'EBUSY') || Date.now() > giveUpAt) return;
      Atomics.wait(pause, 0, 0, 5);
    }
  }
}

/** Every destination's flushSync, run once at exit (one listener however many a process makes). */
const atExit = new Set<() => void>();
let listening = false;

/** The batched stdout (or `fd`) destination of the server's log lines. */
export function batchedLogDestination(fd = 1): LogDestination {
  const writer = pino.destination({ dest: fd, sync: false, minLength: 0, maxWrite: 16 * LOG_BATCH_BYTES });
  let waiting: string[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | null = null;
  let ended: Promise<void> | null = null;
  /** The waiting lines as one text ('' for none), the batch and its timer emptied. */
  const take = (): string => {
    if (timer) clearTimeout(timer);
    timer = null;
    const text = waiting.join('');
    waiting = [];
    bytes = 0;
    return text;
  };
  const flush = (done?: (error?: Error) => void) => {
    const text = take();
    if (text !== '') writer.write(text);
    done?.();
  };
  // At exit: what the writer holds, then what is waiting, both written before returning. The waiting
  // lines no longer go through the writer's asynchronous write: started in an exit handler, it is
  // queued in libuv's thread pool, and nothing makes a process that ends on its own wait for it (a CI
  // run under load once got none of a writer's 3 lines; the likeliest cause, not proven).
  const flushSync = () => {
    const text = take();
    try {
      (writer as unknown as { flushSync(): void }).flushSync();
    } catch {
      // Not open yet, or stdout gone: logs are not worth a crash at exit.
    }
    if (text !== '') writeAllSync(fd, text);
  };
  atExit.add(flushSync);
  if (!listening) {
    listening = true;
    process.once('exit', () => atExit.forEach((run) => run()));
  }
  return {
    write(line: string) {
      waiting.push(line);
      bytes += line.length;
      if (bytes >= LOG_BATCH_BYTES) flush();
      else timer ??= setTimeout(() => flush(), LOG_FLUSH_MS).unref();
    },
    flush,
    flushSync,
    end() {
      ended ??= new Promise<void>((resolve) => {
        flush();
        atExit.delete(flushSync);
        writer.once('close', () => resolve());
        writer.end();
      });
      return ended;
    },
  };
}
