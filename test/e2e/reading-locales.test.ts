// Issue 41 #1 in a real headless Chromium: a reader of a zh_TW, zh_CN or ja page of the site sees the
// home page, a post with its comment form, a search and the login form in that language: <html lang>
// follows, known words of the theme's catalogue are there and no English text of it is shown (visible
// text, aria-label, title, placeholder, alt); axe finds nothing serious at 1280 and 390 px, with
// screenshots (test-artifacts/screenshots/reading-<locale>-*.png).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { THEMES_DIR } from '../../src/frontend/themes.js';
import {
  chromiumAvailable,
  launchBrowser,
  listen,
  screenshot,
  serious,
  servedContext,
} from '../support/browser.js';
import type { RunningServer } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';
import { skipUnless } from '../support/requirements.js';
import { websiteWrites } from '../support/website-writes.js';
import { postWrites } from '../support/post-writes.js';

const HOST = 'harbour-locales.test';
const catalogue = (locale: string): Record<string, string> =>
  JSON.parse(
    fs.readFileSync(path.join(THEMES_DIR, 'default', 'locales', `${locale}.json`), 'utf8'),
  ) as Record<string, string>;

/**
 * The English of the theme's catalogue a `locale` page must not show: each English text the locale
 * translates differently, cut at its arguments and plural forms into pieces with a word of three
 * letters and a capital or a space, matched as whole words outside identifiers, paths and addresses.
 */
function englishOf(locale: string): Array<{ text: string; pattern: RegExp }> {
  const en = catalogue('en');
  const other = catalogue(locale);
  const pieces = new Set<string>();
  for (const [key, english] of Object.entries(en)) {
    if (key.startsWith('_') || other[key] === english) continue;
    for (const piece of english.split(/[{}#]/)) {
      if (/^\s*\w+\s*,\s*(plural|select|selectordinal)\b/.test(piece)) continue;
      if (/^\s*(=\d+|zero|one|two|few|many|other)?\s*$/.test(piece)) continue;
      const clean = piece.replace(/^[\s().,:;…“”"'–—·|-]+|[\s().,:;…“”"'–—·|-]+$/g, '');
      if (/[A-Za-z]{3,}/.test(clean) && /[A-Z]|\s/.test(clean)) pieces.add(clean);
    }
  }
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [...pieces].map((text) => ({
    text,
    pattern: new RegExp(`(?<![\\w/.-])${escape(text)}(?![\\w/-])`),
  }));
}

/** What the page shows: its visible text (not code) and its aria-label, title, placeholder and alt. */
async function shown(page: Page): Promise<string> {
  return page.evaluate(`(() => {
    const parts = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('code, pre, script, style') || !parent.checkVisibility()) continue;
      parts.push(node.textContent);
    }
    for (const element of document.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
      for (const name of ['aria-label', 'title', 'placeholder', 'alt']) {
        const value = element.getAttribute(name);
        if (value) parts.push(value);
      }
    }
    parts.push(document.title);
    return parts.join('\\n');
  })()`);
}

/** The English of the catalogue the page shows, each with a little of the text around it. */
async function englishShown(page: Page, locale: string): Promise<string[]> {
  const text = await shown(page);
  return englishOf(locale).flatMap(({ text: found, pattern }) => {
    const at = pattern.exec(text)?.index;
    return at === undefined
      ? []
      : [`${found} in “${text.slice(Math.max(0, at - 30), at + found.length + 30).replace(/\s+/g, ' ')}”`];
  });
}

async function assertNoEnglish(page: Page, locale: string, name: string): Promise<void> {
  assert.deepEqual(await englishShown(page, locale), [], `English on the ${locale} ${name}`);
}

async function audit(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  assert.deepEqual(await serious(page), [], `axe on ${name} at 1280 px`);
  await screenshot(page, `${name}-desktop`);
  await page.setViewportSize({ width: 390, height: 844 });
  assert.deepEqual(await serious(page), [], `axe on ${name} at 390 px`);
  await screenshot(page, `${name}-phone`);
}

/** The post, and the words each locale's pages must show. */
const LOCALES = {
  zh_TW: {
    lang: 'zh-TW',
    title: '颱風過後的港口',
    body: '漁船陸續回港。',
    keyword: '港口',
    words: { login: '登入', search: '搜尋文章', comment: '送出留言' },
  },
  zh_CN: {
    lang: 'zh-CN',
    title: '台风过后的港口',
    body: '渔船陆续回港。',
    keyword: '港口',
    words: { login: '登录', search: '搜索文章', comment: '发表评论' },
  },
  ja: {
    lang: 'ja',
    title: '台風のあとの港',
    body: '漁船が次々と港に戻ってきました。',
    keyword: '港',
    words: { login: 'ログイン', search: '投稿を検索', comment: 'コメントを送信' },
  },
} as const;

describe(
  'the site in 繁體中文, 简体中文 and 日本語: home, post, comment form, search, login (Chromium)',
  { skip: skipUnless(chromiumAvailable, 'Debian chromium is not installed') },
  () => {
    let ctx: TestContext;
    let browser: Browser;
    let server: RunningServer;
    let origin: string;

    before(async () => {
      let port: number;
      ({ ctx, port } = await servedContext());
      const { services } = ctx;
      await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      await services.settings.setMany({ default_locale: 'en', supported_locales: 'en,zh_TW,zh_CN,ja' });
      await websiteWrites(services).create({ siteName: '港灣', domain: HOST });
      const admin = await services.users.create({
        name: '林美',
        email: 'mei@harbour-locales.test',
        password: 'correct horse battery',
        isAdmin: true,
        username: 'mei',
      });
      await postWrites(services).create(
        {
          title: {
            en: 'The harbour after the typhoon',
            zh_TW: LOCALES.zh_TW.title,
            zh_CN: LOCALES.zh_CN.title,
            ja: LOCALES.ja.title,
          },
          content: {
            en: '<p>The boats come back one by one.</p>',
            zh_TW: `<p>${LOCALES.zh_TW.body}</p>`,
            zh_CN: `<p>${LOCALES.zh_CN.body}</p>`,
            ja: `<p>${LOCALES.ja.body}</p>`,
          },
          slug: 'harbour-after-typhoon',
          publishedAt: new Date(Date.now() - 60_000).toISOString(),
        },
        { userId: admin.id, isAdmin: true },
      );
      server = await listen(ctx, port);
      origin = server.origin(HOST);
      browser = await launchBrowser();
    });
    after(async () => {
      await browser?.close();
      await ctx.close();
    });

    for (const [locale, want] of Object.entries(LOCALES)) {
      const name = `reading-${locale.replace('_', '-')}`;
      const open = async (at: string): Promise<Page> => {
        const page = await (await browser.newContext({ bypassCSP: true, locale: 'en-US' })).newPage();
        const response = await page.goto(`${origin}/${locale}${at}`);
        assert.equal(response?.status(), 200, `${locale}${at}`);
        assert.equal(await page.evaluate('document.documentElement.lang'), want.lang);
        return page;
      };

      it(`${locale}: the home page`, async () => {
        const page = await open('/');
        await page.getByRole('link', { name: want.title }).first().waitFor();
        await page.getByRole('link', { name: want.words.login, exact: true }).waitFor();
        await page.getByPlaceholder(want.words.search).first().waitFor();
        await assertNoEnglish(page, locale, 'home page');
        await audit(page, `${name}-home`);
      });

      it(`${locale}: a post and its comment form`, async () => {
        const page = await open('/post/harbour-after-typhoon');
        await page.getByRole('heading', { name: want.title, level: 1 }).waitFor();
        await page.getByText(want.body).waitFor();
        await page.locator('#comment-form').getByRole('button', { name: want.words.comment }).waitFor();
        await assertNoEnglish(page, locale, 'post');
        await audit(page, `${name}-post`);
      });

      it(`${locale}: a search from the header`, async () => {
        const page = await open('/');
        await page.getByPlaceholder(want.words.search).first().fill(want.keyword);
        await Promise.all([page.waitForURL(/\/post\/search\//), page.keyboard.press('Enter')]);
        assert.match(page.url(), new RegExp(`/${locale}/post/search/`));
        await page.getByRole('link', { name: want.title }).first().waitFor();
        await assertNoEnglish(page, locale, 'search');
        await audit(page, `${name}-search`);
      });

      it(`${locale}: the login form`, async () => {
        const page = await open('/user/login');
        await page.getByRole('button', { name: want.words.login }).waitFor();
        await assertNoEnglish(page, locale, 'login form');
        await audit(page, `${name}-login`);
      });
    }

    it('the check finds English where a page shows some (it can fail)', async () => {
      const page = await (await browser.newContext({ bypassCSP: true })).newPage();
      await page.goto(`${origin}/ja/user/login`);
      await page.evaluate(`document.querySelector('main').insertAdjacentHTML('afterbegin',
        '<p>Search posts</p><input aria-label="Log in"><code>Forgot your password?</code>')`);
      const found = (await englishShown(page, 'ja')).map((each) => each.replace(/ in “.*$/, ''));
      assert.ok(found.includes('Search posts'), found.join('; '));
      assert.ok(found.includes('Log in'), found.join('; '));
      assert.ok(!found.includes('Forgot your password?'), 'code is not prose');
    });
  },
);
