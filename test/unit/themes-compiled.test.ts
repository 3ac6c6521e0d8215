// Every template of every theme renders the same through compiled templates as through LiquidJS's
// interpreter, and nothing falls back to the interpreter (issue 19, item 7): the compiler reads LiquidJS
// internals, so a LiquidJS upgrade (the version is pinned in package.json) must show here first.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { THEMES_DIR, ThemeRenderer } from '../../src/frontend/themes.js';

/** Every .liquid file of a theme, as template names (`post`, `partials/header`, …). */
function templatesOf(theme: string): string[] {
  const root = path.join(THEMES_DIR, theme);
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.liquid')) found.push(path.relative(root, full).replace(/\.liquid$/, ''));
    }
  };
  walk(root);
  return found.sort();
}

const post = {
  id: 1,
  title: 'A <b>post</b>',
  slug: 'a-post',
  url: '/post/a-post',
  excerpt: 'Short',
  content: '<p>Body</p>',
  thumbnail: '/media/a.webp',
  published_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
  author: { name: 'Ada', url: '/user/ada/posts' },
  tags: [{ id: 2, name: 'News', type: 'post_tag', url: '/post/tag/news' }],
  categories: [{ id: 3, name: 'Guides', url: '/post/category/guides' }],
  score: 4,
};

/** Data that reaches most branches: a signed-in reader, lists, a post with comments, errors. */
const data: Record<string, unknown> = {
  title: 'Page',
  description: 'About',
  site: { name: 'Folio', slogan: 'Write', url: '/', menu: [{ name: 'Home', url: '/', children: [] }] },
  user: { name: 'Ada', username: 'ada', profile_url: '/user/profile' },
  posts: [post, { ...post, id: 2, thumbnail: null, author: null, tags: [] }],
  post,
  page: { id: 5, title: 'About', slug: 'about', content: '<p>About</p>', type: 'plain' },
  comments: [
    { id: 1, author_name: 'Bo', content: '<p>Hi</p>', likes: 2, pending: false, depth: 0, children: [] },
  ],
  comment_count: 1,
  pagination: { current_page: 2, last_page: 3, previous_url: '/blog', next_url: '/blog?page=3', pages: [] },
  sidebar: {
    categories: [{ name: 'Guides', url: '/post/category/guides' }],
    links: [{ name: 'New', url: '/n' }],
  },
  errors: { title: ['The title field is required.'] },
  form: { title: 'T', content: 'C', status: 'draft', categories: [3] },
  notice: 'Saved.',
  keyword: 'folio',
  tag: { name: 'News', slug: 'news' },
  links: [{ id: 1, name: 'Site', url: 'https://example.test', show_url: '/link/1', tags: [] }],
  csrf_token: 'token',
  locale: 'zh_TW',
};

describe('themes through compiled templates', () => {
  for (const theme of fs
    .readdirSync(THEMES_DIR)
    .filter((name) => fs.statSync(path.join(THEMES_DIR, name)).isDirectory())) {
    it(`${theme}: every template renders the same both ways, with no fallback to the interpreter`, async () => {
      const renderer = new ThemeRenderer(THEMES_DIR, { compiled: true, crossCheck: true });
      const templates = templatesOf(theme);
      assert.ok(templates.length > 10, `${theme} has templates`);
      for (const template of templates) {
        // crossCheck renders with LiquidJS too and throws on any difference.
        await renderer.render(theme, template, { ...data });
      }
      assert.deepEqual(renderer.fallbacks(theme), []);
    });
  }
});
