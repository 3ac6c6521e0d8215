// Images of a site brought in from elsewhere (WordPress, Ghost): each fetched once per URL through the
// SSRF guard, kept by its content's hash in the archive being built (a media item bound to the
// website), and the content's <img> pointed at the copy. One that cannot be fetched stays where it
// was, and the import's report says why.
import { createHash } from 'node:crypto';
import type { MediaStore } from '../../storage/store.js';
import type { SafeFetcher } from '../safe-fetch.js';
import type { ArchiveBuilder } from './archive-writer.js';
import type { ImportReport } from './import-folio.js';
import { loadSharp } from '../media/files.js';

const EXTENSIONS: Record<string, string> = {
  jpeg: 'jpg',
  png: 'png',
  gif: 'gif',
  webp: 'webp',
  avif: 'avif',
  svg: 'svg',
};

export class ImportedImages {
  private readonly images = new Map<string, string | null>();
  private mediaId = 0;

  constructor(
    private readonly deps: {
      fetcher: SafeFetcher;
      store: MediaStore;
      out: ArchiveBuilder;
      notes: ImportReport['skipped'];
      /** Nothing is fetched: a dry run, or images left at their URLs (`--no-media`). */
      skip: boolean;
      now: string;
    },
  ) {}

  /** The library's URL of the image at `url` (fetched the first time), or null when it stays external. */
  async local(url: string): Promise<string | null> {
    if (this.images.has(url)) return this.images.get(url)!;
    let local: string | null = null;
    if (this.deps.skip) {
      this.images.set(url, null);
      return null;
    }
    const { store, out, now } = this.deps;
    try {
      const fetched = await this.deps.fetcher.fetchImage(url);
      const meta = await (await loadSharp())(fetched.body).metadata();
      const ext = EXTENSIONS[meta.format ?? ''];
      if (!ext) throw new Error(`not an image Folio keeps (${meta.format ?? 'unknown'})`);
      const sha256 = createHash('sha256').update(fetched.body).digest('hex');
      const stored = `library/imported/${sha256.slice(0, 32)}.${ext}`;
      this.mediaId += 1;
      out.addMedia(stored, fetched.body);
      out.add('media', {
        id: this.mediaId,
        user_id: null,
        disk: store.disk,
        path: stored,
        url: store.url(stored),
        mime_type: ext === 'svg' ? 'image/svg+xml' : `image/${meta.format}`,
        size: fetched.body.length,
        width: meta.width ?? null,
        height: meta.height ?? null,
        source_url: url,
        sha256,
        created_at: now,
        file_name: decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '') || null,
        alt: null,
        caption: null,
        variants: null,
        updated_at: now,
      });
      out.add('website_bindings', { website_id: 1, model_type: 'media', model_id: this.mediaId });
      local = store.url(stored);
    } catch (error) {
      this.deps.notes.push({
        kind: 'media',
        id: url,
        reason: `not fetched, left as an external URL: ${(error as Error).message}`,
      });
    }
    this.images.set(url, local);
    return local;
  }

  /** The HTML with every http(s) <img> pointed at its copy in the library (where it could be fetched). */
  async localizeContent(html: string): Promise<string> {
    const { load } = await import('cheerio');
    const $ = load(html, null, false);
    let changed = false;
    for (const element of $('img[src]').toArray()) {
      const src = $(element).attr('src') ?? '';
      if (!/^https?:\/\//i.test(src)) continue;
      const local = await this.local(src);
      if (local) {
        $(element).attr('src', local).removeAttr('srcset').removeAttr('sizes');
        changed = true;
      }
    }
    return changed ? $.html() : html;
  }
}
