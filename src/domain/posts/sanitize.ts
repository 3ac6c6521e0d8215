// What a non-administrator writes is cut down to the allow-list of the public site: HTML content
// through sanitize-html, the excerpt to plain text. Administrators' HTML is kept as written (the policy's
// `content.unfiltered_html`). Every
// surface (API, site) gets the same treatment because it happens in the operations.
import { ValidationError } from '../errors.js';
import { plainText, sanitizePostHtml } from '../text/html-sanitizer.js';
import type { Translatable } from '../translations.js';
import type { PostWrite } from './model.js';

function mapText(value: Translatable, clean: (text: string) => string): Translatable {
  if (typeof value === 'string') return clean(value);
  return Object.fromEntries(Object.entries(value).map(([locale, text]) => [locale, clean(text)]));
}

function blank(value: Translatable): boolean {
  return typeof value === 'string'
    ? value.trim() === ''
    : Object.values(value).every((text) => text.trim() === '');
}

/** The write as stored: as written when `unfiltered` (the policy's `content.unfiltered_html`), else cleaned. */
export function cleaned(write: PostWrite, unfiltered: boolean): PostWrite {
  if (unfiltered) return write;
  const cleaned: PostWrite = { ...write };
  if (write.content !== undefined) {
    cleaned.content = mapText(write.content, sanitizePostHtml);
    // Sanitizing may leave nothing (a post of one script tag): that is an empty content.
    if (blank(cleaned.content)) throw new ValidationError({ content: ['The content field is required.'] });
  }
  if (write.excerpt != null) cleaned.excerpt = mapText(write.excerpt, plainText);
  return cleaned;
}
