// Theme assets (issue 36 #4): every asset a page links carries a version made of its content
// (`?v=<hash>`), and the file answered for that version is cached a year, immutable; without it, or
// with another version, it is revalidated. The post page links community.css in its head.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { THEMES_DIR } from '../../src/frontend/themes.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

const ASSETS = path.join(THEMES_DIR, 'default', 'assets');
const hashOf = (file: string) =>
  createHash('sha256')
    .update(fs.readFileSync(path.join(ASSETS, file)))
    .digest('hex')
    .slice(0, 16);

/** Every liquid file of the default theme, recursively. */
function templates(dir = path.join(THEMES_DIR, 'default')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return templates(full);
    return entry.name.endsWith('.liquid') ? [full] : [];
  });
}

describe('issue 36 #4: theme assets are versioned by content and cached immutable', () => {
  let ctx: TestContext;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    await insertPost(ctx.services.database.db, {
      title: 'Commented post',
      slug: 'commented-post',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.request({ method: 'GET', url, headers: { host: 'site.test' } });

  it('issue 36 #4: no template links an asset by a bare path (all through the asset filter)', () => {
    for (const file of templates()) {
      const text = fs.readFileSync(file, 'utf8');
      assert.ok(
        !/["']\/themes\/[^"']*\/assets\//.test(text),
        `${path.relative(THEMES_DIR, file)} links a bare asset`,
      );
    }
  });

  it('issue 36 #4: pages link style.css, community.css, clicks.js, accounts.css/js with ?v=<content hash>', async () => {
    const post = await get('/post/commented-post');
    assert.equal(post.statusCode, 200);
    const head = post.body.slice(0, post.body.indexOf('</head>'));
    assert.ok(head.includes(`/themes/default/assets/style.css?v=${hashOf('style.css')}"`), head);
    assert.ok(
      head.includes(`/themes/default/assets/community.css?v=${hashOf('community.css')}"`),
      'in <head>',
    );
    assert.equal(post.body.split('community.css').length, 2, 'linked once');
    assert.ok(post.body.includes(`/themes/default/assets/clicks.js?v=${hashOf('clicks.js')}"`));
    const login = await get('/user/login');
    assert.equal(login.statusCode, 200);
    assert.ok(login.body.includes(`/themes/default/assets/accounts.css?v=${hashOf('accounts.css')}"`));
    assert.ok(login.body.includes(`/themes/default/assets/accounts.js?v=${hashOf('accounts.js')}"`));
  });

  it('issue 36 #4: the versioned file is cached a year, immutable; others are revalidated', async () => {
    for (const file of [
      'style.css',
      'community.css',
      'accounts.css',
      'accounts.js',
      'clicks.js',
      'editor.js',
    ]) {
      const versioned = await get(`/themes/default/assets/${file}?v=${hashOf(file)}`);
      assert.equal(versioned.statusCode, 200, file);
      assert.equal(versioned.headers['cache-control'], 'public, max-age=31536000, immutable', file);
      for (const url of [`/themes/default/assets/${file}`, `/themes/default/assets/${file}?v=0123abcd`]) {
        const other = await get(url);
        assert.equal(other.statusCode, 200, url);
        assert.equal(other.headers['cache-control'], 'public, max-age=0, must-revalidate', url);
      }
    }
  });
});
