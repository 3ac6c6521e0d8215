// YouTube and Vimeo players embedded with the admin editor reach the reader (issue 34 #16): a post's
// and a page's <iframe> of an allow-listed player, over https, is served sandboxed, lazy and titled,
// and the page's Content-Security-Policy lets those players (and only those) be framed. Any other
// frame is removed, whoever wrote it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { load } from 'cheerio';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const HOST = 'embeds.test';
const YOUTUBE =
  '<div data-youtube-video=""><iframe width="640" height="480" allowfullscreen="true" autoplay="false" ' +
  'src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" start="0"></iframe></div>';
const VIMEO =
  '<div data-vimeo-video=""><iframe src="https://player.vimeo.com/video/76979871" width="640" height="360" ' +
  'allowfullscreen="true" title="Vimeo video" loading="lazy"></iframe></div>';
const OTHER =
  '<iframe src="https://evil.test/frame"></iframe><iframe src="http://www.youtube.com/embed/x"></iframe>';

describe('video embeds on the public site', () => {
  let ctx: TestContext;
  let site: number;
  let admin: TestUser;
  let author: TestUser;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Embeds', domain: HOST });
    admin = await ctx.createUser({ admin: true });
    author = await ctx.createUser();
    await ctx.services.memberships.grant(author.id, site, 'author');
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.request({ method: 'GET', url, headers: { host: HOST } });

  function checkPlayers(html: string): void {
    const $ = load(html);
    const frames = $('main iframe, article iframe').toArray();
    const sources = [...new Set(frames.map((frame) => $(frame).attr('src')))].sort();
    assert.deepEqual(sources, [
      'https://player.vimeo.com/video/76979871',
      'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ',
    ]);
    for (const frame of frames) {
      const attributes = $(frame).attr() ?? {};
      assert.equal(attributes.sandbox, 'allow-scripts allow-same-origin allow-presentation allow-popups');
      assert.equal(attributes.loading, 'lazy');
      assert.ok(attributes.title?.trim(), 'a title');
      assert.ok('allowfullscreen' in attributes);
      assert.equal(attributes.autoplay, undefined);
      assert.ok($(frame).parent().is('div[data-youtube-video], div[data-vimeo-video]'));
    }
    assert.doesNotMatch(html, /evil\.test|http:\/\/www\.youtube\.com/);
  }

  function checkPolicy(csp: string): void {
    const frameSrc = /(?:^|;\s*)frame-src ([^;]*)/.exec(csp)?.[1]?.split(/\s+/) ?? [];
    for (const origin of [
      'https://www.youtube-nocookie.com',
      'https://www.youtube.com',
      'https://player.vimeo.com',
    ]) {
      assert.ok(frameSrc.includes(origin), `frame-src allows ${origin}: ${csp}`);
    }
    assert.ok(!frameSrc.includes('https:') && !frameSrc.includes('*'), `no other frames: ${csp}`);
  }

  for (const [who, actor] of [
    ['an administrator', () => ({ userId: admin.id, isAdmin: true })],
    ['an author', () => ({ userId: author.id, isAdmin: false })],
  ] as const) {
    it(`issue 34 #16: a post by ${who} shows its YouTube and Vimeo players; other frames are gone`, async () => {
      const post = await ctx.services.posts.create(
        {
          title: `Videos by ${who}`,
          content: `<p>Watch:</p>${YOUTUBE}${VIMEO}${OTHER}`,
          status: 'published',
          websiteIds: [site],
        },
        actor(),
      );
      const page = await get(`/post/${post.slug}`);
      assert.equal(page.statusCode, 200);
      checkPlayers(page.body);
      checkPolicy(String(page.headers['content-security-policy']));
      // The cached copy keeps both.
      const again = await get(`/post/${post.slug}`);
      checkPlayers(again.body);
      checkPolicy(String(again.headers['content-security-policy']));
    });
  }

  it('issue 34 #16: a page shows its players too', async () => {
    const page = await ctx.services.pages.create({
      title: 'Video page',
      content: `${YOUTUBE}${VIMEO}${OTHER}`,
      slug: 'video-page',
      status: 'published',
      authorId: admin.id,
      websiteIds: [site],
      defaultLocale: 'en',
    });
    const shown = await get(`/page/${page.slug}`);
    assert.equal(shown.statusCode, 200);
    checkPlayers(shown.body);
    checkPolicy(String(shown.headers['content-security-policy']));
  });
});
