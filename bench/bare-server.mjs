// The baseline of every benchmark figure: a bare Fastify server answering, for each measured route, a
// stored body of the same bytes and content type as Folio's answer. No hooks, no plugins, no database.
// Usage: node bench/bare-server.mjs <routes.json>; prints `listening <port>` when ready.
// routes.json: [{ "method": "GET" | "POST", "contentType": "…", "body": "<base64>", "headers"?: {…} }];
// route i is /r/i. `headers`: other response headers, sent as they are (bench/fixed-rate.ts --bare-headers).
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import Fastify from 'fastify';

const routes = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const app = Fastify({ logger: false });

routes.forEach((route, index) => {
  const body = Buffer.from(route.body, 'base64');
  app.route({
    method: route.method,
    url: `/r/${index}`,
    handler: route.headers
      ? async (_request, reply) => reply.headers(route.headers).type(route.contentType).send(body)
      : async (_request, reply) => reply.type(route.contentType).send(body),
  });
});

const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`listening ${new URL(address).port}`);

const stop = () => app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
