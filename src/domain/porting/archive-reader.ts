// Reading a Folio archive (format.ts) as a stream: entries in order, a record entry's JSON lines parsed
// one by one, a media entry's bytes handed on as a stream. A gzip or tar error (a truncated or damaged
// file) becomes an ArchiveError naming what was read last; so does a missing manifest or summary.
import fs from 'node:fs';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import type * as TarStream from 'tar-stream';
import { lazyModule } from '../../lib/lazy-module.js';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, RECORD_KINDS } from './format.js';
import type { ArchiveManifest, ArchiveSummary, RecordKind } from './format.js';
import { DomainError } from '../errors.js';

const tarStream = lazyModule<typeof TarStream>('tar-stream');

export class ArchiveError extends DomainError {}

/** Largest JSON lines entry read into memory (the exporter writes CHUNK records per entry). */
const MAX_RECORD_ENTRY = 256 * 1024 * 1024;

export type ArchiveEntry =
  | { type: 'records'; kind: RecordKind; records: Array<Record<string, unknown>> }
  | { type: 'media'; path: string; size: number; body: Readable }
  | { type: 'summary'; summary: ArchiveSummary };

async function readAll(stream: AsyncIterable<unknown>, limit: number, name: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ArchiveError(`${name} is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Checks a manifest: this format, a version this Folio reads. */
export function checkManifest(value: unknown): ArchiveManifest {
  const manifest = value as Partial<ArchiveManifest> | null;
  if (!manifest || manifest.format !== ARCHIVE_FORMAT) {
    throw new ArchiveError('manifest.json does not describe a Folio archive');
  }
  if (typeof manifest.version !== 'number' || !Number.isInteger(manifest.version) || manifest.version < 1) {
    throw new ArchiveError('manifest.json has no valid format version');
  }
  if (manifest.version > ARCHIVE_VERSION) {
    throw new ArchiveError(
      `this archive is of format version ${manifest.version}, newer than this Folio reads (${ARCHIVE_VERSION}); update Folio first`,
    );
  }
  return manifest as ArchiveManifest;
}

/**
 * The entries of an archive after its manifest, in order. The caller must consume (or resume) each
 * media entry's body before asking for the next entry. Throws ArchiveError on damage.
 */
export async function* readArchive(
  file: string,
  onManifest: (manifest: ArchiveManifest) => void,
): AsyncGenerator<ArchiveEntry> {
  const extract = tarStream().extract();
  const source = fs.createReadStream(file);
  const gunzip = createGunzip();
  const fail = (error: Error) => extract.destroy(error);
  source.on('error', fail);
  gunzip.on('error', fail);
  source.pipe(gunzip).pipe(extract);
  let manifest: ArchiveManifest | null = null;
  let summary = false;
  let last = '(nothing)';
  try {
    for await (const entry of extract) {
      const name = entry.header.name;
      if (!manifest) {
        if (name !== 'manifest.json')
          throw new ArchiveError('not a Folio archive: manifest.json is not its first entry');
        let parsed: unknown;
        try {
          parsed = JSON.parse((await readAll(entry, 1024 * 1024, name)).toString('utf8'));
        } catch (error) {
          if (error instanceof ArchiveError) throw error;
          throw new ArchiveError('manifest.json is not valid JSON');
        }
        manifest = checkManifest(parsed);
        onManifest(manifest);
        last = name;
        continue;
      }
      if (summary) throw new ArchiveError(`unexpected entry ${name} after summary.json`);
      const record = /^records\/([a-z_]+)\/\d{6}\.jsonl$/.exec(name);
      if (record) {
        const kind = record[1] as RecordKind;
        if (!(RECORD_KINDS as readonly string[]).includes(kind)) {
          throw new ArchiveError(`unknown record kind "${kind}" in ${name}`);
        }
        const text = (await readAll(entry, MAX_RECORD_ENTRY, name)).toString('utf8');
        const records: Array<Record<string, unknown>> = [];
        for (const [index, line] of text.split('\n').entries()) {
          if (line.trim() === '') continue;
          let value: unknown;
          try {
            value = JSON.parse(line);
          } catch {
            throw new ArchiveError(`${name} line ${index + 1} is not valid JSON`);
          }
          if (!value || typeof value !== 'object' || Array.isArray(value)) {
            throw new ArchiveError(`${name} line ${index + 1} is not a record`);
          }
          records.push(value as Record<string, unknown>);
        }
        last = name;
        yield { type: 'records', kind, records };
      } else if (name.startsWith('media/')) {
        last = name;
        yield {
          type: 'media',
          path: name.slice('media/'.length),
          size: entry.header.size ?? 0,
          body: Readable.from(entry),
        };
        entry.resume();
      } else if (name === 'summary.json') {
        let parsed: ArchiveSummary;
        try {
          parsed = JSON.parse(
            (await readAll(entry, 64 * 1024 * 1024, name)).toString('utf8'),
          ) as ArchiveSummary;
        } catch {
          throw new ArchiveError('summary.json is not valid JSON');
        }
        summary = true;
        last = name;
        yield { type: 'summary', summary: parsed };
      } else {
        throw new ArchiveError(`unexpected entry ${name} in the archive`);
      }
    }
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ArchiveError(`the archive is damaged or cut short after ${last} (${reason})`);
  } finally {
    source.destroy();
  }
  if (!manifest) throw new ArchiveError('not a Folio archive: it is empty');
  if (!summary) throw new ArchiveError(`the archive is cut short after ${last}: summary.json is missing`);
}
