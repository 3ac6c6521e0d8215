// The public reading site through real HTTP (spec 4.8, R-F1..R-F5): every reading route, its status
// codes and redirects, what readers may see, locales, SEO tags, sitemaps and robots.txt.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { THEMES_DIR } from '../../src/frontend/themes.js';
import { createTestContext, exposeRouteNames } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { validateSitemap } from '../support/sitemaps.js';
import { postWrites } from '../support/post-writes.js';
import { websiteWrites } from '../support/website-writes.js';

describe('public reading site', () => {
  let ctx: TestContext;
  let websiteId: number;
  let otherWebsiteId: number;
  let adminId: number;
  const ids: Record<string, number> = {};
  const tags: Record<string, number> = {};
  const fixtureTheme = `test-theme-${process.pid}-${Date.now()}`;

  const get = (url: string, headers: Record<string, string> = {}) =>
    ctx.request({ method: 'GET', url, headers: { host: 'site.test', ...headers } });

  before(async () => {
    ctx = await createTestContext({ extend: exposeRouteNames });
    const { services } = ctx;
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await services.settings.set('supported_locales', 'en,fr');
    websiteId = await websiteWrites(services).create({
      siteName: { en: 'Site', fr: 'Le Site' },
      domain: 'site.test',
    });
    await websiteWrites(services).addDomain(websiteId, 'alias.test');
    otherWebsiteId = await websiteWrites(services).create({ siteName: 'Other', domain: 'other.test' });
    const admin = await services.users.create({
      name: 'Ada Author',
      email: 'ada@example.test',
      password: 'correct horse battery',
      isAdmin: true,
      username: 'ada',
    });
    adminId = admin.id;
    const actor = { userId: adminId, isAdmin: true };
    const store = async (name: string, type: string, parentId?: number) =>
      (
        await services.tagOps.ensure({
          name,
          type,
          parentId,
          updateWhenDuplicated: false,
          defaultLocale: 'en',
        })
      ).tag.id;
    tags.news = await store('News', 'post_category');
    tags.local = await store('Local news', 'post_category', tags.news);
    tags.cats = await store('Cats', 'post_tag');
    tags.keyword = await store('Whiskers', 'post_keyword');

    const now = Date.now();
    const create = async (key: string, fields: Record<string, unknown>) => {
      const post = await postWrites(services).create(
        { title: key, content: `<p>${key}</p>`, ...fields },
        actor,
      );
      ids[key] = post.id;
    };
    await create('first', {
      title: { en: 'First post about cats', fr: 'Premier article' },
      content: { en: '<p>Cats are great.</p><script>alert(1)</script>', fr: '<p>Les chats.</p>' },
      tags: [tags.cats],
      categories: [tags.news],
      publishedAt: new Date(now - 3 * 3600_000).toISOString(),
      metaDescription: 'All about cats',
      thumbnailUrl: 'https://images.example/cat.jpg',
    });
    await create('second', {
      title: 'Second post',
      categories: [tags.local],
      publishedAt: new Date(now - 2 * 3600_000).toISOString(),
    });
    await create('third', { title: 'Third post', publishedAt: new Date(now - 3600_000).toISOString() });
    await create('draft', { title: 'Draft post', status: 'draft' });
    await create('future', { title: 'Future post', publishedAt: new Date(now + 86_400_000).toISOString() });
    await create('elsewhere', { title: 'Elsewhere post', websiteIds: [otherWebsiteId] });
    await create('mine', { title: 'Bound post', websiteIds: [websiteId], tags: [tags.keyword] });
    await create('gone', { title: 'Deleted post' });
    await postWrites(services).delete(ids.gone!);
    await create('rank', { title: 'A post named rank', slug: 'rank' });

    await services.pages.create({ title: 'About us', content: '<p>We write.</p>', slug: 'about' });
    await services.pages.create({
      title: 'Wide',
      content: '<p>Wide page</p>',
      slug: 'wide',
      type: 'template',
      template: 'full-width',
    });
    await services.pages.create({ title: 'Hidden', content: '<p>x</p>', slug: 'hidden', status: 'draft' });

    // A theme with only a custom slug view: every other template falls back to the default theme.
    fs.mkdirSync(path.join(THEMES_DIR, fixtureTheme, 'pages'), { recursive: true });
    fs.writeFileSync(
      path.join(THEMES_DIR, fixtureTheme, 'pages', 'special.liquid'),
      '{% layout \'layout\' %}{% block content %}<h1 class="custom-view">Custom view {{ page.slug }}</h1>{% endblock %}',
    );
  });
  after(async () => {
    fs.rmSync(path.join(THEMES_DIR, fixtureTheme), { recursive: true, force: true });
    await ctx.close();
  });

  it('R-F1: every reading route answers under its frontend. name', async () => {
    const routes: Array<[string, string]> = [
      ['/', 'frontend.pages.home'],
      ['/blog', 'frontend.pages.blog'],
      ['/page/about', 'frontend.pages.show'],
      ['/post', 'frontend.posts.index'],
      ['/post/search/cats', 'frontend.posts.search.result'],
      ['/post/rank', 'frontend.posts.rank'],
      ['/post/rank/week', 'frontend.posts.rank.period'],
      ['/post/category/news', 'frontend.posts.tag'],
      ['/post/list', 'frontend.posts.list'],
      ['/post/list/new', 'frontend.posts.list'],
      ['/post/list/hot/today', 'frontend.posts.list'],
      ['/post/first-post-about-cats', 'frontend.posts.show'],
      ['/user/ada/posts', 'frontend.users.posts'],
      ['/sitemap/posts', 'frontend.sitemaps.posts'],
      ['/sitemap/pages', 'frontend.sitemaps.pages'],
      ['/sitemap/tags/post/category', 'frontend.sitemaps.tags'],
    ];
    for (const [url, name] of routes) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['x-test-route-name'], name, url);
    }
    const search = await ctx.request({
      method: 'POST',
      url: '/post/search',
      headers: { host: 'site.test' },
      payload: { keyword: 'cats' },
    });
    assert.equal(search.headers['x-test-route-name'], 'frontend.posts.search');
  });

  it('only published posts whose time has come, shown on this website, are public', async () => {
    const body = (await get('/blog')).body;
    for (const visible of ['First post about cats', 'Second post', 'Third post', 'Bound post'])
      assert.match(body, new RegExp(visible), visible);
    for (const hidden of ['Draft post', 'Future post', 'Elsewhere post', 'Deleted post'])
      assert.doesNotMatch(body, new RegExp(hidden), hidden);
    assert.equal((await get('/post/draft-post')).statusCode, 404);
    assert.equal((await get('/post/future-post')).statusCode, 404);
    assert.equal((await get('/post/elsewhere-post')).statusCode, 404);
    assert.equal((await get('/post/deleted-post')).statusCode, 404);
    const other = await ctx.request({
      method: 'GET',
      url: '/post/elsewhere-post',
      headers: { host: 'other.test' },
    });
    assert.equal(other.statusCode, 200, 'a post bound to the other website shows there');
  });

  it('the blog is paginated: newest first, previous/next links, 404 past the end or for a bad page', async () => {
    await ctx.services.settings.set('frontend_posts_per_page', '2');
    try {
      const first = await get('/blog');
      assert.ok(first.body.indexOf('A post named rank') < first.body.indexOf('Bound post'));
      assert.match(first.body, /<a rel="next" href="\/blog\?page=2">/);
      const second = await get('/blog?page=2');
      assert.equal(second.statusCode, 200);
      assert.match(second.body, /<a rel="prev" href="\/blog">/);
      assert.match(second.body, /<link rel="canonical" href="http:\/\/site\.test\/blog\?page=2">/);
      assert.equal((await get('/blog?page=3')).statusCode, 200);
      assert.equal((await get('/blog?page=4')).statusCode, 404);
      assert.equal((await get('/blog?page=0')).statusCode, 404);
      assert.equal((await get('/blog?page=abc')).statusCode, 404);
    } finally {
      await ctx.services.settings.set('frontend_posts_per_page', '10');
    }
  });

  it('a single post: content cleaned of scripts, title, description, canonical and Open Graph tags', async () => {
    const response = await get('/post/first-post-about-cats');
    assert.equal(response.statusCode, 200);
    const body = response.body;
    assert.match(body, /<h1>First post about cats<\/h1>/);
    assert.match(body, /<p>Cats are great\.<\/p>/);
    assert.doesNotMatch(body, /alert\(1\)/);
    assert.match(body, /<title>First post about cats · Site<\/title>/);
    assert.match(body, /<meta name="description" content="All about cats">/);
    assert.match(body, /<link rel="canonical" href="http:\/\/site\.test\/post\/first-post-about-cats">/);
    assert.match(body, /<meta property="og:type" content="article">/);
    assert.match(body, /<meta property="og:image" content="https:\/\/images\.example\/cat\.jpg">/);
    assert.match(body, /<a href="\/post\/category\/news">News<\/a>/);
    assert.match(body, /href="\/post\/tag\/cats" rel="tag">#Cats</);
    assert.match(body, /href="\/user\/ada\/posts" rel="author">Ada Author</);
  });

  /** The Article JSON-LD of a page: the one `application/ld+json` script, parsed. */
  const jsonLd = (body: string): Record<string, unknown> => {
    const scripts = [...body.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1, 'one JSON-LD script');
    return JSON.parse(scripts[0]![1]!) as Record<string, unknown>;
  };

  it('issue 22: a post carries Article JSON-LD (headline, dates, author, image, publisher)', async () => {
    const response = await get('/post/first-post-about-cats');
    const data = jsonLd(response.body);
    assert.deepEqual(data, {
      '@context': 'https://schema.org',
      '@type': 'Article',
      headline: 'First post about cats',
      description: 'All about cats',
      image: ['https://images.example/cat.jpg'],
      datePublished: data.datePublished,
      dateModified: data.dateModified,
      author: { '@type': 'Person', name: 'Ada Author', url: 'http://site.test/user/ada/posts' },
      publisher: { '@type': 'Organization', name: 'Site', url: 'http://site.test/' },
      mainEntityOfPage: 'http://site.test/post/first-post-about-cats',
    });
    assert.match(String(data.datePublished), /^\d{4}-\d{2}-\d{2}T/);
    assert.match(
      response.body,
      new RegExp(`<meta property="article:published_time" content="${String(data.datePublished)}">`),
    );
    assert.match(
      response.body,
      new RegExp(`<meta property="article:modified_time" content="${String(data.dateModified)}">`),
    );
    // In French, the publisher is the site's French name.
    assert.deepEqual(
      (jsonLd((await get('/fr/post/first-post-about-cats')).body).publisher as { name: string }).name,
      'Le Site',
    );
    // Pages that are not articles have none.
    assert.doesNotMatch((await get('/')).body, /application\/ld\+json/);
  });

  it('issue 22: a title cannot break out of the JSON-LD script', async () => {
    const title = 'Evil </script><script>alert("x")</script> <!-- & \u2028 end';
    const post = await postWrites(ctx.services).create(
      {
        title,
        slug: 'evil-title',
        content: '<p>x</p>',
        publishedAt: new Date(Date.now() - 60_000).toISOString(),
      },
      { userId: adminId, isAdmin: true },
    );
    try {
      const response = await get('/post/evil-title');
      assert.equal(response.statusCode, 200);
      const head = response.body.slice(0, response.body.indexOf('</head>'));
      assert.doesNotMatch(head, /<script>alert/);
      assert.doesNotMatch(head, /<!--/);
      assert.equal(jsonLd(response.body).headline, title);
    } finally {
      await postWrites(ctx.services).delete(post.id);
    }
  });

  it('issue 22: the home page is described by the site slogan; tag pages by their description or a sentence naming the tag', async () => {
    const description = (body: string) => /<meta name="description" content="([^"]*)">/.exec(body)?.[1];
    // Neither a description nor a slogan: a sentence with the site's name (never no description).
    assert.equal(description((await get('/')).body), 'The latest posts from Site.');
    await websiteWrites(ctx.services).update(websiteId, { site_slogan: 'Cats, mostly' });
    try {
      assert.equal(description((await get('/')).body), 'Cats, mostly');
      assert.equal(description((await get('/post/tag/cats')).body), 'Posts tagged “Cats”.');
      assert.equal(description((await get('/post/category/news')).body), 'Posts in the category “News”.');
      await websiteWrites(ctx.services).update(websiteId, { site_seo_description: 'A site about cats' });
      assert.equal(description((await get('/')).body), 'A site about cats');
    } finally {
      await websiteWrites(ctx.services).update(websiteId, { site_slogan: '', site_seo_description: '' });
    }
  });

  it('issue 22: a post shows its reading time, an author card, the posts before and after it and related ones', async () => {
    const { services } = ctx;
    const actor = { userId: adminId, isAdmin: true };
    const siteId = await websiteWrites(services).create({ siteName: 'Around', domain: 'around.test' });
    const dogs = (
      await services.tagOps.ensure({
        name: 'Dogs',
        type: 'post_tag',
        updateWhenDuplicated: false,
        defaultLocale: 'en',
      })
    ).tag.id;
    const words = (count: number) =>
      `<p>${Array.from({ length: count }, (_, i) => `word${i}`).join(' ')}</p>`;
    const made: Record<string, number> = {};
    const post = async (slug: string, day: number, fields: Record<string, unknown> = {}) => {
      made[slug] = (
        await postWrites(services).create(
          {
            title: `Post ${slug}`,
            slug: `around-${slug}`,
            content: '<p>Short.</p>',
            websiteIds: [siteId],
            publishedAt: `2001-01-0${day}T12:00:00.000Z`,
            ...fields,
          },
          actor,
        )
      ).id;
    };
    // Oldest first: a, b, c, d, e; a, b, c and d are about dogs. Every other post is newer.
    await post('a', 1, { tags: [dogs] });
    await post('b', 2, { tags: [dogs], content: words(1150) });
    await post('c', 3, { tags: [dogs] });
    await post('d', 4, { tags: [dogs] });
    await post('e', 5);
    const page = async (slug: string) => {
      const response = await ctx.request({
        method: 'GET',
        url: `/post/around-${slug}`,
        headers: { host: 'around.test' },
      });
      assert.equal(response.statusCode, 200);
      return response.body;
    };
    try {
      const b = await page('b');
      assert.match(b, /<span class="reading-time">5 min read<\/span>/);
      assert.match(b, /<aside class="author-card" aria-label="About the author">/);
      assert.match(
        b,
        /<strong class="author-name">Ada Author<\/strong><br><a href="\/user\/ada\/posts">More posts by Ada Author<\/a>/,
      );
      assert.match(
        b,
        /<a class="post-nav-previous" href="\/post\/around-a" rel="prev"><span class="post-nav-label">← Previous post<\/span> Post a<\/a>/,
      );
      assert.match(
        b,
        /<a class="post-nav-next" href="\/post\/around-c" rel="next"><span class="post-nav-label">Next post →<\/span> Post c<\/a>/,
      );
      // Related: the others about dogs, newest first, but not the two already linked.
      const related = (body: string) =>
        [
          ...(/<section class="related"[\s\S]*?<\/section>/.exec(body)?.[0] ?? '').matchAll(
            /<li><a href="([^"]+)">/g,
          ),
        ].map((m) => m[1]);
      assert.deepEqual(related(b), ['/post/around-d']);
      assert.deepEqual(related(await page('e')), []);
      assert.doesNotMatch(await page('e'), /class="related"/);
      const a = await page('a');
      assert.doesNotMatch(a, /rel="prev"/);
      assert.match(a, /href="\/post\/around-b" rel="next"/);
      assert.deepEqual(related(a), ['/post/around-d', '/post/around-c']);
      assert.match(a, /<span class="reading-time">1 min read<\/span>/);

      // Cached with the page's data: a change to a neighbour or a related post shows at once.
      await postWrites(services).update(made.d!, { title: 'Post d, renamed' }, actor);
      assert.match(await page('b'), /<li><a href="\/post\/around-d">Post d, renamed<\/a>/);
      await postWrites(services).update(made.c!, { title: 'Post c, renamed' }, actor);
      assert.match(
        await page('b'),
        /rel="next"><span class="post-nav-label">Next post →<\/span> Post c, renamed<\/a>/,
      );
      // A new post between b and c becomes b's next.
      await post('bc', 2, { publishedAt: '2001-01-02T18:00:00.000Z' });
      assert.match(await page('b'), /href="\/post\/around-bc" rel="next"/);
      await postWrites(services).delete(made.bc!);
      assert.match(await page('b'), /href="\/post\/around-c" rel="next"/);
    } finally {
      for (const id of Object.values(made))
        await postWrites(services)
          .delete(id)
          .catch(() => undefined);
    }
  });

  it("the canonical URL is on the primary domain, with APP_URL's scheme and port, whatever Host a reader sent", async () => {
    const response = await get('/post/first-post-about-cats', { host: 'alias.test:8080' });
    assert.equal(response.statusCode, 200);
    // APP_URL is http://folio.test in the tests: no port; the Host's :8080 is the client's choice.
    assert.match(
      response.body,
      /<link rel="canonical" href="http:\/\/site\.test\/post\/first-post-about-cats">/,
    );
  });

  it('R-F3: a post in the visitor locale, with lang and hreflang alternates', async () => {
    const french = await get('/fr/post/first-post-about-cats');
    assert.equal(french.statusCode, 200);
    assert.match(french.body, /<html lang="fr">/);
    assert.match(french.body, /<h1>Premier article<\/h1>/);
    assert.match(french.body, /Les chats\./);
    assert.match(
      french.body,
      /<link rel="canonical" href="http:\/\/site\.test\/fr\/post\/first-post-about-cats">/,
    );
    assert.match(french.body, /hreflang="en" href="http:\/\/site\.test\/post\/first-post-about-cats"/);
    assert.match(french.body, /hreflang="fr" href="http:\/\/site\.test\/fr\/post\/first-post-about-cats"/);
    assert.match(french.body, /hreflang="x-default" href="http:\/\/site\.test\/post\/first-post-about-cats"/);
    // A text without a French translation falls back to its base value; links stay in French.
    const list = await get('/fr/blog');
    assert.match(list.body, /Second post/);
    assert.match(list.body, /href="\/fr\/post\/second-post"/);
    assert.match(list.body, /Le Site/);
    assert.match(list.body, /<a href="\/fr\/feed">/, 'the footer\u2019s feed in French');
    assert.match(list.body, /<a href="\/fr\/user\/login">/);
    assert.doesNotMatch(list.body, /"\/fr\/\//, 'no doubled slash after the locale');
  });

  it('unknown slugs and paths give the themed 404 with status 404', async () => {
    for (const url of [
      '/post/no-such-post',
      '/post/Upper-Case',
      '/post/under_score',
      '/no/such/path',
      '/fr/nothing',
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.match(response.headers['content-type'] as string, /text\/html/);
      assert.match(response.body, /<h1>Page not found<\/h1>/, url);
      assert.match(response.body, /\/themes\/default\/assets\/style\.css/, url);
    }
    assert.match((await get('/fr/nothing')).body, /<html lang="fr">/);
    // Issue 22: the page's own search form is a second search landmark: it is named, the header's not.
    const searches = [
      ...(await get('/no/such/path')).body.matchAll(/<form class="search[^"]*" role="search"([^>]*)>/g),
    ];
    assert.equal(searches.length, 2);
    assert.doesNotMatch(searches[0]![1]!, /aria-label/);
    assert.match(searches[1]![1]!, /aria-label="Search posts \(page not found\)"/);
  });

  it('static segments are not slugs: search, rank and list keep their pages; create and edit are not posts', async () => {
    assert.match((await get('/post/rank')).body, /<h1>Rankings<\/h1>/);
    // Authoring pages (accounts module): a visitor is sent to log in, never shown a post named `create`.
    for (const url of ['/post/create', '/post/edit/1']) {
      const response = await get(url);
      assert.equal(response.statusCode, 302, url);
      assert.match(String(response.headers.location), /^\/user\/login/, url);
    }
    assert.equal((await get('/post/search')).statusCode, 404);
  });

  it('POST /post/search redirects to /post/search/{keyword} (302), in the locale; cross-site posts are refused', async () => {
    const post = (url: string, payload: Record<string, string>, headers: Record<string, string> = {}) =>
      ctx.request({ method: 'POST', url, headers: { host: 'site.test', ...headers }, payload });
    const search = await post('/post/search', { keyword: '  cats  and dogs ' });
    assert.equal(search.statusCode, 302);
    assert.equal(search.headers.location, '/post/search/cats%20and%20dogs');
    assert.equal(
      (await post('/fr/post/search', { keyword: 'chats' })).headers.location,
      '/fr/post/search/chats',
    );
    assert.equal((await post('/post/search', { keyword: '   ' })).headers.location, '/post');
    const forged = await post('/post/search', { keyword: 'x' }, { origin: 'http://evil.test' });
    assert.equal(forged.statusCode, 403);
  });

  it('search results match every word in titles, content and translations', async () => {
    const cats = await get('/post/search/cats');
    assert.equal(cats.statusCode, 200);
    assert.match(cats.body, /First post about cats/);
    assert.doesNotMatch(cats.body, /Second post/);
    assert.match(cats.body, /<meta name="robots" content="noindex, follow">/);
    const translated = await get('/post/search/chats');
    assert.match(translated.body, /First post about cats/);
    const both = await get(`/post/search/${encodeURIComponent('second post')}`);
    assert.match(both.body, /Second post/);
    assert.doesNotMatch(both.body, /Third post/);
    const none = await get('/post/search/zebra');
    assert.match(none.body, /No post matches/);
    const percent = await get(`/post/search/${encodeURIComponent('100%')}`);
    assert.equal(percent.statusCode, 200);
    assert.doesNotMatch(percent.body, /First post/);
  });

  it('R-F2: posts under a tag by its short type name, subcategories included; others are 404', async () => {
    const news = await get('/post/category/news');
    assert.equal(news.statusCode, 200);
    assert.match(news.body, /<h1>News<\/h1>/);
    assert.match(news.body, /First post about cats/);
    assert.match(news.body, /Second post/, 'a post of a subcategory');
    assert.doesNotMatch(news.body, /Third post/);
    const local = await get('/post/category/local-news');
    assert.doesNotMatch(local.body, /First post about cats/);
    assert.match((await get('/post/tag/cats')).body, /First post about cats/);
    assert.equal((await get('/post/tag/news')).statusCode, 404, 'a category is not a tag');
    assert.equal((await get('/post/category/nope')).statusCode, 404);
    assert.equal((await get('/post/keyword/whiskers')).statusCode, 404, 'not configured yet');
    await ctx.services.settings.set('frontend_tag_types', 'keyword');
    assert.match((await get('/post/keyword/whiskers')).body, /Bound post/);
    await ctx.services.settings.set('frontend_tag_types', '{"kw":"post_keyword","rank":"post_tag"}');
    assert.equal((await get('/post/kw/whiskers')).statusCode, 200);
    assert.match((await get('/post/rank/week')).body, /Rankings this week/, 'a type may never be named rank');
    await ctx.services.settings.delete('frontend_tag_types');
  });

  it("a user's posts by username; unknown users are 404", async () => {
    const response = await get('/user/ada/posts');
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /Posts by Ada Author/);
    assert.match(response.body, /First post about cats/);
    assert.equal((await get('/user/nobody/posts')).statusCode, 404);
  });

  it('R-F4: plain pages render content, template pages their template, a slug view wins, unknown slugs go home', async () => {
    const about = await get('/page/about');
    assert.equal(about.statusCode, 200);
    assert.match(about.body, /<h1>About us<\/h1>/);
    assert.match(about.body, /<p>We write\.<\/p>/);
    assert.match((await get('/page/wide')).body, /class="page full-width"/);
    const unknown = await get('/page/nope');
    assert.equal(unknown.statusCode, 302);
    assert.equal(unknown.headers.location, '/');
    assert.equal((await get('/fr/page/nope')).headers.location, '/fr/');
    assert.equal((await get('/page/hidden')).statusCode, 302, 'a draft page is unknown');

    await websiteWrites(ctx.services).update(websiteId, { theme: fixtureTheme });
    try {
      const special = await get('/page/special');
      assert.equal(special.statusCode, 200, 'a slug view needs no page record');
      assert.match(special.body, /<h1 class="custom-view">Custom view special<\/h1>/);
      assert.match((await get('/page/about')).body, /<p>We write\.<\/p>/, 'missing templates fall back');
    } finally {
      await websiteWrites(ctx.services).update(websiteId, { theme: 'default' });
    }
  });

  it('R-F5: rankings and lists count views, likes and favourites within the period', async () => {
    const { db } = ctx.services.database;
    const now = Date.now();
    const startOfToday = Date.UTC(
      new Date(now).getUTCFullYear(),
      new Date(now).getUTCMonth(),
      new Date(now).getUTCDate(),
    );
    const click = (key: string, kind: string, at: number, times = 1) =>
      db
        .insertInto('clicks')
        .values(
          Array.from({ length: times }, () => ({
            model_type: 'post',
            model_id: ids[key]!,
            kind,
            created_at: new Date(at).toISOString(),
          })),
        )
        .execute();
    await click('second', 'view', now - 1000, 3); // today
    await click('third', 'view', startOfToday - 3600_000, 5); // yesterday
    await click('first', 'like', now - 3 * 86_400_000, 2); // this week
    await click('first', 'fav', now - 20 * 86_400_000, 4); // this month
    await click('mine', 'click', now - 1000, 9); // not counted
    await click('elsewhere', 'view', now - 1000, 9); // another website's post

    const order = (body: string, titles: string[]) =>
      titles
        .map((title) => body.indexOf(title))
        .every((at, i, all) => at >= 0 && (i === 0 || at > all[i - 1]!));

    const today = (await get('/post/list/hot/today')).body;
    assert.match(today, /Second post/);
    assert.doesNotMatch(today, /Third post/);
    assert.doesNotMatch(today, /Bound post/, 'plain clicks are no views');
    assert.doesNotMatch(today, /Elsewhere post/);
    const yesterday = (await get('/post/list/hot/yesterday')).body;
    assert.match(yesterday, /Third post/);
    assert.doesNotMatch(yesterday, /Second post/);
    assert.ok(order((await get('/post/list/hot/week')).body, ['Third post', 'Second post']));
    assert.match((await get('/post/list/like/week')).body, /First post about cats/);
    assert.doesNotMatch((await get('/post/list/fav/week')).body, /First post about cats/);
    assert.match((await get('/post/list/fav/month')).body, /First post about cats/);
    assert.ok(
      order((await get('/post/list/hot')).body, ['Third post', 'Second post']),
      'hot is the default list',
    );
    assert.ok(order((await get('/post/rank')).body, ['First post about cats', 'Third post', 'Second post']));
    const week = (await get('/post/rank/week')).body;
    assert.ok(order(week, ['Third post', 'Second post', 'First post about cats']));
    assert.doesNotMatch((await get('/post/rank/today')).body, /Third post/);
    assert.match((await get('/post/list/new/today')).body, /Bound post/);
    for (const url of ['/post/rank/decade', '/post/list/cold', '/post/list/hot/decade'])
      assert.equal((await get(url)).statusCode, 404, url);
  });

  it('issue 22: the home shows the slogan and features the newest post with its cover, then the others without it', async () => {
    const { services } = ctx;
    const actor = { userId: adminId, isAdmin: true };
    const siteId = await websiteWrites(services).create({ siteName: 'Featured', domain: 'featured.test' });
    await websiteWrites(services).update(siteId, { site_slogan: 'Notes from the <garden>' });
    const cover = await sharp({
      create: { width: 1600, height: 1000, channels: 3, background: { r: 40, g: 120, b: 90 } },
    })
      .jpeg()
      .toBuffer();
    const make = (slug: string, day: number, fields: Record<string, unknown> = {}) =>
      postWrites(services).create(
        {
          title: `Post ${slug}`,
          slug: `featured-${slug}`,
          content: '<p>Text.</p>',
          websiteIds: [siteId],
          // Newer than every other post of the suite (global ones show here too), none in the future.
          publishedAt: new Date(Date.now() - (5 - day) * 10).toISOString(),
          ...fields,
        },
        actor,
      );
    await make('old', 1, { thumbnailUrl: 'https://images.example/old.jpg' });
    await make('middle', 2);
    await make('new', 3, { thumbnailUpload: cover });
    const home = async () => {
      const response = await ctx.request({ method: 'GET', url: '/', headers: { host: 'featured.test' } });
      assert.equal(response.statusCode, 200);
      return response.body;
    };
    let body = await home();
    assert.match(body, /<p class="lead">Notes from the &lt;garden&gt;<\/p>/);
    // Issue 36 #2: the page's heading is for screen readers (the header shows the name); the footer
    // links the site's feed.
    assert.match(body, /<h1 class="visually-hidden">Featured<\/h1>/);
    assert.match(body, /<footer class="site-footer">[\s\S]*<a href="\/feed">RSS feed<\/a>[\s\S]*<\/footer>/);
    const featured = /<article class="featured-post has-cover"[\s\S]*?<\/article>/.exec(body)?.[0] ?? '';
    assert.match(
      featured,
      /<h2 id="featured-title" class="featured-title"><a href="\/post\/featured-new">Post new<\/a><\/h2>/,
    );
    assert.match(featured, /<time datetime="[^"]+">\d{1,2} [A-Z][a-z]+ \d{4}<\/time>/);
    // The cover: every size once stored (never made per request), width and height against layout
    // shift, fetched first (the largest image of the page), not lazily.
    const img = /<img [^>]*>/.exec(featured)?.[0] ?? '';
    const srcset = /srcset="([^"]*)"/.exec(img)?.[1] ?? '';
    const widths = srcset.split(', ').map((candidate) => Number(/ (\d+)w$/.exec(candidate)?.[1]));
    assert.deepEqual(widths, [320, 768, 1536, 1600]);
    assert.match(img, /width="1600" height="1000"/);
    assert.match(img, / sizes="[^"]+"/);
    assert.match(img, /fetchpriority="high"/);
    assert.doesNotMatch(img, /loading=/);
    for (const candidate of srcset.split(', ')) {
      const url = candidate.split(' ')[0] ?? '';
      assert.match(url, /^\/media\/posts\//);
      const file = await ctx.request({ method: 'GET', url, headers: { host: 'featured.test' } });
      assert.equal(file.statusCode, 200, url);
      const size = await sharp(file.rawPayload).metadata();
      assert.equal(`${size.width}w`, candidate.split(' ')[1]);
    }
    // The rest of the list, without the featured post; an external thumbnail stays a plain lazy image.
    const list = /<div class="listing">[\s\S]*?<aside/.exec(body)?.[0] ?? '';
    assert.doesNotMatch(list, /featured-new/);
    assert.match(list, /href="\/post\/featured-middle"/);
    assert.match(
      list,
      /<img src="https:\/\/images.example\/old.jpg" alt="" loading="lazy" decoding="async">/,
    );
    // A newer post takes its place; the old featured post joins the list (the list's cache tags).
    await make('newest', 4, { thumbnailUrl: 'https://images.example/newest.jpg' });
    body = await home();
    assert.match(
      body,
      /<a class="featured-cover" [^>]*><img src="https:\/\/images.example\/newest.jpg" alt="" fetchpriority="high"><\/a>/,
    );
    assert.match(body, /<a href="\/post\/featured-newest">Post newest<\/a><\/h2>/);
    assert.match(/<div class="listing">[\s\S]*?<aside/.exec(body)?.[0] ?? '', /href="\/post\/featured-new"/);
    // The post page shows the same cover with its sizes; a listing's first image is not lazy.
    const post = await ctx.request({
      method: 'GET',
      url: '/post/featured-new',
      headers: { host: 'featured.test' },
    });
    assert.match(
      post.body,
      /<div class="featured"><img src="\/media\/posts\/[^"]+" srcset="[^"]+ 1600w" sizes="[^"]+" width="1600" height="1000" alt="Post new" fetchpriority="high"><\/div>/,
    );
    const blog = await ctx.request({ method: 'GET', url: '/blog', headers: { host: 'featured.test' } });
    const cards = blog.body.match(/<article class="card">[^]*?<\/article>/g) ?? [];
    assert.match(
      cards[0] ?? '',
      /<img src="https:\/\/images.example\/newest.jpg" alt="" fetchpriority="high">/,
    );
    assert.match(
      cards[1] ?? '',
      /<img src="\/media\/posts\/[^"]+" srcset="[^"]+" sizes="[^"]+" width="1600" height="1000" alt="" loading="lazy" decoding="async">/,
    );
  });

  it('sitemaps are valid sitemap XML with absolute URLs on the primary domain, per locale', async (t) => {
    for (const url of [
      '/sitemap/posts',
      '/sitemap/pages',
      '/sitemap/tags/post/category',
      '/sitemap/tags/post/tag',
    ]) {
      const response = await get(url, { host: 'alias.test' });
      assert.equal(response.statusCode, 200, url);
      assert.match(response.headers['content-type'] as string, /^application\/xml/);
      await validateSitemap(t, response.body);
    }
    const posts = (await get('/sitemap/posts')).body;
    assert.match(
      posts,
      /<loc>http:\/\/site\.test\/post\/first-post-about-cats<\/loc><lastmod>[0-9T:.-]+Z<\/lastmod>/,
    );
    assert.match(posts, /<loc>http:\/\/site\.test\/fr\/post\/first-post-about-cats<\/loc>/);
    assert.doesNotMatch(posts, /draft-post|future-post|elsewhere-post/);
    const pages = (await get('/sitemap/pages')).body;
    assert.match(pages, /<loc>http:\/\/site\.test\/page\/about<\/loc>/);
    assert.doesNotMatch(pages, /hidden/);
    assert.match(
      (await get('/sitemap/tags/post/category')).body,
      /<loc>http:\/\/site\.test\/post\/category\/local-news<\/loc>/,
    );
    assert.equal((await get('/sitemap/tags/post/nope')).statusCode, 404);
    assert.equal((await get('/sitemap/tags/widget/category')).statusCode, 404);
    assert.equal((await get('/fr/sitemap/posts')).statusCode, 404, 'sitemaps are not localized');
  });

  it('issue 22 #11: /sitemap.xml is a valid sitemap index of every sitemap; /favicon.ico answers', async (t) => {
    const index = await get('/sitemap.xml', { host: 'alias.test' });
    assert.equal(index.statusCode, 200);
    assert.match(index.headers['content-type'] as string, /^application\/xml/);
    await validateSitemap(t, index.body, 'sitemapindex');
    for (const sitemap of ['posts', 'pages', 'tags/post/category', 'tags/post/tag']) {
      assert.match(index.body, new RegExp(`<loc>http://site\\.test/sitemap/${sitemap}</loc>`));
    }
    const icon = await get('/favicon.ico');
    assert.equal(icon.statusCode, 200);
    assert.match(icon.headers['content-type'] as string, /^image\/svg\+xml/);
    assert.match(icon.body, /^<svg /);
  });

  it('robots.txt points to the sitemaps', async () => {
    const response = await get('/robots.txt');
    assert.equal(response.statusCode, 200);
    assert.match(response.headers['content-type'] as string, /^text\/plain/);
    assert.match(response.body, /^User-agent: \*$/m);
    for (const sitemap of ['posts', 'pages', 'tags/post/category', 'tags/post/tag'])
      assert.match(response.body, new RegExp(`^Sitemap: http://site\\.test/sitemap/${sitemap}$`, 'm'));
    assert.match(response.body, /^Sitemap: http:\/\/site\.test\/sitemap\.xml$/m);
  });

  it('pages, CSS and XML are compressed; assets and media are cached long; images are never compressed', async () => {
    const home = await get('/', { 'accept-encoding': 'gzip' });
    assert.equal(home.headers['content-encoding'], 'gzip');
    // The page's link names the version; that URL is cached a year (issue 36 #4, theme-assets.test.ts).
    const link = /\/themes\/default\/assets\/style\.css\?v=[a-f0-9]+/.exec(
      (await get('/post/first-post-about-cats')).body,
    );
    assert.ok(link);
    const css = await get(link[0], { 'accept-encoding': 'br' });
    assert.equal(css.headers['content-encoding'], 'br');
    assert.match(css.headers['cache-control'] as string, /max-age=31536000, immutable/);
    const sitemap = await get('/sitemap/posts', { 'accept-encoding': 'gzip' });
    assert.equal(sitemap.headers['content-encoding'], 'gzip');

    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const big = Buffer.concat([png, Buffer.alloc(4096)]); // a body above the compression threshold
    fs.mkdirSync(path.join(ctx.services.config.mediaDir, 'posts'), { recursive: true });
    fs.writeFileSync(path.join(ctx.services.config.mediaDir, 'posts', 'pixel.png'), big);
    const image = await get('/media/posts/pixel.png', { 'accept-encoding': 'gzip, br' });
    assert.equal(image.statusCode, 200);
    assert.equal(image.headers['content-encoding'], undefined);
    assert.match(image.headers['cache-control'] as string, /max-age=31536000, immutable/);
  });
});
