// How long a post takes to read (issue 22): words of its text at an adult's silent reading pace, and
// for Chinese, Japanese and Korean, which are not written in space-separated words, characters.
import { plainText } from './search.js';

/** Words a minute of silent reading in languages written in words. */
export const WORDS_PER_MINUTE = 230;
/** Characters a minute of silent reading in Chinese, Japanese and Korean. */
export const CJK_CHARACTERS_PER_MINUTE = 500;

/** Han, kana and Hangul: each counts as one character read. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/** The words and CJK characters of a text (plain text, not HTML). */
export function countReading(text: string): { words: number; cjk: number } {
  const cjk = text.match(CJK)?.length ?? 0;
  const rest = text.replace(CJK, ' ');
  const words = rest.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
  return { words, cjk };
}

/** Minutes to read HTML content, at least 1. */
export function readingMinutes(html: string): number {
  const { words, cjk } = countReading(plainText(html));
  return Math.max(1, Math.round(words / WORDS_PER_MINUTE + cjk / CJK_CHARACTERS_PER_MINUTE));
}
