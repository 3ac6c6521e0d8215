// Field builders for the zod schemas of operations' inputs: what forms and JSON clients send
// (numeric strings for integers, the R-G5 words for booleans), and `parse`, which turns a schema's
// findings into a ValidationError that each face words in its own style.
import { z } from 'zod';
import { ValidationError } from './errors.js';
import type { ValidationIssue } from './errors.js';
import { isValidLocale, normalizeLocale } from './translations.js';
import { parseBoolean } from './values.js';

/** Custom messages use `:attribute` as the placeholder, like Laravel; faces put the field's name. */
export const ATTRIBUTE = ':attribute';

/** Parses input with the schema, or throws a ValidationError carrying the schema's issues. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw new ValidationError({}, result.error.issues as unknown as ValidationIssue[]);
  return result.data;
}

const INTEGER_TEXT = /^\s*-?\d{1,15}\s*$/;

/** An integer, also given as a numeric string (forms and query strings send strings). */
export const integer = () =>
  z.preprocess(
    (value) => (typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value),
    z.int(),
  );

/** A boolean in any R-G5 form; anything else is `must be true or false`. */
export const boolean = () => z.preprocess((value) => parseBoolean(value) ?? value, z.boolean());

/** A string that must be present and not blank, trimmed. */
export const requiredString = (max?: number) => {
  const base = z.string().trim().min(1);
  return max === undefined ? base : base.max(max);
};

/** An array of integers; a single value is not an array. */
export const integerArray = () => z.array(integer());

/** An ISO 8601 date-time (a date alone is accepted as midnight UTC). */
export const isoDateTime = () =>
  z
    .string()
    .refine(
      (value) =>
        /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim()) &&
        !Number.isNaN(Date.parse(value.trim())),
      { message: `The ${ATTRIBUTE} is not a valid date.` },
    );

/** An optional field where `null` and an empty string mean "not given" (Laravel's empty-to-null). */
export const optional = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => (value === null || value === '' ? undefined : value), schema.optional());

/** The width of `translations.locale`: a longer locale could not be stored. */
export const MAX_LOCALE_LENGTH = 20;

export interface TranslatableOptions {
  /** A blank text (a blank string, or a map without one non-blank value) is `field is required`. */
  required?: boolean;
  /** Texts are trimmed (before `required` and `max` are checked). */
  trim?: boolean;
  /** Each text at most this many characters. */
  max?: number;
  /**
   * How the field's API words its type errors: `strict` (API v1's post and tag fields, R-V2: `must be
   * a string`, a bad locale `selected … is invalid` for tags or `has an invalid locale` for posts)
   * or, by default, `either` (`must be a string or a map of locale to text` for every finding).
   */
  style?: 'either' | 'post' | 'tag';
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The one translatable text (spec 4.1 rule 1, R-T1, R-T2): a string, or a non-empty map of locale to
 * text whose keys are locales (`en`, `zh-TW`, `zh_Hant_TW`…). Posts, tags, pages, menus, websites and
 * media all take their texts through it; the options say what each field requires.
 */
export const translatable = (options: TranslatableOptions = {}) => {
  const style = options.style ?? 'either';
  const either = `The ${ATTRIBUTE} must be a string or a map of locale to text.`;
  const required = `The ${ATTRIBUTE} field is required.`;
  const typeMessage = style === 'either' ? either : `The ${ATTRIBUTE} must be a string.`;
  const localeMessage = (locale: string) =>
    style === 'either'
      ? either
      : style === 'tag'
        ? `The selected ${ATTRIBUTE} is invalid.`
        : `The ${ATTRIBUTE} has an invalid locale: ${locale.slice(0, MAX_LOCALE_LENGTH)}.`;
  const tooLong = `The ${ATTRIBUTE} may not be greater than ${options.max} characters.`;
  const text = (value: string) => (options.trim ? value.trim() : value);
  return z
    .unknown()
    .transform((value, ctx): string | Record<string, string> => {
      const fail = (message: string) => {
        ctx.addIssue({ code: 'custom', message, input: value });
        return z.NEVER;
      };
      if (value === undefined || value === null) return fail(required);
      if (typeof value === 'string') {
        const given = text(value);
        if (options.required && given.trim() === '') return fail(required);
        if (options.max !== undefined && given.length > options.max) return fail(tooLong);
        return given;
      }
      if (!isPlainObject(value)) return fail(typeMessage);
      const map: Record<string, string> = {};
      for (const [locale, raw] of Object.entries(value)) {
        if (!isValidLocale(locale) || normalizeLocale(locale).length > MAX_LOCALE_LENGTH) {
          return fail(localeMessage(locale));
        }
        // A post's null text is an empty one (it removes that locale's translation).
        const given = raw === null && style === 'post' ? '' : raw;
        if (typeof given !== 'string') return fail(typeMessage);
        if (options.max !== undefined && text(given).length > options.max) return fail(tooLong);
        map[locale] = text(given);
      }
      if (Object.keys(map).length === 0) return fail(style === 'either' ? either : required);
      if (options.required && Object.values(map).every((entry) => entry.trim() === '')) return fail(required);
      return map;
    })
    .meta({
      anyOf: [
        { type: 'string', ...(options.max === undefined ? {} : { maxLength: options.max }) },
        {
          type: 'object',
          description: 'A text per locale (`en`, `zh_TW`…).',
          additionalProperties: { type: 'string' },
        },
      ],
    });
};
