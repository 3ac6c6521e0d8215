// Which importer a file is for, from its content (never its name): a gzip stream is a Folio archive,
// XML whose root is an RSS channel of WordPress's export namespace is a WXR file, a JSON object with
// Ghost's `db[].data` (or `data`) and `meta` is a Ghost export.
import fs from 'node:fs';
import { DomainError } from '../errors.js';

export type ImportFormat = 'folio' | 'wordpress' | 'ghost';

export class UnknownFormatError extends DomainError {}

/** Reads the first 64 KB of `file` and names its format, or throws UnknownFormatError. */
export function detectFormat(file: string): ImportFormat {
  let head: Buffer;
  const fd = fs.openSync(file, 'r');
  try {
    head = Buffer.alloc(64 * 1024);
    head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
  } finally {
    fs.closeSync(fd);
  }
  if (head.length === 0) throw new UnknownFormatError(`${file} is empty`);
  if (head[0] === 0x1f && head[1] === 0x8b) return 'folio';
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('<')) {
    if (text.includes('wordpress.org/export/')) return 'wordpress';
    throw new UnknownFormatError(
      `${file} is XML but not a WordPress export (WXR): no wordpress.org/export namespace`,
    );
  }
  if (text.startsWith('{')) {
    if (/"db"\s*:\s*\[/.test(text) || (/"meta"\s*:/.test(text) && /"data"\s*:/.test(text))) return 'ghost';
    throw new UnknownFormatError(`${file} is JSON but not a Ghost export (no "db" or "meta" and "data")`);
  }
  throw new UnknownFormatError(
    `${file} is neither a Folio archive (.tar.gz), a WordPress export (WXR) nor a Ghost export (JSON)`,
  );
}
