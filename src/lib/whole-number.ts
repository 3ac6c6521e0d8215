/**
 * `value` as a positive integer: a number, or a string of up to `maxDigits` digits (a form field, a
 * query string, a template's data); else null.
 */
export function positiveInteger(value: unknown, maxDigits: number): number | null {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.length <= maxDigits && /^\d+$/.test(value)
        ? Number(value)
        : NaN;
  return Number.isInteger(number) && number >= 1 ? number : null;
}
