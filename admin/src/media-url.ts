// Library images on every domain of every website (issue 34 #17, issue 36 #5). Folio stores its own
// media by their site-relative address (`/media/…`), which every domain of the installation serves.
// Rows written before that, and HTML pasted from a published page, may hold absolute URLs on APP_URL
// (`http://127.0.0.1:3000/media/…` by default), which a panel opened on another domain cannot show:
// its Content-Security-Policy takes images from its own origin or https, and 127.0.0.1 is not even
// the reader's machine. The panel shows those by their path too, and saves what it shows (the server
// makes any absolute address of its own relative as it stores it).
//
// This installation's media: an http(s) URL under `/media/` on APP_URL's origin (the admin page names
// it in <meta name="folio-media-base">), on the panel's own origin, or on a loopback host (a URL built
// before APP_URL was set, which no other machine could open anyway).

const LOOPBACK = /^(127(\.\d{1,3}){3}|localhost|\[::1\])$/;

function mediaBase(): string | null {
  const meta = document.querySelector<HTMLMetaElement>('meta[name="folio-media-base"]');
  const base = meta?.content ?? '';
  return /^https?:\/\/[^/]+\/media\/$/.test(base) ? base : null;
}

function ours(url: URL): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (!url.pathname.startsWith('/media/')) return false;
  const base = mediaBase();
  return (
    url.origin === location.origin ||
    (base !== null && url.origin === new URL(base).origin) ||
    LOOPBACK.test(url.hostname)
  );
}

/** The address to show an image by in the panel: this installation's media by their path. */
export function shownUrl(url: string): string {
  if (!/^https?:\/\//i.test(url.trim())) return url;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return url;
  }
  return ours(parsed) ? `${parsed.pathname}${parsed.search}${parsed.hash}` : url;
}

function rewriteImages(html: string, rewrite: (src: string) => string): string {
  if (!html.includes('<img')) return html;
  const template = document.createElement('template');
  template.innerHTML = html;
  let changed = false;
  for (const image of template.content.querySelectorAll('img[src]')) {
    const src = image.getAttribute('src') ?? '';
    const next = rewrite(src);
    if (next !== src) {
      image.setAttribute('src', next);
      changed = true;
    }
  }
  return changed ? template.innerHTML : html;
}

/** HTML as the panel's editor shows it: this installation's images by their path. */
export const shownHtml = (html: string): string => rewriteImages(html, shownUrl);
