// The logger of a request (request.log, reply.log) without a pino child logger per request.
// Fastify makes `logger.child({ reqId })` for every request; most requests never log anything but
// the one "request completed" line (app.ts), and at `warn` not even that. A RequestLogger makes the
// child only when a line is written at an enabled level, and the completed line is written by the
// parent with `reqId` first in its object: the same JSON, key for key, as the child would write.
import type { FastifyBaseLogger } from 'fastify';

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
    this.parent[level]({ ...this.own, ...object }, message);
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
