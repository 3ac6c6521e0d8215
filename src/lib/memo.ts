// Bounded memos in process memory for pure computations on hot paths (a host's domain, a formatted
// date, a locale's spelling). Keys may come from requests: a memo that reaches its limit is emptied
// and fills again with what is asked for now.

/** The memo's value for the key; computed and kept when missing. */
export function memoized<K, V>(memo: Map<K, V>, key: K, limit: number, compute: () => V): V {
  let value = memo.get(key);
  if (value === undefined) {
    value = compute();
    if (memo.size >= limit) memo.clear();
    memo.set(key, value);
  }
  return value;
}

/**
 * The JSON of a request's parsed query or params, as a memo's key (a route's validator remembers its
 * verdicts by it). Not remembered per object: a WeakMap entry per request's object cost more than the
 * JSON of a few short strings (issue 42).
 */
export function jsonKeyOf(value: unknown): string {
  return JSON.stringify(value) ?? 'undefined';
}
