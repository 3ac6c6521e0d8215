// The admin panel's server side (issue 24): `/admin` and every path under it answer the single page
// (the app routes in the browser), its assets are served from dist/admin/assets with long-lived cache
// headers (the names carry a hash of the content), and the page's Content-Security-Policy allows only
// this server's own scripts, styles and API. The browser code lives in admin/src and is built by
// `npm run build` (scripts/build-admin.mjs); it talks to API v2 only.
import fs from 'node:fs';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { PLAYER_HOSTS } from '../domain/text/html-sanitizer.js';
import { escapeHtml } from '../http/html.js';

/** dist/admin, from src/admin (tsx) and from dist/admin (compiled) alike. */
const BUILT = new URL('../../dist/admin/', import.meta.url);

const POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // ProseMirror sets a few style attributes (table cells, the drop cursor); attributes run no code.
  "style-src-attr 'unsafe-inline'",
  // A post's images may come from any https site; its videos from these players only.
  "img-src 'self' data: https:",
  `frame-src ${PLAYER_HOSTS.map((host) => `https://${host}`).join(' ')}`,

  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface Manifest {
  js: string;
  css: string;
}

function readManifest(): Manifest | null {
  try {
    return JSON.parse(fs.readFileSync(new URL('manifest.json', BUILT), 'utf8')) as Manifest;
  } catch {
    return null;
  }
}

/** APP_URL's media address, which older rows may hold absolute: the panel shows them by path (admin/src/media-url.ts). */
function page(manifest: Manifest, mediaBase: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="folio-media-base" content="${escapeHtml(mediaBase)}">
<title>Folio admin</title>
<link rel="stylesheet" href="/admin/assets/${escapeHtml(manifest.css)}">
<script type="module" src="/admin/assets/${escapeHtml(manifest.js)}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The admin panel needs JavaScript.</noscript>
</body>
</html>
`;
}

export interface AdminPanelOptions {
  /** The absolute URL the local media store builds its files' URLs on (`${APP_URL}/media/`). */
  mediaBase: string;
}

export async function adminPanel(app: FastifyInstance, options: AdminPanelOptions): Promise<void> {
  const manifest = readManifest();
  const html = manifest ? page(manifest, options.mediaBase) : null;
  const answer = async (_request: unknown, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store').header('content-security-policy', POLICY);
    if (!html) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The admin panel is not built: npm run build.');
    }
    return reply.type('text/html; charset=utf-8').send(html);
  };
  app.get('/', answer);
  app.get('/*', answer);
  if (manifest) {
    await app.register(fastifyStatic, {
      root: new URL('assets/', BUILT).pathname,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      list: false,
      maxAge: '365d',
      immutable: true,
    });
  }
}
