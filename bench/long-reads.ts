// Reads that no index serves, on a large SQLite database: how long each takes and the longest time
// the event loop was held meanwhile (a 1 ms timer's largest gap), the way the server ran them before
// and the way it runs them now:
// - a keyword search of the public list: on the server's connection, then through
//   DatabaseHandle.longReads (a worker thread, src/db/read-thread.ts);
// - where a media item is used: one statement per table (chunk of every id), then in steps of 5,000 ids.
// Usage: npx tsx bench/long-reads.ts [--posts=100000] [--reuse=FILE]   (--reuse: a database seeded before
//          by this script or bench/seed.ts, kept; otherwise a temporary one is seeded and removed)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { SCAN_CHUNK_IDS } from '../src/db/chunked.js';
import type { MediaItem } from '../src/domain/media/library.js';
import { PublicPostsService } from '../src/domain/public/posts.js';
import { createServices } from '../src/services.js';
import { seed } from './seed.js';

const { values } = parseArgs({
  options: { posts: { type: 'string', default: '100000' }, reuse: { type: 'string' } },
});
const file =
  values.reuse ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'folio-long-reads-')), 'bench.sqlite');
if (!fs.existsSync(file)) {
  console.log(`seeding ${values.posts} posts into ${file}`);
  await seed(`sqlite:${file}`, Number(values.posts));
}

/** The time `work` took and the longest gap between two turns of a 1 ms timer while it ran. */
async function timed(work: () => Promise<unknown>): Promise<{ ms: number; heldMs: number }> {
  let held = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    held = Math.max(held, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  // The gap of a read that held the loop ends at the first turn after it.
  await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(timer);
  return { ms, heldMs: held };
}

const services = createServices({ ...loadConfig({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' }) });
const posts = await services.database.db
  .selectFrom('posts')
  .select((eb) => eb.fn.countAll<number>().as('n'))
  .executeTakeFirst();
console.log(`${posts?.n} posts; each figure is the median of 3 runs`);
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
async function report(label: string, work: () => Promise<unknown>): Promise<void> {
  const runs = [];
  for (let run = 0; run < 3; run++) runs.push(await timed(work));
  console.log(
    `${label.padEnd(58)} ${median(runs.map((r) => r.ms))
      .toFixed(0)
      .padStart(6)} ms, event loop held up to ${median(runs.map((r) => r.heldMs))
      .toFixed(0)
      .padStart(5)} ms`,
  );
}

const onTheLoop = new PublicPostsService(services.database.db, services.clock);
for (const term of ['zzqx', 'lorem']) {
  const query = { websiteId: 1, locale: 'en', page: 1, pageSize: 10, terms: [term] };
  await report(`search "${term}", on the server's connection (before)`, () => onTheLoop.list(query));
  await report(`search "${term}", through longReads (now)`, () => services.publicPosts.list(query));
}
const item = { id: 0, url: '/media/0000000000000000.png', path: '0000000000000000.png' } as MediaItem;
await report('media usage, one statement a table (before)', () =>
  services.mediaLibrary.usage([item], 1, { chunkIds: Number.MAX_SAFE_INTEGER }),
);
await report(`media usage, in steps of ${SCAN_CHUNK_IDS} ids (now)`, () =>
  services.mediaLibrary.usage([item], 1),
);
await services.close();
if (!values.reuse) fs.rmSync(path.dirname(file), { recursive: true, force: true });
