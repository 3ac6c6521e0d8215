// Post and page content is HTML written by authors through the API; not every author is trusted, so
// it is cleaned before it reaches a reader: formatting, links, images, tables and code stay, and the
// video players the admin editor embeds (YouTube, Vimeo: the same rule as the sanitizer of what is
// written, domain/text/html-sanitizer.ts); scripts, event handlers, styles and other frames go.
import sanitizeHtml from 'sanitize-html';
import { PLAYER_EMBEDS } from '../domain/text/html-sanitizer.js';

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    ...sanitizeHtml.defaults.allowedTags,
    'img',
    'figure',
    'figcaption',
    'picture',
    'source',
    'del',
    'ins',
    'sup',
    'sub',
    'mark',
    'details',
    'summary',
    ...PLAYER_EMBEDS.tags,
  ],
  allowedAttributes: {
    ...sanitizeHtml.defaults.allowedAttributes,
    a: ['href', 'name', 'target', 'rel', 'title'],
    img: ['src', 'srcset', 'sizes', 'alt', 'title', 'width', 'height', 'loading'],
    source: ['srcset', 'sizes', 'type', 'media'],
    '*': ['id', 'class', 'lang', 'dir'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan', 'scope'],
    ...PLAYER_EMBEDS.attributes,
  },
  ...PLAYER_EMBEDS.options,
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  transformTags: {
    // A link that opens a new tab must not give that tab a handle on this one.
    a: (tagName, attribs) =>
      attribs.target === '_blank'
        ? { tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } }
        : { tagName, attribs },
    iframe: PLAYER_EMBEDS.transform,
  },
};

export function cleanContent(html: string): string {
  return sanitizeHtml(html, OPTIONS);
}
