// SQLite's WAL checkpoints off the event loop (issue 26 #1). better-sqlite3 runs on the event loop, and
// by default the commit that crosses 1,000 WAL pages also copies them into the database file and
// fsyncs it: on a large, busy database that commit holds the whole process for hundreds of
// milliseconds. A server turns that off on its connection and lets a worker thread, with a connection
// of its own, checkpoint every second (PASSIVE: it never waits for, nor blocks, the server's readers
// and writers). Should the worker fail, the server's connection checkpoints itself again.
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** The WAL pages after which SQLite's own automatic checkpoint runs (its default). */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;

// Plain JavaScript, evaluated as the worker's script: no loader (tsx, dist) is needed in the thread.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, log: result.log, checkpointed: result.checkpointed });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String((error && error.message) || error) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'now') return checkpoint();
  if (message === 'stop') {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

/**
 * Asks a database thread to close its connection and end (the message `stop`), and ends it anyway
 * after two seconds: the checkpointer's and the long reads' threads stop this way.
 */
export async function stopWorker(worker: Worker): Promise<void> {
  const exited = once(worker, 'exit');
  worker.ref();
  worker.postMessage('stop');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  await worker.terminate();
}

export interface CheckpointResult {
  /** Pages in the WAL, and how many of them are now in the database file. */
  log: number;
  checkpointed: number;
}

export interface Checkpointer {
  /** Asks for a checkpoint now (tests; the next one runs on its own within the interval anyway). */
  checkpointNow(): Promise<CheckpointResult>;
  /** Stops the worker and gives checkpoints back to the server's connection. */
  stop(): Promise<void>;
}

export function checkpointOffTheLoop(
  sqlite: SQLite.Database,
  file: string,
  options: { intervalMs?: number; warn?: (message: string) => void } = {},
): Checkpointer {
  const warn = options.warn ?? ((message: string) => console.warn(message));
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      file,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      intervalMs: options.intervalMs ?? 1000,
    },
  });
  worker.unref();
  sqlite.pragma('wal_autocheckpoint = 0');
  let stopped = false;
  const restore = (reason: string) => {
    if (stopped) return;
    stopped = true;
    warn(`SQLite checkpoints are back on the server's connection: ${reason}`);
    sqlite.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
  };
  worker.on('error', (error) => restore(`the checkpoint thread failed (${error.message})`));
  worker.on('exit', (code) => restore(`the checkpoint thread ended (code ${code})`));
  let lastFailure = 0;
  worker.on('message', (message: { ok: boolean; message?: string }) => {
    // A busy database fails a checkpoint now and then; the next one catches up. Say so at most a minute.
    if (!message.ok && Date.now() - lastFailure > 60_000) {
      lastFailure = Date.now();
      warn(`SQLite checkpoint failed: ${message.message}`);
    }
  });

  return {
    async checkpointNow() {
      const answer = new Promise<CheckpointResult>((resolve, reject) => {
        const take = (message: { ok: boolean; message?: string } & CheckpointResult) => {
          worker.off('message', take);
          if (message.ok) resolve({ log: message.log, checkpointed: message.checkpointed });
          else reject(new Error(message.message));
        };
        worker.on('message', take);
      });
      // The thread does not keep a process alive, except while someone waits for its answer.
      worker.ref();
      worker.postMessage('now');
      return answer.finally(() => worker.unref());
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopWorker(worker);
      sqlite.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_AUTOCHECKPOINT}`);
    },
  };
}
