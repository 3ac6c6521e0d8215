// Request validation with zod, reported in the spec's Laravel-style messages (spec section 7, R-V1,
// R-V2): HTTP 422, `data.errors` mapping each field path to its messages. Every endpoint parses its
// input with `validate(schema, input)`; the field builders below accept what forms and JSON clients
// send (numeric strings for integers, the R-G5 words for booleans).
import { z } from 'zod';
import { isValidLocale } from '../../domain/translations.js';
import { parseBoolean } from '../../domain/values.js';
import { validationFailed } from './envelope.js';

/** The attribute as messages name it: the field path with `_` read as a space (R-V1). */
export function attributeName(path: readonly PropertyKey[]): string {
  return path.map(String).join('.').replace(/_/g, ' ');
}

/** Custom messages use `:attribute` as the placeholder, like Laravel. */
const ATTRIBUTE = ':attribute';

function messageFor(issue: z.core.$ZodIssue, attr: string): string {
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case 'invalid_type':
      if (input === undefined || input === null) return `The ${attr} field is required.`;
      switch (issue.expected) {
        case 'string':
          return `The ${attr} must be a string.`;
        case 'number':
        case 'int':
        case 'bigint':
          return `The ${attr} must be an integer.`;
        case 'array':
        case 'object':
        case 'record':
          return `The ${attr} must be an array.`;
        case 'boolean':
          return `The ${attr} field must be true or false.`;
        case 'date':
          return `The ${attr} is not a valid date.`;
        default:
          return `The selected ${attr} is invalid.`;
      }
    case 'too_big':
      if (issue.origin === 'string')
        return `The ${attr} may not be greater than ${issue.maximum} characters.`;
      if (issue.origin === 'array') return `The ${attr} may not have more than ${issue.maximum} items.`;
      return `The ${attr} may not be greater than ${issue.maximum}.`;
    case 'too_small':
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1
          ? `The ${attr} field is required.`
          : `The ${attr} must be at least ${issue.minimum} characters.`;
      }
      if (issue.origin === 'array') {
        return Number(issue.minimum) <= 1
          ? `The ${attr} field is required.`
          : `The ${attr} must have at least ${issue.minimum} items.`;
      }
      return `The ${attr} must be at least ${issue.minimum}.`;
    case 'invalid_value':
      return `The selected ${attr} is invalid.`;
    case 'invalid_format':
      return issue.format === 'datetime'
        ? `The ${attr} is not a valid date.`
        : `The ${attr} format is invalid.`;
    case 'custom':
      if (input === undefined || input === null) return `The ${attr} field is required.`;
      return issue.message.includes(ATTRIBUTE) ? issue.message.split(ATTRIBUTE).join(attr) : issue.message;
    default:
      return `The selected ${attr} is invalid.`;
  }
}

/** Turns zod issues into `{ field: [messages] }`, one entry per field path, in schema order. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join('.');
    const message = messageFor(issue, attributeName(issue.path));
    const list = (errors[key] ??= []);
    if (!list.includes(message)) list.push(message);
  }
  return errors;
}

/** Parses input with the schema, or throws the 422 validation error. */
export function validate<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw validationFailed(formatIssues(result.error.issues));
  return result.data;
}

// ---- Field builders ------------------------------------------------------------------------------

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
