// The full-page cache (R-F6): hits and misses, who bypasses it, conditional GETs, and flushes after
// each kind of change that touch exactly the affected pages (on PostgreSQL the cache is Redis).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { syncOneMenuLink } from '../support/seed.js';
import { postWrites } from '../support/post-writes.js';
import { websiteWrites } from '../support/website-writes.js';

describe('full-page cache', () => {
  let ctx: TestContext;
  let websiteId: number;
  let otherId: number;
  let adminId: number;
  let catsId: number;
  let firstId: number;
  let secondId: number;

  const get = (url: string, headers: Record<string, string> = {}, host = 'cache.test') =>
    ctx.request({ method: 'GET', url, headers: { host, ...headers } });
  const state = async (url: string, headers: Record<string, string> = {}, host = 'cache.test') =>
    (await get(url, headers, host)).headers['x-folio-cache'];
  /** Requests a page until it is cached: the first answer is a miss, the second a hit. */
  const warm = async (url: string, host = 'cache.test') => {
    await get(url, {}, host);
    assert.equal(await state(url, {}, host), 'hit', `${url} is cached`);
  };
  const actor = () => ({ userId: adminId, isAdmin: true });

  before(async () => {
    ctx = await createTestContext({
      extend: (app) => {
        // A response that sets a cookie (as a form with a CSRF token would).
        app.addHook('preHandler', async (request, reply) => {
          if ((request.query as Record<string, string>).cookie === '1')
            reply.setCookie('x', '1', { path: '/' });
        });
      },
    });
    const { services } = ctx;
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await services.settings.set('supported_locales', 'en,fr');
    websiteId = await websiteWrites(services).create({ siteName: 'Cached', domain: 'cache.test' });
    otherId = await websiteWrites(services).create({ siteName: 'Other', domain: 'other-cache.test' });
    adminId = (
      await services.users.create({
        name: 'Admin',
        email: 'a@x.test',
        password: 'correct horse battery',
        isAdmin: true,
      })
    ).id;
    catsId = (
      await services.tagOps.ensure({
        name: 'Cats',
        type: 'post_tag',
        updateWhenDuplicated: false,
        defaultLocale: 'en',
      })
    ).tag.id;
    firstId = (
      await postWrites(services).create(
        { title: 'First', content: '<p>one</p>', tags: [catsId], websiteIds: [websiteId] },
        actor(),
      )
    ).id;
    secondId = (await postWrites(services).create({ title: 'Second', content: '<p>two</p>' }, actor())).id;
  });
  after(() => ctx.close());

  it('is off until the website turns it on (enabled_page_cache)', async () => {
    assert.equal(await state('/'), 'bypass');
    assert.equal(await state('/'), 'bypass');
    // Issue 26 #6: with the cache off, no ETag is hashed for a page nothing will keep.
    assert.equal((await get('/')).headers.etag, undefined);
    await websiteWrites(ctx.services).update(websiteId, { enabled_page_cache: true });
    await websiteWrites(ctx.services).update(otherId, { enabled_page_cache: true });
  });

  it('R-F6: a miss, then a hit with the same body, served without the database', async () => {
    const miss = await get('/post/first');
    assert.equal(miss.headers['x-folio-cache'], 'miss');
    // Changed behind the services' back: only a page served from the cache still shows the old title.
    await ctx.services.database.db
      .updateTable('posts')
      .set({ title: 'Changed in SQL' })
      .where('id', '=', firstId)
      .execute();
    const hit = await get('/post/first');
    assert.equal(hit.headers['x-folio-cache'], 'hit');
    assert.equal(hit.body, miss.body);
    assert.match(hit.body, /<h1>First<\/h1>/);
    assert.equal(hit.headers['content-type'], miss.headers['content-type']);
    await ctx.services.database.db
      .updateTable('posts')
      .set({ title: 'First' })
      .where('id', '=', firstId)
      .execute();
  });

  it('keyed by website, locale, path and the query parameters pages read', async () => {
    await warm('/blog');
    assert.equal(await state('/blog?page=1'), 'miss');
    assert.equal(await state('/fr/blog'), 'miss');
    const french = await get('/fr/blog');
    assert.equal(french.headers['x-folio-cache'], 'hit');
    assert.match(french.body, /<html lang="fr">/);
    assert.equal(await state('/blog', {}, 'other-cache.test'), 'miss');
  });

  it('issue 21 #4: random query parameters and Host ports make no new entries', async () => {
    await warm('/blog');
    for (let i = 0; i < 5; i++) assert.equal(await state(`/blog?utm_source=${i}&x${i}=1`), 'hit');
    assert.equal(await state('/blog', {}, 'cache.test:8123'), 'hit');
    assert.equal(await state('/blog', {}, 'CACHE.test:9'), 'hit');
    // The parameters pages read still tell pages apart, in any order and with noise around them.
    await warm('/blog?page=1');
    assert.equal(await state('/blog?utm=1&page=1'), 'hit');
    assert.notEqual(await state('/blog?page=7'), 'hit');
  });

  it('issue 34 #12: pages past the end and unknown query values make no entries; valid pages still do', async () => {
    const stored: string[] = [];
    const cache = ctx.services.cache;
    const setStamped = cache.setStamped.bind(cache);
    cache.setStamped = async (key, value, stamp, ttl) => {
      if (key.startsWith('page:')) stored.push(key);
      return setStamped(key, value, stamp, ttl);
    };
    try {
      const junk = [
        '/?page=40', // the home page has no pages
        '/post/first?page=2', // nor has a post
        '/post/first?comment=x1', // a notice the page does not know
        '/post/first?comment=x2',
        '/page/nope?comment=x3',
        '/feed?page=9',
        '/blog?page=500', // past the last page
        '/post?page=3',
        '/post/cats?page=2',
        '/link?page=77',
        '/sitemap/posts?page=4',
      ];
      for (const url of junk) {
        const first = await get(url);
        assert.notEqual(first.headers['x-folio-cache'], 'hit', url);
        assert.notEqual(await state(url), 'hit', `${url} is not kept`);
      }
      assert.deepEqual(stored, [], 'no page was stored for a URL naming nothing');
      // The pages those parameters do name are still kept.
      await warm('/post/second?comment=pending');
      await warm('/sitemap/posts?page=1');
      await warm('/post/second');
      assert.equal(stored.length, 3);
    } finally {
      cache.setStamped = setStamped;
    }
  });

  it('HEAD is served from the cache too, and stores like GET', async () => {
    await warm('/post');
    const head = await ctx.request({ method: 'HEAD', url: '/post', headers: { host: 'cache.test' } });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['x-folio-cache'], 'hit');
    assert.equal(head.body, '');
    const headMiss = await ctx.request({
      method: 'HEAD',
      url: '/post/rank',
      headers: { host: 'cache.test' },
    });
    assert.equal(headMiss.headers['x-folio-cache'], 'miss');
    assert.equal(await state('/post/rank'), 'hit');
  });

  it('conditional GET: ETag and Last-Modified answer 304', async () => {
    await get('/post/list/new');
    const hit = await get('/post/list/new');
    const etag = hit.headers.etag as string;
    const lastModified = hit.headers['last-modified'] as string;
    assert.match(etag, /^W\/"/);
    assert.ok(lastModified);
    const byEtag = await get('/post/list/new', { 'if-none-match': etag });
    assert.equal(byEtag.statusCode, 304);
    assert.equal(byEtag.body, '');
    const byDate = await get('/post/list/new', { 'if-modified-since': lastModified });
    assert.equal(byDate.statusCode, 304);
    assert.equal((await get('/post/list/new', { 'if-none-match': 'W/"other"' })).statusCode, 200);
    // Pages that bypass the cache still carry an ETag that a conditional GET can use.
    const session = { cookie: 'folio_session=abc' };
    const bypassed = await get('/post/list/new', session);
    assert.equal(bypassed.headers['x-folio-cache'], 'bypass');
    const again = await get('/post/list/new', {
      ...session,
      'if-none-match': bypassed.headers.etag as string,
    });
    assert.equal(again.statusCode, 304);
  });

  it('bypassed by a session cookie, and never stores a response that sets a cookie', async () => {
    await warm('/post/second');
    const withSession = await get('/post/second', { cookie: 'folio_session=abc' });
    assert.equal(withSession.headers['x-folio-cache'], 'bypass');
    assert.equal((await get('/post/tag/cats?cookie=1')).headers['x-folio-cache'], 'bypass');
    assert.equal((await get('/post/tag/cats?cookie=1')).headers['x-folio-cache'], 'bypass');
    assert.equal(await state('/post/tag/cats'), 'miss');
  });

  it('only 200 answers are cached; POST never is', async () => {
    await get('/post/no-such-post');
    assert.equal((await get('/post/no-such-post')).statusCode, 404);
    assert.notEqual(await state('/post/no-such-post'), 'hit');
    await get('/page/nothing');
    assert.notEqual(await state('/page/nothing'), 'hit', 'redirects are not cached');
    const search = await ctx.request({
      method: 'POST',
      url: '/post/search',
      headers: { host: 'cache.test' },
      payload: { keyword: 'x' },
    });
    assert.equal(search.headers['x-folio-cache'], 'bypass');
  });

  it('a post change flushes its page, the pages that show it and the lists of its websites, not other websites', async () => {
    await warm('/post/first');
    await warm('/post/second');
    await warm('/');
    await warm('/', 'other-cache.test');
    await postWrites(ctx.services).update(firstId, { title: 'First, edited' }, actor());
    const page = await get('/post/first');
    assert.equal(page.headers['x-folio-cache'], 'miss');
    assert.match(page.body, /First, edited/);
    // The second post shows the first as its neighbour (previous/next), so its page goes too.
    assert.equal(await state('/post/second'), 'miss', 'a post page that shows the changed post');
    assert.equal(await state('/'), 'miss', "the home page of the post's website");
    assert.equal(await state('/', {}, 'other-cache.test'), 'hit', 'a website the post is not on');
  });

  it('a new global post flushes the lists of every website; a deleted post its pages', async () => {
    await warm('/');
    await warm('/', 'other-cache.test');
    await warm('/post/second');
    await postWrites(ctx.services).create({ title: 'Third', content: '<p>3</p>' }, actor());
    assert.equal(await state('/'), 'miss');
    assert.equal(await state('/', {}, 'other-cache.test'), 'miss');
    assert.equal(await state('/post/second'), 'hit');
    await postWrites(ctx.services).delete(secondId);
    assert.equal((await get('/post/second')).statusCode, 404);
  });

  it('a tag change flushes the pages that show the tag', async () => {
    await warm('/post/tag/cats');
    await warm('/post/first');
    await ctx.services.tagOps.ensure({
      name: 'Cats',
      type: 'post_tag',
      description: 'Felines',
      updateWhenDuplicated: true,
      defaultLocale: 'en',
    });
    const tagPage = await get('/post/tag/cats');
    assert.equal(tagPage.headers['x-folio-cache'], 'miss');
    assert.match(tagPage.body, /Felines/);
    assert.equal(await state('/post/first'), 'miss', 'the post shows the tag');
  });

  it('a menu change flushes the pages of its website only', async () => {
    await warm('/post/first');
    await warm('/', 'other-cache.test');
    await syncOneMenuLink(ctx.services, websiteId, 'Menu entry');
    const page = await get('/post/first');
    assert.equal(page.headers['x-folio-cache'], 'miss');
    assert.match(page.body, /Menu entry/);
    assert.equal(await state('/', {}, 'other-cache.test'), 'hit');
  });

  it('a page change flushes its page and the pages sitemap', async () => {
    const admin = { userId: null, isAdmin: true, websiteId: null };
    const page = await ctx.services.pageOps.create(admin, {
      title: 'About',
      content: '<p>About</p>',
      slug: 'about',
    });
    await warm('/page/about');
    await warm('/sitemap/pages');
    await warm('/post/first');
    await ctx.services.pageOps.delete(admin, page.id, false);
    assert.equal((await get('/page/about')).statusCode, 302);
    assert.equal(await state('/sitemap/pages'), 'miss');
    assert.equal(await state('/post/first'), 'hit');
  });

  it('a website change flushes that website pages only', async () => {
    await warm('/post/first');
    await warm('/', 'other-cache.test');
    await websiteWrites(ctx.services).update(websiteId, { site_slogan: 'Fresh slogan' });
    const page = await get('/post/first');
    assert.equal(page.headers['x-folio-cache'], 'miss');
    assert.match(page.body, /Fresh slogan/);
    assert.equal(await state('/', {}, 'other-cache.test'), 'hit');
  });

  it('comments of a post flush its pages (announced by the comments module)', async () => {
    await warm('/post/first');
    await ctx.services.changes.announce({ kind: 'comments', postId: firstId });
    assert.equal(await state('/post/first'), 'miss');
  });

  it('a hit is answered from memory before the website lookup', async () => {
    await warm('/post/first');
    const websites = ctx.services.websites;
    const resolveHost = websites.resolveHost.bind(websites);
    let lookups = 0;
    websites.resolveHost = async (host) => {
      lookups++;
      return resolveHost(host);
    };
    try {
      assert.equal(await state('/post/first'), 'hit');
      assert.equal(lookups, 0);
    } finally {
      websites.resolveHost = resolveHost;
    }
  });

  it('hits are sent compressed as the client asks (br, gzip), compressed once, same page', async () => {
    const plain = await get('/post/first');
    assert.equal(plain.headers['x-folio-cache'], 'hit');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.match(String(plain.headers.vary), /accept-encoding/i);
    for (const [accept, encoding, decode] of [
      ['gzip, deflate, br', 'br', zlib.brotliDecompressSync],
      ['gzip', 'gzip', zlib.gunzipSync],
      ['br;q=0.5, gzip;q=0.9', 'gzip', zlib.gunzipSync],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const page = await get('/post/first', { 'accept-encoding': accept });
        assert.equal(page.headers['x-folio-cache'], 'hit');
        assert.equal(page.headers['content-encoding'], encoding, accept);
        assert.equal(decode(page.rawPayload).toString(), plain.body);
        assert.equal(page.headers.etag, plain.headers.etag);
      }
    }
    const identity = await get('/post/first', { 'accept-encoding': 'identity' });
    assert.equal(identity.headers['content-encoding'], undefined);
    assert.equal(identity.body, plain.body);
  });

  it('a host whose domain is removed stops showing the website at once', async () => {
    await websiteWrites(ctx.services).addDomain(websiteId, 'alias-cache.test');
    await warm('/post/first', 'alias-cache.test');
    await websiteWrites(ctx.services).removeDomain(websiteId, 'alias-cache.test');
    const page = await get('/post/first', {}, 'alias-cache.test');
    assert.equal(page.statusCode, 404);
    assert.notEqual(page.headers['x-folio-cache'], 'hit');
  });

  it('a settings change retires the cached pages it may touch (a locale taken away)', async () => {
    await warm('/fr/post/first');
    await ctx.services.settings.set('supported_locales', 'en');
    try {
      assert.equal((await get('/fr/post/first')).statusCode, 404);
    } finally {
      await ctx.services.settings.set('supported_locales', 'en,fr');
    }
  });

  it('a page during whose rendering anything was flushed is not stored', async () => {
    // Some content changes while the page renders (after the cache lookup, before the store).
    const menus = ctx.services.menus;
    const siteMenus = menus.siteMenus.bind(menus);
    menus.siteMenus = async (id, locale) => {
      await ctx.services.cache.flushTags(['something-else']);
      return siteMenus(id, locale);
    };
    try {
      assert.equal(await state('/post/first?render=1'), 'miss');
      assert.equal(await state('/post/first?render=1'), 'miss');
    } finally {
      menus.siteMenus = siteMenus;
    }
    await warm('/post/first?render=1');
  });

  it('page_cache_ttl 0 turns caching off', async () => {
    await ctx.services.settings.set('page_cache_ttl', '0');
    try {
      assert.equal(await state('/blog'), 'bypass');
    } finally {
      await ctx.services.settings.delete('page_cache_ttl');
    }
  });
});
