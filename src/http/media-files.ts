// Media files served by the app at `/media/…` from the storage driver (the local disk or an
// S3-compatible bucket), the same code for every driver: one range of bytes when asked (video, audio,
// resumed downloads), 304 for a matching ETag, 416 past the end, a year's immutable cache (names are
// content hashes), dot files never.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isSafePath } from '../storage/store.js';
import type { ByteRange, MediaStore } from '../storage/store.js';

/**
 * The one range of a `Range` header (`bytes=a-b`, `bytes=a-`, `bytes=-n`) within a file of `size`
 * bytes: null to answer the whole file (no header, another unit, several ranges, bad syntax),
 * 'unsatisfiable' when it starts past the end.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

export function installMediaFiles(app: FastifyInstance, store: MediaStore): void {
  app.get('/media/*', { compress: false }, (request, reply) => serve(store, request, reply));
}

async function serve(store: MediaStore, request: FastifyRequest, reply: FastifyReply) {
  const raw = (request.params as { '*': string })['*'];
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return reply.callNotFound();
  }
  // Dot files are never served (as @fastify/static's `dotfiles: 'deny'`).
  if (!isSafePath(path) || path.split('/').some((segment) => segment.startsWith('.'))) {
    return reply.callNotFound();
  }
  const info = await store.stat(path);
  if (!info) return reply.callNotFound();
  const etag = `"${info.size.toString(16)}-${info.modifiedAt.getTime().toString(16)}"`;
  reply
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('x-content-type-options', 'nosniff')
    .header('accept-ranges', 'bytes')
    .header('etag', etag)
    .header('last-modified', info.modifiedAt.toUTCString())
    .type(info.contentType);
  const ifNoneMatch = request.headers['if-none-match'];
  if (
    ifNoneMatch !== undefined &&
    ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')
  ) {
    return reply.code(304).send();
  }
  // If-Range: the range applies only while the file is the one the client has part of.
  const ifRange = request.headers['if-range'];
  const rangeHeader = ifRange === undefined || ifRange === etag ? request.headers.range : undefined;
  const range = parseRange(rangeHeader, info.size);
  if (range === 'unsatisfiable') {
    return reply.code(416).header('content-range', `bytes */${info.size}`).send();
  }
  if (request.method === 'HEAD') {
    return reply.header('content-length', info.size).send();
  }
  const body = await store.read(path, range ?? undefined);
  if (!body) return reply.callNotFound();
  if (range) {
    reply
      .code(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${info.size}`)
      .header('content-length', range.end - range.start + 1);
  } else {
    reply.header('content-length', info.size);
  }
  return reply.send(body);
}
