// The logger of a request (request.log, reply.log) without a pino child logger per request.
// Fastify makes `logger.child({ reqId })` for every request; most requests never log anything but
// the one "request completed" line (app.ts), and at `warn` not even that. A RequestLogger makes the
// child only when a line is written at an enabled level, and the completed line is written by the
// parent with `reqId` first in its object: the same JSON, key for key, as the child would write.
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;

export class RequestLogger {
  #child: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly own: Bindings,
  ) {}

  /** The pino child the request would have had, made on first use. */
  get real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.own));
  }

  get level(): string {
    return this.#child ? this.#child.level : this.parent.level;
  }

  set level(level: string) {
    this.real.level = level;
  }

  isLevelEnabled(level: string): boolean {
    const logger = (this.#child ?? this.parent) as unknown as { isLevelEnabled?(level: string): boolean };
    // pino has it; another logger handed over is asked by writing (its methods decide).
    return logger.isLevelEnabled ? logger.isLevelEnabled(level) : true;
  }

  child(bindings: Bindings, options?: object): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }

  bindings(): Bindings {
    return (this.real as unknown as { bindings(): Bindings }).bindings();
  }

  /**
   * One line with the request's bindings, without making a child: `object` must be a plain object
   * (its keys follow the bindings', as in the child's line).
   */
  lineAt(level: Level, object: Bindings, message: string): void {
    if (this.#child) {
      this.#child[level](object, message);
      return;
    }
    if (!this.isLevelEnabled(level)) return;
    const writer = plainWriterOf(this.parent);
    if (writer) writer(level, this.own, object, message);
    else this.parent[level]({ ...this.own, ...object }, message);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  private write(level: Level, args: unknown[]): void {
    if (!this.#child && !this.isLevelEnabled(level)) return;
    Reflect.apply(this.real[level], this.real, args);
  }
}

/**
 * Fastify's `childLoggerFactory`: a RequestLogger, or a real child where the route sets a log level
 * of its own (the child's level differs from the parent's).
 */
export function requestLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: { level?: string },
): FastifyBaseLogger {
  if (options.level) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings);
}

// ---- The completed line without pino's generic path ----------------------------------------------
// At `info` every request writes one line, and pino's way to it (a merged object, a loop over its keys
// with serializers, stringifiers, formatters, hooks and a mixin looked up per key) cost a cached page
// about as much CPU as the rest of its answer (issue 42, bench/RESULTS.md). A logger that uses none of
// those options (Folio's own: pino's defaults plus serializers) gets its lines assembled here from its
// own parts, in pino's order: level, time, bindings, the request's bindings, the object's keys,
// message. test/unit/request-logger.test.ts holds the two to the same bytes.

type LineWriter = (level: Level, own: Bindings, object: Bindings, message: string) => void;

/** pino's internal symbols read here (`msgPrefixSym` and `needsMetadataGsym` are missing from its types). */
type PinoSymbolName =
  | 'lsCacheSym'
  | 'timeSym'
  | 'chindingsSym'
  | 'serializersSym'
  | 'streamSym'
  | 'endSym'
  | 'mixinSym'
  | 'hooksSym'
  | 'nestedKeySym'
  | 'stringifiersSym'
  | 'formattersSym'
  | 'messageKeySym'
  | 'errorKeySym'
  | 'msgPrefixSym'
  | 'stringifySym'
  | 'stringifySafeSym'
  | 'needsMetadataGsym';

const {
  lsCacheSym,
  timeSym,
  chindingsSym,
  serializersSym,
  streamSym,
  endSym,
  mixinSym,
  hooksSym,
  nestedKeySym,
  stringifiersSym,
  formattersSym,
  messageKeySym,
  errorKeySym,
  msgPrefixSym,
  stringifySym,
  stringifySafeSym,
  needsMetadataGsym,
} = pino.symbols as unknown as Record<PinoSymbolName, symbol>;

const writers = new WeakMap<object, LineWriter | null>();

/** The plain writer of a pino logger, or null when the logger uses an option it does not follow. */
export function plainWriterOf(logger: FastifyBaseLogger): LineWriter | null {
  let writer = writers.get(logger);
  if (writer === undefined) {
    writer = makePlainWriter(logger as unknown as Record<symbol, unknown> & FastifyBaseLogger);
    writers.set(logger, writer);
  }
  return writer;
}

function makePlainWriter(logger: Record<symbol, unknown> & FastifyBaseLogger): LineWriter | null {
  const levelStart = logger[lsCacheSym] as Record<number, string> | undefined;
  const time = logger[timeSym] as (() => string) | undefined;
  const stream = logger[streamSym] as { write(line: string): unknown; [key: symbol]: unknown } | undefined;
  const formatters = logger[formattersSym] as { log?: (object: object) => object } | undefined;
  const stringifiers = logger[stringifiersSym] as object | undefined;
  const levels = (logger as unknown as { levels?: { values?: Record<string, number> } }).levels?.values;
  const probe = {};
  const plain =
    levelStart !== undefined &&
    typeof time === 'function' &&
    stream !== undefined &&
    levels !== undefined &&
    !logger[mixinSym] &&
    !(logger[hooksSym] as { streamWrite?: unknown } | undefined)?.streamWrite &&
    !logger[nestedKeySym] &&
    !logger[msgPrefixSym] &&
    stream[needsMetadataGsym] !== true &&
    logger[messageKeySym] === 'msg' &&
    logger[errorKeySym] === 'err' &&
    stringifiers !== undefined &&
    Reflect.ownKeys(stringifiers).length === 0 &&
    (!formatters?.log || formatters.log(probe) === probe);
  if (!plain) return null;
  const serializers = logger[serializersSym] as Record<string, ((value: unknown) => unknown) | undefined>;
  const end = logger[endSym] as string;
  // pino's own stringify of objects (JSON, or its safe stringify for cycles).
  const stringify = logger[stringifySym] as (value: unknown, safe: unknown) => string | undefined;
  const stringifySafe = logger[stringifySafeSym];
  // `,"key":` of the keys written (the same few on every line), made once each.
  const keyHeads = new Map<string, string>();
  const head = (key: string): string => {
    let text = keyHeads.get(key);
    if (text === undefined) {
      text = `,${JSON.stringify(key)}:`;
      if (keyHeads.size < 256) keyHeads.set(key, text);
    }
    return text;
  };
  const field = (key: string, raw: unknown): string => {
    if (raw === undefined) return '';
    const value = serializers[key] ? serializers[key](raw) : raw;
    switch (typeof value) {
      case 'undefined':
      case 'function':
        return '';
      case 'number':
        return head(key) + (Number.isFinite(value) ? String(value) : 'null');
      case 'boolean':
        return head(key) + String(value);
      case 'string':
        return head(key) + JSON.stringify(value);
      default: {
        const text = stringify(value, stringifySafe);
        return text === undefined ? '' : head(key) + text;
      }
    }
  };
  return (level, own, object, message) => {
    // The current chindings: a logger's bindings may be changed after it was made (setBindings).
    let line = levelStart[levels[level]!]! + time() + (logger[chindingsSym] as string);
    // As pino would write `{ ...own, ...object }`: own's keys first, the object's value winning.
    for (const key in own) {
      if (Object.hasOwn(own, key)) line += field(key, Object.hasOwn(object, key) ? object[key] : own[key]);
    }
    for (const key in object)
      if (Object.hasOwn(object, key) && !Object.hasOwn(own, key)) line += field(key, object[key]);
    stream.write(`${line},"msg":${JSON.stringify(message)}${end}`);
  };
}
