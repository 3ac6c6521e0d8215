// The media library: image files behind a MediaStore (a local directory by default; an S3-compatible
// bucket can implement the same three methods), one `media` row per stored file. Images are checked by
// their content (sharp reads the bytes), never by their name or the type a client claims.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pLimit from 'p-limit';
import sharp from 'sharp';
import type { Metadata } from 'sharp';
import type { Db } from '../db/database.js';
import { nowIso } from './clock.js';
import type { Clock } from './clock.js';

/** Where media bytes live. Paths are relative, `/`-separated, and chosen by Folio, never by clients. */
export interface MediaStore {
  /** Stored in `media.disk`. */
  readonly disk: string;
  put(relativePath: string, data: Buffer, contentType: string): Promise<void>;
  delete(relativePath: string): Promise<void>;
  /** The public URL of a stored file. */
  url(relativePath: string): string;
}

/** Files under a directory, served by the app at `/media/…`. */
export class LocalMediaStore implements MediaStore {
  readonly disk = 'local';

  constructor(
    private readonly root: string,
    private readonly baseUrl: string,
  ) {}

  private resolve(relativePath: string): string {
    const full = path.resolve(this.root, relativePath);
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error('media path escapes the root');
    return full;
  }

  async put(relativePath: string, data: Buffer): Promise<void> {
    const full = this.resolve(relativePath);
    await fs.mkdir(path.dirname(full), { recursive: true });
    // Write then rename: a reader never sees half a file.
    const temporary = `${full}.${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(temporary, data);
    await fs.rename(temporary, full);
  }

  async delete(relativePath: string): Promise<void> {
    await fs.rm(this.resolve(relativePath), { force: true });
  }

  url(relativePath: string): string {
    return `${this.baseUrl}/media/${relativePath.split('/').map(encodeURIComponent).join('/')}`;
  }
}

/** The content is not an image Folio accepts. */
/**
 * Images past this many pixels (all frames together) are refused from their header, before any
 * decoding: a 746 KB PNG of 16000 x 16000 unpacks to a gigabyte (issue 21 #5). 40 megapixels is a
 * large camera's photo; sharp is told the same limit for each decode.
 */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** Image decodes and conversions at once in this process (each may take a few hundred MB). */
const IMAGE_JOBS = 2;
const imageJobs = pLimit(IMAGE_JOBS);

/** An image larger than MAX_IMAGE_PIXELS. */
export class ImageTooLargeError extends Error {
  constructor() {
    super(`image larger than ${MAX_IMAGE_PIXELS} pixels`);
    this.name = 'ImageTooLargeError';
  }
}

export class NotAnImageError extends Error {
  constructor() {
    super('not an image');
    this.name = 'NotAnImageError';
  }
}

export interface StoredMedia {
  id: number;
  url: string;
  path: string;
  mimeType: string;
  size: number;
}

export interface StoreImageOptions {
  userId: number | null;
  /** The URL a downloaded image came from. */
  sourceUrl?: string | null;
  /** Convert to WebP (setting `convert_thumbnail_to_webp`); otherwise the source format is kept. */
  toWebp: boolean;
}

/** Raster formats accepted, by sharp's format name; SVG is refused (it can carry scripts). */
const FORMATS: Record<string, { ext: string; mime: string }> = {
  jpeg: { ext: 'jpg', mime: 'image/jpeg' },
  png: { ext: 'png', mime: 'image/png' },
  gif: { ext: 'gif', mime: 'image/gif' },
  webp: { ext: 'webp', mime: 'image/webp' },
  avif: { ext: 'avif', mime: 'image/avif' },
  heif: { ext: 'avif', mime: 'image/avif' },
};

export class MediaService {
  constructor(
    private readonly db: Db,
    readonly store: MediaStore,
    private readonly clock: Clock,
  ) {}

  /** The format of an image, read from its bytes; NotAnImageError for anything else. */
  async inspect(data: Buffer): Promise<{ format: string; width: number | null; height: number | null }> {
    let meta: Metadata;
    try {
      // The header only: nothing is decoded here (the size is checked below, with our message).
      meta = await imageJobs(() => sharp(data, { limitInputPixels: false }).metadata());
    } catch {
      throw new NotAnImageError();
    }
    const format = meta.format === 'heif' && meta.compression !== 'av1' ? undefined : meta.format;
    if (!format || !FORMATS[format]) throw new NotAnImageError();
    const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0) * (meta.pages ?? 1);
    if (pixels > MAX_IMAGE_PIXELS) throw new ImageTooLargeError();
    return { format, width: meta.width ?? null, height: meta.height ?? null };
  }

  /**
   * Stores an image (converted to WebP when asked) and records it. Files are content-addressed, so
   * the same image stored twice is one file and one row.
   */
  async storeImage(data: Buffer, options: StoreImageOptions): Promise<StoredMedia> {
    const source = await this.inspect(data);
    let bytes = data;
    let format = source.format;
    let { width, height } = source;
    if (options.toWebp && format !== 'webp') {
      const converted = await imageJobs(() =>
        sharp(data, { animated: format === 'gif', limitInputPixels: MAX_IMAGE_PIXELS })
          .webp()
          .toBuffer({ resolveWithObject: true }),
      );
      bytes = converted.data;
      format = 'webp';
      width = converted.info.width;
      height = converted.info.pageHeight ?? converted.info.height;
    }
    const { ext, mime } = FORMATS[format]!;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const now = this.clock.now();
    const month = `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const relativePath = `posts/${month}/${sha256.slice(0, 32)}.${ext}`;

    const existing = await this.db
      .selectFrom('media')
      .select(['id', 'url', 'path', 'mime_type', 'size'])
      .where('sha256', '=', sha256)
      .where('path', '=', relativePath)
      .where('disk', '=', this.store.disk)
      .executeTakeFirst();
    if (existing) {
      return {
        id: existing.id,
        url: existing.url,
        path: existing.path,
        mimeType: existing.mime_type,
        size: existing.size,
      };
    }

    await this.store.put(relativePath, bytes, mime);
    const url = this.store.url(relativePath);
    const row = await this.db
      .insertInto('media')
      .values({
        user_id: options.userId,
        disk: this.store.disk,
        path: relativePath,
        url,
        mime_type: mime,
        size: bytes.length,
        width,
        height,
        source_url: options.sourceUrl ?? null,
        sha256,
        created_at: nowIso(this.clock),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: row.id, url, path: relativePath, mimeType: mime, size: bytes.length };
  }
}
