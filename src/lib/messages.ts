// Messages in a reader's language: a small subset of ICU MessageFormat, formatted with Intl, shared by
// the site's theme catalogues, the mails and (copied into its bundle) the admin panel.
//
//   {name}                                    the variable as text (numbers through Intl.NumberFormat)
//   {count, number}                           a number in the locale's digits and grouping
//   {count, plural, =0 {none} one {# post} other {# posts}}
//                                             Intl.PluralRules for the locale; `#` is the number
//   {kind, select, category {…} other {…}}    a choice by the variable's text
//
// Catalogues name locales as Folio does (`en`, `zh_TW`, `zh_CN`, `ja`); Intl wants BCP 47 (`zh-TW`).

export type MessageVars = Record<string, unknown>;

/** A variable as text: strings and numbers as they are, anything else (an object) as nothing. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return '';
}

/** The locales Folio ships catalogues for, English first (the fallback of every key). */
export const CATALOGUE_LOCALES = ['en', 'zh_TW', 'zh_CN', 'ja'] as const;

/** `zh_TW` -> `zh-TW`: what Intl and `<html lang>` want. */
export function bcp47(locale: string): string {
  return locale.replace(/_/g, '-');
}

/**
 * The catalogue for a locale among those available: the locale itself, then Chinese by script
 * (Hong Kong, Macau and `Hant` read Traditional: zh_TW; mainland, Singapore, `Hans` and a bare `zh`
 * read Simplified: zh_CN), then the language alone (`ja_JP` -> `ja`), else English.
 */
export function matchLocale(locale: string, available: readonly string[]): string {
  const wanted = locale.trim().replace(/-/g, '_');
  const lower = wanted.toLowerCase();
  const found = (name: string) => available.find((entry) => entry.toLowerCase() === name.toLowerCase());
  const exact = found(wanted);
  if (exact) return exact;
  const [language = ''] = lower.split('_');
  if (language === 'zh') {
    const traditional = /(^|_)(hant|tw|hk|mo)(_|$)/.test(lower);
    const chinese = found(traditional ? 'zh_TW' : 'zh_CN');
    if (chinese) return chinese;
  }
  return found(language) ?? available.find((entry) => entry.toLowerCase().startsWith(`${language}_`)) ?? 'en';
}

const pluralRules = new Map<string, Intl.PluralRules>();
const numberFormats = new Map<string, Intl.NumberFormat>();

/**
 * An `Intl` object of a locale, made once (English when the runtime does not know the locale); at
 * most 100 locales are kept, so odd spellings cannot grow the map.
 */
function intlOf<T>(made: Map<string, T>, locale: string, make: (tag: string) => T): T {
  let object = made.get(locale);
  if (!object) {
    try {
      object = make(bcp47(locale));
    } catch {
      object = make('en');
    }
    if (made.size < 100) made.set(locale, object);
  }
  return object;
}

const plurals = (locale: string) => intlOf(pluralRules, locale, (tag) => new Intl.PluralRules(tag));

/** A number in the locale's digits and grouping (`1,234` / `1.234`); `NaN` stays as given. */
export function formatNumber(value: unknown, locale: string): string {
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(number)) return textOf(value);
  return intlOf(numberFormats, locale, (tag) => new Intl.NumberFormat(tag)).format(number);
}

/** Where the `}` closing the `{` at `open` is (nested braces counted), or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

/**
 * The top-level `{…}` groups of a text, in order: the text before each (since the last) and inside it.
 * Stops at a `{` that is never closed.
 */
function* braceGroups(text: string): Generator<{ before: string; inner: string }> {
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf('{', at);
    if (open < 0) return;
    const end = closing(text, open);
    if (end < 0) return;
    yield { before: text.slice(at, open), inner: text.slice(open + 1, end) };
    at = end + 1;
  }
}

/** The `key {text}` choices of a plural or select argument. */
function choices(body: string): Map<string, string> {
  const options = new Map<string, string>();
  for (const { before, inner } of braceGroups(body)) {
    const key = before.trim();
    if (key !== '') options.set(key, inner);
  }
  return options;
}

function argument(spec: string, vars: MessageVars, locale: string, pound: string | null): string {
  const first = spec.indexOf(',');
  const name = (first < 0 ? spec : spec.slice(0, first)).trim();
  const value = vars[name];
  if (first < 0) {
    if (typeof value === 'number') return formatNumber(value, locale);
    return textOf(value);
  }
  const rest = spec.slice(first + 1);
  const second = rest.indexOf(',');
  const type = (second < 0 ? rest : rest.slice(0, second)).trim();
  if (type === 'number') return formatNumber(value, locale);
  if (type !== 'plural' && type !== 'select') return textOf(value);
  const options = choices(second < 0 ? '' : rest.slice(second + 1));
  let chosen: string | undefined;
  if (type === 'plural') {
    const number = Number(value ?? 0);
    chosen = options.get(`=${number}`) ?? options.get(plurals(locale).select(number)) ?? options.get('other');
    return format(chosen ?? '', vars, locale, formatNumber(number, locale));
  }
  chosen = options.get(textOf(value)) ?? options.get('other');
  return format(chosen ?? '', vars, locale, pound);
}

function format(pattern: string, vars: MessageVars, locale: string, pound: string | null): string {
  let out = '';
  let at = 0;
  while (at < pattern.length) {
    const open = pattern.indexOf('{', at);
    const hash = pound === null ? -1 : pattern.indexOf('#', at);
    if (hash >= 0 && (open < 0 || hash < open)) {
      out += pattern.slice(at, hash) + pound;
      at = hash + 1;
      continue;
    }
    if (open < 0) {
      out += pattern.slice(at);
      break;
    }
    const end = closing(pattern, open);
    if (end < 0) {
      out += pattern.slice(at);
      break;
    }
    out += pattern.slice(at, open) + argument(pattern.slice(open + 1, end), vars, locale, pound);
    at = end + 1;
  }
  return out;
}

/** Formats a catalogue's message for a locale with the given variables. */
export function formatMessage(pattern: string, vars: MessageVars = {}, locale = 'en'): string {
  return pattern.includes('{') ? format(pattern, vars, locale, null) : pattern;
}

/** The `{name}` arguments a message uses (the catalogue check compares them across locales). */
export function messageArguments(pattern: string): string[] {
  const names = new Set<string>();
  const walk = (text: string) => {
    for (const { inner: spec } of braceGroups(text)) {
      const comma = spec.indexOf(',');
      names.add((comma < 0 ? spec : spec.slice(0, comma)).trim());
      if (comma >= 0)
        for (const choice of choices(spec.slice(spec.indexOf(',', comma + 1) + 1)).values()) walk(choice);
    }
  };
  walk(pattern);
  return [...names].sort();
}
