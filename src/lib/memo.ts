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

const jsonKeys = new WeakMap<object, string>();

/**
 * The JSON of a request's parsed query or params, as a memo's key: made once per object however many
 * memos ask (the route's validator, then the handler's parse), never changed after it is parsed.
 */
export function jsonKeyOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'undefined';
  let key = jsonKeys.get(value);
  if (key === undefined) {
    key = JSON.stringify(value);
    jsonKeys.set(value, key);
  }
  return key;
}
