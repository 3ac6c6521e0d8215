// The link directory (spec 4.8, R-F1 frontend.links.index/.show/.tag, R-F2): links are posts of type
// `link` written by the links service (and `folio link:create`), listed per website, by tag type
// short name (`category` -> `link_category`), escaped, paginated.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli.js';
import { InputError } from '../../src/domain/errors.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext, exposeRouteNames } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { linkWrites } from '../support/link-writes.js';
import { websiteWrites } from '../support/website-writes.js';

describe('links', () => {
  let ctx: TestContext;
  let otherWebsite: number;
  let folioId: number;
  let foreignId: number;

  before(async () => {
    ctx = await createTestContext({ extend: exposeRouteNames });
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    otherWebsite = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    folioId = (
      await linkWrites(ctx.services).create({
        name: 'Folio <CMS>',
        url: 'https://folio.example/docs?a=1&b=2',
        description: 'Docs & "guides" <script>alert(1)</script>',
        icon: 'https://folio.example/icon.png',
        categories: ['Tools', 'Reading'],
      })
    ).id;
    await linkWrites(ctx.services).create({
      name: 'News',
      url: 'http://news.example/',
      categories: ['Reading'],
    });
    foreignId = (
      await linkWrites(ctx.services).create({
        name: 'Only elsewhere',
        url: 'https://elsewhere.example/',
        websiteIds: [otherWebsite],
      })
    ).id;
  });
  after(() => ctx.close());

  const get = (url: string, host = 'site.test') => ctx.request({ method: 'GET', url, headers: { host } });

  it('links.index lists the links shown on this website, newest first, escaped', async () => {
    const response = await get('/link');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-test-route-name'], 'frontend.links.index');
    const body = response.body;
    assert.ok(body.indexOf('>News</a>') < body.indexOf('Folio &lt;CMS&gt;'), 'newest first');
    assert.match(body, /href="https:\/\/folio\.example\/docs\?a=1&amp;b=2"/);
    assert.match(body, /data-folio-click="click" data-folio-type="link" data-folio-id="\d+"/);
    assert.match(body, /Docs &amp; &#34;guides&#34; &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.ok(!body.includes('<script>alert'), 'no markup from link data');
    assert.match(body, /<img class="link-icon" src="https:\/\/folio\.example\/icon\.png"/);
    assert.match(body, /href="\/link\/category\/tools">Tools<\/a>/);
    assert.ok(!body.includes('Only elsewhere'), 'a link bound to another website is not listed');
    assert.match(body, /\/themes\/default\/assets\/clicks\.js/);
    assert.match((await get('/link', 'other.test')).body, /Only elsewhere/);
  });

  it('links.show shows one link with a view beacon; unknown, malformed or foreign ids are 404', async () => {
    const response = await get(`/link/${folioId}`);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-test-route-name'], 'frontend.links.show');
    assert.match(response.body, /<title>Folio &lt;CMS&gt; · Site<\/title>/);
    assert.match(response.body, new RegExp(`data-type="link" data-id="${folioId}" data-kind="view"`));
    assert.match(response.body, /href="\/link\/category\/reading">Reading<\/a>/);
    for (const url of ['/link/999999', '/link/99999999999', `/link/${foreignId}`]) {
      assert.equal((await get(url)).statusCode, 404, url);
    }
    assert.equal((await get(`/link/${foreignId}`, 'other.test')).statusCode, 200);
  });

  it('links.tag: /link/category/{slug} lists the links of that link_category tag (R-F2)', async () => {
    const tools = await get('/link/category/tools');
    assert.equal(tools.statusCode, 200);
    assert.equal(tools.headers['x-test-route-name'], 'frontend.links.tag');
    assert.match(tools.body, /<h1>Tools<\/h1>/);
    assert.match(tools.body, /Folio &lt;CMS&gt;/);
    assert.ok(!tools.body.includes('>News</a>'));
    const reading = await get('/link/category/reading');
    assert.match(reading.body, />News<\/a>/);
    assert.match(reading.body, /Folio &lt;CMS&gt;/);
    // A post category of the same slug is not a link category; unknown types and slugs are 404.
    await ctx.services.tagOps.ensure({
      name: 'Elsewhere',
      type: 'post_category',
      updateWhenDuplicated: false,
      defaultLocale: 'en',
    });
    for (const url of [
      '/link/category/elsewhere',
      '/link/category/nothing',
      '/link/Bad-Type/tools',
      '/link/tag/tools',
    ]) {
      assert.equal((await get(url)).statusCode, 404, url);
    }
  });

  it('listings are paginated by 20; a page past the end is 404', async () => {
    for (let i = 0; i < 19; i++) {
      await linkWrites(ctx.services).create({ name: `Filler ${i}`, url: `https://filler.example/${i}` });
    }
    const first = await get('/link');
    assert.equal((first.body.match(/class="link-item"/g) ?? []).length, 20);
    assert.match(first.body, /rel="next" href="\/link\?page=2"/);
    const second = await get('/link?page=2');
    assert.equal(second.statusCode, 200);
    assert.equal((second.body.match(/class="link-item"/g) ?? []).length, 1);
    assert.match(second.body, /rel="prev" href="\/link"/);
    assert.equal((await get('/link?page=3')).statusCode, 404);
    assert.equal((await get('/link?page=abc')).statusCode, 200, 'a malformed page is the first page');
  });

  it('R-F3: links are served under a supported locale prefix, with localized URLs', async () => {
    await ctx.services.settings.set('supported_locales', 'en,fr');
    try {
      const response = await get('/fr/link/category/tools');
      assert.equal(response.statusCode, 200);
      assert.match(response.body, /href="\/fr\/link\/\d+">Details<\/a>/);
      assert.match(response.body, /href="\/fr\/link\/category\/tools">Tools<\/a>/);
      assert.equal((await get(`/fr/link/${folioId}`)).statusCode, 200);
    } finally {
      await ctx.services.settings.delete('supported_locales');
    }
  });

  it('a link row written by other means never renders a javascript: URL', async () => {
    const { db } = ctx.services.database;
    await db
      .updateTable('links')
      .set({ url: 'javascript:alert(1)', icon: 'javascript:alert(2)' })
      .where('post_id', '=', folioId)
      .execute();
    try {
      const body = (await get(`/link/${folioId}`)).body;
      assert.ok(!body.includes('javascript:'), 'unsafe URLs are dropped');
      assert.match(body, /class="link-url" href="#"/);
    } finally {
      await db
        .updateTable('links')
        .set({ url: 'https://folio.example/', icon: null })
        .where('post_id', '=', folioId)
        .execute();
    }
  });

  it('the links service refuses a missing name and URLs that are not http(s)', async () => {
    const refused = async (input: Parameters<typeof ctx.services.links.create>[0], field: string) => {
      await assert.rejects(ctx.services.links.create(input), (error: unknown) => {
        assert.ok(error instanceof InputError);
        assert.equal(error.field, field);
        return true;
      });
    };
    await refused({ name: ' ', url: 'https://x.example/' }, 'name');
    await refused({ name: 'Bad', url: 'javascript:alert(1)' }, 'url');
    await refused({ name: 'Bad', url: 'not a url' }, 'url');
    await refused({ name: 'Bad', url: 'https://x.example/', icon: 'data:image/png;base64,AAAA' }, 'icon');
    await refused({ name: 'Bad', url: 'https://x.example/', websiteIds: [999999] }, 'website_id');
  });

  it('folio link:create adds a link with its categories; bad input exits non-zero', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, { DATABASE_URL: ctx.database.url, LOG_LEVEL: 'silent', REDIS_URL: '' });
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
    try {
      const code = await main(
        [
          'link:create',
          '--name',
          'From the CLI',
          '--url',
          'https://cli.example/',
          '--description',
          'Made by hand',
          '--category',
          'Tools',
          '--category',
          'Command line',
        ],
        io,
      );
      assert.equal(code, 0, err.join('\n'));
      const printed = JSON.parse(out[0]!) as { id: number; slug: string; url: string };
      assert.equal(printed.slug, 'from-the-cli');
      assert.equal(printed.url, 'https://cli.example/');
      const link = await ctx.services.links.find(printed.id, otherWebsite, 'en');
      assert.deepEqual(
        link?.tags.map((tag) => [tag.name, tag.type]),
        [
          ['Tools', 'link_category'],
          ['Command line', 'link_category'],
        ],
      );
      assert.equal(await main(['link:create', '--name', 'No URL'], io), 2);
      assert.equal(err.at(-1), 'folio: --url is required');
      assert.equal(await main(['link:create', '--name', 'Bad', '--url', 'ftp://x.example/'], io), 1);
      assert.equal(err.at(-1), 'folio: The url must be a valid http or https URL.');
    } finally {
      process.env = saved;
    }
  });
});
