// Recognizes database errors that callers handle, the same way on every dialect.

/** A unique constraint was violated (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE/PRIMARYKEY). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  const code = String(error.code);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
