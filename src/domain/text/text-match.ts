// "Contains this text", the same on both databases: `lower(column) LIKE pattern ESCAPE '\'`, with `%`
// and `_` of the searched text taken literally (PostgreSQL escapes with a backslash by default, SQLite
// only when told: without the ESCAPE clause a search for `50%` there matched anything starting with 50).
// And the same for regular expressions: escapeRegExp.
import { sql } from 'kysely';
import type { Expression, SqlBool } from 'kysely';

/** A text taken literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The LIKE pattern of containsText() for a text. */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `column` contains the text of `pattern` (likePattern), whatever the letters' case. */
export function containsText(column: Expression<unknown>, pattern: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${column}) like ${pattern} escape '\\'`;
}
