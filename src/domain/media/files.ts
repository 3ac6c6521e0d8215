// The media library: image files behind a MediaStore (src/storage: the local disk by default, or an
// S3-compatible bucket), one `media` row per stored file; an image's variants are stored beside it. Images are checked by
// their content (sharp reads the bytes), never by their name or the type a client claims.
import { createHash } from 'node:crypto';
import { PixelBudget } from '../../lib/pixel-budget.js';
import type { Metadata, Sharp } from 'sharp';
import type SharpFunction from 'sharp';
import type { Db } from '../../db/database.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { DomainError } from '../errors.js';
import type { MediaStore } from '../../storage/store.js';

/**
 * sharp, loaded at the first image: its native library costs a server 28 MB of memory and a tenth of a
 * second of start-up, which one that never takes an upload or an import does not need (issue 42).
 */
let sharpModule: Promise<{ default: typeof SharpFunction }> | undefined;
export async function loadSharp(): Promise<typeof SharpFunction> {
  return (await (sharpModule ??= import('sharp'))).default;
}

export type { MediaStore } from '../../storage/store.js';

/**
 * Images past this many pixels (all frames together) are refused from their header, before any
 * decoding: a 746 KB PNG of 16000 x 16000 unpacks to a gigabyte (issue 21 #5). 40 megapixels is a
 * large camera's photo; sharp is told the same limit for each decode.
 */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** Image decodes and conversions at once in this process (each may take a few hundred MB). */
const IMAGE_JOBS = 2;
/**
 * And their pixels together at most (issue 34 #8): one image of the largest size runs alone, two of
 * half of it together. Reading a header weighs nothing.
 */
export const imageWork = new PixelBudget(MAX_IMAGE_PIXELS, IMAGE_JOBS);

/** An image larger than MAX_IMAGE_PIXELS. */
export class ImageTooLargeError extends DomainError {
  constructor() {
    super(`image larger than ${MAX_IMAGE_PIXELS} pixels`);
  }
}

/** The content is not an image Folio accepts. */
export class NotAnImageError extends DomainError {
  constructor() {
    super('not an image');
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

/** Widths of the smaller WebP copies made of a library image wider than them. */
export const VARIANT_WIDTHS = [320, 768, 1536] as const;

/** A copy of a library image: `webp` (same size, WebP) or `w<width>` (smaller, WebP). */
export interface StoredVariant {
  name: string;
  path: string;
  mimeType: string;
  width: number | null;
  height: number | null;
  size: number;
}

/** An image of the library written to the store, with its variants: the row is the caller's. */
export interface StoredUpload {
  path: string;
  url: string;
  mimeType: string;
  size: number;
  width: number | null;
  height: number | null;
  sha256: string;
  variants: StoredVariant[];
}

/** What one library upload wrote (storeLibraryImage): the image's path and the files written. */
export interface LibraryUpload {
  path: string | null;
  files: string[];
}

export class MediaService {
  /** Library uploads in flight in this process, by path (discardUnnamed leaves their files alone). */
  private readonly uploading = new Map<string, number>();

  constructor(
    private readonly db: Db,
    readonly store: MediaStore,
    private readonly clock: Clock,
  ) {}

  /** The format of an image, read from its bytes; NotAnImageError for anything else. */
  async inspect(
    data: Buffer,
  ): Promise<{ format: string; width: number | null; height: number | null; pixels: number }> {
    let meta: Metadata;
    const sharp = await loadSharp();
    try {
      // The header only: nothing is decoded here (the size is checked below, with our message).
      meta = await imageWork.run(0, () => sharp(data, { limitInputPixels: false }).metadata());
    } catch {
      throw new NotAnImageError();
    }
    const format = meta.format === 'heif' && meta.compression !== 'av1' ? undefined : meta.format;
    if (!format || !FORMATS[format]) throw new NotAnImageError();
    const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0) * (meta.pages ?? 1);
    if (pixels > MAX_IMAGE_PIXELS) throw new ImageTooLargeError();
    return { format, width: meta.width ?? null, height: meta.height ?? null, pixels };
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
      const sharp = await loadSharp();
      const converted = await imageWork.run(source.pixels, () =>
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
    const { sha256, stem } = this.address(bytes, 'posts');
    const relativePath = `${stem}.${ext}`;

    const existing = await this.storedAt(sha256, relativePath)
      .select(['id', 'url', 'path', 'mime_type', 'size'])
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

    // Smaller sizes for `srcset` (a post's cover), made once here, never per request.
    const variants = await this.makeVariants(bytes, relativePath.replace(/\.[a-z]+$/, ''), {
      format,
      width,
      pixels: source.pixels,
      sameSizeWebp: false,
    });
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
        variants: variants.length > 0 ? JSON.stringify(variants) : null,
        created_at: nowIso(this.clock),
        updated_at: nowIso(this.clock),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: row.id, url, path: relativePath, mimeType: mime, size: bytes.length };
  }

  /**
   * Writes an image of the media library as uploaded (its format kept), with a WebP copy and smaller
   * WebP sizes (VARIANT_WIDTHS), under `library/`. Content-addressed: bytes stored before in the same
   * month reuse their files and variants. The `media` row is the caller's to write. `upload` is told
   * the image's path and each file as it is written (none when reused), for the caller to discard
   * should its row not be kept (discardUnnamed), and to let go of once its operation is over (done).
   */
  async storeLibraryImage(data: Buffer, upload?: LibraryUpload): Promise<StoredUpload> {
    const source = await this.inspect(data);
    const { ext, mime } = FORMATS[source.format]!;
    const { sha256, stem } = this.address(data, 'library');
    const relativePath = `${stem}.${ext}`;
    const stored = { path: relativePath, url: this.store.url(relativePath), mimeType: mime, sha256 };
    if (upload && upload.path === null) {
      upload.path = relativePath;
      this.uploading.set(relativePath, (this.uploading.get(relativePath) ?? 0) + 1);
    }
    const written = upload?.files ?? [];

    const existing = await this.storedAt(sha256, relativePath)
      .select(['variants', 'size', 'width', 'height'])
      .executeTakeFirst();
    if (existing) {
      return {
        ...stored,
        size: existing.size,
        width: existing.width,
        height: existing.height,
        variants: parseVariants(existing.variants),
      };
    }

    const variants = await this.makeVariants(data, stem, { ...source, sameSizeWebp: true }, written);
    await this.store.put(relativePath, data, mime);
    written.push(relativePath);
    return { ...stored, size: data.length, width: source.width, height: source.height, variants };
  }

  /**
   * WebP copies of an image under `{stem}-{name}.webp`: one of the same size (`webp`, when asked and the
   * image is not WebP already) and one per VARIANT_WIDTHS narrower than the image (`w<width>`).
   */
  /** Where `bytes` go under `folder`, content-addressed: their hash, and their path this month less the extension. */
  private address(bytes: Buffer, folder: 'posts' | 'library'): { sha256: string; stem: string } {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const now = this.clock.now();
    const month = `${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    return { sha256, stem: `${folder}/${month}/${sha256.slice(0, 32)}` };
  }

  /** The media rows that already hold these bytes at this path, on this store. */
  private storedAt(sha256: string, path: string) {
    return this.db
      .selectFrom('media')
      .where('sha256', '=', sha256)
      .where('path', '=', path)
      .where('disk', '=', this.store.disk);
  }

  private async makeVariants(
    data: Buffer,
    stem: string,
    source: { format: string; width: number | null; pixels: number; sameSizeWebp: boolean },
    written: string[] = [],
  ): Promise<StoredVariant[]> {
    const animated = source.format === 'gif' || source.format === 'webp';
    const variants: StoredVariant[] = [];
    const sharp = await loadSharp();
    const make = async (name: string, shape: (image: Sharp) => Sharp) => {
      const out = await imageWork.run(source.pixels, () =>
        shape(sharp(data, { animated, limitInputPixels: MAX_IMAGE_PIXELS }))
          .webp()
          .toBuffer({ resolveWithObject: true }),
      );
      const path = `${stem}-${name}.webp`;
      await this.store.put(path, out.data, 'image/webp');
      written.push(path);
      variants.push({
        name,
        path,
        mimeType: 'image/webp',
        width: out.info.width,
        height: out.info.pageHeight ?? out.info.height,
        size: out.data.length,
      });
    };
    if (source.sameSizeWebp && source.format !== 'webp') await make('webp', (image) => image);
    for (const width of VARIANT_WIDTHS) {
      if (source.width !== null && source.width > width) {
        await make(`w${width}`, (image) => image.resize({ width }));
      }
    }
    return variants;
  }

  /**
   * Removes the files an upload wrote (storeLibraryImage) whose row was not kept (its operation
   * rolled back, or failed before it), unless the same bytes use them: a row naming the path by now,
   * or another upload of them in flight in this process (content-addressed: the same files). `holds`:
   * how many of the in-flight uploads of the path are the caller's (the same file sent twice).
   */
  async discardUnnamed(upload: LibraryUpload, holds = 1): Promise<void> {
    const path = upload.path;
    if (path === null || upload.files.length === 0) return;
    if ((this.uploading.get(path) ?? 0) > holds) return;
    const named = await this.db
      .selectFrom('media')
      .select('id')
      .where('path', '=', path)
      .where('disk', '=', this.store.disk)
      .executeTakeFirst();
    if (!named) await this.removeFiles(upload.files);
  }

  /** The upload's operation is over (committed or not): its files are no longer its own. */
  done(upload: LibraryUpload): void {
    const path = upload.path;
    if (path === null) return;
    const left = (this.uploading.get(path) ?? 1) - 1;
    if (left > 0) this.uploading.set(path, left);
    else this.uploading.delete(path);
  }

  /** Removes stored files (after the rows naming them are gone); a missing file is no error. */
  async removeFiles(paths: readonly string[]): Promise<void> {
    for (const path of paths) await this.store.delete(path);
  }
}

/** The `media.variants` column read back; anything unreadable is no variants. */
export function parseVariants(json: string | null): StoredVariant[] {
  if (json === null || json === '') return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value as StoredVariant[]) : [];
  } catch {
    return [];
  }
}
