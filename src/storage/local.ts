// The local-disk driver: files under a directory (MEDIA_DIR), written to a temporary name then
// renamed, so that a reader never sees half a file.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { contentTypeOf, encodePath, isSafePath, UnsafePathError } from './store.js';
import type { ByteRange, MediaStore, ObjectInfo, StoredObject } from './store.js';

const TEMPORARY = /\.[0-9a-f]{8}\.tmp$/;

export class LocalStore implements MediaStore {
  readonly disk = 'local';
  readonly location: string;
  readonly servedByApp: boolean;
  private readonly root: string;

  /** `baseUrl`: what a file's path is appended to (`${APP_URL}/media`, or a CDN's base URL). */
  constructor(
    root: string,
    readonly baseUrl: string,
    options: { servedByApp?: boolean } = {},
  ) {
    this.root = path.resolve(root);
    this.location = this.root;
    this.servedByApp = options.servedByApp ?? true;
  }

  private resolve(relativePath: string): string {
    if (!isSafePath(relativePath)) throw new UnsafePathError(relativePath);
    const full = path.resolve(this.root, relativePath);
    if (!full.startsWith(this.root + path.sep)) throw new UnsafePathError(relativePath);
    return full;
  }

  async put(relativePath: string, body: Buffer | Readable): Promise<void> {
    const full = this.resolve(relativePath);
    await fsp.mkdir(path.dirname(full), { recursive: true });
    const temporary = `${full}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      if (Buffer.isBuffer(body)) await fsp.writeFile(temporary, body);
      else await pipeline(body, fs.createWriteStream(temporary));
      await fsp.rename(temporary, full);
    } catch (error) {
      await fsp.rm(temporary, { force: true });
      throw error;
    }
  }

  async stat(relativePath: string): Promise<ObjectInfo | null> {
    try {
      const stats = await fsp.stat(this.resolve(relativePath));
      if (!stats.isFile()) return null;
      return { size: stats.size, contentType: contentTypeOf(relativePath), modifiedAt: stats.mtime };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async read(relativePath: string, range?: ByteRange): Promise<Readable | null> {
    const full = this.resolve(relativePath);
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(full, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    // The stream closes the handle when it ends or is destroyed.
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async delete(relativePath: string): Promise<void> {
    await fsp.rm(this.resolve(relativePath), { force: true });
  }

  async *list(): AsyncIterable<StoredObject> {
    const walk = async function* (dir: string, prefix: string): AsyncGenerator<StoredObject> {
      let entries: fs.Dirent[];
      try {
        entries = await fsp.readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
        if (entry.isDirectory()) yield* walk(full, relative);
        else if (entry.isFile() && !TEMPORARY.test(entry.name)) {
          const stats = await fsp.stat(full);
          yield { path: relative, size: stats.size, modifiedAt: stats.mtime };
        }
      }
    };
    yield* walk(this.root, '');
  }

  url(relativePath: string): string {
    return `${this.baseUrl}/${encodePath(relativePath)}`;
  }

  async close(): Promise<void> {}
}
