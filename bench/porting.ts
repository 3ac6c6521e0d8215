// Export and import of 10,000 posts and a WordPress (WXR) import of 1,000 (issue 39): time and peak RSS
// of `folio export` and `folio import`, each step in a child process of its own so that its peak RSS is
// its own. On SQLite, and on PostgreSQL with `--postgres URL` (a server: databases of the bench's own
// are created there and dropped).
//   npx tsx bench/porting.ts [--posts 10000] [--wxr-posts 1000] [--postgres postgres://postgres@127.0.0.1/test]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/database.js';
import { INSTALLATION_OPERATOR } from '../src/domain/policy.js';
import { createServices, faceServices } from '../src/services.js';
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
    await installIfNeeded(faceServices(services));
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
} else if (step === 'wxr') {
  const [url, file] = rest as [string, string];
  const started = Date.now();
  const result = await withServices(url, (services) =>
    services.wordpressImporter.import(INSTALLATION_OPERATOR, file, {
      websiteId: null,
      dryRun: false,
      noMedia: true,
    }),
  );
  report('wxr import', started, result.created.posts);
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
  const option = (name: string, fallback: string) =>
    ([step, ...rest].includes(name) ? [step, ...rest][[step, ...rest].indexOf(name) + 1] : undefined) ??
    fallback;
  const wxrPosts = Number(option('--wxr-posts', '1000'));
  const postgres = option('--postgres', '');
  const wxr = path.join(dir, 'wordpress.xml');
  fs.writeFileSync(wxr, wxrFile(wxrPosts));
  const databases: Array<{ name: string; url: (db: string) => string; drop?: () => void }> = [
    { name: 'sqlite', url: (db) => `sqlite:${path.join(dir, `${db}.sqlite`)}` },
  ];
  if (postgres) {
    const suffix = Math.random().toString(36).slice(2, 8);
    const made: string[] = [];
    const psql = (sqlText: string) => execFileSync('psql', [postgres, '-qc', sqlText], { stdio: 'ignore' });
    databases.push({
      name: 'postgres',
      url: (db) => {
        const name = `folio_bench_${db}_${suffix}`;
        psql(`create database ${name}`);
        made.push(name);
        const url = new URL(postgres);
        url.pathname = `/${name}`;
        return url.toString();
      },
      drop: () => made.forEach((name) => psql(`drop database if exists ${name} with (force)`)),
    });
  }
  console.log(
    `posts: ${posts}, WXR posts: ${wxrPosts}, cpus: ${os.cpus().length}, load: ${os.loadavg()[0]!.toFixed(1)}`,
  );
  for (const database of databases) {
    try {
      const source = database.url('source');
      const archive = path.join(dir, `export-${database.name}.tar.gz`);
      child('seed', source, posts);
      const lines = [
        child('export', source, archive),
        child('import', database.url('target'), archive),
        child('wxr', database.url('wxr'), wxr),
      ];
      console.log(`${database.name}: archive ${(fs.statSync(archive).size / 1024 / 1024).toFixed(1)} MB`);
      for (const line of lines) console.log(`${database.name} ${line}`);
    } finally {
      database.drop?.();
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A WordPress export (WXR 1.2) of `count` published posts, each with a category, two tags and a comment. */
function wxrFile(count: number): string {
  const items = Array.from({ length: count }, (_, n) => {
    const day = String((n % 28) + 1).padStart(2, '0');
    return `<item><title><![CDATA[Imported post ${n}]]></title>
<link>http://bench-blog.example.test/2026/05/imported-post-${n}/</link>
<dc:creator><![CDATA[writer]]></dc:creator>
<content:encoded><![CDATA[<!-- wp:paragraph --><p>Paragraph ${n} of an imported post, with <a href="https://example.org/${n}">a link</a> and <strong>some</strong> markup.</p><!-- /wp:paragraph -->
<p>${'More words in a second paragraph. '.repeat(20)}</p>]]></content:encoded>
<excerpt:encoded><![CDATA[Excerpt ${n}]]></excerpt:encoded>
<wp:post_id>${n + 100}</wp:post_id>
<wp:post_date><![CDATA[2026-05-${day} 10:00:00]]></wp:post_date>
<wp:post_date_gmt><![CDATA[2026-05-${day} 10:00:00]]></wp:post_date_gmt>
<wp:post_modified_gmt><![CDATA[2026-05-${day} 11:00:00]]></wp:post_modified_gmt>
<wp:post_name><![CDATA[imported-post-${n}]]></wp:post_name>
<wp:status><![CDATA[publish]]></wp:status>
<wp:post_type><![CDATA[post]]></wp:post_type>
<category domain="category" nicename="garden"><![CDATA[Garden]]></category>
<category domain="post_tag" nicename="tag-${n % 50}"><![CDATA[Tag ${n % 50}]]></category>
<category domain="post_tag" nicename="roses"><![CDATA[Roses]]></category>
<wp:comment><wp:comment_id>${n + 1}</wp:comment_id><wp:comment_author><![CDATA[Reader]]></wp:comment_author><wp:comment_author_email><![CDATA[reader@example.test]]></wp:comment_author_email><wp:comment_date_gmt><![CDATA[2026-05-${day} 12:00:00]]></wp:comment_date_gmt><wp:comment_content><![CDATA[Nice post ${n}!]]></wp:comment_content><wp:comment_approved><![CDATA[1]]></wp:comment_approved><wp:comment_parent>0</wp:comment_parent></wp:comment>
</item>`;
  }).join('\n');
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
<title>Bench blog</title>
<link>http://bench-blog.example.test</link>
<language>en-US</language>
<wp:wxr_version>1.2</wp:wxr_version>
<wp:base_site_url>http://bench-blog.example.test</wp:base_site_url>
<wp:base_blog_url>http://bench-blog.example.test</wp:base_blog_url>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login><![CDATA[writer]]></wp:author_login><wp:author_email><![CDATA[writer@bench-blog.example.test]]></wp:author_email><wp:author_display_name><![CDATA[Writer]]></wp:author_display_name></wp:author>
<wp:category><wp:term_id>1</wp:term_id><wp:category_nicename><![CDATA[garden]]></wp:category_nicename><wp:category_parent><![CDATA[]]></wp:category_parent><wp:cat_name><![CDATA[Garden]]></wp:cat_name></wp:category>
${items}
</channel>
</rss>
`;
}
