// The words of a theme in the reader's language (issue 41). Each theme may hold catalogues in
// `locales/{locale}.json`: one flat JSON object of `"key": "message"` (ICU-style messages, see
// lib/messages.ts). A key is looked up in the theme's catalogue for the page's locale, then the
// default theme's for that locale, then the theme's English, then the default theme's English; so a
// theme adds a language by adding a file, and overrides a word by naming its key. Keys starting with
// `_` are notes for translators, never shown.
import fs from 'node:fs';
import path from 'node:path';
import { formatMessage, matchLocale } from '../lib/messages.js';
import type { MessageVars } from '../lib/messages.js';

export const DEFAULT_THEME_NAME = 'default';

export type Translate = (key: string, vars?: MessageVars) => string;

type Catalogue = ReadonlyMap<string, string>;

export class ThemeTranslations {
  private readonly files = new Map<string, { stamp: string; catalogue: Catalogue }>();
  private readonly locales = new Map<string, string[]>();
  private readonly translators = new Map<string, Translate>();

  /** `remember`: read every file once for the process (production); else check it on each use. */
  constructor(
    private readonly root: string,
    private readonly remember: boolean,
  ) {}

  /** The locales a theme (with the default theme) has catalogues for. */
  available(theme: string): string[] {
    const known = this.remember ? this.locales.get(theme) : undefined;
    if (known) return known;
    const names = new Set<string>();
    for (const name of new Set([theme, DEFAULT_THEME_NAME])) {
      try {
        for (const file of fs.readdirSync(path.join(this.root, name, 'locales'))) {
          if (/^[A-Za-z]{2,3}(_[A-Za-z0-9]{2,8})*\.json$/.test(file)) names.add(file.slice(0, -5));
        }
      } catch {
        // no catalogues in this theme
      }
    }
    const list = [...names];
    this.locales.set(theme, list);
    return list;
  }

  /** The catalogue a page locale reads (`zh_HK` reads zh_TW, `ja_JP` reads ja; else English). */
  localeFor(theme: string, locale: string): string {
    return matchLocale(locale, this.available(theme));
  }

  /** The theme's words in a locale: `t('comments.count', { count: 3 })`. */
  translator(theme: string, locale: string): Translate {
    const key = `${theme}\0${locale}`;
    const known = this.remember ? this.translators.get(key) : undefined;
    if (known) return known;
    const catalogueLocale = this.localeFor(theme, locale);
    const chain = () => {
      const themes = [...new Set([theme, DEFAULT_THEME_NAME])];
      const locales = [...new Set([catalogueLocale, 'en'])];
      return locales.flatMap((name) => themes.map((owner) => this.catalogue(owner, name)));
    };
    const fixed = this.remember ? chain() : null;
    const translate: Translate = (message, vars = {}) => {
      const catalogues = fixed ?? chain();
      for (const catalogue of catalogues) {
        const text = catalogue.get(message);
        if (text !== undefined) return formatMessage(text, vars, catalogueLocale);
      }
      return message;
    };
    if (this.remember && this.translators.size < 1000) this.translators.set(key, translate);
    return translate;
  }

  /** One catalogue file, read and flattened (`{"a": {"b": "x"}}` is key `a.b`); empty when absent. */
  catalogue(theme: string, locale: string): Catalogue {
    const file = path.join(this.root, theme, 'locales', `${locale}.json`);
    let stamp = 'none';
    if (!this.remember || !this.files.has(file)) {
      try {
        const stat = fs.statSync(file);
        stamp = `${stat.mtimeMs}:${stat.size}`;
      } catch {
        stamp = 'none';
      }
    }
    const known = this.files.get(file);
    if (known && (this.remember || known.stamp === stamp)) return known.catalogue;
    const catalogue = new Map<string, string>();
    if (stamp !== 'none') {
      const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      flatten(parsed, '', catalogue);
    }
    this.files.set(file, { stamp, catalogue });
    return catalogue;
  }
}

function flatten(value: unknown, prefix: string, into: Map<string, string>): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
  for (const [key, entry] of Object.entries(value)) {
    if (key.startsWith('_')) continue;
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof entry === 'string') into.set(name, entry);
    else flatten(entry, name, into);
  }
}
