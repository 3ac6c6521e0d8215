// The locales a installation serves (R-F3): the default locale (setting `default_locale`, else `en`)
// and the supported ones (setting `supported_locales`: a comma-separated list or a JSON array,
// default the default locale alone). Localization is "on" when more than one locale is supported;
// then every non-default locale gets a `/{locale}` prefix in public URLs, the default locale none.
import type { SettingsReads } from './system/settings.js';
import { DEFAULT_LOCALE, isValidLocale, normalizeLocale } from './translations.js';

export interface LocaleSettings {
  defaultLocale: string;
  supported: string[];
  /** More than one supported locale. */
  localized: boolean;
}

export async function defaultLocale(settings: SettingsReads): Promise<string> {
  const value = (await settings.get('default_locale'))?.trim() ?? '';
  return value !== '' && isValidLocale(value) ? normalizeLocale(value) : DEFAULT_LOCALE;
}

/** Reads `supported_locales` as a JSON array or a comma-separated list; unusable entries are skipped. */
export function parseLocaleList(value: string | undefined): string[] {
  const text = value?.trim() ?? '';
  if (text === '') return [];
  let entries: unknown[] = text.split(',');
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      entries = Array.isArray(parsed) ? parsed : [];
    } catch {
      entries = [];
    }
  }
  const locales: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== 'string' || !isValidLocale(entry)) continue;
    const locale = normalizeLocale(entry);
    if (!locales.includes(locale)) locales.push(locale);
  }
  return locales;
}

export async function localeSettings(settings: SettingsReads): Promise<LocaleSettings> {
  const fallback = await defaultLocale(settings);
  const supported = parseLocaleList(await settings.get('supported_locales'));
  if (!supported.includes(fallback)) supported.unshift(fallback);
  return { defaultLocale: fallback, supported, localized: supported.length > 1 };
}

/**
 * A public path in a locale: `/{locale}{path}` for a non-default locale when localization is on,
 * else the path as it is.
 */
export function localizedPath(path: string, locale: string, locales: LocaleSettings): string {
  const normalized = normalizeLocale(locale);
  if (!locales.localized || normalized === locales.defaultLocale) return path;
  if (!locales.supported.includes(normalized)) return path;
  return `/${normalized}${path}`;
}

/**
 * The locale a URL's first segment names (R-F3): a supported locale other than the default, spelled
 * canonically (`zh_TW`, not `zh-tw`); else null.
 */
export function prefixLocale(segment: string, locales: LocaleSettings): string | null {
  const normalized = normalizeLocale(segment);
  if (segment !== normalized || normalized === locales.defaultLocale) return null;
  return locales.supported.includes(normalized) ? normalized : null;
}
