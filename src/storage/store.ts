// The one interface every media storage driver implements (the local disk, an S3-compatible bucket).
// Paths are relative, `/`-separated and chosen by Folio (content hashes), never by clients. The
// storage layer knows nothing of the domain: it stores, reads, lists and deletes bytes, and says where
// a file is reached.
import type { Readable } from 'node:stream';

/** A stored file as a listing sees it. */
export interface StoredObject {
  path: string;
  size: number;
  modifiedAt: Date;
}

/** What a driver knows of a stored file without reading it. */
export interface ObjectInfo {
  size: number;
  contentType: string;
  modifiedAt: Date;
}

/** A byte range, both ends included (as HTTP says it). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface MediaStore {
  /** Stored in `media.disk` of the rows naming its files: `local` or `s3`. */
  readonly disk: string;
  /** Where the files are, for messages (`/var/folio/media`, `s3://bucket/prefix`): no secrets. */
  readonly location: string;
  /** True when file URLs point at this app's `/media/…` (the app serves them from the driver). */
  readonly servedByApp: boolean;
  /** Writes a file (a whole Buffer, or a stream of unknown length); a reader never sees half of it. */
  put(path: string, body: Buffer | Readable, contentType: string): Promise<void>;
  /** Size, type and date of a file; null when there is none. */
  stat(path: string): Promise<ObjectInfo | null>;
  /** The bytes of a file, or of one range of it; null when there is no such file. */
  read(path: string, range?: ByteRange): Promise<Readable | null>;
  /** Removes a file; a missing file is no error. */
  delete(path: string): Promise<void>;
  /** Every stored file (temporary files of unfinished writes excepted), in no set order. */
  list(): AsyncIterable<StoredObject>;
  /** What file URLs start with, without a trailing slash: `url(path)` is `${baseUrl}/${path}`. */
  readonly baseUrl: string;
  /** The URL a file is reached at. */
  url(path: string): string;
  /** Releases connections. */
  close(): Promise<void>;
}

/** Encodes each segment of a relative path for a URL. */
export function encodePath(relativePath: string): string {
  return relativePath.split('/').map(encodeURIComponent).join('/');
}

/** A path Folio may store: relative, no empty, `.` or `..` segments, no backslashes or NUL. */
export function isSafePath(relativePath: string): boolean {
  if (relativePath === '' || relativePath.length > 1024) return false;
  if (/[\\\0]/.test(relativePath)) return false;
  return relativePath.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

export class UnsafePathError extends Error {
  constructor(relativePath: string) {
    super(`media path ${JSON.stringify(relativePath.slice(0, 200))} is not a safe relative path`);
    this.name = 'UnsafePathError';
  }
}

const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  pdf: 'application/pdf',
};

/** The MIME type of a stored file, by its extension (Folio chose it from the content). */
export function contentTypeOf(relativePath: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(relativePath)?.[1]?.toLowerCase() ?? '';
  return TYPES[ext] ?? 'application/octet-stream';
}
