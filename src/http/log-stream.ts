// Where the server's log lines go when nobody reads them at a terminal: stdout, in batches. pino
// writes each line with its own write(2); at `info` that is a system call per request, most of what
// a request log line cost a cached page (issue 26 #6). Lines are gathered and written together when
// 64 KB are waiting or 100 ms after the first, and at exit, synchronously as pino's own default.
import fs from 'node:fs';

const MAX_BYTES = 64 * 1024;
const MAX_DELAY_MS = 100;

export interface LineSink {
  write(line: string): void;
  flush(): void;
}

/** Every sink's flush, run once at exit (one listener however many apps a process builds). */
const flushes = new Set<() => void>();
let listening = false;

export function batchedLines(
  fd = 1,
  write: (text: string) => void = (text) => {
    fs.writeSync(fd, text);
  },
): LineSink {
  let waiting: string[] = [];
  let bytes = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (waiting.length === 0) return;
    const text = waiting.join('');
    waiting = [];
    bytes = 0;
    try {
      write(text);
    } catch {
      // stdout closed (EPIPE) or full beyond repair: logs are not worth a crash.
    }
  };
  flushes.add(flush);
  if (!listening) {
    listening = true;
    process.once('exit', () => flushes.forEach((run) => run()));
  }
  return {
    write(line: string) {
      waiting.push(line);
      bytes += line.length;
      if (bytes >= MAX_BYTES) flush();
      else timer ??= setTimeout(flush, MAX_DELAY_MS).unref();
    },
    flush,
  };
}
