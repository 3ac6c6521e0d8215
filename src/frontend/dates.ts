// Dates as readers see them: one format per locale (Intl.DateTimeFormat, `dateStyle: long`) in the
// website's time zone (setting `timezone`, an IANA name; UTC by default). The theme's `local_date`
// filter and every date the site prints go through here.
import { memoized } from '../lib/memo.js';
import { htmlLang } from './seo.js';

/** Where a render's locale is kept for the `local_date` and `t` filters (partials see globals too). */
export const PAGE_LOCALE = Symbol('folio.pageLocale');
/** Where a render's time zone is kept for the `local_date` filter. */
export const PAGE_TIME_ZONE = Symbol('folio.pageTimeZone');

export type DateStyle = 'date' | 'datetime';

// One formatter per locale and style: building an Intl.DateTimeFormat costs far more than using it.
const formats = new Map<string, Intl.DateTimeFormat | null>();
// Formatted dates, by locale, style and ISO date: formatting costs microseconds per card and page.
const formatted = new Map<string, string>();
const zones = new Map<string, boolean>();

/**
 * Intl's locale for a site locale. A bare `en` reads day-month-year ("25 November 2026", the order
 * most English-speaking countries and ISO share); `en-US` and other regions keep their own.
 */
function intlLocale(locale: string): string {
  const lang = htmlLang(locale);
  return lang.toLowerCase() === 'en' ? 'en-GB' : lang;
}

/** Whether Intl knows the IANA time zone (`Asia/Taipei`); an unknown one reads as UTC. */
export function validTimeZone(zone: string | null | undefined): boolean {
  const name = (zone ?? '').trim();
  if (name === '') return false;
  return memoized(zones, name, 500, () => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: name });
      return true;
    } catch {
      return false;
    }
  });
}

function formatter(locale: string, style: DateStyle, timeZone: string): Intl.DateTimeFormat | null {
  return memoized(formats, `${style} ${locale} ${timeZone}`, 200, () => {
    try {
      return new Intl.DateTimeFormat(intlLocale(locale), {
        dateStyle: 'long',
        ...(style === 'datetime' ? { timeStyle: 'short' } : {}),
        timeZone,
      });
    } catch {
      return null; // a locale Intl does not know: ISO dates
    }
  });
}

/**
 * An ISO date (or Date) in the locale's long format, in the time zone (UTC when none or an unknown
 * one); ISO (`YYYY-MM-DD`) where Intl cannot.
 */
export function formatDate(
  value: unknown,
  locale: string,
  style: DateStyle = 'date',
  timeZone?: string | null,
): string {
  const iso = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : '';
  if (iso === '') return '';
  const zone = timeZone && validTimeZone(timeZone) ? timeZone.trim() : 'UTC';
  return memoized(formatted, `${locale} ${style} ${zone} ${iso}`, 10_000, () => {
    const date = new Date(iso);
    const format = formatter(locale, style, zone);
    if (!format || Number.isNaN(date.getTime())) return iso.slice(0, style === 'date' ? 10 : 16);
    return format.format(date);
  });
}
