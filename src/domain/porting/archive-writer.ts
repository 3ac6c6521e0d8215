// Builds a Folio archive from records given in any order (the WordPress and Ghost converters): each
// kind's records go to a temporary JSON lines file, media files to a temporary folder, and `finish`
// writes the archive in the format's order (format.ts), 500 records per entry. Memory stays bounded:
// records are on disk until they are packed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, CHUNK, RECORD_KINDS, recordEntryName } from './format.js';
import type { ArchiveManifest, ArchiveSummary, RecordKind } from './format.js';
import { addEntry, writeTarGz } from './tar.js';

export class ArchiveBuilder {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-convert-'));
  private readonly files = new Map<RecordKind, number>();
  private readonly counts: Partial<Record<RecordKind, number>> = {};
  private readonly media: Array<{ path: string; file: string; size: number }> = [];

  add(kind: RecordKind, record: Record<string, unknown>): void {
    let fd = this.files.get(kind);
    if (fd === undefined) {
      fd = fs.openSync(path.join(this.dir, `${kind}.jsonl`), 'a');
      this.files.set(kind, fd);
    }
    fs.writeSync(fd, `${JSON.stringify(record)}\n`);
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
  }

  addMedia(storedPath: string, body: Buffer): void {
    const file = path.join(this.dir, `media-${this.media.length}`);
    fs.writeFileSync(file, body);
    this.media.push({ path: storedPath, file, size: body.length });
  }

  /** Writes the archive to `out` (a path) and returns it. */
  async finish(out: string): Promise<string> {
    for (const fd of this.files.values()) fs.closeSync(fd);
    this.files.clear();
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      created_at: new Date().toISOString(),
      folio_version: null,
      scope: { kind: 'installation' },
      with_secrets: false,
    };
    await writeTarGz(fs.createWriteStream(out), async (pack) => {
      await addEntry(pack, 'manifest.json', Buffer.from(JSON.stringify(manifest)));
      for (const kind of RECORD_KINDS) {
        const file = path.join(this.dir, `${kind}.jsonl`);
        if (!fs.existsSync(file)) continue;
        let lines: string[] = [];
        let chunk = 0;
        const flush = async () => {
          chunk += 1;
          await addEntry(pack, recordEntryName(kind, chunk), Buffer.from(`${lines.join('\n')}\n`));
          lines = [];
        };
        for await (const line of readline.createInterface({
          input: fs.createReadStream(file),
          crlfDelay: Infinity,
        })) {
          if (line === '') continue;
          lines.push(line);
          if (lines.length === CHUNK) await flush();
        }
        if (lines.length) await flush();
      }
      let bytes = 0;
      for (const item of this.media) {
        await addEntry(pack, `media/${item.path}`, fs.readFileSync(item.file));
        bytes += item.size;
      }
      const summary: ArchiveSummary = {
        counts: this.counts,
        media_files: this.media.length,
        media_bytes: bytes,
        missing_media: [],
      };
      await addEntry(pack, 'summary.json', Buffer.from(JSON.stringify(summary)));
    });
    return out;
  }

  dispose(): void {
    for (const fd of this.files.values()) fs.closeSync(fd);
    this.files.clear();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
