// Slugs: lower-case ASCII words joined by hyphens, transliterated from any script ("你好世界" ->
// "ni-hao-shi-jie"), never empty, made unique with -2, -3… (R-P5, R-Tg4).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Transliteration from 'transliteration';

const require = createRequire(import.meta.url);
/** Loaded by the first text that is not ASCII: an English site's nodes never keep its ~3 MB. */
let transliteration: typeof Transliteration | null = null;

export const MAX_SLUG_LENGTH = 190;
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The slug of a text, or '' when nothing readable is left (emoji only, say). */
export function slugify(text: string): string {
  // ASCII needs no transliteration: lower-cased, the rest below makes the same slug the library would
  // (test/unit/slugs-translations.test.ts compares them).
  const words = !/[\u0080-\uffff]/.test(text)
    ? text.toLowerCase()
    : (transliteration ??= require('transliteration') as typeof Transliteration).slugify(text, {
        lowercase: true,
        separator: '-',
        trim: true,
      });
  const slug = words
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '');
  return slug.slice(0, MAX_SLUG_LENGTH).replace(/-$/, '');
}

/** Eight random lower-case letters and digits: the slug of a title with nothing to transliterate. */
export function randomSlug(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

/**
 * The first of `base`, `base-2`, `base-3`… that is free. `taken` answers which of a batch of
 * candidates exist already (one query per batch of ten).
 */
export async function uniqueSlug(
  base: string,
  taken: (candidates: string[]) => Promise<Set<string>>,
): Promise<string> {
  const root = base === '' ? randomSlug() : base;
  for (let start = 1; start < 10_000; start += 10) {
    const candidates = Array.from({ length: 10 }, (_, i) =>
      start + i === 1 ? root : `${root}-${start + i}`,
    );
    const used = await taken(candidates);
    const free = candidates.find((candidate) => !used.has(candidate));
    if (free) return free;
  }
  return `${root}-${randomSlug()}`;
}
