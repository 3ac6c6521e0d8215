// Shareable preview links (issue 37 #3): issued and revoked through API v2 by those who may change the
// post or page (audited); the token is shown once and only its hash is stored; `/preview/{token}`
// renders the draft on the website's theme with a "Preview" ribbon, `noindex` and `private, no-store`,
// never from the page cache; a tampered, expired or revoked token, or a deleted post, is the site's
// plain 404 (the same answer as a token that never existed). A headless client reads the draft through
// `GET /api/v2/preview/{token}`. An autosave can be previewed too.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CACHE_HEADER } from '../../src/frontend/page-cache.js';
import { PREVIEW_DAYS_SETTING } from '../../src/domain/revisions/previews.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('preview links', () => {
  const clock = manualClock(new Date());
  let ctx: TestContext;
  let site: number;
  let other: number;
  let editor: TestUser;
  let stranger: TestUser;

  before(async () => {
    ctx = await createTestContext({ clock });
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.enableApi();
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    editor = await ctx.createUser();
    stranger = await ctx.createUser();
    await ctx.services.memberships.grant(editor.id, site, 'editor');
    await ctx.services.memberships.grant(stranger.id, other, 'editor');
  });
  after(() => ctx.close());

  const v2 = (
    url: string,
    {
      method = 'GET',
      as = editor,
      body,
    }: { method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; as?: TestUser | null; body?: unknown } = {},
  ) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host: 'site.test', ...(as ? { authorization: `Bearer ${as.token}` } : {}) },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  const visit = (path: string, host = 'site.test') =>
    ctx.request({ method: 'GET', url: path, headers: { host } });
  const draft = async (title: string, status = 'draft') => {
    const response = await v2('/posts', {
      method: 'POST',
      body: { title, content: `<p>${title} body</p>`, status, website_id: [site] },
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: { id: number } }>().data.id;
  };
  type Issued = { id: number; token: string; url: string; expires_at: string; autosave: boolean };
  const issue = async (path: string, body: unknown = {}) => {
    const response = await v2(`${path}/preview-links`, { method: 'POST', body });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: Issued }>().data;
  };
  const notFoundPage = async () => visit(`/preview/${'A'.repeat(43)}`);
  /** The page without its own address (canonical, og:url carry the path asked for). */
  const bodyOf = (answer: { body: string }) => answer.body.replace(/\/preview\/[^"]+/g, '/preview/T');

  it('renders a draft on the theme, with the ribbon, noindex and no-store, never from the page cache', async () => {
    const id = await draft('Secret plan');
    const link = await issue(`/posts/${id}`);
    assert.match(link.url, /^http:\/\/site\.test(:\d+)?\/preview\/[A-Za-z0-9_-]{43}$/);
    assert.ok(link.url.endsWith(link.token));
    const first = await visit(`/preview/${link.token}`);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.body, /Secret plan body/);
    assert.match(first.body, /data-preview-ribbon/);
    assert.match(first.body, /<meta name="robots" content="noindex/);
    assert.equal(first.headers['cache-control'], 'private, no-store');
    assert.match(String(first.headers['x-robots-tag']), /noindex/);
    // Not the post: no comment thread or form, no view counted.
    assert.doesNotMatch(first.body, /data-kind="view"/);
    assert.doesNotMatch(first.body, /id="comments-title"/);
    // The readers' page of a published post has both (the assertions can fail).
    const published = await draft('Out already', 'published');
    const readers = await visit(`/post/${(await ctx.services.posts.findDetail(published))?.slug}`);
    assert.equal(readers.statusCode, 200, readers.body);
    assert.match(readers.body, /data-kind="view"/);
    assert.match(readers.body, /id="comments-title"/);
    // A second visit is rendered again (no page-cache hit) and shows the latest save.
    const patched = await v2(`/posts/${id}`, { method: 'PATCH', body: { content: '<p>Changed plan</p>' } });
    assert.equal(patched.statusCode, 200, patched.body);
    const second = await visit(`/preview/${link.token}`);
    assert.notEqual(second.headers[CACHE_HEADER], 'hit');
    assert.match(second.body, /Changed plan/);
    // The readers' address of the draft still shows nothing.
    const slug = (await ctx.services.posts.findDetail(id))?.slug;
    assert.ok(slug);
    assert.notEqual((await visit(`/post/${slug}`)).statusCode, 200);
  });

  it('stores only the token hash, and audits issuing and revoking', async () => {
    const id = await draft('Hashed');
    const link = await issue(`/posts/${id}`);
    const row = await ctx.services.database.db
      .selectFrom('preview_links')
      .selectAll()
      .where('id', '=', link.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.token_hash, createHash('sha256').update(link.token).digest('hex'));
    assert.ok(!JSON.stringify(row).includes(link.token));
    const revoked = await v2(`/preview-links/${link.id}`, { method: 'DELETE' });
    assert.equal(revoked.statusCode, 204, revoked.body);
    const actions = (
      await ctx.services.database.db.selectFrom('audit_log').select(['action', 'resource_id']).execute()
    )
      .filter((entry) => Number(entry.resource_id) === id)
      .map((entry) => entry.action);
    assert.ok(actions.includes('preview.issue'));
    assert.ok(actions.includes('preview.revoke'));
    const audit = JSON.stringify(
      await ctx.services.database.db.selectFrom('audit_log').selectAll().execute(),
    );
    assert.ok(!audit.includes(link.token), 'the token is not in the audit log');
  });

  it('answers a tampered, expired, revoked or deleted link with the same plain 404', async () => {
    const plain = await notFoundPage();
    assert.equal(plain.statusCode, 404);
    const id = await draft('Soon gone');
    const link = await issue(`/posts/${id}`);
    const tampered = link.token.slice(0, -1) + (link.token.endsWith('A') ? 'B' : 'A');
    const answers = [await visit(`/preview/${tampered}`), await visit(`/preview/${link.token}x`)];
    // Revoked.
    const revokedLink = await issue(`/posts/${id}`);
    assert.equal((await v2(`/preview-links/${revokedLink.id}`, { method: 'DELETE' })).statusCode, 204);
    answers.push(await visit(`/preview/${revokedLink.token}`));
    assert.equal((await v2(`/preview-links/${revokedLink.id}`, { method: 'DELETE' })).statusCode, 404);
    // On another website's host: that website's plain 404.
    const elsewhere = await visit(`/preview/${link.token}`, 'other.test');
    assert.equal(elsewhere.statusCode, 404);
    assert.equal(bodyOf(elsewhere), bodyOf(await visit(`/preview/${'A'.repeat(43)}`, 'other.test')));
    // Deleted.
    const deletedId = await draft('Deleted');
    const deletedLink = await issue(`/posts/${deletedId}`);
    assert.equal((await visit(`/preview/${deletedLink.token}`)).statusCode, 200);
    const removed = await v2(`/posts/${deletedId}`, { method: 'DELETE' });
    assert.ok([200, 204].includes(removed.statusCode), removed.body);
    answers.push(await visit(`/preview/${deletedLink.token}`));
    for (const answer of answers) {
      assert.equal(answer.statusCode, 404);
      assert.equal(bodyOf(answer), bodyOf(plain));
      assert.equal(answer.headers['cache-control'], 'private, no-store');
    }
    // Expired: after the setting's number of days.
    await ctx.services.settings.set(PREVIEW_DAYS_SETTING, '2');
    try {
      const short = await issue(`/posts/${id}`);
      clock.advance(2 * 86_400_000 - 60_000);
      assert.equal((await visit(`/preview/${short.token}`)).statusCode, 200);
      clock.advance(120_000);
      const expired = await visit(`/preview/${short.token}`);
      assert.equal(expired.statusCode, 404);
      assert.equal(bodyOf(expired), bodyOf(plain));
      assert.equal((await v2(`/preview/${short.token}`, { as: null })).statusCode, 404);
    } finally {
      await ctx.services.settings.set(PREVIEW_DAYS_SETTING, '7');
    }
  });

  it('lets a headless client fetch the draft with the token alone', async () => {
    const id = await draft('Headless');
    const link = await issue(`/posts/${id}`);
    const response = await v2(`/preview/${link.token}`, { as: null });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'private, no-store');
    const data = response.json<{ data: { type: string; id: number; title: string; status: string } }>().data;
    assert.deepEqual([data.type, data.id, data.title, data.status], ['post', id, 'Headless', 'draft']);
    const bad = await v2(`/preview/${'x'.repeat(43)}`, { as: null });
    assert.equal(bad.statusCode, 404);
    assert.ok(!bad.body.includes('Headless'));
  });

  it('previews a draft page and an autosave; refuses a published post and strangers', async () => {
    const page = await v2('/pages', {
      method: 'POST',
      body: { title: 'Draft page', content: 'Page words', status: 'draft', website_ids: [site] },
    });
    assert.equal(page.statusCode, 201, page.body);
    const pageId = page.json<{ data: { id: number } }>().data.id;
    const pageLink = await issue(`/pages/${pageId}`);
    const shown = await visit(`/preview/${pageLink.token}`);
    assert.equal(shown.statusCode, 200, shown.body);
    assert.match(shown.body, /Page words/);
    assert.match(shown.body, /data-preview-ribbon/);
    const published = await draft('Already out', 'published');
    const refused = await v2(`/posts/${published}/preview-links`, { method: 'POST', body: {} });
    assert.equal(refused.statusCode, 422, refused.body);
    // An autosave of the published post can be shared: its unsaved edits.
    const noAutosave = await v2(`/posts/${published}/preview-links`, {
      method: 'POST',
      body: { autosave: true },
    });
    assert.equal(noAutosave.statusCode, 422, noAutosave.body);
    const saved = await v2(`/posts/${published}/autosave`, {
      method: 'PUT',
      body: { content: '<p>Unsaved idea</p>' },
    });
    assert.equal(saved.statusCode, 200, saved.body);
    const autosaveLink = await issue(`/posts/${published}`, { autosave: true });
    assert.equal(autosaveLink.autosave, true);
    const unsaved = await visit(`/preview/${autosaveLink.token}`);
    assert.match(unsaved.body, /Unsaved idea/);
    // Readers still see the published version.
    const readers = await visit(`/post/${(await ctx.services.posts.findDetail(published))?.slug}`);
    assert.equal(readers.statusCode, 200, readers.body);
    assert.doesNotMatch(readers.body, /Unsaved idea/);
    // Either order: a preview never reads nor leaves the readers' cached article (fragment cache).
    assert.match((await visit(`/preview/${autosaveLink.token}`)).body, /Unsaved idea/);
    const again = await visit(`/post/${(await ctx.services.posts.findDetail(published))?.slug}`);
    assert.equal(again.statusCode, 200);
    assert.doesNotMatch(again.body, /Unsaved idea/);
    const listed = await v2(`/posts/${published}/preview-links`);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json<{ data: Array<{ id: number }> }>().data.map((l) => l.id),
      [autosaveLink.id],
    );
    const id = await draft('Not yours');
    const foreign = await v2(`/posts/${id}/preview-links`, { method: 'POST', as: stranger, body: {} });
    assert.ok([403, 404].includes(foreign.statusCode), foreign.body);
    const link = await issue(`/posts/${id}`);
    const foreignRevoke = await v2(`/preview-links/${link.id}`, { method: 'DELETE', as: stranger });
    assert.ok([403, 404].includes(foreignRevoke.statusCode), foreignRevoke.body);
    assert.equal((await visit(`/preview/${link.token}`)).statusCode, 200);
  });
});
