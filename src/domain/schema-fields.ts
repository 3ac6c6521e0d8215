// Field builders for the zod schemas of operations' inputs: what forms and JSON clients send
// (numeric strings for integers, the R-G5 words for booleans), and `parse`, which turns a schema's
// findings into a ValidationError that each face words in its own style.
import { z } from 'zod';
import { ValidationError } from './errors.js';
import type { ValidationIssue } from './errors.js';
import { isValidLocale } from './translations.js';
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

/**
 * A translatable text (spec 4.1 rule 1): a string, or a non-empty map of locale to text whose keys
 * are locales (`en`, `zh-TW`, `zh_Hant_TW`…).
 */
export const translatable = () =>
  z.custom<string | Record<string, string>>(
    (value) =>
      typeof value === 'string' ||
      (typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.keys(value).length > 0 &&
        Object.entries(value).every(([locale, text]) => typeof text === 'string' && isValidLocale(locale))),
    { message: `The ${ATTRIBUTE} must be a string or a map of locale to text.` },
  );
