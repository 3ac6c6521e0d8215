// Multipart bodies (the post thumbnail upload, spec 1): text fields become the same plain values a
// JSON or form body gives (`tags[]=1` and `title[zh-TW]=…` read by qs, like forms), so validation and
// the guard's `api_token` lookup work alike; each file becomes an UploadedFile, buffered in memory up
// to a limit. All of this runs in preValidation, before the guard's preHandler.
import multipart from '@fastify/multipart';
import type { MultipartFile, MultipartValue } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import qs from 'qs';
import { parseQueryString } from './body.js';
import { HttpError } from './errors.js';
import { checkInput } from './input-guard.js';

/** A file of a multipart body. */
export class UploadedFile {
  constructor(
    readonly filename: string,
    /** What the client claims; never trusted (images are checked by content). */
    readonly mimetype: string,
    readonly data: Buffer,
    /** The file was larger than the limit and was cut off. */
    readonly truncated: boolean,
  ) {}
}

export interface MultipartOptions {
  /** Largest file, in bytes; a larger one arrives truncated and is refused by validation. */
  fileSize: number;
  /** Largest whole multipart body, in bytes (BODY_LIMIT, as for every other body). */
  bodyLimit: number;
}

/** The limits of an installation: a file, and a whole body, at most BODY_LIMIT bytes. */
export function uploadLimits(config: { bodyLimit: number }): MultipartOptions {
  return { fileSize: config.bodyLimit, bodyLimit: config.bodyLimit };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes files: the only routes where a multipart body is read at all. */
    acceptsFiles?: boolean;
  }
}

const isMultipart = (contentType: string | undefined) => /^multipart\/form-data\b/i.test(contentType ?? '');

type Part = (MultipartFile | MultipartValue) & { _buf?: Buffer | null };

/**
 * Every request: a multipart body goes only to a route that takes files, and only when it declares a
 * length within the body limit (busboy reads the raw stream, past Fastify's bodyLimit; browsers
 * always send the length of a form). Runs before anything reads the body (issue 21 #3).
 */
export function installMultipartGuard(app: FastifyInstance, options: MultipartOptions): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (!isMultipart(request.headers['content-type'])) return done();
    if (!request.routeOptions.config?.acceptsFiles) return done(new HttpError(415, 'Unsupported media type'));
    const length = Number(request.headers['content-length']);
    if (!request.headers['content-length'] || !Number.isFinite(length)) {
      return done(new HttpError(411, 'Length required'));
    }
    if (length > options.bodyLimit) return done(new HttpError(413, 'Request body too large'));
    done();
  });
}

/** Whether the request came with a multipart body (what the guard let through to a file route). */
export function hasMultipartBody(request: FastifyRequest): boolean {
  return isMultipart(request.headers['content-type']);
}

/**
 * Registers a route of any face. One that takes files (`config.acceptsFiles`) gets a scope of its own
 * where @fastify/multipart reads them: registered for the whole app, the plugin put three async hooks
 * and a 'close' listener on every request of every page and API call; only these few routes need them.
 */
export function addRoute(app: FastifyInstance, config: { bodyLimit: number }, route: RouteOptions): void {
  if (!route.config?.acceptsFiles) {
    app.route(route);
    return;
  }
  const options = uploadLimits(config);
  void app.register(async (scope) => {
    await scope.register(multipart, {
      attachFieldsToBody: true,
      throwFileSizeLimit: false,
      // Text fields (a post's HTML content) may be as large as a body; busboy's default is 1 MB.
      // One file (the thumbnail) unless the route's config.multipartOptions says more (the media
      // library's uploads); the whole body is bounded by the guard above.
      limits: {
        fileSize: options.fileSize,
        fieldSize: options.bodyLimit,
        files: 1,
        fields: 200,
        parts: 201,
      },
      async onFile(part) {
        await part.toBuffer();
      },
    });
    // After the plugin's own preValidation has read the parts; the app's input guard ran before
    // both (on the parts, which it leaves alone) and checks the plain values here.
    scope.addHook('preValidation', (request, _reply, done) => {
      try {
        flattenMultipartBody(request);
        done(checkInput(request) ?? undefined);
      } catch (error) {
        done(error as Error);
      }
    });
    scope.route(route);
  });
}

/** Text fields become plain values (read by qs like a form), files UploadedFiles, at their keys. */
function flattenMultipartBody(request: FastifyRequest): void {
  if (!request.isMultipart() || typeof request.body !== 'object' || request.body === null) return;
  const pairs: string[] = [];
  const files: Array<[string, UploadedFile]> = [];
  for (const entry of Object.values(request.body as Record<string, Part | Part[]>)) {
    for (const part of Array.isArray(entry) ? entry : [entry]) {
      if (part.type === 'file') {
        const data = part._buf ?? Buffer.alloc(0);
        files.push([
          part.fieldname,
          new UploadedFile(part.filename, part.mimetype, data, part.file.truncated),
        ]);
      } else {
        pairs.push(
          `${encodeURIComponent(part.fieldname)}=${encodeURIComponent(typeof part.value === 'string' ? part.value : '')}`,
        );
      }
    }
  }
  const body = parseQueryString(pairs.join('&'));
  for (const [name, file] of files) {
    // A file field named like `thumbnail` or `images[]` lands where qs would put a text field; a
    // field sent several times (where the route takes several files) becomes a list.
    const key = Object.keys(qs.parse(`${encodeURIComponent(name)}=x`))[0] ?? name;
    const present = body[key];
    if (present instanceof UploadedFile) body[key] = [present, file];
    else if (Array.isArray(present) && present[0] instanceof UploadedFile)
      body[key] = [...(present as UploadedFile[]), file];
    else body[key] = file;
  }
  request.body = body;
}
