// Dates as readers see them: one format per locale (Intl.DateTimeFormat, `dateStyle: long`), the
// theme's `local_date` filter and every date the site prints go through here.
import { memoized } from '../lib/memo.js';
import { htmlLang } from './seo.js';

/** Where a render's locale is kept for the `local_date` filter (a global: partials see it too). */
export const PAGE_LOCALE = Symbol('folio.pageLocale');

export type DateStyle = 'date' | 'datetime';

// One formatter per locale and style: building an Intl.DateTimeFormat costs far more than using it.
const formats = new Map<string, Intl.DateTimeFormat | null>();
// Formatted dates, by locale, style and ISO date: formatting costs microseconds per card and page.
const formatted = new Map<string, string>();

/**
 * Intl's locale for a site locale. A bare `en` reads day-month-year ("25 November 2026", the order
 * most English-speaking countries and ISO share); `en-US` and other regions keep their own.
 */
function intlLocale(locale: string): string {
  const lang = htmlLang(locale);
  return lang.toLowerCase() === 'en' ? 'en-GB' : lang;
}

function formatter(locale: string, style: DateStyle): Intl.DateTimeFormat | null {
  return memoized(formats, `${style} ${locale}`, 200, () => {
    try {
      return new Intl.DateTimeFormat(intlLocale(locale), {
        dateStyle: 'long',
        ...(style === 'datetime' ? { timeStyle: 'short' } : {}),
        timeZone: 'UTC',
      });
    } catch {
      return null; // a locale Intl does not know: ISO dates
    }
  });
}

/** An ISO date (or Date) in the locale's long format; ISO (`YYYY-MM-DD`) where Intl cannot. */
export function formatDate(value: unknown, locale: string, style: DateStyle = 'date'): string {
  const iso = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : '';
  if (iso === '') return '';
  return memoized(formatted, `${locale} ${style} ${iso}`, 10_000, () => {
    const date = new Date(iso);
    const format = formatter(locale, style);
    if (!format || Number.isNaN(date.getTime())) return iso.slice(0, style === 'date' ? 10 : 16);
    return format.format(date);
  });
}
