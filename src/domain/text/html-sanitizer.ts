// HTML from people the site does not trust (posts written by non-admin users) is cut down to an
// allow-list by sanitize-html: formatting, links, images and tables; no scripts, styles, event
// handlers or forms; frames of YouTube's and Vimeo's players only (PLAYER_EMBEDS, which the sanitizer
// of what readers see shares); http(s) and mailto links only; every link opens without a referrer and
// is marked as user content for search engines.
import type * as CheerioSlim from 'cheerio/slim';
import { lazyModule } from '../../lib/lazy-module.js';
import sanitizeHtml from 'sanitize-html';

const cheerio = lazyModule<typeof CheerioSlim>('cheerio/slim');

/**
 * The video players a post may frame (what the admin editor's video buttons insert): YouTube's (also
 * its privacy-enhanced youtube-nocookie.com) and Vimeo's, over https, at their embed paths only.
 */
export const PLAYER_HOSTS = [
  'www.youtube-nocookie.com',
  'youtube-nocookie.com',
  'www.youtube.com',
  'youtube.com',
  'player.vimeo.com',
] as const;
const PLAYER_URL =
  /^https:\/\/((www\.)?youtube-nocookie\.com\/embed\/|(www\.)?youtube\.com\/embed\/|player\.vimeo\.com\/video\/)[^\s]/;

/** True for the address of a player a post may frame. */
export function isPlayerUrl(src: string): boolean {
  return PLAYER_URL.test(src);
}

/**
 * The part of a sanitize-html configuration that lets the players through, shared by the sanitizer of
 * what is written (below) and the one of what is shown (frontend/content.ts), so a post's videos
 * survive both: `<div data-youtube-video|data-vimeo-video><iframe src=player …></div>`. Every frame
 * is sandboxed (the player's scripts run, the page is out of its reach), lazy, titled and may go full
 * screen; any other frame is dropped with its content.
 */
export const PLAYER_EMBEDS = {
  tags: ['div', 'iframe'],
  attributes: {
    div: ['data-youtube-video', 'data-vimeo-video'],
    iframe: ['src', 'width', 'height', 'allowfullscreen', 'title', 'loading', 'sandbox'],
  },
  options: {
    allowedIframeHostnames: [...PLAYER_HOSTS],
    allowIframeRelativeUrls: false,
    exclusiveFilter: (frame: sanitizeHtml.IFrame) =>
      frame.tag === 'iframe' && !isPlayerUrl(frame.attribs.src ?? ''),
  },
  transform: (tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag => ({
    tagName,
    attribs: {
      ...attribs,
      title: attribs.title?.trim() ? attribs.title : 'Embedded video',
      allowfullscreen: '',
      sandbox: 'allow-scripts allow-same-origin allow-presentation allow-popups',
      loading: 'lazy',
    },
  }),
};

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
    // Video embeds of the admin editor (PLAYER_EMBEDS).
    ...PLAYER_EMBEDS.tags,
  ],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    ol: ['start'],
    ...PLAYER_EMBEDS.attributes,
  },
  // Frames only of these video players, over https; anything else is dropped with its content.
  ...PLAYER_EMBEDS.options,
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  // Dropped with their content, not unwrapped: the text of a script is no article text.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'object', 'embed'],
  disallowedTagsMode: 'discard',
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow ugc noopener noreferrer' }),
    iframe: PLAYER_EMBEDS.transform,
  },
};

/** Post content from a non-admin: allowed tags and attributes only. */
export function sanitizePostHtml(html: string): string {
  return sanitizeHtml(html, POST_HTML);
}

/**
 * HTML of a site brought in from elsewhere (a WordPress or Ghost import): the same allow-list, but its
 * links keep the `rel` they had (they are the publisher's own, not a visitor's), and elements keep
 * their `class` (WordPress's blocks and Ghost's cards are styled by it; a class runs nothing).
 */
export function sanitizeImportedHtml(html: string): string {
  return sanitizeHtml(html, {
    ...POST_HTML,
    allowedAttributes: { ...POST_HTML.allowedAttributes, '*': ['class'] },
    transformTags: { iframe: PLAYER_EMBEDS.transform },
  });
}

/**
 * Text that must carry no markup (an excerpt from a non-admin): tags dropped (scripts and styles with
 * their content), entities decoded. The result is plain text, which themes escape like a title.
 */
export function plainText(html: string): string {
  const stripped = sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} });
  return cheerio().load(stripped, null, false).text();
}
