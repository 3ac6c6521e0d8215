// Export and import of 10,000 posts (issue 39): time and peak RSS of `folio export` and `folio import`
// on SQLite, each step in a child process of its own so that its peak RSS is its own.
//   npx tsx bench/porting.ts [--posts 10000]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/database.js';
import { INSTALLATION_OPERATOR } from '../src/domain/policy.js';
import { createServices } from '../src/services.js';
import { installIfNeeded } from '../src/setup/install.js';
import { loadConfig } from '../src/config.js';

const [, , step, ...rest] = process.argv;

async function withServices<T>(
  url: string,
  work: (services: ReturnType<typeof createServices>) => Promise<T>,
) {
  process.env.DATABASE_URL = url;
  process.env.LOG_LEVEL = 'silent';
  const services = createServices(loadConfig());
  try {
    await migrate(services.database);
    return await work(services);
  } finally {
    await services.close();
  }
}

const report = (label: string, started: number, posts: number | undefined) =>
  console.log(
    JSON.stringify({
      step: label,
      posts,
      seconds: Number(((Date.now() - started) / 1000).toFixed(2)),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );

if (step === 'seed') {
  const [url, count] = rest as [string, string];
  await withServices(url, async (services) => {
    await installIfNeeded(services);
    const db = services.database.db;
    const now = new Date().toISOString();
    const words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor'.split(' ');
    const body = (n: number) =>
      `<p>${Array.from({ length: 150 }, (_, i) => words[(n * 7 + i * 13) % words.length]).join(' ')} ${n}</p>`;
    for (let start = 0; start < Number(count); start += 500) {
      await db.transaction().execute(async (trx) => {
        const rows = Array.from({ length: Math.min(500, Number(count) - start) }, (_, i) => ({
          title: `Bench post ${start + i}`,
          slug: `bench-post-${start + i}`,
          content: body(start + i),
          status: 'published',
          type: 'post',
          published_at: now,
          created_at: now,
          updated_at: now,
        }));
        await trx.insertInto('posts').values(rows).execute();
      });
    }
  });
} else if (step === 'export') {
  const [url, out] = rest as [string, string];
  const started = Date.now();
  const result = await withServices(url, (services) =>
    services.exporter.export(
      INSTALLATION_OPERATOR,
      { websiteId: null, withSecrets: true },
      fs.createWriteStream(out),
    ),
  );
  report('export', started, result.summary.counts.posts);
} else if (step === 'import') {
  const [url, file] = rest as [string, string];
  const started = Date.now();
  const result = await withServices(url, (services) =>
    services.folioImporter.import(INSTALLATION_OPERATOR, file, { websiteId: null, dryRun: false }),
  );
  report('import', started, result.created.posts);
} else {
  const posts = rest.includes('--posts')
    ? rest[rest.indexOf('--posts') + 1]!
    : step === '--posts'
      ? rest[0]!
      : '10000';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-porting-'));
  const self = new URL(import.meta.url).pathname;
  const tsx = path.resolve('node_modules/.bin/tsx');
  const child = (...args: string[]) =>
    execFileSync(tsx, [self, ...args], {
      encoding: 'utf8',
      env: { ...process.env, MEDIA_DIR: path.join(dir, 'media') },
    }).trim();
  const source = `sqlite:${path.join(dir, 'source.sqlite')}`;
  const target = `sqlite:${path.join(dir, 'target.sqlite')}`;
  const archive = path.join(dir, 'export.tar.gz');
  child('seed', source, posts);
  const lines = [child('export', source, archive), child('import', target, archive)];
  console.log(
    `posts: ${posts}, archive: ${(fs.statSync(archive).size / 1024 / 1024).toFixed(1)} MB, cpus: ${os.cpus().length}`,
  );
  for (const line of lines) console.log(line);
  fs.rmSync(dir, { recursive: true, force: true });
}
