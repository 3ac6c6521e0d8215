// HTML from people the site does not trust (posts written by non-admin users) is cut down to an
// allow-list by sanitize-html: formatting, links, images and tables; no scripts, styles, event
// handlers or forms; frames of YouTube's and Vimeo's players only; http(s) and mailto links only; every link opens without a referrer and
// is marked as user content for search engines.
import { load } from 'cheerio';
import sanitizeHtml from 'sanitize-html';

/** The embedded players a post may frame (what the admin editor's video button inserts). */
const PLAYER_URL = /^https:\/\/(www\.youtube-nocookie\.com|www\.youtube\.com|player\.vimeo\.com)\//;

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
    // Video embeds of the admin editor: <div data-youtube-video><iframe …></div> (see iframe below).
    'div',
    'iframe',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    ol: ['start'],
    div: ['data-youtube-video', 'data-vimeo-video'],
    iframe: ['src', 'width', 'height', 'allowfullscreen', 'title', 'loading', 'sandbox'],
  },
  // Frames only of these video players, over https; anything else is dropped with its frame.
  allowedIframeHostnames: ['www.youtube-nocookie.com', 'www.youtube.com', 'player.vimeo.com'],
  allowIframeRelativeUrls: false,
  // …and a frame whose address is not such a player's (or not https) goes with its content.
  exclusiveFilter: (frame) => frame.tag === 'iframe' && !PLAYER_URL.test(frame.attribs.src ?? ''),
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  // Dropped with their content, not unwrapped: the text of a script is no article text.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'object', 'embed'],
  disallowedTagsMode: 'discard',
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow ugc noopener noreferrer' }),
    // A player frame may run the player's scripts, never reach the page (no same-origin with it).
    iframe: (tagName, attribs) => ({
      tagName,
      attribs: {
        ...attribs,
        sandbox: 'allow-scripts allow-same-origin allow-presentation allow-popups',
        loading: 'lazy',
      },
    }),
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
