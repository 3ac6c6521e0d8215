// A posts' sitemap that outgrows one file (URLS_PER_FILE URLs: posts × locales) becomes a sitemap
// index of `/sitemap/posts?page=N` files, each valid, every post in exactly one of them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/settings.js';
import { URLS_PER_FILE } from '../../src/frontend/routes/sitemaps.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { validateSitemap } from '../support/sitemaps.js';

describe('sitemap index of a large website', () => {
  let ctx: TestContext;
  // Two locales: each post is two URLs, so a file holds URLS_PER_FILE / 2 - 1 posts.
  const perFile = URLS_PER_FILE / 2 - 1;
  const posts = perFile * 2 + 2;
  const get = (url: string) => ctx.request({ method: 'GET', url, headers: { host: 'maps.test' } });
  const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1] ?? '');

  before(async () => {
    ctx = await createTestContext();
    const { services } = ctx;
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await services.settings.set('supported_locales', 'en,fr');
    await services.websites.create({ siteName: 'Maps', domain: 'maps.test' });
    const db = services.database.db;
    const start = Date.parse('2026-01-01T00:00:00Z');
    for (let first = 0; first < posts; first += 500) {
      const rows = [];
      for (let i = first; i < Math.min(first + 500, posts); i++) {
        const at = new Date(start + i * 60_000).toISOString();
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
    }
  });
  after(() => ctx.close());

  it('/sitemap/posts is an index of the files, each a valid sitemap of at most URLS_PER_FILE URLs', async () => {
    const index = await get('/sitemap/posts');
    assert.equal(index.statusCode, 200);
    assert.match(String(index.headers['content-type']), /^application\/xml/);
    assert.match(index.body, /<sitemapindex /);
    validateSitemap(index.body, 'sitemapindex');
    const files = locs(index.body);
    assert.deepEqual(
      files,
      [1, 2, 3].map((n) => `http://maps.test/sitemap/posts?page=${n}`),
    );

    const seen = new Map<string, number>();
    for (const [n, file] of files.entries()) {
      const page = await get(new URL(file).pathname + new URL(file).search);
      assert.equal(page.statusCode, 200);
      validateSitemap(page.body);
      const urls = locs(page.body);
      assert.ok(urls.length <= URLS_PER_FILE, `file ${n + 1} has ${urls.length} URLs`);
      for (const url of urls) seen.set(url, (seen.get(url) ?? 0) + 1);
    }
    // Newest first: the first file opens with the listing, then the newest post.
    const first = locs((await get('/sitemap/posts?page=1')).body);
    assert.deepEqual(first.slice(0, 4), [
      'http://maps.test/post',
      'http://maps.test/fr/post',
      `http://maps.test/post/post-${posts - 1}`,
      `http://maps.test/fr/post/post-${posts - 1}`,
    ]);
    assert.equal(seen.size, (posts + 1) * 2, 'every post (and the listing) in both locales');
    assert.ok(
      [...seen.values()].every((count) => count === 1),
      'each URL in exactly one file',
    );
  });

  it('a file is built once and kept in the data cache until a post changes or the locales do', async () => {
    const { services } = ctx;
    let builds = 0;
    const sitemap = services.publicPosts.sitemap.bind(services.publicPosts);
    services.publicPosts.sitemap = async (...args) => {
      builds++;
      return sitemap(...args);
    };
    try {
      const first = (await get('/sitemap/posts?page=1')).body;
      assert.equal((await get('/sitemap/posts?page=1')).body, first);
      assert.equal(builds <= 1, true, `built ${builds} times`);
      const before = builds;
      // A new post (through the posts service, which announces it) opens the first file at once.
      const admin = await ctx.createUser({ admin: true });
      const created = await services.posts.create(
        { title: 'Newest of all', content: '<p>n</p>', slug: 'newest-of-all' },
        { userId: admin.id, isAdmin: true },
      );
      const changed = locs((await get('/sitemap/posts?page=1')).body);
      assert.equal(builds, before + 1);
      assert.deepEqual(changed.slice(2, 4), [
        'http://maps.test/post/newest-of-all',
        'http://maps.test/fr/post/newest-of-all',
      ]);
      // Another locale set is another file (the settings are not part of the cache's tags).
      await services.settings.set('supported_locales', 'en,fr,de');
      const three = locs((await get('/sitemap/posts?page=1')).body);
      assert.ok(three.includes('http://maps.test/de/post/newest-of-all'), 'the new locale is listed');
      await services.settings.set('supported_locales', 'en,fr');
      await services.posts.delete(created.id);
      assert.ok(
        !locs((await get('/sitemap/posts?page=1')).body).includes('http://maps.test/post/newest-of-all'),
      );
    } finally {
      services.publicPosts.sitemap = sitemap;
    }
  });

  it('pages past the last, and page numbers that are not positive integers, are 404', async () => {
    for (const page of ['4', '0', '-1', 'abc', '1.5', '01', ''])
      assert.equal((await get(`/sitemap/posts?page=${page}`)).statusCode, 404, `page=${page}`);
  });
});
