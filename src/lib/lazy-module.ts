// Packages that most processes never use (the PostgreSQL driver on a SQLite site, the importers'
// parsers, the feed writer, HTML parsing for writes) are loaded on first use, not at start: every
// module loaded at start costs start-up time and memory in every process, used or not (issue 42:
// about 12 MB of RSS and a quarter of a second of the start for these). Loaded with `require`, so a
// synchronous function can use them; each of them ships a CommonJS build.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** A function that returns the package, loading it at its first call. */
export function lazyModule<T>(specifier: string, onLoad?: (loaded: T) => void): () => T {
  let loaded: T | undefined;
  return () => {
    if (loaded === undefined) {
      loaded = load(specifier) as T;
      onLoad?.(loaded);
    }
    return loaded;
  };
}
