/**
 * A whole number sent as a number or as digits (a form field, a query string, a template's data):
 * the number itself, or the digits' value when `value` is at most `maxDigits` digits; else null. The
 * caller checks the range (a number may be 0, negative or fractional).
 */
export function numberOrDigits(value: unknown, maxDigits: number): number | null {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || value.length > maxDigits || !/^\d+$/.test(value)) return null;
  return Number(value);
}
