// Writing a Folio archive's container, a gzipped tar stream: the exporter and the converters'
// ArchiveBuilder both write through these.
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type * as TarStream from 'tar-stream';
import { lazyModule } from '../../lib/lazy-module.js';
import type { Pack } from 'tar-stream';

const tarStream = lazyModule<typeof TarStream>('tar-stream');

/** Writes one entry of known bytes. */
export function addEntry(pack: Pack, name: string, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    pack.entry({ name, size: body.length, mtime: new Date(0) }, body, (error) =>
      error ? reject(error) : resolve(),
    );
  });
}

/**
 * Writes a gzipped tar stream to `out`: `fill` adds the entries, then the stream is finished and
 * flushed. Should `fill` fail, the stream is destroyed and the error thrown once `out` has let go.
 */
export async function writeTarGz(out: Writable, fill: (pack: Pack) => Promise<void>): Promise<void> {
  const pack = tarStream().pack();
  const written = pipeline(pack, createGzip(), out);
  try {
    await fill(pack);
    pack.finalize();
  } catch (error) {
    pack.destroy(error as Error);
    await written.catch(() => undefined);
    throw error;
  }
  await written;
}
