// localize_images (spec 4.1 rule 3): every external <img> of a post's HTML is downloaded into the media
// library and its src rewritten to the local URL. The HTML is read with a real parser (cheerio); an
// image that cannot be fetched or is not an image stays as it was, and the post is saved anyway.
import type { MediaService } from '../media/files.js';
import type { SafeFetcher } from '../safe-fetch.js';

export interface LocalizeOptions {
  fetcher: SafeFetcher;
  media: MediaService;
  userId: number | null;
  toWebp: boolean;
  /** Our own public base URL: images already under it are local. */
  appUrl: string;
  /** Reports an image left as it was, and why. */
  onFailure?: (url: string, reason: string) => void;
}

export interface LocalizeResult {
  html: string;
  /** Source URL -> local URL, for the images that were localized. */
  localized: Map<string, string>;
}

const CONCURRENCY = 4;
/** Images downloaded for one save at most; any more stay external (each may take seconds and memory). */
export const MAX_LOCALIZED_IMAGES = 20;

/** The absolute http(s) URL of an image src, or null when it is local, relative or another scheme. */
function externalUrl(src: string, appUrl: string): string | null {
  const trimmed = src.trim();
  const candidate = trimmed.startsWith('//') ? `https:${trimmed}` : trimmed;
  if (!/^https?:\/\//i.test(candidate)) return null;
  if (candidate === appUrl || candidate.startsWith(`${appUrl}/`)) return null;
  return candidate;
}

export async function localizeImages(html: string, options: LocalizeOptions): Promise<LocalizeResult> {
  // Loaded on first use: the full parser (parse5, as browsers parse) costs ~15 MB a node keeps.
  const { load } = await import('cheerio');
  const $ = load(html, null, false);
  const images = $('img[src]').toArray();
  const wanted = new Set<string>();
  for (const element of images) {
    const url = externalUrl($(element).attr('src') ?? '', options.appUrl);
    if (url) wanted.add(url);
  }
  const localized = new Map<string, string>();
  if (wanted.size === 0) return { html, localized };

  const queue = [...wanted].slice(0, MAX_LOCALIZED_IMAGES);
  for (const url of [...wanted].slice(MAX_LOCALIZED_IMAGES)) {
    options.onFailure?.(url, `more than ${MAX_LOCALIZED_IMAGES} images in one post: left external`);
  }
  const worker = async () => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) {
      try {
        const image = await options.fetcher.fetchImage(url);
        const stored = await options.media.storeImage(image.body, {
          userId: options.userId,
          sourceUrl: url,
          toWebp: options.toWebp,
        });
        localized.set(url, stored.url);
      } catch (error) {
        options.onFailure?.(url, error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  if (localized.size === 0) return { html, localized };

  for (const element of images) {
    const img = $(element);
    const url = externalUrl(img.attr('src') ?? '', options.appUrl);
    const local = url ? localized.get(url) : undefined;
    if (!local) continue;
    img.attr('src', local);
    // A srcset would still point at the remote copies.
    img.removeAttr('srcset');
  }
  return { html: $.html(), localized };
}
