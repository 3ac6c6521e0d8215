// Feeds (issue 22 #12): RSS 2.0, Atom and JSON Feed 1.1 of a website, a tag and an author, with
// absolute URLs on the primary domain, well-formed (xmllint, a strict XML parser) and following the
// rules that can be checked offline; published posts only; flushed from the page cache by a new post;
// announced in every page's head.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import type { TestContext as NodeTestContext } from 'node:test';
import sharp from 'sharp';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext, exposeRouteNames } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { XMLLINT_PATH, withXmllint } from '../support/requirements.js';
import { postWrites } from '../support/post-writes.js';
import { websiteWrites } from '../support/website-writes.js';

/** xmllint's verdict, as a subtest (throws with its message when the XML is not well-formed). */
async function wellFormed(t: NodeTestContext, xml: string): Promise<void> {
  await withXmllint(t, 'well-formed XML', () => {
    execFileSync(XMLLINT_PATH, ['--noout', '-'], { input: xml, stdio: ['pipe', 'pipe', 'pipe'] });
  });
}

describe('feeds (issue 22 #12)', () => {
  let ctx: TestContext;
  let site: number;
  let writer: TestUser;
  let categoryId: number;

  before(async () => {
    ctx = await createTestContext({ extend: exposeRouteNames });
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Feed & Co', domain: 'feeds.test' });
    await websiteWrites(ctx.services).update(site, { enabled_page_cache: true, site_slogan: 'News <daily>' });
    writer = await ctx.createUser();
    await ctx.services.database.db
      .updateTable('users')
      .set({ username: 'ann' })
      .where('id', '=', writer.id)
      .execute();
    const { tag } = await ctx.services.tagOps.ensure({
      name: 'News',
      type: 'post_category',
      websiteIds: [site],
      updateWhenDuplicated: false,
      defaultLocale: 'en',
    });
    categoryId = tag.id;
    const author = { userId: writer.id, isAdmin: true };
    await postWrites(ctx.services).create(
      {
        title: 'First & foremost',
        content: '<p>One <b>bold</b> line</p>',
        status: 'published',
        websiteIds: [site],
        categories: [categoryId],
      },
      author,
    );
    await postWrites(ctx.services).create(
      {
        title: 'Second',
        content: '<p>Two</p>',
        status: 'published',
        websiteIds: [site],
        thumbnailUrl: 'https://img.example/2.png',
      },
      { userId: null, isAdmin: true },
    );
    await postWrites(ctx.services).create(
      { title: 'Secret draft', content: 'x', status: 'draft', websiteIds: [site] },
      author,
    );
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.request({ method: 'GET', url, headers: { host: 'feeds.test' } });

  it('RSS 2.0: a channel of the website\u2019s published posts, absolute links, RFC 822 dates', async (t) => {
    const response = await get('/feed');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/rss\+xml/);
    assert.equal(response.headers['x-test-route-name'], 'frontend.feeds.rss');
    const xml = response.body;
    await wellFormed(t, xml);
    assert.match(xml, /<rss version="2\.0"/);
    assert.match(xml, /<title><!\[CDATA\[Feed & Co\]\]><\/title>|<title>Feed &amp; Co<\/title>/);
    assert.match(xml, /<link>http:\/\/feeds\.test(:\d+)?\/<\/link>/);
    assert.ok(xml.includes('First &amp; foremost') || xml.includes('<![CDATA[First & foremost]]>'));
    assert.ok(!xml.includes('Secret draft'), 'drafts never appear');
    for (const link of xml.matchAll(/<link>([^<]+)<\/link>/g))
      assert.match(link[1]!, /^http:\/\/feeds\.test/);
    for (const date of xml.matchAll(/<pubDate>([^<]+)<\/pubDate>/g)) {
      assert.match(date[1]!, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    }
    assert.match(xml, /<guid[^>]*>http:\/\/feeds\.test[^<]*\/post\/second<\/guid>/);
  });

  it('Atom: a feed with id, updated, self link and entries; JSON Feed 1.1 with its items', async (t) => {
    const atom = await get('/feed/atom');
    assert.match(String(atom.headers['content-type']), /^application\/atom\+xml/);
    await wellFormed(t, atom.body);
    assert.match(atom.body, /<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom"/);
    assert.match(atom.body, /<updated>\d{4}-\d{2}-\d{2}T[^<]+Z<\/updated>/);
    assert.match(
      atom.body,
      /rel="self"[^>]*href="http:\/\/feeds\.test[^"]*\/feed\/atom"|href="http:\/\/feeds\.test[^"]*\/feed\/atom"[^>]*rel="self"/,
    );
    assert.equal([...atom.body.matchAll(/<entry>/g)].length, 2);

    const json = await get('/feed/json');
    assert.match(String(json.headers['content-type']), /^application\/feed\+json/);
    const feed = json.json();
    assert.equal(feed.version, 'https://jsonfeed.org/version/1.1');
    assert.equal(feed.title, 'Feed & Co');
    assert.equal(feed.language, 'en');
    const first = feed.items.find((item: { title: string }) => item.title === 'First & foremost');
    assert.equal(first.authors.length, 1);
    assert.match(first.authors[0].name, /^User \d+$/);
    assert.equal(first.author, undefined, '1.1: authors, not author');
    assert.equal(feed.items.length, 2);
    for (const item of feed.items) {
      assert.match(item.id, /^http:\/\/feeds\.test/);
      assert.match(item.url, /^http:\/\/feeds\.test/);
      assert.ok(
        item.content_html !== undefined || item.content_text !== undefined || item.summary !== undefined,
      );
    }
    assert.equal(
      feed.items.find((item: { title: string }) => item.title === 'Second').image,
      'https://img.example/2.png',
    );
  });

  it('a tag\u2019s and an author\u2019s feed hold their posts only; unknown ones are 404', async (t) => {
    const tag = await get('/post/category/news/feed/json');
    assert.equal(tag.statusCode, 200, tag.body);
    assert.deepEqual(
      tag.json().items.map((item: { title: string }) => item.title),
      ['First & foremost'],
    );
    const author = await get('/user/ann/posts/feed/json');
    assert.deepEqual(
      author.json().items.map((item: { title: string }) => item.title),
      ['First & foremost'],
    );
    await wellFormed(t, (await get('/user/ann/posts/feed')).body);
    assert.equal((await get('/post/category/nothing/feed')).statusCode, 404);
    assert.equal((await get('/user/nobody/posts/feed')).statusCode, 404);
  });

  it('full content by the setting; a new post is in the (page-cached) feed at once', async () => {
    const before = (await get('/feed/json')).json();
    assert.equal(before.items[0].content_html, 'Two', 'the excerpt by default');
    await ctx.services.settings.set('feed_full_content', 'true');
    await postWrites(ctx.services).create(
      {
        title: 'Third',
        content: '<p>Three <script>alert(1)</script></p>',
        status: 'published',
        websiteIds: [site],
      },
      { userId: null, isAdmin: true },
    );
    const after = (await get('/feed/json')).json();
    assert.equal(after.items[0].title, 'Third');
    assert.match(after.items[0].content_html, /<p>Three/);
    assert.ok(!after.items[0].content_html.includes('<script'), 'the content is cleaned as on the page');
  });

  it('issue 36 #11: RSS names authors in dc:creator; enclosures carry the stored size and the real MIME', async (t) => {
    const jpeg = await sharp({
      create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 80, b: 20 } },
    })
      .jpeg()
      .toBuffer();
    await postWrites(ctx.services).create(
      {
        title: 'Pictured',
        content: '<p>A photo</p>',
        status: 'published',
        websiteIds: [site],
        thumbnailUpload: jpeg,
      },
      { userId: writer.id, isAdmin: true },
    );
    const media = await ctx.services.database.db
      .selectFrom('posts')
      .innerJoin('media', 'media.url', 'posts.thumbnail')
      .select(['media.size', 'media.mime_type', 'media.url'])
      .where('posts.title', '=', 'Pictured')
      .executeTakeFirstOrThrow();
    assert.equal(media.mime_type, 'image/jpeg');
    const xml = (await get('/feed')).body;
    await wellFormed(t, xml);
    assert.ok(!/<author>/.test(xml), 'RSS <author> is an email address: names go in dc:creator');
    assert.match(xml, /<rss [^>]*xmlns:dc="http:\/\/purl\.org\/dc\/elements\/1\.1\/"/);
    assert.match(xml, /<dc:creator>(<!\[CDATA\[)?User \d+(\]\]>)?<\/dc:creator>/);
    const enclosures = [...xml.matchAll(/<enclosure ([^>]*)\/>/g)].map((match) => match[1]!);
    assert.equal(
      enclosures.length,
      1,
      `only the stored image, whose size is known: ${enclosures.join(' | ')}`,
    );
    assert.match(enclosures[0]!, new RegExp(`length="${media.size}"`));
    assert.match(enclosures[0]!, /type="image\/jpeg"/);
    assert.ok(media.size > 0);
    const atom = (await get('/feed/atom')).body;
    await wellFormed(t, atom);
    const links = [...atom.matchAll(/<link ([^>]*rel="enclosure"[^>]*)\/>/g)].map((match) => match[1]!);
    assert.equal(links.length, 1, links.join(' | '));
    assert.match(links[0]!, /type="image\/jpeg"/);
    assert.match(links[0]!, new RegExp(`length="${media.size}"`));
  });

  it('every page announces the website\u2019s feeds in its head', async () => {
    const home = await get('/');
    assert.match(
      home.body,
      /<link rel="alternate" type="application\/rss\+xml" title="Feed &amp; Co" href="http:\/\/feeds\.test[^"]*\/feed">/,
    );
    assert.match(home.body, /type="application\/atom\+xml"/);
    assert.match(home.body, /type="application\/feed\+json"/);
  });
});
