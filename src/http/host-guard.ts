// Requests that name their target oddly are refused before anything else (400, each face's shape):
// a Host (or trusted X-Forwarded-Host) that is no host name (`localhost:4201@evil.example`,
// `evil.example\@localhost`, a path, spaces or control characters), and absolute-form targets. Folio
// never builds a link from a request's Host, but no request that names a host so oddly is served.
import type { FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';

// eslint-disable-next-line no-control-regex
const NOT_IN_A_HOST = /[@\\/\s\x00-\x1f\x7f]/;

export function unsafeHost(host: string | undefined): boolean {
  return host !== undefined && NOT_IN_A_HOST.test(host);
}

export function installHostGuard(app: FastifyInstance): void {
  // A callback hook: it runs on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    if (unsafeHost(request.host)) return done(new HttpError(400, 'Invalid Host header'));
    // An absolute-form target (`GET http://other.example/ HTTP/1.1`) is for proxies; a server that
    // answered it would serve one host's page under another name. Origin-form only (and `*`).
    const target = request.raw.url ?? '/';
    if (!target.startsWith('/') && target !== '*') return done(new HttpError(400, 'Invalid request target'));
    done();
  });
}
