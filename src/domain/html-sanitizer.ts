// HTML from people the site does not trust (posts written by non-admin users) is cut down to an
// allow-list by sanitize-html: formatting, links and images only; no scripts, styles, event
// handlers, forms or frames; http(s) and mailto links only; every link opens without a referrer and
// is marked as user content for search engines.
import { load } from 'cheerio';
import sanitizeHtml from 'sanitize-html';

const POST_HTML: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'blockquote',
    'pre',
    'code',
    'kbd',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'del',
    'ins',
    'mark',
    'sub',
    'sup',
    'small',
    'ul',
    'ol',
    'li',
    'dl',
    'dt',
    'dd',
    'a',
    'img',
    'figure',
    'figcaption',
    'table',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'th',
    'td',
    'caption',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    ol: ['start'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  // Dropped with their content, not unwrapped: the text of a script is no article text.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed'],
  disallowedTagsMode: 'discard',
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow ugc noopener noreferrer' }),
  },
};

/** Post content from a non-admin: allowed tags and attributes only. */
export function sanitizePostHtml(html: string): string {
  return sanitizeHtml(html, POST_HTML);
}

/**
 * Text that must carry no markup (an excerpt from a non-admin): tags dropped (scripts and styles with
 * their content), entities decoded. The result is plain text, which themes escape like a title.
 */
export function plainText(html: string): string {
  const stripped = sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} });
  return load(stripped, null, false).text();
}
