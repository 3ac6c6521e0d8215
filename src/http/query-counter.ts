// Counts the SQL queries each request makes, for the benchmarks (docs/benchmarks.md).
// Off unless FOLIO_QUERY_COUNTER=1: then the database reports every query (openDatabase's onQuery),
// the counter attributes it to the request in whose async context it ran, and every response carries
// `x-folio-queries: <n>`. Queries that run outside a request (the scheduler) only count in `total`.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export const QUERY_COUNT_HEADER = 'x-folio-queries';

interface RequestQueries {
  count: number;
}

const queriesOf = new WeakMap<FastifyRequest, RequestQueries>();

export class QueryCounter {
  private readonly storage = new AsyncLocalStorage<RequestQueries>();
  /** Every query since the process started, in a request or not. */
  total = 0;

  /** Pass as `onQuery` to createServices/openDatabase. */
  readonly onQuery = (_sql: string): void => {
    this.total++;
    const current = this.storage.getStore();
    if (current) current.count++;
  };

  /** Adds the hooks that count per request and answer the header; call before routes are registered. */
  install(app: FastifyInstance): void {
    app.addHook('onRequest', (request, _reply, done) => {
      const counter = { count: 0 };
      queriesOf.set(request, counter);
      this.storage.run(counter, done);
    });
    // A request body is read from socket events, outside the context entered above: enter it again
    // once the body is parsed, before the route's own preHandlers and handler run.
    app.addHook('preHandler', (request, _reply, done) => {
      const counter = queriesOf.get(request);
      if (counter) this.storage.run(counter, done);
      else done();
    });
    app.addHook('onSend', async (request, reply) => {
      const counter = queriesOf.get(request);
      if (counter) reply.header(QUERY_COUNT_HEADER, String(counter.count));
    });
  }
}
