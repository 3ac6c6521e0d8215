// The media library as operations for the management faces (API v2, the admin panel): list a
// website's items, show one and where it is used, upload files (one or several), change an item's
// alt text and caption, delete one (refused while used, unless forced). One zod schema per input,
// one policy question (policy.canMedia); each write one operation (run.ts): its rows, audit rows and
// announced change commit together, the change told after commit. Files are written before the
// transaction and discarded should it fail; a deleted item's files are removed after its commit.
// Files are checked by their content (sharp), never by the name or type a client claims, with the
// size limit of today's uploads (setting `post_thumbnail_max_kb`).
import { z } from 'zod';
import type { OperationRunner } from '../run.js';
import type { Db } from '../../db/database.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { ContentChanges } from '../changes.js';
import type { Clock } from '../clock.js';
import {
  ConflictError,
  FileTooLargeError,
  NotFoundError,
  StaleWriteError,
  UnsupportedFileError,
  ValidationError,
} from '../errors.js';
import { ImageTooLargeError, MAX_IMAGE_PIXELS, NotAnImageError } from './files.js';
import type { LibraryUpload, MediaService, StoredUpload } from './files.js';
import type { MediaItem, MediaLibrary, MediaListQuery, MediaUsage } from './library.js';
import type { Actor, Policy } from '../policy.js';
import { DEFAULT_THUMBNAIL_MAX_KB, POST_SETTINGS } from '../posts/model.js';
import { ATTRIBUTE, parse, translatable } from '../schema-fields.js';
import type { SettingsService } from '../system/settings.js';
import { DEFAULT_LOCALE } from '../translations.js';

/** The most files one upload takes. */
export const MAX_UPLOAD_FILES = 10;
export const MAX_ALT_LENGTH = 1000;
export const MAX_CAPTION_LENGTH = 5000;

/** A file of a multipart body, as the HTTP layer hands it over (http/multipart.ts's UploadedFile). */
export interface UploadedFileLike {
  filename: string;
  data: Buffer;
  /** Cut off at the body's limit: larger than any limit. */
  truncated: boolean;
}

const isFile = (value: unknown): value is UploadedFileLike =>
  typeof value === 'object' &&
  value !== null &&
  Buffer.isBuffer((value as UploadedFileLike).data) &&
  typeof (value as UploadedFileLike).filename === 'string';

const file = z
  .any()
  .refine(isFile, { message: `The ${ATTRIBUTE} must be a file.` })
  .meta({ type: 'string', format: 'binary', description: 'A file (multipart/form-data).' });

export const uploadMediaInput = z.object({
  files: z
    .union([file, z.array(file).min(1).max(MAX_UPLOAD_FILES)])
    .describe(`One file, or up to ${MAX_UPLOAD_FILES} (the field repeated); images only.`),
});

/** A text of at most `max` characters, as a string or a map of locale to text. */
const text = (max: number) =>
  translatable().refine(
    (value) =>
      typeof value === 'string' ? value.length <= max : Object.values(value).every((t) => t.length <= max),
    { message: `The ${ATTRIBUTE} may not be greater than ${max} characters.` },
  );

export const updateMediaInput = z.object({
  alt: text(MAX_ALT_LENGTH).nullable().optional().describe('A string, or a map of locale to text.'),
  caption: text(MAX_CAPTION_LENGTH).nullable().optional().describe('A string, or a map of locale to text.'),
});

export const mediaNotFound = () => new NotFoundError('Media not found');

export class MediaOperations {
  constructor(
    private readonly deps: {
      /** Every write runs as one operation (run.ts). */
      runner: OperationRunner;
      db: Db;
      media: MediaService;
      library: MediaLibrary;
      policy: Policy;
      settings: SettingsService;
      changes: ContentChanges;
      clock: Clock;
      audit?: AuditLog;
    },
  ) {}

  /** A page of the items of the actor's website (its contributors and above, administrators). */
  async list(actor: Actor, query: Omit<MediaListQuery, 'websiteId'>) {
    const websiteId = this.websiteOf(actor);
    await this.deps.policy.require(actor, 'media.read', { websiteId });
    return this.deps.library.list({ ...query, websiteId });
  }

  /** One item of the actor's website; another website's is not found. */
  async show(actor: Actor, id: number): Promise<MediaItem> {
    const websiteId = this.websiteOf(actor);
    await this.deps.policy.require(actor, 'media.read', { websiteId });
    const item = await this.deps.library.find(id);
    if (!item || !shownOn(item, websiteId)) throw mediaNotFound();
    return item;
  }

  /** Where these items (read by list or show) are used, as the actor's website sees it. */
  usage(actor: Actor, items: readonly MediaItem[]): Promise<Map<number, MediaUsage>> {
    return this.deps.library.usage(items, this.websiteOf(actor));
  }

  /**
   * Stores uploaded images in the actor's website's library: every file is checked first (413 past
   * the size limit, 415 when it is not an image), then written with its variants, then recorded in
   * one transaction. Answers the items in the order of the files.
   */
  async upload(actor: Actor, raw: unknown): Promise<MediaItem[]> {
    const input = parse(uploadMediaInput, raw);
    const websiteId = this.websiteOf(actor);
    await this.deps.policy.require(actor, 'media.upload', { websiteId });
    const files = (Array.isArray(input.files) ? input.files : [input.files]) as UploadedFileLike[];
    const maxKb =
      Number(await this.deps.settings.get(POST_SETTINGS.thumbnailMaxKb)) || DEFAULT_THUMBNAIL_MAX_KB;
    const field = (index: number) => (files.length === 1 ? 'files' : `files.${index}`);
    for (const [index, upload] of files.entries()) {
      if (upload.truncated || upload.data.length > maxKb * 1024) {
        throw new FileTooLargeError(
          field(index),
          `The file ${JSON.stringify(upload.filename)} may not be greater than ${maxKb} kilobytes.`,
        );
      }
      if (upload.data.length === 0) {
        throw new ValidationError({ [field(index)]: ['The file is empty.'] });
      }
      try {
        await this.deps.media.inspect(upload.data);
      } catch (error) {
        if (error instanceof NotAnImageError) {
          throw new UnsupportedFileError(
            field(index),
            `The file ${JSON.stringify(upload.filename)} is not an image Folio takes (JPEG, PNG, GIF, WebP, AVIF).`,
          );
        }
        if (error instanceof ImageTooLargeError) {
          throw new FileTooLargeError(
            field(index),
            `The image ${JSON.stringify(upload.filename)} has more than ${MAX_IMAGE_PIXELS} pixels.`,
          );
        }
        throw error;
      }
    }
    // Files first, before the transaction (converting takes seconds); should their rows not be kept,
    // the files this upload wrote are discarded (those the same bytes reuse stay).
    const uploads: LibraryUpload[] = [];
    const discard = async () => {
      // Per path: the same file sent twice is one set of files, held twice by this upload.
      const byPath = new Map<string, { upload: LibraryUpload; holds: number }>();
      for (const upload of uploads) {
        if (upload.path === null) continue;
        const seen = byPath.get(upload.path);
        if (!seen)
          byPath.set(upload.path, { upload: { path: upload.path, files: [...upload.files] }, holds: 1 });
        else {
          seen.holds += 1;
          seen.upload.files.push(...upload.files.filter((file) => !seen.upload.files.includes(file)));
        }
      }
      for (const { upload, holds } of byPath.values()) await this.deps.media.discardUnnamed(upload, holds);
    };
    try {
      const stored: Array<{ stored: StoredUpload; fileName: string }> = [];
      try {
        for (const upload of files) {
          const written: LibraryUpload = { path: null, files: [] };
          uploads.push(written);
          stored.push({
            stored: await this.deps.media.storeLibraryImage(upload.data, written),
            fileName: cleanName(upload.filename),
          });
        }
      } catch (error) {
        await discard();
        throw error;
      }
      return await this.deps.runner.run(async (scope) => {
        scope.onRollback(discard);
        await this.deps.policy.require(actor, 'media.upload', { websiteId });
        const now = this.deps.clock.now().toISOString();
        const ids = await this.deps.db
          .transaction()
          .execute((trx) => this.deps.library.record(trx, stored, { userId: actor.userId, websiteId, now }));
        const unique = [...new Set(ids)];
        await this.deps.changes.announce({ kind: 'media', ids: unique });
        for (const [index, id] of ids.entries()) {
          await this.audited(actor, 'media.upload', id, [websiteId], { file_name: stored[index]!.fileName });
        }
        const items = new Map((await this.deps.library.findMany(unique)).map((item) => [item.id, item]));
        return ids.map((id) => items.get(id)!);
      });
    } finally {
      for (const upload of uploads) this.deps.media.done(upload);
    }
  }

  /** Changes the alt text and caption; `ifVersion` (If-Match): StaleWriteError when it changed since. */
  async update(
    actor: Actor,
    id: number,
    raw: unknown,
    options: { ifVersion?: string } = {},
  ): Promise<MediaItem> {
    return this.deps.runner.run(async () => {
      const input = parse(updateMediaInput, raw);
      const item = await this.show(actor, id);
      await this.deps.policy.require(actor, 'media.update', { websiteId: this.websiteOf(actor), item });
      const defaultLocale = (await this.deps.settings.get('default_locale'))?.trim() || DEFAULT_LOCALE;
      await this.deps.db.transaction().execute((trx) =>
        this.deps.library.changeTexts(trx, item, input, {
          now: this.deps.clock.now(),
          defaultLocale,
          ifVersion: options.ifVersion,
        }),
      );
      await this.deps.changes.announce({ kind: 'media', ids: [item.id] });
      await this.audited(actor, 'media.update', item.id, item.websiteIds, raw);
      const changed = await this.deps.library.find(item.id);
      if (!changed) throw mediaNotFound();
      return changed;
    });
  }

  /**
   * Deletes an item and, when no other item names them, its files. While a post, page or website
   * uses it: ConflictError naming the uses, unless `force`.
   */
  async delete(actor: Actor, id: number, options: { force: boolean; ifVersion?: string }): Promise<void> {
    return this.deps.runner.run(async (scope) => {
      const item = await this.show(actor, id);
      await this.deps.policy.require(actor, 'media.delete', { websiteId: this.websiteOf(actor), item });
      const usage = (await this.deps.library.usage([item], this.websiteOf(actor))).get(item.id)!;
      const uses = describeUses(usage);
      if (uses !== null && !options.force) {
        throw new ConflictError(
          `Media #${item.id} is used by ${uses}; delete with force to remove it anyway.`,
        );
      }
      if (options.ifVersion !== undefined && options.ifVersion !== item.updatedAt)
        throw new StaleWriteError();
      const files = await this.deps.db.transaction().execute((trx) => this.deps.library.remove(trx, item));
      // After the commit: a failed transaction never loses a file a row still names.
      scope.afterCommit(() => this.deps.media.removeFiles(files));
      await this.deps.changes.announce({
        kind: 'media',
        ids: [item.id],
        postIds: usage.postIds,
        pageIds: usage.pageIds,
      });
      await this.audited(actor, 'media.delete', item.id, item.websiteIds, { force: options.force });
    });
  }

  private websiteOf(actor: Actor): number {
    if (actor.websiteId === null) throw new NotFoundError('No website is configured for this host.');
    return actor.websiteId;
  }

  private audited(actor: Actor, action: string, id: number, websiteIds: readonly number[], input: unknown) {
    return recordWrite(this.deps.audit, actor, {
      action,
      resourceType: 'media',
      resourceId: id,
      websiteIds,
      input,
    });
  }
}

/** Shown on a website: bound to it, or to none (every website's). */
function shownOn(item: MediaItem, websiteId: number): boolean {
  return item.websiteIds.length === 0 || item.websiteIds.includes(websiteId);
}

/** `2 posts, 1 website` or null when unused. */
function describeUses(usage: MediaUsage): string | null {
  const count = (n: number, noun: string) => (n === 0 ? [] : [`${n} ${noun}${n === 1 ? '' : 's'}`]);
  const parts = [
    ...count(usage.postIds.length, 'post'),
    ...count(usage.pageIds.length, 'page'),
    ...count(usage.websites.length + (usage.elsewhere - hiddenContent(usage)), 'website'),
  ];
  return parts.length === 0 ? null : parts.join(', ');
}

/** Uses counted in `elsewhere` that are posts or pages (the rest are websites). */
function hiddenContent(usage: MediaUsage): number {
  return usage.postIds.length - usage.posts.length + (usage.pageIds.length - usage.pages.length);
}

/** A file name as stored and shown: its last path segment, control characters removed. */
function cleanName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return cleaned === '' ? 'upload' : cleaned;
}
