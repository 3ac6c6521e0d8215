// Long reads off the event loop (SQLite). better-sqlite3 runs every statement on the event loop, so a
// read that no index can serve (a keyword search over every post's text) held the whole server while
// it ran: 0.4 s at 100,000 posts, seconds at a million, and anyone can send a new search. Such reads go
// through `longReads`, a Kysely whose queries run in a worker thread with a read-only connection of
// its own (WAL: it reads the last committed data, never waiting for nor blocking the server's
// connection), one at a time. Without the thread (an in-memory database, or the thread failed) the
// same queries run on the server's connection as before.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { DatabaseConnection, Dialect, Driver, LogEvent, QueryResult, CompiledQuery } from 'kysely';
import { stopWorker } from './checkpointer.js';
import { LONG_READS_BUSY } from './errors.js';
import type { Database } from './schema.js';
import { bindable } from './sqlite-statements.js';

/**
 * Long reads waiting for the thread at most (the one running included); past it a read is refused at
 * once as "unavailable" (each face answers 503 with Retry-After, as for a pool with no free connection),
 * rather than queueing searches for minutes behind a flood of them.
 */
export const MAX_WAITING_LONG_READS = 32;

// Plain JavaScript, evaluated as the worker's script: no loader (tsx, dist) is needed in the thread.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
const statements = new Map();
parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    let statement = statements.get(message.sql);
    if (!statement) {
      statement = db.prepare(message.sql);
      if (statements.size >= 200) statements.clear();
      statements.set(message.sql, statement);
    }
    if (!statement.reader) throw new Error('only reads run on the read thread');
    parentPort.postMessage({ id: message.id, rows: statement.all(message.parameters) });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String((error && error.message) || error), code: error && error.code });
  }
});
`;

interface Answer {
  id: number;
  rows?: unknown[];
  error?: string;
  code?: string;
}

/** The worker, started on the first query; null once it failed or stopped (the fallback runs then). */
class ReadThread {
  private worker: Worker | null = null;
  private failed = false;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }
  >();

  constructor(
    private readonly file: string,
    private readonly warn: (message: string) => void,
    private readonly maxWaiting: number,
  ) {}

  /** The rows of a read, from the thread; null when there is no thread (the caller reads itself). */
  run(sql: string, parameters: readonly unknown[]): Promise<unknown[]> | null {
    const worker = this.started();
    if (!worker) return null;
    if (this.pending.size >= this.maxWaiting) {
      const error = new Error(`${this.pending.size} long reads are waiting already; try again shortly`);
      return Promise.reject(Object.assign(error, { code: LONG_READS_BUSY }));
    }
    const id = this.nextId++;
    const answer = new Promise<unknown[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // The thread does not keep a process alive, except while someone waits for its answer.
    worker.ref();
    // Bound as the server's connection binds them (booleans as 0/1): the thread runs them as they come.
    worker.postMessage({ id, sql, parameters: bindable(parameters) });
    return answer;
  }

  private started(): Worker | null {
    if (this.worker || this.failed) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: this.file, driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.pending.delete(answer.id);
      if (this.pending.size === 0) worker.unref();
      if (answer.error === undefined) waiting.resolve(answer.rows ?? []);
      else waiting.reject(Object.assign(new Error(answer.error), { code: answer.code }));
    });
    const fail = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.failed = true;
      this.warn(`SQLite long reads are back on the server's connection: ${reason}`);
      for (const waiting of this.pending.values())
        waiting.reject(new Error(`the read thread ended: ${reason}`));
      this.pending.clear();
    };
    worker.on('error', (error) => fail(`the read thread failed (${error.message})`));
    worker.on('exit', (code) => fail(`the read thread ended (code ${code})`));
    this.worker = worker;
    return worker;
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    this.failed = true;
    await stopWorker(worker);
  }
}

/** Reads only: a query that changes data, or a transaction, on this Kysely is a programming error. */
class ReadThreadConnection implements DatabaseConnection {
  constructor(
    private readonly thread: ReadThread,
    private readonly fallback: SQLite.Database,
  ) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const fromThread = this.thread.run(compiled.sql, compiled.parameters);
    if (fromThread) return { rows: (await fromThread) as R[] };
    const statement = this.fallback.prepare(compiled.sql);
    if (!statement.reader) throw new Error('only reads run as long reads');
    return { rows: statement.all(bindable(compiled.parameters)) as R[] };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('long reads do not stream');
  }
}

class ReadThreadDriver implements Driver {
  private readonly connection: ReadThreadConnection;

  constructor(
    private readonly thread: ReadThread,
    fallback: SQLite.Database,
  ) {
    this.connection = new ReadThreadConnection(thread, fallback);
  }

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.connection;
  }
  async beginTransaction(): Promise<void> {
    throw new Error('long reads take no transaction');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    await this.thread.stop();
  }
}

/**
 * A Kysely for long reads of the SQLite database `file`, in a worker thread started on first use;
 * `sqlite` (the server's connection) reads instead when the thread cannot.
 */
export function longReadsOffTheLoop(
  sqlite: SQLite.Database,
  file: string,
  options: { log?: (event: LogEvent) => void; warn?: (message: string) => void; maxWaiting?: number } = {},
): Kysely<Database> {
  const thread = new ReadThread(
    file,
    options.warn ?? ((message) => console.warn(message)),
    options.maxWaiting ?? MAX_WAITING_LONG_READS,
  );
  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new ReadThreadDriver(thread, sqlite),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
  return new Kysely<Database>({ dialect, ...(options.log ? { log: options.log } : {}) });
}
