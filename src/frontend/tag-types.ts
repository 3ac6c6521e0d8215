// Which tag types have public pages at `/post/{type}/{slug}` (R-F2): a short name in the URL for each
// tag type. Built in: `category` -> `post_category`, `tag` -> `post_tag`. The setting
// `frontend_tag_types` adds (or overrides) more: a JSON object (`{"keyword":"post_keyword"}`) or a
// comma list of `short:type` pairs, where a bare `short` means `post_{short}` (`keyword` ->
// `post_keyword`). Names that are routes of their own (`search`, `rank`, `list`, `create`, `store`,
// `edit`, `update`) can never be types.
import type { SettingsReads } from '../domain/system/settings.js';

export const TAG_TYPES_SETTING = 'frontend_tag_types';
export const DEFAULT_POST_TAG_TYPES: Readonly<Record<string, string>> = {
  category: 'post_category',
  tag: 'post_tag',
};
const RESERVED = new Set(['search', 'rank', 'list', 'create', 'store', 'edit', 'update']);
const SHORT_NAME = /^[a-z][a-z0-9_-]{0,49}$/;
const TYPE_NAME = /^[a-z][a-z0-9_]{0,49}$/;

/** Parses the setting into short name -> tag type; unusable entries are skipped. */
export function parseTagTypes(value: string | undefined): Map<string, string> {
  const types = new Map(Object.entries(DEFAULT_POST_TAG_TYPES));
  const text = value?.trim() ?? '';
  let pairs: Array<[string, string]> = [];
  if (text.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        pairs = Object.entries(parsed).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : []));
      }
    } catch {
      pairs = [];
    }
  } else if (text !== '') {
    pairs = text.split(',').map((entry) => {
      const [short = '', type] = entry.split(':').map((part) => part.trim());
      return [short, type || `post_${short}`];
    });
  }
  for (const [short, type] of pairs) {
    const name = short.trim().toLowerCase();
    if (SHORT_NAME.test(name) && !RESERVED.has(name) && TYPE_NAME.test(type)) types.set(name, type);
  }
  return types;
}

export async function postTagTypes(settings: SettingsReads): Promise<Map<string, string>> {
  return parseTagTypes(await settings.get(TAG_TYPES_SETTING));
}

/** The short name of a tag type (the first that maps to it), or undefined when it has no pages. */
export function shortNameOf(types: Map<string, string>, type: string): string | undefined {
  for (const [short, full] of types) if (full === type) return short;
  return undefined;
}
