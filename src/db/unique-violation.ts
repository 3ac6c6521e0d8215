// Whether a database error is a unique-constraint violation, on either dialect: PostgreSQL's SQLSTATE
// 23505, SQLite's SQLITE_CONSTRAINT_UNIQUE (or a primary key). Callers re-read and retry on it.
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
