// Response compression shared by @fastify/compress (app.ts, for answers made per request) and the
// full-page cache (which keeps each cached page compressed once per encoding instead of compressing
// it again on every hit).
import zlib from 'node:zlib';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import negotiate from '@fastify/accept-negotiator';
import { LRUCache } from 'lru-cache';

/** Text answers (pages, CSS, JS, XML, robots.txt) are compressed; images, already compressed, never. */
export const COMPRESSIBLE_TYPES =
  /^(?:text\/(?:html|css|plain|xml|javascript)|application\/(?:javascript|xml|rss\+xml|atom\+xml))(?:;|$)/;

/** Smaller bodies are sent as they are (@fastify/compress's default threshold). */
export const COMPRESS_THRESHOLD = 1024;

export type StoredEncoding = 'br' | 'gzip';

const SUPPORTED = ['br', 'gzip', 'identity'];
/** Browsers send a handful of distinct headers; the bound keeps odd clients from growing it. */
const negotiated = new LRUCache<string, { encoding: StoredEncoding | null }>({ max: 256 });

/** The encoding a client prefers among br and gzip, or null for the body as it is. */
export function preferredEncoding(acceptEncoding: string | undefined): StoredEncoding | null {
  if (acceptEncoding === undefined) return null;
  let known = negotiated.get(acceptEncoding);
  if (!known) {
    const encoding = negotiate(acceptEncoding.toLowerCase().replace(/\bx-gzip\b/g, 'gzip'), SUPPORTED);
    known = { encoding: encoding === 'br' || encoding === 'gzip' ? encoding : null };
    negotiated.set(acceptEncoding, known);
  }
  return known.encoding;
}

/**
 * The body compressed once for storing: brotli at a middle quality (quality 11 costs seconds on a
 * multi-megabyte sitemap for a few percent), gzip at its default level.
 */
export function compressForStorage(body: Buffer, encoding: StoredEncoding): Buffer {
  return encoding === 'br'
    ? zlib.brotliCompressSync(body, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: 6,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      })
    : zlib.gzipSync(body);
}

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown, next: OnSendNext) => void;
type OnSendNext = (error?: Error | null, payload?: unknown) => void;

/**
 * @fastify/compress's answer hook, run only when it can compress: for a client that accepts no
 * encoding, or a body under the threshold, it checks headers, the content type against mime-db and
 * the encodings for nothing (2.4 % of an API v2 list's CPU). In exactly those cases the plugin sends
 * the body as it is (no `inflateIfDeflated`, no `onUnsupportedEncoding` here), so skipping it
 * changes no answer. Call from an onRoute hook added right after the plugin's: its hook is the last.
 */
export function skipCompressionWhenNothingToDo(route: RouteOptions): void {
  const hooks: unknown = route.onSend;
  if (!Array.isArray(hooks)) return;
  const list = hooks as OnSend[];
  const plugin = list.at(-1);
  if (typeof plugin !== 'function' || plugin.name !== 'onSend') return;
  list[list.length - 1] = (request, reply, payload, next) => {
    if (nothingToCompress(request, payload)) return next(null, payload);
    plugin(request, reply, payload, next);
  };
}

/** True when @fastify/compress would send the body unchanged (see above). */
export function nothingToCompress(request: FastifyRequest, payload: unknown): boolean {
  if (payload === null || payload === undefined) return true;
  // A stream, a web stream, a fetch Response: the plugin decides.
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return false;
  if (request.headers['accept-encoding'] === undefined) return true;
  return (typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length) < COMPRESS_THRESHOLD;
}
