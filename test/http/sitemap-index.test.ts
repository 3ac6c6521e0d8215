// Sitemaps split into files (issue 26 #5): every sitemap (posts, pages, tags) that outgrows one file of
// `urlsPerFile` URLs (posts × locales) becomes a sitemap index of `?page=N` files, each valid, every URL
// in exactly one of them; /sitemap.xml lists every file of every kind directly. A small file size is
// injected (the default is URLS_PER_FILE) so a few posts make several files.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestContext as NodeTestContext } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertTag } from '../support/seed.js';
import { validateSitemap } from '../support/sitemaps.js';
import { websiteWrites } from '../support/website-writes.js';

describe('sitemaps split into files', () => {
  let ctx: TestContext;
  let websiteId: number;
  // Two locales and 10 URLs a file: 5 entries (each two URLs) a file.
  const urlsPerFile = 10;
  const posts = 12; // and the listing: 13 entries, 3 files
  const get = (url: string) => ctx.request({ method: 'GET', url, headers: { host: 'maps.test' } });
  const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1] ?? '');
  const local = (url: string) => new URL(url).pathname + new URL(url).search;

  before(async () => {
    // Two posts a query: a file is written in several chunks, each after the last post of the one before.
    ctx = await createTestContext({ config: { sitemap: { urlsPerFile, rowsPerQuery: 2 } } });
    const { services } = ctx;
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await services.settings.set('supported_locales', 'en,fr');
    websiteId = await websiteWrites(services).create({ siteName: 'Maps', domain: 'maps.test' });
    const db = services.database.db;
    const start = Date.parse('2026-01-01T00:00:00Z');
    const rows = [];
    for (let i = 0; i < posts; i++) {
      // Two posts share each publication time: the chunks' order must break the tie by id.
      const at = new Date(start + Math.floor(i / 2) * 60_000).toISOString();
      rows.push({
        title: `Post ${i}`,
        slug: `post-${i}`,
        content: '<p>x</p>',
        excerpt: 'x',
        status: 'published',
        type: 'post',
        published_at: at,
        created_at: at,
        updated_at: at,
      });
    }
    await db.insertInto('posts').values(rows).execute();
    for (let i = 0; i < 6; i++) {
      await services.pages.create({
        title: `Page ${i}`,
        content: '<p>p</p>',
        slug: `page-${i}`,
        defaultLocale: 'en',
      });
    }
    for (let i = 0; i < 6; i++) await insertTag(db, `Topic ${i}`, 'post_category');
  });
  after(() => ctx.close());

  /** Every URL of a split sitemap, checking its index and each file. */
  async function walk(t: NodeTestContext, path: string, files: number): Promise<string[]> {
    const index = await get(path);
    assert.equal(index.statusCode, 200);
    assert.match(String(index.headers['content-type']), /^application\/xml/);
    await validateSitemap(t, index.body, 'sitemapindex');
    const parts = locs(index.body);
    assert.deepEqual(
      parts,
      Array.from({ length: files }, (_, i) => `http://maps.test${path}?page=${i + 1}`),
    );
    const urls: string[] = [];
    for (const part of parts) {
      const file = await get(local(part));
      assert.equal(file.statusCode, 200, part);
      await validateSitemap(t, file.body);
      const found = locs(file.body);
      assert.ok(found.length > 0 && found.length <= urlsPerFile, `${part} has ${found.length} URLs`);
      urls.push(...found);
    }
    assert.equal(new Set(urls).size, urls.length, 'each URL in exactly one file');
    return urls;
  }

  it('/sitemap/posts: an index of files of at most urlsPerFile URLs, newest first, the listing first', async (t) => {
    const urls = await walk(t, '/sitemap/posts', 3);
    const newestFirst = [...Array(posts).keys()]
      .reverse()
      .flatMap((i) => [`http://maps.test/post/post-${i}`, `http://maps.test/fr/post/post-${i}`]);
    assert.deepEqual(urls, ['http://maps.test/post', 'http://maps.test/fr/post', ...newestFirst]);
  });

  it('/sitemap/pages and /sitemap/tags/post/category are split the same way', async (t) => {
    const pages = await walk(t, '/sitemap/pages', 2);
    assert.equal(pages.length, (2 + 6) * 2);
    assert.deepEqual(pages.slice(0, 4), [
      'http://maps.test/',
      'http://maps.test/fr/',
      'http://maps.test/blog',
      'http://maps.test/fr/blog',
    ]);
    const tags = await walk(t, '/sitemap/tags/post/category', 2);
    assert.equal(tags.length, (1 + 6) * 2);
  });

  it('/sitemap.xml lists every file of every sitemap, never another index', async (t) => {
    const index = await get('/sitemap.xml');
    await validateSitemap(t, index.body, 'sitemapindex');
    const parts = locs(index.body);
    for (const expected of [
      '/sitemap/posts?page=1',
      '/sitemap/posts?page=3',
      '/sitemap/pages?page=2',
      '/sitemap/tags/post/category?page=2',
      '/sitemap/tags/post/tag',
    ]) {
      assert.ok(parts.includes(`http://maps.test${expected}`), `${expected} in ${parts.join(' ')}`);
    }
    for (const part of parts) {
      const file = await get(local(part));
      assert.equal(file.statusCode, 200, part);
      assert.match(file.body, /<urlset /, `${part} is a sitemap, not an index`);
    }
  });

  it('a file is built once and kept in the data cache until a post changes; streamed the same without it', async () => {
    const { services } = ctx;
    let chunks = 0;
    const sitemap = services.publicPosts.sitemap.bind(services.publicPosts);
    services.publicPosts.sitemap = async (...args) => {
      chunks++;
      return sitemap(...args);
    };
    try {
      const first = (await get('/sitemap/posts?page=1')).body;
      assert.equal((await get('/sitemap/posts?page=1')).body, first);
      const before = chunks;
      assert.equal((await get('/sitemap/posts?page=1')).body, first);
      assert.equal(chunks, before, 'served from the data cache');
      // A new post (through the post operation, which announces it) opens the first file at once.
      const admin = await ctx.createUser({ admin: true });
      const adminActor = { userId: admin.id, isAdmin: true, websiteId: null };
      const created = await services.postOps.create(adminActor, {
        title: 'Newest of all',
        content: '<p>n</p>',
        slug: 'newest-of-all',
      });
      const changed = locs((await get('/sitemap/posts?page=1')).body);
      assert.ok(chunks > before);
      assert.deepEqual(changed.slice(2, 4), [
        'http://maps.test/post/newest-of-all',
        'http://maps.test/fr/post/newest-of-all',
      ]);
      // Without the data cache the same files are written as they are read.
      const cached = await Promise.all(
        [1, 2, 3].map(async (n) => (await get(`/sitemap/posts?page=${n}`)).body),
      );
      await websiteWrites(services).update(websiteId, { enabled_data_cache: false });
      const read = chunks;
      await get('/sitemap/posts?page=1');
      await get('/sitemap/posts?page=1');
      // File 1 is the listing and 4 posts: 2 queries of 2 posts each, at every request.
      assert.equal(chunks, read + 4, 'read at every request, in chunks');
      for (const [n, body] of cached.entries()) {
        const streamed = await get(`/sitemap/posts?page=${n + 1}`);
        assert.equal(streamed.statusCode, 200);
        assert.equal(streamed.body, body, `file ${n + 1}`);
      }
      await websiteWrites(services).update(websiteId, { enabled_data_cache: true });
      await services.postOps.delete(adminActor, String(created.id));
    } finally {
      services.publicPosts.sitemap = sitemap;
    }
  });

  it('pages past the last, and page numbers that are not positive integers, are 404', async () => {
    for (const page of ['4', '0', '-1', 'abc', '1.5', '01', ''])
      assert.equal((await get(`/sitemap/posts?page=${page}`)).statusCode, 404, `page=${page}`);
    assert.equal((await get('/sitemap/pages?page=3')).statusCode, 404);
  });
});
