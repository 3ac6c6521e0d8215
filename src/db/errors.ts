// Recognizes database errors that callers handle, the same way on every dialect.

/** A unique constraint was violated (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE/PRIMARYKEY). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  const code = String(error.code);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** The code of a long read refused because too many wait already (read-thread.ts): a 503 too. */
export const LONG_READS_BUSY = 'FOLIO_LONG_READS_BUSY';

// SQLSTATE classes and codes that mean "the server is not there right now", not "the query is wrong":
// 08 connection exceptions, 57P01-57P03 (shutdown, crash shutdown, cannot connect now), 53300 too many
// connections.
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  // Folio's own: more long reads waiting than the read thread takes (read-thread.ts).
  LONG_READS_BUSY,
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection/i;

/** The database did not answer (down, restarting, unreachable): worth a 503 and a retry, not a 500. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error ? String(error.code) : '';
  if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE_CODES.has(code)) return true;
  const message = 'message' in error ? String(error.message) : '';
  if (UNAVAILABLE_MESSAGES.test(message)) return true;
  // AggregateError (a connect to several addresses) and errors with a cause.
  if ('errors' in error && Array.isArray(error.errors)) return error.errors.some(isDatabaseUnavailable);
  return 'cause' in error && error.cause !== error && isDatabaseUnavailable(error.cause);
}

/**
 * PostgreSQL refused a value (SQLSTATE class 22, data exception: a number out of range, a malformed
 * value). Validation should have refused it first; this is the net under it: a 400, not a 500.
 */
export function isInvalidValue(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    /^22[0-9A-Z]{3}$/.test(String(error.code))
  );
}

/** The disk under the database is full (SQLite SQLITE_FULL, PostgreSQL 53100, ENOSPC): a 507. */
export function isStorageFull(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = 'code' in error ? String(error.code) : '';
  if (code === 'SQLITE_FULL' || code === '53100' || code === 'ENOSPC') return true;
  if (
    code.startsWith('SQLITE_IOERR') &&
    /disk|full|space/i.test('message' in error ? String(error.message) : '')
  ) {
    return true;
  }
  return 'cause' in error && error.cause !== error && isStorageFull(error.cause);
}
