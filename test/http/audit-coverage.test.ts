// Issue 20 #6: every write through any surface (API v1, the public site, the CLI) appears in the
// audit log with who (user, key), what (action, resource), where (website) and from where (surface,
// request id), and the names of the fields it changed — never their values.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli.js';
import type { AuditRecord } from '../../src/domain/system/audit.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { Visitor } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

describe('audit log coverage (issue 20 #6)', () => {
  let ctx: TestContext;
  let admin: TestUser;
  let writer: TestUser;
  let site: number;

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Audited', domain: 'site.test' });
    admin = await ctx.createUser({ admin: true });
    writer = await ctx.createUser();
    await ctx.services.memberships.grant(writer.id, site, 'site_admin');
  });
  after(() => ctx.close());

  const api = async (user: TestUser, url: string, payload: Record<string, unknown> = {}) => {
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1${url}`,
      headers: { host: 'site.test' },
      payload: { api_token: user.token, ...payload },
    });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return { body: response.json(), requestId: String(response.headers['x-request-id']) };
  };
  /** The newest entry of this action (and resource id, when given). */
  const entry = async (action: string, resourceId?: string | number): Promise<AuditRecord> => {
    const entries = await ctx.services.audit.list({ limit: 500 });
    const found = entries.find(
      (item) =>
        item.action === action && (resourceId === undefined || item.resourceId === String(resourceId)),
    );
    assert.ok(
      found,
      `no audit entry for ${action} ${resourceId ?? ''}: ${entries.map((e) => e.action).join(',')}`,
    );
    return found;
  };

  it('API v1: posts, tags, websites and their domains, menus: user, website, request id, field names', async () => {
    const created = await api(writer, '/posts/store', { title: 'Audited', content: '<p>x</p>' });
    const post = await entry('post.create', created.body.data.id);
    assert.equal(post.userId, writer.id);
    assert.equal(post.websiteId, site);
    assert.equal(post.surface, 'api');
    assert.equal(post.requestId, created.requestId);
    assert.equal(post.summary, 'content,title');

    const tag = await api(admin, '/tags/store', { name: 'Audited tag', type: 'post_tag' });
    assert.equal((await entry('tag.create', tag.body.data.id)).userId, admin.id);

    // A site admin manages their website (issue 20): its fields and domains, each recorded.
    await api(writer, `/websites/update/${site}`, { site_slogan: 'Slogan', remark: 'secret remark' });
    const updated = await entry('website.update', site);
    assert.equal(updated.userId, writer.id);
    assert.equal(updated.summary, 'remark,site_slogan');
    assert.ok(!JSON.stringify(updated).includes('secret remark'), 'values are never recorded');
    await api(writer, '/websites/add-domain', { website_id: site, domain: 'alias.site.test' });
    await entry('website.add_domain', site);
    await api(writer, '/websites/remove-domain', { website_id: site, domain: 'alias.site.test' });
    await entry('website.remove_domain', site);

    const other = await api(admin, '/websites/store', { site_name: 'Other', domain: 'other.test' });
    await entry('website.create', other.body.data.id);
    await api(admin, `/websites/delete/${other.body.data.id}`);
    await entry('website.delete', other.body.data.id);

    await api(admin, '/menus/sync', {
      website_id: site,
      menu_items: [{ order: 1, name: 'Home', type: 'link', url: '/' }],
    });
    const menu = await entry('menu.sync', site);
    assert.equal(menu.websiteId, site);
    assert.equal(menu.userId, admin.id);
  });

  it('a site admin manages only their own website; an editor manages none (404, nothing recorded)', async () => {
    const editor = await ctx.createUser();
    await ctx.services.memberships.grant(editor.id, site, 'editor');
    const response = await ctx.request({
      method: 'POST',
      url: `/api/v1/websites/update/${site}`,
      headers: { host: 'site.test' },
      payload: { api_token: editor.token, site_slogan: 'Mine now' },
    });
    assert.equal(response.statusCode, 404);
    const elsewhere = await websiteWrites(ctx.services).create({
      siteName: 'Elsewhere',
      domain: 'elsewhere.test',
    });
    const refused = await ctx.request({
      method: 'POST',
      url: `/api/v1/websites/update/${elsewhere}`,
      headers: { host: 'site.test' },
      payload: { api_token: writer.token, site_slogan: 'Mine now' },
    });
    assert.equal(refused.statusCode, 404);
    // Its creation (by the operator, through the operation) is recorded; the refused update is not.
    const entries = await ctx.services.audit.list({ resourceType: 'website', limit: 500 });
    assert.deepEqual(
      entries.filter((item) => item.resourceId === String(elsewhere)).map((item) => item.action),
      ['website.create'],
    );
  });

  it('the public site: comments, profile and settings, with the site surface and the request id', async () => {
    const postId = (
      await ctx.services.posts.create(
        { title: 'Commented', content: 'x', status: 'published', websiteIds: [site] },
        { userId: admin.id, isAdmin: true },
      )
    ).id;
    const visitor = new Visitor(ctx, 'site.test', '203.0.113.9');
    await visitor.logIn(writer.email, writer.password);
    const commented = await visitor.submit(
      '/post/commented',
      '/comments/store',
      { post_id: String(postId), content: 'Signed-in comment.' },
      { origin: 'http://site.test', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120' },
    );
    assert.ok([201, 202, 303].includes(commented.statusCode), commented.body);
    const comment = await entry('comment.create');
    assert.equal(comment.userId, writer.id);
    assert.equal(comment.surface, 'site');
    assert.equal(comment.requestId, String(commented.headers['x-request-id']));
    assert.equal(comment.websiteId, site);

    const profile = await visitor.submit('/user/profile', '/user/profile/update', {
      name: 'Renamed Writer',
      username: 'renamed-writer',
    });
    assert.equal(profile.statusCode, 303, profile.body);
    const renamed = await entry('user.profile', writer.id);
    assert.equal(renamed.summary, 'name,username');
    const settings = await visitor.submit('/user/settings', '/user/settings/update', {
      email: writer.email,
      password: 'a new long password',
      password_confirmation: 'a new long password',
      current_password: writer.password,
    });
    assert.equal(settings.statusCode, 303, settings.body);
    const changed = await entry('user.settings', writer.id);
    assert.equal(changed.summary, '*', 'a password change is named only as a secret');
  });

  it('the CLI: users, settings, links and reviews, as the cli surface', async () => {
    const lines: string[] = [];
    const output = { out: (line: string) => lines.push(line), err: (line: string) => lines.push(line) };
    const run = async (...argv: string[]) => {
      const saved = { ...process.env };
      Object.assign(process.env, { DATABASE_URL: ctx.database.url, LOG_LEVEL: 'silent' });
      delete process.env.REDIS_URL;
      try {
        return await main(argv, output);
      } finally {
        process.env = saved;
      }
    };
    assert.equal(
      await run(
        'user:create',
        '--email',
        'cli@example.test',
        '--name',
        'Cli',
        '--password',
        'long password 1',
      ),
      0,
      lines.join('\n'),
    );
    const user = await ctx.services.users.findByEmail('cli@example.test');
    assert.equal((await entry('user.create', user!.id)).surface, 'cli');
    assert.equal(await run('setting:set', 'comment_moderation', 'none'), 0);
    assert.equal(
      (await entry('setting.set', 'comment_moderation')).summary,
      'comment_moderation',
      'the name, never the value',
    );
    assert.equal(await run('link:create', '--name', 'Example', '--url', 'https://example.test/'), 0);
    await entry('link.create');

    const draft = await ctx.services.posts.create(
      { title: 'Queued', content: 'x', status: 'draft', websiteIds: [site] },
      { userId: writer.id, isAdmin: false },
    );
    await ctx.services.postOps.submit(
      { userId: writer.id, isAdmin: false, websiteId: site },
      String(draft.id),
    );
    lines.length = 0;
    assert.equal(await run('post:pending', '--website', String(site)), 0);
    assert.ok(
      lines.some((line) => JSON.parse(line).id === draft.id),
      lines.join('\n'),
    );
    assert.equal(await run('post:return', String(draft.id)), 2, 'a note is required');
    assert.equal(await run('post:approve', String(draft.id)), 0, lines.join('\n'));
    assert.equal((await ctx.services.posts.findDetail(draft.id))?.status, 'published');
    const approved = await entry('post.approve', draft.id);
    assert.equal(approved.surface, 'cli');
    assert.equal(approved.userId, null);
    assert.equal(await run('post:approve', String(draft.id)), 1, 'no longer pending');
    assert.match(lines.at(-1) ?? '', /not waiting for review/);
  });
});
