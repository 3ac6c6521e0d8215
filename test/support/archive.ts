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

