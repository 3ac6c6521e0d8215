// Ghost import (issue 39 #4) from a Ghost 5 JSON fixture (test/fixtures/ghost/ghost-5.json, written
// from the export's shape; its origin is stated in its `_origin` key): posts with HTML, Lexical and
// mobiledoc rendered to HTML where there is none, tags, authors, pages.
import { faceServices } from '../../src/services.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { main } from '../../src/cli.js';
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import { isPublicAddress } from '../../src/domain/safe-fetch.js';
import { installIfNeeded } from '../../src/setup/install.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/ghost/ghost-5.json', import.meta.url));

describe('folio import (Ghost JSON)', () => {
  let ctx: TestContext;
  let dir: string;
  let websiteId: number;

  before(async () => {
    ctx = await createTestContext();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-ghost-'));
    websiteId = (await installIfNeeded(faceServices(ctx.services)))!.websiteId;
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await ctx.close();
  });

  it('needs a website (a Ghost export names no domain)', async () => {
    await assert.rejects(
      ctx.services.ghostImporter.import(INSTALLATION_OPERATOR, FIXTURE, { websiteId: null, dryRun: true }),
      /--website/,
    );
  });

  it('posts, pages, tags and authors come in; Lexical and mobiledoc are rendered to HTML', async () => {
    const report = await ctx.services.ghostImporter.import(INSTALLATION_OPERATOR, FIXTURE, {
      websiteId,
      dryRun: false,
    });
    assert.equal(report.format, 'ghost');
    assert.equal(report.created.posts, 2);
    assert.equal(report.created.pages, 1);
    assert.equal(report.created.users, 2);
    assert.equal(report.created.tags, 1);
    assert.ok(report.skipped.some((s) => /unknown post type "newsletter"/.test(s.reason)));
    assert.ok(report.skipped.some((s) => s.id === '#hidden'));
    assert.ok(report.skipped.some((s) => s.id === '__GHOST_URL__'));

    const db = ctx.services.database.db;
    const hello = await db
      .selectFrom('posts')
      .selectAll()
      .where('slug', '=', 'hello-from-ghost')
      .executeTakeFirstOrThrow();
    assert.equal(hello.content, '<p>Written in <em>Ghost</em>.</p>');
    assert.equal(hello.status, 'published');
    assert.equal(new Date(hello.published_at!).toISOString(), '2026-05-01T10:00:00.000Z');
    assert.equal(hello.excerpt, 'A greeting');
    assert.equal(hello.meta_title, 'Hello SEO');
    assert.equal(hello.thumbnail, 'https://images.example.test/hello.jpg');
    const ned = await db
      .selectFrom('users')
      .select(['id', 'name'])
      .where('email', '=', 'ned@ghost.example.test')
      .executeTakeFirstOrThrow();
    assert.equal(hello.author_id, ned.id, "the first of the post's authors");
    const tags = await db
      .selectFrom('taggables')
      .innerJoin('tags', 'tags.id', 'taggables.tag_id')
      .select('tags.slug')
      .where('taggable_id', '=', hello.id)
      .where('taggable_type', '=', 'post')
      .execute();
    assert.deepEqual(
      tags.map((t) => t.slug),
      ['sea'],
    );

    const lexical = await db
      .selectFrom('posts')
      .selectAll()
      .where('slug', '=', 'lexical-only')
      .executeTakeFirstOrThrow();
    assert.equal(lexical.status, 'draft');
    assert.equal(
      lexical.content,
      '<h2>Tides &amp; moons</h2><p>The sea is <strong>loud</strong><em> &lt;tonight&gt;.</em></p><ul><li>high at six</li></ul>' +
        '<p><a href="#">bad link</a></p><figure><img src="__GHOST_URL__/content/images/2026/05/sea.jpg" alt="The sea" /></figure>',
    );
    const page = await db
      .selectFrom('pages')
      .selectAll()
      .where('slug', '=', 'about-us')
      .executeTakeFirstOrThrow();
    assert.equal(
      page.content,
      '<p>About <strong>us</strong><a href="https://example.test/"> here</a></p><div class="card">Card HTML</div><ol><li>one</li><li>two</li></ol>',
    );
  });

  it('bad JSON and two authors with one email are refused, nothing written', async () => {
    const broken = path.join(dir, 'broken.json');
    fs.writeFileSync(broken, fs.readFileSync(FIXTURE, 'utf8').slice(0, 500));
    await assert.rejects(
      ctx.services.ghostImporter.import(INSTALLATION_OPERATOR, broken, { websiteId, dryRun: false }),
      /not valid JSON/,
    );
    const twins = path.join(dir, 'twins.json');
    fs.writeFileSync(
      twins,
      fs.readFileSync(FIXTURE, 'utf8').replace('ned@ghost.example.test', 'Maya@ghost.example.test'),
    );
    const before = await ctx.services.database.db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    await assert.rejects(
      ctx.services.ghostImporter.import(INSTALLATION_OPERATOR, twins, { websiteId, dryRun: false }),
      /two authors of the Ghost export .* have the email maya@ghost\.example\.test/,
    );
    const after = await ctx.services.database.db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n));
  });

  it('the CLI recognizes a Ghost export by its content', async () => {
    const saved = { ...process.env };
    process.env.DATABASE_URL = ctx.database.url;
    process.env.LOG_LEVEL = 'silent';
    const out: string[] = [];
    const err: string[] = [];
    try {
      const code = await main(['import', FIXTURE, '--website', String(websiteId), '--dry-run'], {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
      });
      assert.equal(code, 0, err.join('\n'));
      assert.match(out.join('\n'), /would create from a ghost export: .*posts/);
      assert.match(out.join('\n'), /Renamed posts: hello-from-ghost -> hello-from-ghost-2/);
    } finally {
      process.env = saved;
    }
  });
  it('--site-url: Ghost\u2019s own images (__GHOST_URL__) are fetched from the old site into the library', async () => {
    const png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#36c' } })
      .png()
      .toBuffer();
    const requested: string[] = [];
    const server = http.createServer((request, response) => {
      requested.push(request.url ?? '');
      if (request.url === '/content/images/2026/05/sea.jpg')
        response.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    ctx.services.fetcher.setAddressPolicy((address) => address === '127.0.0.1');
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const site = await websiteWrites(ctx.services).create({ siteName: 'Sea', domain: 'sea.example.test' });
      const report = await ctx.services.ghostImporter.import(INSTALLATION_OPERATOR, FIXTURE, {
        websiteId: site,
        dryRun: false,
        siteUrl: `${origin}/`,
      });
      assert.ok(!report.skipped.some((s) => s.id === '__GHOST_URL__'), 'no image left at Ghost\u2019s paths');
      assert.deepEqual(requested, ['/content/images/2026/05/sea.jpg']);
      const db = ctx.services.database.db;
      const media = await db
        .selectFrom('media')
        .select(['path', 'url', 'source_url'])
        .where('source_url', '=', `${origin}/content/images/2026/05/sea.jpg`)
        .executeTakeFirstOrThrow();
      assert.match(media.path, /^library\/imported\/[0-9a-f]{32}\.png$/);
      const stored = await ctx.services.media.store.stat(media.path);
      assert.equal(stored?.size, png.length, 'the file is in the library');
      const post = await db
        .selectFrom('posts')
        .select('content')
        .where('content', 'like', '%The sea%')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.ok(post.content.includes(`src="${media.url}"`), post.content);
    } finally {
      server.close();
      ctx.services.fetcher.setAddressPolicy(isPublicAddress);
    }
  });
});
