// WordPress import (issue 39 #3) from a WXR 1.2 fixture (test/fixtures/wordpress/wxr-1.2.xml, written
// from the format; its origin is stated in it): posts, pages, the category tree, tags, threaded
// comments, authors without passwords, images fetched through the SSRF guard (or left with
// --no-media), slugs, statuses and dates, and the old permalinks answering with a 301.
import { faceServices } from '../../src/services.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { main } from '../../src/cli.js';
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import { installIfNeeded } from '../../src/setup/install.js';
import { createTestContext } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import type { TestContext } from '../support/harness.js';

const FIXTURE = new URL('../fixtures/wordpress/wxr-1.2.xml', import.meta.url);

describe('folio import (WordPress WXR)', () => {
  let ctx: TestContext;
  let dir: string;
  let server: http.Server;
  let hits = 0;
  let png: Buffer;
  let wxr: string;
  let localSite: number;

  const counts = async () => {
    const db = ctx.services.database.db;
    const n = async (table: 'posts' | 'users' | 'websites' | 'tags' | 'comments' | 'media' | 'redirects') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      posts: await n('posts'),
      users: await n('users'),
      websites: await n('websites'),
      tags: await n('tags'),
      comments: await n('comments'),
      media: await n('media'),
      redirects: await n('redirects'),
    };
  };
  const withText = (name: string, edit: (text: string) => string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, edit(fs.readFileSync(wxr, 'utf8')));
    return file;
  };

  before(async () => {
    ctx = await createTestContext();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-wxr-'));
    localSite = (await installIfNeeded(faceServices(ctx.services)))!.websiteId;
    png = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#d22' } })
      .png()
      .toBuffer();
    server = http.createServer((request, response) => {
      hits += 1;
      if (request.url === '/wp-content/uploads/2026/05/rose.png') {
        response.writeHead(200, { 'content-type': 'image/png' }).end(png);
      } else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    wxr = path.join(dir, 'export.xml');
    fs.writeFileSync(wxr, fs.readFileSync(FIXTURE, 'utf8').replaceAll('http://images.example.test', origin));
    ctx.services.fetcher.setAddressPolicy((address) => address === '127.0.0.1');
  });
  after(async () => {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
    await ctx.close();
  });

  it('a dry run reports what would come in, fetches nothing and writes nothing', async () => {
    const before = await counts();
    const report = await ctx.services.wordpressImporter.import(INSTALLATION_OPERATOR, wxr, {
      websiteId: null,
      dryRun: true,
      noMedia: false,
    });
    assert.equal(report.format, 'wordpress');
    assert.equal(report.created.posts, 3);
    assert.equal(report.created.pages, 1);
    assert.equal(hits, 0, 'no image fetched in a dry run');
    assert.deepEqual(await counts(), before);
  });

  it('a WordPress site becomes a Folio website: content, terms, comments, authors, images', async () => {
    const report = await ctx.services.wordpressImporter.import(INSTALLATION_OPERATOR, wxr, {
      websiteId: null,
      dryRun: false,
      noMedia: false,
    });
    assert.equal(report.created.posts, 3);
    assert.equal(report.created.pages, 1);
    assert.equal(report.created.users, 2);
    assert.equal(report.created.comments, 3, 'the pingback is left out, the spam kept as spam');
    assert.equal(report.created.tags, 4);
    assert.ok(report.skipped.some((s) => s.id === '16' && /unknown post type "product"/.test(s.reason)));
    assert.ok(
      !report.skipped.some((s) => s.id === '15'),
      'menu items are WordPress internals, not reported one by one',
    );
    assert.deepEqual(report.renamed, [
      { kind: 'posts', from: 'first-roses', to: 'first-roses-2' },
      { kind: 'pages', from: 'about', to: 'about-2' }, // page slugs are the installation's: the sample About has it
    ]);
    assert.equal(hits, 1, 'the image fetched once (in the content and as the featured image)');

    const db = ctx.services.database.db;
    const website = await db
      .selectFrom('domains')
      .select('website_id')
      .where('domain', '=', 'old-garden.example.test')
      .executeTakeFirstOrThrow();
    assert.equal(
      (
        await db
          .selectFrom('websites')
          .select('site_name')
          .where('id', '=', website.website_id)
          .executeTakeFirstOrThrow()
      ).site_name,
      'Old Garden Blog',
    );

    const roses = await db
      .selectFrom('posts')
      .selectAll()
      .where('slug', '=', 'first-roses')
      .executeTakeFirstOrThrow();
    assert.equal(roses.status, 'published');
    assert.equal(
      new Date(roses.published_at!).toISOString(),
      '2026-05-01T09:30:00.000Z',
      'the GMT date kept',
    );
    assert.equal(roses.excerpt, 'Roses, at last.');
    const media = await db
      .selectFrom('media')
      .selectAll()
      .where('source_url', 'like', '%/rose.png')
      .executeTakeFirstOrThrow();
    assert.ok(roses.content.includes(`src="${media.url}"`), roses.content);
    assert.ok(!roses.content.includes('srcset'), 'the old sizes are not kept');
    assert.equal(roses.thumbnail, media.url, 'the featured image');
    const stored = await ctx.services.media.store.read(media.path);
    const chunks: Buffer[] = [];
    for await (const chunk of stored!) chunks.push(chunk as Buffer);
    assert.ok(Buffer.concat(chunks).equals(png));

    const author = await db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'rosa@old-garden.example.test')
      .executeTakeFirstOrThrow();
    assert.equal(roses.author_id, author.id);
    assert.equal(author.name, 'Rosa Gardener');
    assert.equal(
      await ctx.services.users.authenticatePassword(author.email, ''),
      null,
      'no password: it must be set first',
    );
    const role = await db
      .selectFrom('memberships')
      .select('role')
      .where('user_id', '=', author.id)
      .executeTakeFirstOrThrow();
    assert.equal(role.role, 'author');

    const draft = await db
      .selectFrom('posts')
      .selectAll()
      .where('slug', '=', 'planting-plans')
      .executeTakeFirstOrThrow();
    assert.equal(draft.status, 'draft');
    assert.equal(draft.published_at, null);
    assert.equal(
      draft.content,
      '<p>Beds by the wall.</p>\n<p>Herbs near the kitchen door.</p>',
      'paragraphs as WordPress shows them',
    );

    const comments = await db
      .selectFrom('comments')
      .selectAll()
      .where('post_id', '=', roses.id)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      comments.map((c) => [c.author_name, c.status]),
      [
        ['Ann', 'approved'],
        ['Rosa Gardener', 'approved'],
        ['Cheap Pills', 'spam'],
      ],
    );
    assert.equal(comments[1]!.parent_id, comments[0]!.id, 'threaded');

    const roseTag = await db
      .selectFrom('tags')
      .selectAll()
      .where('slug', '=', 'roses')
      .executeTakeFirstOrThrow();
    const flowers = await db
      .selectFrom('tags')
      .selectAll()
      .where('slug', '=', 'flowers')
      .executeTakeFirstOrThrow();
    assert.equal(roseTag.type, 'post_category');
    assert.equal(roseTag.parent_id, flowers.id, 'the category tree');
    const tagged = await db
      .selectFrom('taggables')
      .innerJoin('tags', 'tags.id', 'taggables.tag_id')
      .select('tags.slug')
      .where('taggable_id', '=', roses.id)
      .where('taggable_type', '=', 'post')
      .orderBy('tags.slug')
      .execute();
    assert.deepEqual(
      tagged.map((t) => t.slug),
      ['roses', 'spring'],
    );
    // Each imported post and page starts its history: one revision, its action the import.
    const history = await ctx.services.database.db
      .selectFrom('revisions')
      .innerJoin('posts', 'posts.id', 'revisions.resource_id')
      .select(['revisions.action', 'revisions.status'])
      .where('revisions.resource_type', '=', 'post')
      .where('posts.slug', '=', 'first-roses')
      .execute();
    assert.deepEqual(history, [{ action: 'post.import', status: 'published' }]);
  });

  it('old permalinks answer with a 301 to the new address', async () => {
    const host = { host: 'old-garden.example.test' };
    const post = await ctx.request({ url: '/2026/05/first-roses/', headers: host });
    assert.equal(post.statusCode, 301);
    assert.equal(post.headers.location, '/post/first-roses');
    const renamed = await ctx.request({ url: '/2026/06/first-roses-2', headers: host });
    assert.equal(renamed.headers.location, '/post/first-roses-2');
    const page = await ctx.request({ url: '/about/', headers: host });
    assert.equal(page.statusCode, 301);
    assert.equal(page.headers.location, '/page/about-2');
    // WordPress's links by id answer too, whatever the permalinks were (a page also by page_id).
    const byId = await ctx.request({ url: '/?p=10', headers: host });
    assert.equal(byId.statusCode, 301);
    assert.equal(byId.headers.location, '/post/first-roses');
    assert.equal(
      (await ctx.request({ url: '/?page_id=14', headers: host })).headers.location,
      '/page/about-2',
    );
    assert.equal(
      (await ctx.request({ url: '/?p=14&utm=x', headers: host })).headers.location,
      '/page/about-2',
    );
    const unknownId = await ctx.request({ url: '/?p=999', headers: host });
    assert.equal(unknownId.statusCode, 200, 'an id it never had: the home page');
    assert.equal((await ctx.request({ url: '/?p=10', headers: host })).statusCode, 301, 'not cached as home');
    const target = await ctx.request({ url: '/post/first-roses', headers: host });
    assert.equal(target.statusCode, 200);
    assert.equal((await ctx.request({ url: '/2026/05/never-was/', headers: host })).statusCode, 404);
    assert.equal(
      (await ctx.request({ url: '/about/', headers: { host: 'localhost' } })).statusCode,
      404,
      'another website has no such redirect',
    );
  });

  it('--no-media into an existing website: images stay at their URLs, slugs taken are renamed', async () => {
    const before = hits;
    const report = await ctx.services.wordpressImporter.import(INSTALLATION_OPERATOR, wxr, {
      websiteId: localSite,
      dryRun: false,
      noMedia: true,
    });
    assert.equal(hits, before, 'nothing fetched');
    assert.equal(report.merged.users, 2, 'the authors are the same people');
    assert.ok(report.renamed.some((r) => r.from === 'first-roses' && r.to === 'first-roses-3'));
    const db = ctx.services.database.db;
    const copy = await db
      .selectFrom('posts')
      .selectAll()
      .where('slug', '=', 'first-roses-3')
      .executeTakeFirstOrThrow();
    assert.match(copy.content, /src="http:\/\/127\.0\.0\.1:\d+\/wp-content\/uploads\/2026\/05\/rose\.png"/);
    assert.match(copy.thumbnail ?? '', /^http:\/\/127\.0\.0\.1/);
  });

  it('an image that cannot be fetched is left external and reported', async () => {
    const file = withText('missing.xml', (text) =>
      text
        .replaceAll('rose.png', 'gone.png')
        .replace('old-garden.example.test</link>', 'missing.example.test</link>')
        .replaceAll(
          '<wp:base_blog_url>http://old-garden.example.test',
          '<wp:base_blog_url>http://missing.example.test',
        ),
    );
    const report = await ctx.services.wordpressImporter.import(INSTALLATION_OPERATOR, file, {
      websiteId: null,
      dryRun: false,
      noMedia: false,
    });
    assert.ok(
      report.skipped.some(
        (s) =>
          s.kind === 'media' && /gone\.png/.test(String(s.id)) && /left as an external URL/.test(s.reason),
      ),
    );
  });

  it('a foreign site\u2019s HTML is cut to the allow-list (posts, excerpts) and comments are cleaned; --keep-html keeps the posts\u2019', async () => {
    const hostile = (name: string, domain: string) =>
      withText(name, (text) =>
        text
          .replace(
            '<p>The first roses opened this morning.</p>',
            '<p onclick="steal()">Hostile roses<script>alert(1)</script></p><iframe src="https://evil.test/"></iframe>',
          )
          .replace('Roses, at last.', '<b>Roses</b>, at <script>alert(2)</script>last.')
          .replace('Lovely colour!', 'Lovely <img src=x onerror=alert(3)> colour!<script>alert(4)</script>')
          .replace('old-garden.example.test</link>', `${domain}</link>`)
          .replaceAll(
            '<wp:base_blog_url>http://old-garden.example.test',
            `<wp:base_blog_url>http://${domain}`,
          ),
      );
    const imported = async (file: string, keepHtml: boolean) => {
      await ctx.services.wordpressImporter.import(INSTALLATION_OPERATOR, file, {
        websiteId: null,
        dryRun: false,
        noMedia: true,
        keepHtml,
      });
      const db = ctx.services.database.db;
      const post = await db
        .selectFrom('posts')
        .select(['id', 'content', 'excerpt'])
        .where('content', 'like', '%Hostile roses%')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const comment = await db
        .selectFrom('comments')
        .select('content')
        .where('post_id', '=', post.id)
        .where('content', 'like', '%Lovely%')
        .executeTakeFirstOrThrow();
      return { ...post, comment: comment.content };
    };

    const cleaned = await imported(hostile('hostile.xml', 'hostile.example.test'), false);
    assert.doesNotMatch(cleaned.content, /<script|onclick|alert\(1\)|evil\.test/);
    assert.match(cleaned.content, /<p>Hostile roses<\/p>/);
    assert.match(cleaned.content, /<img[^>]+alt="A red rose"/, 'the allow-list keeps images');
    assert.equal(cleaned.excerpt, 'Roses, at last.');
    assert.doesNotMatch(cleaned.comment, /<script|onerror|alert/);
    assert.match(cleaned.comment, /Lovely/);

    const kept = await imported(hostile('trusted.xml', 'trusted.example.test'), true);
    assert.match(kept.content, /<script>alert\(1\)<\/script>/, '--keep-html keeps the posts\u2019 HTML');
    assert.doesNotMatch(kept.comment, /<script|onerror/, 'comments are cleaned whatever the flag');
  });

  it('broken XML is refused with its line, and nothing is written', async () => {
    const file = withText('broken.xml', (text) => text.slice(0, Math.floor(text.length * 0.7)));
    const before = await counts();
    await assert.rejects(
      ctx.services.wordpressImporter.import(INSTALLATION_OPERATOR, file, {
        websiteId: localSite,
        dryRun: false,
        noMedia: true,
      }),
      /not well-formed XML/,
    );
    const mismatched = withText('mismatched.xml', (text) =>
      text.replace('</wp:post_type>', '</wp:post_typo>'),
    );
    await assert.rejects(
      ctx.services.wordpressImporter.import(INSTALLATION_OPERATOR, mismatched, {
        websiteId: localSite,
        dryRun: false,
        noMedia: true,
      }),
      /not well-formed XML/,
    );
    assert.deepEqual(await counts(), before);
  });

  it('two authors with one email are refused before anything is written', async () => {
    const file = withText('twins.xml', (text) =>
      text.replace('tom@old-garden.example.test', 'ROSA@old-garden.example.test'),
    );
    const before = await counts();
    await assert.rejects(
      ctx.services.wordpressImporter.import(INSTALLATION_OPERATOR, file, {
        websiteId: localSite,
        dryRun: false,
        noMedia: true,
      }),
      /two authors of the WXR file \(rosa and tom\) have the email rosa@old-garden\.example\.test/,
    );
    assert.deepEqual(await counts(), before);
  });

  it('--invite-authors: each author it brought is mailed a week-long link to choose a password, and can sign in', async () => {
    const file = withText('invite.xml', (text) =>
      text
        .replaceAll('@old-garden.example.test', '@invited.example.test')
        .replace('old-garden.example.test</link>', 'invited.example.test</link>')
        .replaceAll(
          '<wp:base_blog_url>http://old-garden.example.test',
          '<wp:base_blog_url>http://invited.example.test',
        ),
    );
    const mailer = new RecordingMailer();
    const previous = ctx.services.mailer;
    ctx.services.mailer = mailer;
    const saved = { ...process.env };
    process.env.DATABASE_URL = ctx.database.url;
    process.env.LOG_LEVEL = 'silent';
    const out: string[] = [];
    try {
      // Through the CLI on the test database: with the flag each author is invited (the mail goes to
      // the CLI's own mailer, the log); without it, the CLI says who has no password.
      const cli = async (args: string[]) => {
        out.length = 0;
        const code = await main(args, { out: (l) => out.push(l), err: (l) => out.push(l) });
        assert.equal(code, 0, out.join('\n'));
        return out.join('\n');
      };
      assert.match(
        await cli(['import', file, '--no-media', '--invite-authors']),
        /Invited 2 of 2 authors to choose a password\./,
      );
      const third = withText('invite-3.xml', (text) =>
        text
          .replaceAll('@old-garden.example.test', '@third.example.test')
          .replace('old-garden.example.test</link>', 'third.example.test</link>')
          .replaceAll(
            '<wp:base_blog_url>http://old-garden.example.test',
            '<wp:base_blog_url>http://third.example.test',
          ),
      );
      assert.match(
        await cli(['import', third, '--no-media']),
        /2 accounts have no password yet \(rosa@third\.example\.test, tom@third\.example\.test\)/,
      );
      const report = await ctx.services.wordpressImporter.import(
        INSTALLATION_OPERATOR,
        withText('invite-2.xml', (text) =>
          text
            .replaceAll('@old-garden.example.test', '@second.example.test')
            .replace('old-garden.example.test</link>', 'second.example.test</link>')
            .replaceAll(
              '<wp:base_blog_url>http://old-garden.example.test',
              '<wp:base_blog_url>http://second.example.test',
            ),
        ),
        { websiteId: null, dryRun: false, noMedia: true },
      );
      assert.deepEqual(
        report.without_password.map((account) => account.email),
        ['rosa@second.example.test', 'tom@second.example.test'],
      );
      const rosa = report.without_password[0]!;
      await ctx.services.accounts.inviteImportedUser(
        INSTALLATION_OPERATOR,
        rosa.id,
        (token) => `http://second.example.test/user/password/reset/${token}`,
        { name: 'The old garden', domain: 'second.example.test' },
      );
      const mail = mailer.sent.at(-1)!;
      assert.equal(mail.to, rosa.email);
      assert.match(mail.subject, /Your account on The old garden is ready/);
      assert.match(mail.text, /within 7 days/);
      const token = /\/user\/password\/reset\/([\w-]+)/.exec(mail.text)![1]!;
      assert.equal(await ctx.services.accounts.resetTokenValid(token), true);
      assert.equal(await ctx.services.accounts.resetPassword(token, 'roses in June'), true);
      assert.ok(await ctx.services.users.authenticatePassword(rosa.email, 'roses in June'));
      // Once it has a password, the account is not "imported without one" any more.
      await assert.rejects(
        ctx.services.accounts.inviteImportedUser(INSTALLATION_OPERATOR, rosa.id, (t) => t, {
          name: 'x',
          domain: 'second.example.test',
        }),
        /has a password/,
      );
    } finally {
      process.env = saved;
      ctx.services.mailer = previous;
    }
  });

  it('the CLI recognizes a WXR file by its content (whatever its name) and prints the report', async () => {
    const saved = { ...process.env };
    process.env.DATABASE_URL = ctx.database.url;
    process.env.LOG_LEVEL = 'silent';
    const out: string[] = [];
    const err: string[] = [];
    try {
      const file = path.join(dir, 'site-export.data');
      fs.copyFileSync(wxr, file);
      const code = await main(['import', file, '--website', 'localhost', '--dry-run', '--no-media'], {
        out: (l) => out.push(l),
        err: (l) => err.push(l),
      });
      assert.equal(code, 0, err.join('\n'));
      assert.match(
        out.join('\n'),
        /Dry run \(nothing written\): would create from a wordpress export: .*3 posts/,
      );
      assert.match(out.join('\n'), /Skipped posts 16: unknown post type "product"/);
    } finally {
      process.env = saved;
    }
  });
});
