// The range of the database's integer columns (PostgreSQL `integer` is 32-bit). An id outside it
// cannot exist, and comparing a column with it would be a database error on PostgreSQL, so lookups
// drop such ids first and stored numbers (sort, order) are validated against the range.
export const MIN_DB_INTEGER = -2_147_483_648;
export const MAX_DB_INTEGER = 2_147_483_647;

/** Whether `id` can be the id of a row: a positive integer within the column's range. */
export function isStorableId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && id <= MAX_DB_INTEGER;
}

/** The ids that can exist, once each, in the order given. */
export function storableIds(ids: readonly number[]): number[] {
  return [...new Set(ids.filter(isStorableId))];
}
