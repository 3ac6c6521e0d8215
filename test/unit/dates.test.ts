// Dates in one format per locale (issue 22): the `local_date` filter, in partials too, both through
// compiled templates and LiquidJS.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDate } from '../../src/frontend/dates.js';
import { THEMES_DIR, ThemeRenderer } from '../../src/frontend/themes.js';

const AT = '2026-11-25T21:10:02.730Z';

describe('dates per locale', () => {
  it('formats a long date in the locale', () => {
    assert.equal(formatDate(AT, 'en'), '25 November 2026');
    assert.equal(formatDate(AT, 'en_US'), 'November 25, 2026');
    assert.equal(formatDate(AT, 'zh_TW'), '2026年11月25日');
    assert.equal(formatDate(AT, 'zh-TW'), '2026年11月25日');
    assert.equal(formatDate(AT, 'fr'), '25 novembre 2026');
    assert.equal(formatDate(new Date(AT), 'de'), '25. November 2026');
    // UTC, so a date does not move with the server's time zone.
    assert.equal(formatDate('2026-11-25T23:59:59Z', 'en'), '25 November 2026');
    assert.match(formatDate(AT, 'en', 'datetime'), /^25 November 2026.*21:10$/);
  });

  it('falls back to the ISO date for what Intl cannot read, and prints nothing for nothing', () => {
    assert.equal(formatDate(AT, 'not a locale!'), '2026-11-25');
    assert.equal(formatDate('yesterday', 'en'), 'yesterday'.slice(0, 10));
    assert.equal(formatDate(null, 'en'), '');
    assert.equal(formatDate(undefined, 'en'), '');
  });

  it('the theme prints every post date with local_date and <time datetime>, in partials too', async () => {
    const renderer = new ThemeRenderer(THEMES_DIR, { compiled: true, crossCheck: true });
    const card = {
      id: 1,
      title: 'A post',
      slug: 'a-post',
      url: '/post/a-post',
      excerpt: '',
      thumbnail: null,
      published_at: AT,
      author: null,
      tags: [],
      categories: [],
      score: null,
    };
    for (const [locale, shown] of [
      ['zh_TW', '2026年11月25日'],
      ['en', '25 November 2026'],
    ] as const) {
      // post_card is rendered through `render` (a partial sees globals, not the page's data).
      const html = await renderer.render('default', 'blog', {
        locale,
        posts: [card],
        pagination: { last: 1 },
        sidebar: { categories: [], links: [] },
        seo: {},
        site: {},
      });
      assert.ok(html.includes(`<time datetime="${AT}">${shown}</time>`), `${locale}: ${shown}`);
    }
  });
});
