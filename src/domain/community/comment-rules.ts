// Which new comments are held for review (issue 25 #4), per website: its moderation mode and its list
// of held words, stored as settings under the website's keys (`site.<id>.…`, so every node sees a
// change at once through the settings' change feed), the installation's `comments_moderation` when
// the website has no mode of its own. CommentsService.store applies them; the moderation operations
// (comment-moderation.ts) read and change them.
import { z } from 'zod';
import type * as CheerioSlim from 'cheerio/slim';
import { lazyModule } from '../../lib/lazy-module.js';
import type { SettingsService } from '../system/settings.js';
import { escapeRegExp } from '../text/text-match.js';

const cheerio = lazyModule<typeof CheerioSlim>('cheerio/slim');

/**
 * `none`: every comment is published; `anonymous`: comments of signed-in users are published, the
 * others held; `first`: a commenter's first comment is held, later ones are published once an
 * earlier one was approved (by user, or by email address); `all`: every comment is held.
 */
export const MODERATION_MODES = ['none', 'anonymous', 'first', 'all'] as const;
export type ModerationMode = (typeof MODERATION_MODES)[number];
export const DEFAULT_MODERATION_MODE: ModerationMode = 'anonymous';
/** The installation's mode (the default of every website). */
export const INSTALLATION_MODERATION_SETTING = 'comments_moderation';

export const MAX_HELD_WORDS = 500;
export const MAX_HELD_WORD_LENGTH = 100;

export const siteModerationKey = (websiteId: number) => `site.${websiteId}.comments_moderation`;
export const heldWordsKey = (websiteId: number) => `site.${websiteId}.comments_held_words`;

export const moderationSettingsInput = z
  .object({
    /** Null: follow the installation's mode. */
    mode: z.enum(MODERATION_MODES).nullable().optional(),
    held_words: z
      .array(
        z
          .string()
          .trim()
          .min(1)
          .max(MAX_HELD_WORD_LENGTH)
          .regex(/^[^\n\r]*$/u),
      )
      .max(MAX_HELD_WORDS)
      .optional(),
  })
  .strict();

export interface ModerationSettings {
  mode: ModerationMode;
  /** The mode comes from the installation's setting (the website has none of its own). */
  inherited: boolean;
  heldWords: string[];
}

function asMode(value: string | undefined): ModerationMode | null {
  const mode = value?.trim().toLowerCase();
  return (MODERATION_MODES as readonly string[]).includes(mode ?? '') ? (mode as ModerationMode) : null;
}

/** The website's moderation settings (from the settings snapshot: no query on a warm node). */
export async function moderationSettings(
  settings: SettingsService,
  websiteId: number,
): Promise<ModerationSettings> {
  const all = await settings.all();
  const own = asMode(all.get(siteModerationKey(websiteId)));
  const installation = asMode(all.get(INSTALLATION_MODERATION_SETTING)) ?? DEFAULT_MODERATION_MODE;
  return {
    mode: own ?? installation,
    inherited: own === null,
    heldWords: parseWords(all.get(heldWordsKey(websiteId)) ?? ''),
  };
}

/** The stored form of a word list (one a line), and back. */
export function storeWords(words: readonly string[]): string {
  return [...new Set(words.map((word) => word.trim()).filter((word) => word !== ''))].join('\n');
}

export function parseWords(stored: string): string[] {
  return stored
    .split('\n')
    .map((word) => word.trim())
    .filter((word) => word !== '');
}

const matchers = new Map<string, RegExp | null>();

/**
 * A pattern that finds any of the words as a whole word (not inside a longer word), whatever the
 * case, in any script: a word boundary is anything but a letter, a mark or a digit.
 */
function matcherOf(words: readonly string[]): RegExp | null {
  const key = words.join('\n');
  if (matchers.has(key)) return matchers.get(key) ?? null;
  const alternatives = words
    .map((word) => escapeRegExp(word.normalize('NFKC')))
    .filter((word) => word !== '');
  const pattern =
    alternatives.length === 0
      ? null
      : new RegExp(`(?<![\\p{L}\\p{M}\\p{N}_])(?:${alternatives.join('|')})(?![\\p{L}\\p{M}\\p{N}_])`, 'iu');
  if (matchers.size > 100) matchers.clear();
  matchers.set(key, pattern);
  return pattern;
}

/** Whether a comment's text (its sanitized HTML, read as text) contains a held word. */
export function containsHeldWord(html: string, words: readonly string[]): boolean {
  const pattern = matcherOf(words);
  if (!pattern) return false;
  const $ = cheerio().load(html, null, false);
  // Blocks and line breaks separate words (`<p>a</p><p>b</p>` is not "ab").
  $('br').replaceWith(' ');
  $('p, li, blockquote, pre').append(' ');
  return pattern.test($.root().text().normalize('NFKC'));
}
