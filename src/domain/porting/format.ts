// The Folio archive (issue 39): one `.tar.gz` holding a manifest, the records as JSON lines in chunks,
// and the media files. Documented in docs/export-format.md, described by docs/folio-export.schema.json.
//
//   manifest.json                  { format, version, created_at, scope, with_secrets }  (first entry)
//   records/<kind>/000001.jsonl    one record (a row, columns by name) per line, at most CHUNK records
//   media/<path>                   the bytes of each media file and variant, under its stored path
//   summary.json                   { counts, media_files, missing_media }  (last entry: its absence
//                                  means the archive was cut short)

export const ARCHIVE_FORMAT = 'folio-export';
/** Bumped when a reader of the previous version could no longer read an archive right. */
export const ARCHIVE_VERSION = 1;
/** Records per JSON lines entry: an entry is built in memory before it is written (tar needs its size). */
export const CHUNK = 500;

/**
 * The kinds of records, in the order they are written and must be read back (a record names only
 * records of the kinds before it, except a tag's, comment's or menu item's parent: same kind).
 */
export const RECORD_KINDS = [
  'users',
  'settings',
  'websites',
  'domains',
  'memberships',
  'media',
  'tags',
  'posts',
  'links',
  'pages',
  'menus',
  'menu_items',
  'comments',
  'redirects',
  'translations',
  'revisions',
  'website_bindings',
  'taggables',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  created_at: string;
  /** The Folio version that wrote it (package.json), for messages. */
  folio_version: string | null;
  /** `installation`, or the one website exported (its id in the source and its primary domain). */
  scope: { kind: 'installation' } | { kind: 'website'; website_id: number; domain: string | null };
  /** True when users' password hashes and secret settings are included. */
  with_secrets: boolean;
}

export interface ArchiveSummary {
  counts: Partial<Record<RecordKind, number>>;
  media_files: number;
  media_bytes: number;
  /** Stored paths a media row names that the storage did not have. */
  missing_media: string[];
}

export function recordEntryName(kind: RecordKind, chunk: number): string {
  return `records/${kind}/${String(chunk).padStart(6, '0')}.jsonl`;
}

/** Settings never exported without --with-secrets (the same test the settings faces use). */
export const SECRET_SETTING = /secret|password|token|smtp|key/i;
