// Security headers on every answer, through @fastify/helmet: no framing by other sites
// (X-Frame-Options and CSP frame-ancestors), no MIME sniffing, a referrer policy that keeps paths
// on this site, HSTS when Folio is served over https. The default Content-Security-Policy fits the
// API's JSON and the plain error pages (nothing runs); the public site sets its own on its pages
// (frontend/csp.ts).
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

export async function installSecurityHeaders(
  app: FastifyInstance,
  options: { https: boolean },
): Promise<void> {
  await app.register(helmet, {
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
  });
}
