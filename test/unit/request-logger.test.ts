// No pino child logger per request (issue 42): a request's lines are the same as a child's would be,
// key for key, and the child is made only when the request writes a line of its own.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { plainWriterOf, RequestLogger, requestLoggerFactory } from '../../src/http/request-logger.js';

function capture(level: string) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const root = pino(
    { level, serializers: { req: (request: { url: string }) => ({ url: request.url }) } },
    stream,
  ) as unknown as FastifyBaseLogger;
  return { root, lines };
}

/** A line without its time (two loggers write at different moments). */
const timeless = (line: string) => line.replace(/"time":\d+,/, '');

describe('request logger', () => {
  it('writes the completed line as a pino child would, without making one', () => {
    const { root, lines } = capture('info');
    const line = { req: { url: '/post/x?a=1' }, res: { statusCode: 200 }, responseTime: 1.5 };
    root.child({ reqId: 'abc' }).info(line, 'request completed');
    const logger = new RequestLogger(root, { reqId: 'abc' });
    let made = 0;
    const child = root.child.bind(root);
    root.child = (...args: Parameters<typeof child>) => {
      made++;
      return child(...args);
    };
    logger.lineAt('info', line, 'request completed');
    assert.equal(made, 0, 'no child for the completed line');
    assert.equal(lines.length, 2);
    assert.equal(timeless(lines[1]!), timeless(lines[0]!));
    assert.match(
      lines[1]!,
      /^\{"level":30,"time":\d+,"pid":\d+,"hostname":"[^"]*","reqId":"abc","req":\{"url":"\/post\/x\?a=1"\}/,
    );
  });

  it('makes the child for a line of its own, with the bindings, and not below the level', () => {
    const { root, lines } = capture('warn');
    const logger = requestLoggerFactory(root, { reqId: 'r1' }, {}) as unknown as RequestLogger;
    assert.ok(logger instanceof RequestLogger);
    logger.info({ a: 1 }, 'not written at warn');
    logger.lineAt('info', { a: 1 }, 'not written either');
    assert.deepEqual(lines, []);
    logger.error({ err: new Error('boom') }, 'failed');
    logger.warn('plain message');
    assert.equal(lines.length, 2);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(first.reqId, 'r1');
    assert.equal(first.msg, 'failed');
    assert.equal((first.err as { message: string }).message, 'boom');
    assert.equal((JSON.parse(lines[1]!) as Record<string, unknown>).reqId, 'r1');
    // Once the child exists, the completed line goes through it (same bindings, no duplicate).
    logger.lineAt('error', { b: 2 }, 'request errored');
    const third = JSON.parse(lines[2]!) as Record<string, unknown>;
    assert.equal(third.reqId, 'r1');
    assert.equal(third.b, 2);
    assert.equal(String(lines[2]).match(/"reqId"/g)?.length, 1);
  });

  it('a route with a log level of its own gets a real child at that level', () => {
    const { root } = capture('warn');
    const logger = requestLoggerFactory(root, { reqId: 'r2' }, { level: 'debug' });
    assert.ok(!(logger instanceof RequestLogger));
    assert.equal(logger.level, 'debug');
  });

  // The line is assembled without pino's generic path (plainWriterOf); these compare its bytes with
  // what pino writes for the same object, with the serializers Fastify and Folio give pino.
  it('writes the same bytes as pino for the lines a request writes', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const root = pino(
      {
        level: 'info',
        serializers: {
          req: (request: { method: string; url: string; host?: string }) => ({
            method: request.method,
            url: request.url,
            host: request.host,
          }),
          res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
          err: pino.stdSerializers.err,
        },
      },
      stream,
    ) as unknown as FastifyBaseLogger;
    const writer = plainWriterOf(root);
    assert.ok(writer, 'a logger with serializers only is plain');
    const own = { reqId: 'd8c9eb94-f80c-4234-9612-999c2dfe274d' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        {
          req: { method: 'GET', url: '/post/x?a=1', host: 'site.test' },
          res: { statusCode: 200 },
          responseTime: 0.123456,
        },
        'request completed',
      ],
      [
        {
          req: { method: 'GET', url: '/p/"quoted"\\back\nline é 中', host: undefined },
          res: { statusCode: 404 },
          responseTime: 12,
        },
        'request completed',
      ],
      [
        {
          req: { method: 'POST', url: '/x' },
          res: { statusCode: 500 },
          responseTime: Infinity,
          err: new Error('boom "x"'),
        },
        'request errored',
      ],
      [
        { reqId: 'overridden', flag: true, skipped: undefined, fn: () => 1, nested: { a: [1, 'b'] } },
        'a "message"\n',
      ],
    ];
    for (const [object, message] of cases) {
      root.info({ ...own, ...object }, message);
      writer('info', own, object, message);
      const [expected, actual] = lines.splice(0, 2);
      assert.ok(expected && actual);
      assert.equal(timeless(actual), timeless(expected));
    }
    writer('error', own, { a: 1 }, 'at error');
    root.error({ ...own, a: 1 }, 'at error');
    assert.equal(timeless(lines[0]!), timeless(lines[1]!));
    assert.match(lines[0]!, /^\{"level":50,"time":\d+,"pid":\d+,"hostname":"[^"]*","reqId":"d8c9/);
  });

  it('leaves the line to pino when the logger uses an option the plain writer does not follow', () => {
    const stream = new Writable({ write: (_chunk, _encoding, done) => done() });
    for (const options of [
      { mixin: () => ({ extra: 1 }) },
      { nestedKey: 'payload' },
      { formatters: { log: (object: object) => ({ ...object, wrapped: true }) } },
      { redact: ['req.url'] },
      { messageKey: 'message' },
      { hooks: { streamWrite: (line: string) => line } },
    ]) {
      assert.equal(
        plainWriterOf(pino(options, stream) as unknown as FastifyBaseLogger),
        null,
        JSON.stringify(Object.keys(options)),
      );
    }
  });
});
