// A reader in headless Chromium: the home page, a post, a tag page and a search, as they are shown,
// with screenshots saved as test artifacts (test-artifacts/screenshots/reading-*.png).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import {
  chromiumAvailable,
  launchBrowser,
  listen,
  screenshot,
  serious,
  servedContext,
} from '../support/browser.js';
import { skipUnless } from '../support/requirements.js';
import { coverImage } from '../support/theme-site.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';
import { postWrites } from '../support/post-writes.js';

/** axe-core's serious and critical violations of the page as it is shown now. */
describe(
  'reading the public site in Chromium',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let port: number;
    let browser: Browser;
    let server: RunningServer;
    let origin: string;
    /** A second website, with a home cover (issue 36 #2). */
    let coverOrigin: string;

    before(async () => {
      ({ ctx, port } = await servedContext());
      const { services } = ctx;
      await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      const websiteId = await websiteWrites(services).create({
        siteName: 'Reader Site',
        domain: 'reader.test',
      });
      await websiteWrites(services).update(websiteId, { site_slogan: 'Notes on cats and code' });
      const admin = await services.users.create({
        name: 'Ada',
        email: 'ada@reader.test',
        password: 'correct horse battery',
        isAdmin: true,
        username: 'ada',
      });
      const tag = async (name: string, type: string) =>
        (await services.tagOps.ensure({ name, type, updateWhenDuplicated: false, defaultLocale: 'en' })).tag
          .id;
      const cats = await tag('Cats', 'post_tag');
      const notes = await tag('Notes', 'post_category');
      const actor = { userId: admin.id, isAdmin: true };
      const now = Date.now();
      await postWrites(services).create(
        {
          title: 'Why cats sleep all day',
          content:
            '<p>Cats sleep for twelve to sixteen hours a day.</p><h2>Energy</h2><p>Hunting takes a lot of it.</p>',
          excerpt: 'A short look at feline naps.',
          tags: [cats],
          categories: [notes],
          thumbnailUpload: await coverImage(1600, 1000),
          publishedAt: new Date(now - 60_000).toISOString(),
        },
        actor,
      );
      await postWrites(services).create(
        {
          title: 'Writing tests that fail',
          content: '<p>A test that cannot fail tells you nothing.</p>',
          categories: [notes],
          publishedAt: new Date(now - 120_000).toISOString(),
        },
        actor,
      );
      const harbour = await websiteWrites(services).create({
        siteName: 'Harbour Log',
        domain: 'harbour.test',
      });
      await websiteWrites(services).update(harbour, {
        site_slogan: 'Tides, boats and the people who mend them',
      });
      const [photo] = await services.mediaOps.upload(
        { userId: admin.id, isAdmin: true, websiteId: harbour },
        { files: { filename: 'dawn.jpg', data: await coverImage(2400, 1000), truncated: false } },
      );
      await websiteWrites(services).update(harbour, { site_cover: photo!.url });
      await postWrites(services).create(
        {
          title: 'Mending nets at low tide',
          content: '<p>The tide gives the menders two hours.</p>',
          websiteIds: [harbour],
          thumbnailUpload: await coverImage(1200, 800),
          publishedAt: new Date(now - 30_000).toISOString(),
        },
        actor,
      );
      server = await listen(ctx, port);
      origin = server.origin('reader.test');
      coverOrigin = server.origin('harbour.test');
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    it('the home page lists the latest posts with their categories and tags', async () => {
      const page = await browser.newPage();
      const response = await page.goto(`${origin}/`);
      assert.equal(response?.status(), 200);
      assert.equal(await page.locator('h1').first().textContent(), 'Reader Site');
      // The newest post is featured with its cover (loaded, at the size its box asks for), the list
      // goes on without it.
      assert.equal(await page.locator('.featured-title a').textContent(), 'Why cats sleep all day');
      assert.equal(
        await page.locator('.featured-post .excerpt').textContent(),
        'A short look at feline naps.',
      );
      const cover = await page.evaluate<{ complete: boolean; natural: number; current: string }>(
        `(() => { const img = document.querySelector('.featured-cover img');
          return { complete: img.complete, natural: img.naturalWidth, current: img.currentSrc }; })()`,
      );
      assert.ok(cover.complete && cover.natural > 0, 'the cover is shown');
      assert.match(cover.current, /\/media\/posts\/.+-w(768|1536)\.webp$|\/media\/posts\/.+\.jpg$/);
      const titles = await page.locator('.card-title a').allTextContents();
      assert.deepEqual(titles, ['Writing tests that fail']);
      assert.ok(await page.locator('.sidebar a', { hasText: 'Notes' }).isVisible());
      await screenshot(page, 'reading-home');
      await page.close();
    });

    it('a post opens from the home page and reads well', async () => {
      const page = await browser.newPage();
      await page.goto(`${origin}/`);
      await page.locator('.featured-title a', { hasText: 'Why cats sleep all day' }).click();
      await page.waitForURL(`${origin}/post/why-cats-sleep-all-day`);
      assert.equal(await page.title(), 'Why cats sleep all day · Reader Site');
      assert.equal(await page.locator('article.post h1').textContent(), 'Why cats sleep all day');
      assert.match(
        (await page.locator('article.post .content').textContent()) ?? '',
        /twelve to sixteen hours/,
      );
      assert.equal(
        await page.locator('link[rel=canonical]').getAttribute('href'),
        `http://reader.test:${server.port}/post/why-cats-sleep-all-day`,
      );
      // Under the post: the author, the older post (the newer has none), its reading time.
      assert.equal(await page.locator('.author-card .author-name').textContent(), 'Ada');
      assert.equal(
        (await page.locator('.post-nav-previous').textContent())?.replace(/\s+/g, ' ').trim(),
        '← Previous post Writing tests that fail',
      );
      assert.equal(await page.locator('.post-nav-next').count(), 0);
      assert.equal(await page.locator('.reading-time').textContent(), '1 min read');
      assert.equal(
        JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '{}').headline,
        'Why cats sleep all day',
      );
      await screenshot(page, 'reading-post');
      await page.close();
    });

    it('a tag page shows the posts under the tag', async () => {
      const page = await browser.newPage();
      await page.goto(`${origin}/post/why-cats-sleep-all-day`);
      await page.locator('.tags a', { hasText: '#Cats' }).click();
      await page.waitForURL(`${origin}/post/tag/cats`);
      assert.equal(await page.locator('main h1').textContent(), 'Cats');
      assert.deepEqual(await page.locator('.card-title a').allTextContents(), ['Why cats sleep all day']);
      await screenshot(page, 'reading-tag');
      await page.close();
    });

    it('a search from the header finds the matching posts', async () => {
      const page = await browser.newPage();
      await page.goto(`${origin}/`);
      await page.getByLabel('Search posts').first().fill('test fail');
      await page.getByRole('button', { name: 'Search' }).first().click();
      await page.waitForURL(`${origin}/post/search/test%20fail`);
      assert.equal(await page.locator('main h1').textContent(), 'Search results for “test fail”');
      assert.deepEqual(await page.locator('.card-title a').allTextContents(), ['Writing tests that fail']);
      assert.equal(await page.getByLabel('Search posts').first().inputValue(), 'test fail');
      await screenshot(page, 'reading-search');
      await page.close();
    });

    it('the layout holds on a phone-sized screen', async () => {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto(`${origin}/`);
      const overflow = await page.evaluate<boolean>(
        'document.documentElement.scrollWidth > window.innerWidth',
      );
      assert.equal(overflow, false, 'no horizontal scrolling');
      // Issue 36 #2: a compact header (the site's name and "Log in" on one row, the search under
      // them), and no heading repeating the site's name under it.
      const box = async (selector: string) => (await page.locator(selector).first().boundingBox())!;
      const [brand, account, header] = await Promise.all([
        box('.site-header .brand'),
        box('.site-header .account-nav'),
        box('.site-header'),
      ]);
      assert.ok(Math.abs(brand.y + brand.height / 2 - (account.y + account.height / 2)) < 12, 'one row');
      assert.ok(header.height <= 130, `the header is ${header.height} px tall`);
      const heading = await box('main h1');
      assert.ok(heading.height <= 1, 'the site’s name is not repeated (its heading is for screen readers)');
      await screenshot(page, 'reading-home-mobile');
      await page.goto(`${origin}/post/why-cats-sleep-all-day`);
      assert.equal(
        await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth'),
        false,
        'no horizontal scrolling on a post',
      );
      await screenshot(page, 'reading-post-mobile');
      await page.close();
    });

    it('the home cover and the theme’s fonts, at 1280 and 390 px (issue 36 #2)', async () => {
      const context = await browser.newContext({ bypassCSP: true });
      const page = await context.newPage();
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${coverOrigin}/`);
        await page.evaluate('document.fonts.ready');
        const shown = await page.evaluate<{
          complete: boolean;
          natural: number;
          current: string;
          heading: string;
          headingColour: string;
          headingFont: string;
          textFont: string;
          fonts: boolean;
          overflow: boolean;
        }>(
          `(async () => {
            const img = document.querySelector('.hero-image');
            const h1 = document.querySelector('.hero h1');
            const fonts = (await document.fonts.load('16px Inter')).length > 0
              && (await document.fonts.load('16px "Source Serif 4"')).length > 0;
            return { complete: img.complete, natural: img.naturalWidth, current: img.currentSrc,
              heading: h1.textContent, headingColour: getComputedStyle(h1).color,
              headingFont: getComputedStyle(document.querySelector('.featured-title')).fontFamily,
              textFont: getComputedStyle(document.body).fontFamily, fonts,
              overflow: document.documentElement.scrollWidth > window.innerWidth };
          })()`,
        );
        assert.ok(shown.complete && shown.natural > 0, `the cover is shown at ${width} px`);
        // A size from the srcset fitting the box: never the 2400 px original on a phone.
        assert.match(shown.current, /\/media\/.+-w(768|1536)\.webp$/, `${shown.current} at ${width} px`);
        assert.equal(shown.heading, 'Harbour Log');
        assert.equal(shown.headingColour, 'rgb(255, 255, 255)');
        assert.ok(await page.locator('.hero h1').isVisible(), 'the site’s name is on the cover');
        assert.ok(await page.locator('.hero .lead').isVisible(), 'and its slogan');
        assert.equal(await page.locator('.site-header .slogan').isVisible(), false, 'not repeated');
        assert.match(shown.textFont, /^Inter,/);
        assert.match(shown.headingFont, /^"Source Serif 4",/);
        assert.ok(shown.fonts, 'both fonts load from Folio');
        assert.equal(shown.overflow, false, `no horizontal scrolling at ${width} px`);
        assert.deepEqual(await serious(page), [], `axe on the covered home at ${width} px`);
        await screenshot(page, width === 390 ? 'reading-home-cover-mobile' : 'reading-home-cover');
      }
      await context.close();
    });

    for (const scheme of ['light', 'dark'] as const) {
      it(`every public page passes axe at 390 px and 1280 px in the ${scheme} scheme`, async () => {
        // The audit injects axe-core as a script: the page's policy would refuse it.
        const context = await browser.newContext({ bypassCSP: true, colorScheme: scheme });
        const page = await context.newPage();
        for (const path of [
          '/',
          '/post/why-cats-sleep-all-day',
          '/post/tag/cats',
          '/post/search/cats',
          '/no-such-page',
        ]) {
          for (const width of [1280, 390]) {
            await page.setViewportSize({ width, height: 900 });
            await page.goto(`${origin}${path}`);
            assert.deepEqual(await serious(page), [], `axe on ${path} at ${width} px (${scheme})`);
          }
        }
        const background = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
        assert.equal(background, scheme === 'dark' ? 'rgb(18, 18, 20)' : 'rgb(255, 255, 255)');
        await page.goto(`${origin}/post/why-cats-sleep-all-day`);
        await screenshot(page, `reading-post-${scheme}`);
        await context.close();
      });
    }
  },
);
