// Security headers on every answer, as @fastify/helmet makes them: no framing by other sites
// (X-Frame-Options and CSP frame-ancestors), no MIME sniffing, a referrer policy that keeps paths
// on this site, HSTS when Folio is served over https. The default Content-Security-Policy fits the
// API's JSON and the plain error pages (nothing runs); the public site sets its own on its pages
// (frontend/csp.ts).
//
// The headers are the same for every request, but @fastify/helmet rebuilds helmet's middleware (and
// re-parses the policy) per request, in two hooks, one of them async: a few % of a cheap request's
// CPU (issue 26 #6). So helmet makes them once, in a probe instance, and one hook copies them.
import helmet from '@fastify/helmet';
import type { FastifyHelmetOptions } from '@fastify/helmet';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';

export function securityHeaderOptions(options: { https: boolean }): FastifyHelmetOptions {
  return {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'unsafe-inline'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'sameorigin' },
    // Media and theme assets may be shown by other sites (an image in a feed reader).
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    // A page's Referer still names this site on links out, and the CSRF check can read it.
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    hsts: options.https ? { maxAge: 15_552_000, includeSubDomains: false } : false,
  };
}

/** The headers helmet sets with these options, read from a throwaway instance's first request. */
export async function helmetHeaders(options: FastifyHelmetOptions): Promise<Record<string, string>> {
  const probe = Fastify();
  let headers: Record<string, string> = {};
  try {
    await probe.register(helmet, options);
    // Registered after helmet's: runs once helmet has set its headers on the raw response.
    probe.addHook('onRequest', (_request, reply, done) => {
      headers = Object.fromEntries(
        Object.entries(reply.raw.getHeaders()).map(([name, value]) => [name, String(value)]),
      );
      done();
    });
    probe.get('/', async () => '');
    await probe.inject({ url: '/' });
  } finally {
    await probe.close();
  }
  return headers;
}

/**
 * What an API answer (JSON, never a document a browser renders) keeps of the page set: the headers
 * that still mean something for it (OWASP's REST Security Cheat Sheet: nosniff, a CSP that runs
 * nothing and allows no framing, X-Frame-Options, HSTS), plus the referrer and cross-origin resource
 * policies. The rest only matter to an HTML document (Cross-Origin-Opener-Policy,
 * Origin-Agent-Cluster, DNS prefetching, the old XSS auditor) or to IE8 and Flash (X-Download-Options,
 * X-Permitted-Cross-Domain-Policies); each header costs every request its validation and its bytes
 * (about a tenth of an API list's CPU for the twelve, issue 23 "Speed").
 */
export function apiHeaderOptions(options: { https: boolean }): FastifyHelmetOptions {
  // (helmet's option types are a union that a spread does not satisfy; the object is one of its members)
  return {
    ...securityHeaderOptions(options),
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  } as unknown as FastifyHelmetOptions;
}

/** API answers: every /api/ path but the API reference page (a document). */
export function isApiAnswer(url: string): boolean {
  return url.startsWith('/api/') && !url.startsWith('/api/v2/docs');
}

export async function installSecurityHeaders(
  app: FastifyInstance,
  options: { https: boolean },
): Promise<void> {
  const pageHeaders = await helmetHeaders(securityHeaderOptions(options));
  const apiHeaders = await helmetHeaders(apiHeaderOptions(options));
  for (const headers of [pageHeaders, apiHeaders]) {
    if (!headers['x-frame-options']) throw new Error('helmet set no headers: its options are wrong');
  }
  // A callback hook: an async one costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(isApiAnswer(request.url) ? apiHeaders : pageHeaders);
    done();
  });
}
