// Where Folio's own media live in stored text (issue 36 #5). A file the app serves is stored by its
// site-relative address, `/media/<path>`, never by an absolute URL built from APP_URL: a site answers
// on several hosts (its primary domain, its aliases, other websites of the installation), and APP_URL
// may change. Pages show the relative address as it is; what leaves the site (API v1 answers, feed
// content, og:image, JSON-LD) makes it absolute on the right origin when it is written out. Media on
// a CDN or a public bucket keep the absolute URL their driver gives.

import { escapeRegExp } from '../text/text-match.js';

/** What a file served by the app starts with, in stored text. */
export const MEDIA_PATH = '/media/';

/** Attributes that hold addresses in stored HTML; `srcset` holds several. */
const URL_ATTRIBUTE = /(\s(src|href|poster|srcset)\s*=\s*)(["'])([^"']*)\3/gi;

/** Rewrites each address in the HTML's URL attributes with `rewrite` (every candidate of a srcset). */
function rewriteAttributes(html: string, rewrite: (url: string) => string): string {
  return html.replace(URL_ATTRIBUTE, (whole, head: string, name: string, quote: string, value: string) => {
    const next =
      name.toLowerCase() === 'srcset'
        ? value.replace(
            /(^|,)(\s*)([^\s,]+)/g,
            (_m, comma: string, space: string, url: string) => `${comma}${space}${rewrite(url)}`,
          )
        : rewrite(value);
    return next === value ? whole : `${head}${quote}${next}${quote}`;
  });
}

/**
 * Stored media addresses made site-relative: an absolute URL on APP_URL's host (what older versions
 * stored) whose path is under /media/ becomes `/media/…`. Anything else is kept.
 */
export class MediaUrlRelativizer {
  private readonly pattern: RegExp;

  constructor(appUrl: string) {
    this.pattern = new RegExp(
      `^https?://${escapeRegExp(new URL(appUrl).host)}${escapeRegExp(MEDIA_PATH)}`,
      'i',
    );
  }

  /** One address (a thumbnail, a favicon, a media row's URL). */
  url(value: string): string;
  url(value: string | null): string | null;
  url(value: string | null): string | null {
    if (value === null || !this.pattern.test(value)) return value;
    return value.replace(this.pattern, MEDIA_PATH);
  }

  /** Every address in the URL attributes of stored HTML. */
  html(value: string): string;
  html(value: string | null): string | null;
  html(value: string | null): string | null {
    if (value === null || !value.includes(MEDIA_PATH)) return value;
    return rewriteAttributes(value, (url) => this.url(url));
  }
}

/** Whether a value is the site-relative address of one of Folio's own files (`/media/…`). */
export function isMediaPath(value: string): boolean {
  return value.startsWith(MEDIA_PATH) && !value.includes('..') && !/[\s\\]/.test(value);
}

/** An address absolute on `origin` (no trailing slash) when it is one of Folio's `/media/…` paths. */
export function absoluteMediaUrl(value: string, origin: string): string;
export function absoluteMediaUrl(value: string | null, origin: string): string | null;
export function absoluteMediaUrl(value: string | null, origin: string): string | null {
  return value !== null && value.startsWith(MEDIA_PATH) ? `${origin}${value}` : value;
}

/** HTML whose `/media/…` addresses (src, href, poster, srcset) are absolute on `origin`. */
export function absoluteMediaIn(html: string, origin: string): string;
export function absoluteMediaIn(html: string | null, origin: string): string | null;
export function absoluteMediaIn(html: string | null, origin: string): string | null {
  if (html === null || !html.includes(MEDIA_PATH)) return html;
  return rewriteAttributes(html, (url) => absoluteMediaUrl(url, origin));
}
