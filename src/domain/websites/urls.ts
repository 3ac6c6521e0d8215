// Absolute URLs of a website (in mail, feeds, sitemaps): its primary domain, with the scheme and port
// Folio is served on (APP_URL's). Never built from a request's Host header, which the client chooses.
import { memoized } from '../../lib/memo.js';

export function siteOrigin(website: { domain: string }, appUrl: string): string {
  // Every public page asks (SEO, feeds, sitemaps): two URL parses per call were ~9 µs a page. The
  // answer is a pure function of the domain and APP_URL, so it is remembered (bounded: domains are
  // the websites' own, never a request's Host).
  const key = `${appUrl}\n${website.domain}`;
  return memoized(origins, key, MAX_ORIGINS, () => {
    const served = new URL(appUrl);
    const origin = new URL(`${served.protocol}//${website.domain}`);
    origin.port = served.port; // '' for the scheme's default port
    return origin.origin;
  });
}

const origins = new Map<string, string>();
const MAX_ORIGINS = 1000;

/**
 * A link target safe to put in `href`: http(s), mailto and tel URLs, and relative references
 * (a path, a query, a fragment). Anything else (`javascript:`, `data:`, `vbscript:`, a scheme hidden
 * behind control characters or spaces) is not: browsers strip those before reading the scheme.
 */
export function isSafeHref(value: string): boolean {
  // eslint-disable-next-line no-control-regex -- exactly what browsers strip before reading a scheme
  const compact = value.replace(/[\u0000-\u0020\u007f]/g, '');
  if (compact === '') return false;
  if (compact.startsWith('//') || compact.startsWith('\\'))
    return /^\/\/[^/\\]/.test(compact) && isHttpNetworkPath(compact);
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact)?.[1]?.toLowerCase();
  return scheme === undefined || ['http', 'https', 'mailto', 'tel'].includes(scheme);
}

/** `//host/path` (a link to another site on the page's scheme) is fine when it names a host. */
function isHttpNetworkPath(value: string): boolean {
  try {
    return new URL(`https:${value}`).hostname !== '';
  } catch {
    return false;
  }
}

/** The value when it is a safe link target, else `#` (a row written by other means stays harmless). */
export function safeHref(value: string | null): string | null {
  return value === null ? null : isSafeHref(value) ? value : '#';
}
