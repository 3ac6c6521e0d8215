// What search engines read on every public page: the canonical URL (always on the website's primary
// domain, whatever alias the visitor came through), hreflang alternates of the same page in every
// supported locale (R-F3), the description, and Open Graph tags.
import type { FastifyRequest } from 'fastify';
import { siteOrigin as websiteOrigin } from '../domain/websites/urls.js';
import { localizedPath } from '../domain/locales.js';
import type { FaceServices } from '../services.js';
import type { FrontendState } from './context.js';

export interface SeoInput {
  /** The page's own title (the layout adds the site name). */
  title?: string;
  description?: string;
  /** An image for Open Graph (absolute or site-relative URL). */
  image?: string | null;
  /** `website` (default) or `article`. */
  type?: string;
  /** Query parameters that make a different page and belong in the canonical URL (`page`). */
  canonicalQuery?: Record<string, string | number | undefined>;
  /** Locales this page exists in; default: every supported locale. */
  locales?: string[];
  /** Keep out of search results (search results, error pages). */
  noindex?: boolean;
  publishedTime?: string;
  modifiedTime?: string;
  /** An article's headline and author: the page gets Article JSON-LD (schema.org). */
  article?: { headline: string; author?: { name: string; url?: string | null } | null };
  /**
   * Where neither the page nor the site has a description, the site's slogan, else a sentence with
   * the site's name (the home page: search engines and Lighthouse want a description).
   */
  sloganAsDescription?: boolean;
}

export interface Seo {
  title: string;
  description: string;
  canonical: string;
  type: string;
  image: string | null;
  robots: string | null;
  alternates: Array<{ hreflang: string; href: string }>;
  published_time: string | null;
  modified_time: string | null;
  /** Article JSON-LD, escaped to sit inside `<script type="application/ld+json">` as it is. */
  json_ld: string | null;
}

/**
 * JSON for a `<script>` element: `<`, `>` and `&` as `\u003c` … (so no `</script>` or `<!--` can end
 * or change the element, whatever a title says), and U+2028/U+2029 escaped too. Still the same JSON.
 */
export function scriptJson(value: unknown): string {
  const json = JSON.stringify(value);
  // Most texts have none of these: one scan, no callback per match, no new string.
  return UNSAFE_IN_SCRIPT.test(json) ? json.replace(UNSAFE_IN_SCRIPT_ALL, escapeInScript) : json;
}

const UNSAFE_IN_SCRIPT = /[<>&\u2028\u2029]/;
const UNSAFE_IN_SCRIPT_ALL = /[<>&\u2028\u2029]/g;
const SCRIPT_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};
const escapeInScript = (char: string) => SCRIPT_ESCAPES[char]!;

/** An absolute URL of the site's origin, from a site-relative one. */
function absoluteOf(origin: string, url: string | null | undefined): string | undefined {
  return url ? absolute(origin, url) : undefined;
}

/** `zh_TW` -> `zh-TW`, for `<html lang>` and hreflang. */
export function htmlLang(locale: string): string {
  return locale.replace(/_/g, '-');
}

/**
 * `scheme://primary-domain[:port]` of the website, with APP_URL's scheme and port (domain/websites/urls.ts):
 * never the Host header's port, which the client chooses (and which would make one page many in
 * the page cache).
 */
export function siteOrigin(services: FaceServices, state: FrontendState): string {
  return websiteOrigin(state.website, services.config.appUrl);
}

/** The path of the request without its locale prefix and query: the page's identity across locales. */
export function basePath(request: FastifyRequest, state: FrontendState): string {
  const path = request.url.split('?')[0] ?? '/';
  if (state.locale === state.locales.defaultLocale) return path;
  const prefix = `/${state.locale}`;
  if (path === prefix) return '/';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : path;
}

function queryString(query: SeoInput['canonicalQuery']): string {
  const entries = Object.entries(query ?? {}).filter(
    (entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '',
  );
  if (entries.length === 0) return '';
  return `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
}

export function buildSeo(
  services: FaceServices,
  request: FastifyRequest,
  state: FrontendState,
  input: SeoInput,
  site: { description: string; slogan: string; name: string },
): Seo {
  const origin = siteOrigin(services, state);
  const path = basePath(request, state);
  const query = queryString(input.canonicalQuery);
  const canonical = `${origin}${localizedPath(path, state.locale, state.locales)}${query}`;
  const alternates: Seo['alternates'] = [];
  if (state.locales.localized) {
    const locales = input.locales ?? state.locales.supported;
    for (const locale of state.locales.supported) {
      if (!locales.includes(locale)) continue;
      alternates.push({
        hreflang: htmlLang(locale),
        href: `${origin}${localizedPath(path, locale, state.locales)}${query}`,
      });
    }
    if (alternates.length > 0) {
      alternates.push({
        hreflang: 'x-default',
        href: `${origin}${localizedPath(path, state.locales.defaultLocale, state.locales)}${query}`,
      });
    }
  }
  const image = input.image ? absolute(origin, input.image) : null;
  const description =
    (input.description ?? '').trim() ||
    site.description.trim() ||
    (input.sloganAsDescription ? site.slogan.trim() || state.t('seo.latest_posts', { site: site.name }) : '');
  const article = input.article;
  const jsonLd = article
    ? scriptJson({
        '@context': 'https://schema.org',
        '@type': 'Article',
        headline: article.headline,
        description: description || undefined,
        image: image ? [image] : undefined,
        datePublished: input.publishedTime,
        dateModified: input.modifiedTime ?? input.publishedTime,
        author: article.author
          ? { '@type': 'Person', name: article.author.name, url: absoluteOf(origin, article.author.url) }
          : undefined,
        publisher: { '@type': 'Organization', name: site.name, url: `${origin}/` },
        mainEntityOfPage: canonical,
      })
    : null;
  return {
    title: input.title ?? '',
    description,
    canonical,
    type: input.type ?? 'website',
    image,
    robots: input.noindex ? 'noindex, follow' : null,
    alternates,
    published_time: input.publishedTime ?? null,
    modified_time: input.modifiedTime ?? null,
    json_ld: jsonLd,
  };
}

function absolute(origin: string, url: string): string {
  if (/^https?:\/\//i.test(url)) return url;
  return url.startsWith('/') ? `${origin}${url}` : `${origin}/${url}`;
}
