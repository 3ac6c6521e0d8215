// Where the server's log lines go when nobody reads them at a terminal: stdout, in batches. pino
// writing each line with its own write(2) is a system call per request at `info`, most of what a
// request log line cost a cached page (issue 26 #6). pino's own destination (sonic-boom) gathers
// lines and writes them together once 64 KB are waiting, and every 100 ms whatever is there; it
// writes asynchronously, retries when the reader is slow (EAGAIN on a full pipe), finishes partial
// writes, stops at a closed stdout (EPIPE), and flushes at exit.
//
// It replaced a home-made batcher that wrote with fs.writeSync and dropped a batch whenever the pipe
// was full: a slow log reader (a container runtime, journald under load) lost lines
// (test/unit/log-stream.test.ts).
import pino from 'pino';
import type { DestinationStream } from 'pino';

/** Bytes gathered before a write. */
export const LOG_BATCH_BYTES = 64 * 1024;
/** At most this long between a line and its write (milliseconds). */
export const LOG_FLUSH_MS = 100;

/** The batched stdout (or `fd`) destination of the server's log lines. */
export function batchedLogDestination(fd = 1): DestinationStream {
  return pino.destination({
    dest: fd,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    // A write may carry a batch and a line more; sonic-boom requires minLength below it.
    maxWrite: 4 * LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
}
