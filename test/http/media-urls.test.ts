// Issue 36 #5: Folio's own media are stored by their site-relative address (`/media/…`), never by an
// absolute URL built on APP_URL, and made absolute on the right origin where they leave the site:
// og:image and feeds on the host of the website that shows them, API v1 answers on APP_URL (as its
// `url` fields). An absolute address on APP_URL written into a post is stored relative, and rows an
// older version stored absolute are rewritten once, at start.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { MEDIA_URLS_RELATIVE_SETTING } from '../../src/domain/media/maintenance.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { FULL_CONTENT_SETTING } from '../../src/frontend/routes/feeds.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

// The harness's APP_URL.
const APP = 'http://folio.test';

describe('media addresses on the right host (issue 36 #5)', () => {
  let ctx: TestContext;
  let one: number;
  let two: number;
  let image: string;
  const author = { userId: null, isAdmin: true };

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.services.settings.set(FULL_CONTENT_SETTING, 'true');
    one = await websiteWrites(ctx.services).create({ siteName: 'One', domain: 'one.test' });
    two = await websiteWrites(ctx.services).create({ siteName: 'Two', domain: 'two.test' });
    const png = await sharp({
      create: { width: 8, height: 6, channels: 3, background: { r: 200, g: 40, b: 40 } },
    })
      .png()
      .toBuffer();
    image = (await ctx.services.media.storeImage(png, { userId: null, toWebp: false })).url;
  });
  after(() => ctx.close());

  const get = (host: string, url: string) => ctx.request({ method: 'GET', url, headers: { host } });
  /** A post's row as stored. */
  const storedPost = (id: number) =>
    ctx.services.database.db
      .selectFrom('posts')
      .select(['thumbnail', 'content'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('an upload is stored by its site-relative address, served on every host', async () => {
    assert.match(image, /^\/media\/[\w/]+\/[0-9a-f]{32}\.png$/);
    for (const host of ['one.test', 'two.test'])
      assert.equal((await get(host, image)).statusCode, 200, `${image} on ${host}`);
  });

  it('og:image, JSON-LD and the feed name it on the host of the website showing the post; API v1 on APP_URL', async () => {
    const post = await ctx.services.posts.create(
      {
        title: 'Red square',
        content: `<p>Look:</p><p><img src="${image}" alt="A red square"></p>`,
        status: 'published',
        websiteIds: [one, two],
        thumbnailUrl: image,
      },
      author,
    );
    for (const host of ['one.test', 'two.test']) {
      const page = await get(host, `/post/${post.slug}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, new RegExp(`<meta property="og:image" content="http://${host}${image}">`));
      assert.match(page.body, new RegExp(`"image":\\["http://${host}${image}"\\]`), 'JSON-LD');
      assert.match(page.body, new RegExp(`<img src="${image}" alt="A red square"`), 'the page: relative');
      const feed = await get(host, '/feed');
      assert.equal(feed.statusCode, 200);
      assert.ok(feed.body.includes(`src="http://${host}${image}"`), `full content absolute on ${host}`);
      assert.doesNotMatch(feed.body, /src="\/media\//);
    }
    await ctx.enableApi();
    const reader = await ctx.createUser();
    const listed = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      headers: { host: 'two.test' },
      payload: { api_token: reader.token, page_size: 100 },
    });
    assert.equal(listed.statusCode, 200, listed.body);
    const item = (listed.json().data.data as Array<{ id: number; thumbnail: string; content: string }>).find(
      (each) => each.id === post.id,
    )!;
    assert.equal(item.thumbnail, `${APP}${image}`);
    assert.ok(item.content.includes(`src="${APP}${image}"`), item.content);
    // API v2 keeps the stored address (the panel runs on the site's own hosts).
    const stored = await storedPost(post.id);
    assert.equal(stored.thumbnail, image);
  });

  it('an absolute address on APP_URL written into a post is stored site-relative; another host is kept', async () => {
    const post = await ctx.services.posts.create(
      {
        title: 'Pasted',
        content: `<p><img src="${APP}${image}" srcset="${APP}${image} 1x, https://elsewhere.example/media/x.png 2x"></p>`,
        status: 'published',
        websiteIds: [one],
        thumbnailUrl: `${APP}${image}`,
      },
      author,
    );
    const stored = await storedPost(post.id);
    assert.equal(stored.thumbnail, image);
    assert.equal(
      stored.content,
      `<p><img src="${image}" srcset="${image} 1x, https://elsewhere.example/media/x.png 2x"></p>`,
    );
  });

  it('rows an older version stored absolute on APP_URL are rewritten once per APP_URL at start', async () => {
    const db = ctx.services.database.db;
    const post = await ctx.services.posts.create(
      { title: 'Old', content: '<p>old</p>', status: 'published', websiteIds: [one] },
      author,
    );
    // As versions before 36 #5 wrote them: absolute on APP_URL (and one on another host, kept).
    await db
      .updateTable('posts')
      .set({
        thumbnail: `${APP}${image}`,
        content: `<p><img src="${APP}${image}"><a href="https://elsewhere.example/media/a.pdf">a</a></p>`,
      })
      .where('id', '=', post.id)
      .execute();
    await db
      .insertInto('translations')
      .values({
        model_type: 'post',
        model_id: post.id,
        field: 'content',
        locale: 'fr',
        value: `<p><img src="${APP}${image}"></p>`,
      })
      .execute();
    await db
      .updateTable('media')
      .set({ url: `${APP}${image}` })
      .where('url', '=', image)
      .execute();
    await db
      .updateTable('websites')
      .set({ site_favicon: `${APP}${image}` })
      .where('id', '=', two)
      .execute();
    await ctx.services.settings.delete(MEDIA_URLS_RELATIVE_SETTING);

    const report = await ctx.services.mediaMaintenance.relativizeStoredUrls(APP);
    assert.equal(report.ran, true);
    assert.deepEqual(report.rows, { posts: 1, pages: 0, translations: 1, media: 1, websites: 1 });
    const row = await storedPost(post.id);
    assert.equal(row.thumbnail, image);
    assert.equal(
      row.content,
      `<p><img src="${image}"><a href="https://elsewhere.example/media/a.pdf">a</a></p>`,
    );
    const french = await db
      .selectFrom('translations')
      .select('value')
      .where('model_type', '=', 'post')
      .where('model_id', '=', post.id)
      .where('locale', '=', 'fr')
      .executeTakeFirstOrThrow();
    assert.equal(french.value, `<p><img src="${image}"></p>`);
    assert.ok(await db.selectFrom('media').select('id').where('url', '=', image).executeTakeFirst());
    assert.equal((await ctx.services.websites.find(two))!.fields.site_favicon, image);
    // The site shows the rewritten post at once (its cached pages were told).
    assert.match(
      (await get('one.test', `/post/${post.slug}`)).body,
      new RegExp(`content="http://one.test${image}"`),
    );
    // Done for this APP_URL: the next start reads nothing.
    assert.deepEqual(await ctx.services.mediaMaintenance.relativizeStoredUrls(APP), { rows: {}, ran: false });
  });
});
