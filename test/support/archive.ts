// Reads a whole Folio archive into memory (tests only: archives of a few records).
import { readArchive } from '../../src/domain/porting/archive-reader.js';
import type { ArchiveManifest, ArchiveSummary } from '../../src/domain/porting/format.js';

export interface Read {
  manifest: ArchiveManifest;
  records: Record<string, Array<Record<string, unknown>>>;
  media: Map<string, Buffer>;
  summary: ArchiveSummary | null;
  names: string[];
}

export async function readWhole(file: string): Promise<Read> {
  let manifest: ArchiveManifest | null = null;
  const records: Read['records'] = {};
  const media = new Map<string, Buffer>();
  let summary: ArchiveSummary | null = null;
  const names: string[] = [];
  for await (const entry of readArchive(file, (m) => (manifest = m))) {
    if (entry.type === 'records') {
      names.push(entry.kind);
      (records[entry.kind] ??= []).push(...entry.records);
    } else if (entry.type === 'media') {
      const chunks: Buffer[] = [];
      for await (const chunk of entry.body) chunks.push(chunk as Buffer);
      media.set(entry.path, Buffer.concat(chunks));
    } else summary = entry.summary;
  }
  return { manifest: manifest!, records, media, summary, names };
}

/** Writes a Folio archive by hand (for bad-input tests): entries in the order given. */
export async function writeArchive(
  file: string,
  entries: Array<{ name: string; body: string | Buffer }>,
  options: { cutAt?: number } = {},
): Promise<void> {
  const { pack } = await import('tar-stream');
  const { createGzip, gzipSync } = await import('node:zlib');
  const fs = await import('node:fs');
  const { pipeline } = await import('node:stream/promises');
  const tar = pack();
  const done = pipeline(tar, createGzip(), fs.createWriteStream(file));
  for (const entry of entries) tar.entry({ name: entry.name }, entry.body);
  tar.finalize();
  await done;
  void gzipSync;
  if (options.cutAt !== undefined) {
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length * options.cutAt)));
  }
}

export const manifestOf = (version = 1) =>
  JSON.stringify({
    format: 'folio-export',
    version,
    created_at: '2026-11-28T00:00:00.000Z',
    folio_version: '0.1.0',
    scope: { kind: 'installation' },
    with_secrets: false,
  });

export const summaryOf = () =>
  JSON.stringify({ counts: {}, media_files: 0, media_bytes: 0, missing_media: [] });

export const jsonl = (records: Array<Record<string, unknown>>) =>
  `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
