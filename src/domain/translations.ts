// Per-locale translations of text fields (spec 4.1 rule 1, R-T1..R-T3), for any model: one table
// keyed by (model_type, model_id, field, locale).
import type { Db } from '../db/database.js';
import { memoized } from '../lib/memo.js';

/** A translatable input: a plain string, or a map of locale to text. */
export type Translatable = string | Record<string, string>;
/** `{ field: { locale: text } }` */
export type TranslationMap = Record<string, Record<string, string>>;

export const DEFAULT_LOCALE = 'en';

// Short spellings seen, normalized: every localized URL of a page normalizes its locale again. Keys
// may come from requests: only short ones are kept, and at most a thousand.
const normalizedLocales = new Map<string, string>();

/** R-T1: trim, `-` -> `_`, first segment lower-case, a 2-letter second segment upper-case. */
export function normalizeLocale(key: string): string {
  if (key.length > 40) return normalizeLocaleNow(key);
  return memoized(normalizedLocales, key, 1000, () => normalizeLocaleNow(key));
}

function normalizeLocaleNow(key: string): string {
  const segments = key.trim().replace(/-/g, '_').split('_');
  return segments
    .map((segment, index) => {
      if (index === 0) return segment.toLowerCase();
      if (index === 1 && segment.length === 2) return segment.toUpperCase();
      return segment;
    })
    .join('_');
}

/** A locale key as Folio accepts it: `en`, `zh_TW`, `zh_Hant_TW`, `pt_BR`… */
export function isValidLocale(key: string): boolean {
  return /^[a-z]{2,3}(_[A-Za-z0-9]{2,8})*$/.test(normalizeLocale(key));
}

/**
 * R-T2: the base value of a locale map is the value for the default locale, else the first non-blank
 * value in map order; every entry is a translation (an empty string removes that locale's).
 */
export function splitTranslatable(
  value: Translatable,
  defaultLocale: string = DEFAULT_LOCALE,
): { base: string; translations: Record<string, string> } {
  if (typeof value === 'string') return { base: value, translations: {} };
  const translations: Record<string, string> = {};
  for (const [locale, text] of Object.entries(value)) translations[normalizeLocale(locale)] = text;
  const preferred = translations[normalizeLocale(defaultLocale)];
  const base =
    preferred !== undefined && preferred.trim() !== ''
      ? preferred
      : (Object.values(translations).find((text) => text.trim() !== '') ?? '');
  return { base, translations };
}

export class TranslationsService {
  constructor(private readonly db: Db) {}

  /** Saves the translations of one field; an empty text deletes that locale's translation. */
  async save(
    db: Db,
    modelType: string,
    modelId: number,
    field: string,
    translations: Record<string, string>,
  ): Promise<void> {
    for (const [locale, value] of Object.entries(translations)) {
      const key = { model_type: modelType, model_id: modelId, field, locale };
      if (value === '') {
        await db
          .deleteFrom('translations')
          .where('model_type', '=', modelType)
          .where('model_id', '=', modelId)
          .where('field', '=', field)
          .where('locale', '=', locale)
          .execute();
        continue;
      }
      await db
        .insertInto('translations')
        .values({ ...key, value })
        .onConflict((oc) => oc.columns(['model_type', 'model_id', 'field', 'locale']).doUpdateSet({ value }))
        .execute();
    }
  }

  /** Every translation of many models in one query: `id -> { field: { locale: text } }`. */
  async forModels(modelType: string, ids: readonly number[]): Promise<Map<number, TranslationMap>> {
    const byModel = new Map<number, TranslationMap>();
    if (ids.length === 0) return byModel;
    const rows = await this.db
      .selectFrom('translations')
      .select(['model_id', 'field', 'locale', 'value'])
      .where('model_type', '=', modelType)
      .where('model_id', 'in', [...ids])
      .orderBy('field')
      .orderBy('locale')
      .execute();
    for (const row of rows) {
      const map = byModel.get(row.model_id) ?? {};
      (map[row.field] ??= {})[row.locale] = row.value;
      byModel.set(row.model_id, map);
    }
    return byModel;
  }

  /** Deletes every translation of a model (on hard delete). */
  async deleteAll(db: Db, modelType: string, modelId: number): Promise<void> {
    await db
      .deleteFrom('translations')
      .where('model_type', '=', modelType)
      .where('model_id', '=', modelId)
      .execute();
  }
}

/** R-T3: the text of a field in a locale, else its base value. */
export function translate(
  base: string,
  map: TranslationMap | undefined,
  field: string,
  locale: string,
): string {
  const text = map?.[field]?.[normalizeLocale(locale)];
  return text !== undefined && text !== '' ? text : base;
}
