// Small conversions shared by every domain module: timestamps, flags and loose boolean input.

/** Normalizes a stored timestamp (ISO text on SQLite, Date on PostgreSQL) to ISO 8601 UTC with `Z`. */
export function toIso(value: Date | string): string;
export function toIso(value: Date | string | null): string | null;
export function toIso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** Normalizes a stored flag (0/1 on SQLite, boolean on PostgreSQL). */
export function flag(value: boolean | number): boolean {
  return value === true || value === 1;
}

const TRUE_WORDS = new Set(['1', 'true', 'on', 'yes']);
const FALSE_WORDS = new Set(['0', 'false', 'off', 'no']);

/**
 * Reads a boolean the way inputs and settings are given (R-G5): true/false, 1/0, "1"/"0",
 * "true"/"false", "on"/"off", "yes"/"no". Anything else is undefined.
 */
export function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE_WORDS.has(word)) return true;
    if (FALSE_WORDS.has(word)) return false;
  }
  return undefined;
}
