// The authorization matrix (issue 34): every API v2 route, and API v1's writes, tried by every kind of
// caller whose rights are on website one (an administrator's key limited to it, each role there, a user
// with no role, a content key, nobody) against website two's resources, through website one's Host (in
// the key's scope) and website two's. None of them may write there, read what is not public there, or
// act on the installation; the installation's administrator, asked the same requests, succeeds (so
// every request is one the server would carry out: a refusal is the policy's, not a malformed call).
// A route of API v2 that this table does not classify fails the test: new routes join the matrix.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

/** What a case is: a write on website two, a read of what website two does not publish, or the installation's. */
type Kind = 'write' | 'private-read' | 'installation';
interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** The route as OpenAPI names it (for the completeness check). */
  route: string;
  url: () => string;
  body?: () => unknown;
  multipart?: boolean;
  /** A raw body with its content type (an uploaded file). */
  raw?: { type: string; body: () => string };
  kind: Kind;
  /** For reads answered 200: whether the answer shows website two's private content. */
  leaks?: (response: LightMyRequestResponse) => boolean;
  /** The administrator's control: 'ok' (2xx, the default) or 'not-refused' (anything but 401/403/404). */
  control?: 'ok' | 'not-refused';
}

type CallerName =
  | 'admin key limited to site one'
  | 'site admin of one'
  | 'editor of one'
  | 'author of one'
  | 'contributor of one'
  | 'reader of one'
  | 'no role'
  | 'content key of one'
  | 'nobody';

const REFUSED = [401, 403, 404];
/** A WordPress export of one post (what an import reads first). */
const WXR = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Matrix</title><link>http://matrix.example.test</link><wp:wxr_version>1.2</wp:wxr_version>
<wp:base_blog_url>http://matrix.example.test</wp:base_blog_url>
<item><title>Imported</title><link>http://matrix.example.test/imported/</link>
<content:encoded><![CDATA[<p>Text</p>]]></content:encoded><wp:post_id>1</wp:post_id>
<wp:post_name>imported</wp:post_name><wp:status>publish</wp:status><wp:post_type>post</wp:post_type></item>
</channel></rss>`;
const SECRET = 'SECRET2';
const hasSecret = (response: LightMyRequestResponse) => response.body.includes(SECRET);
const hasRows = (response: LightMyRequestResponse) =>
  (response.json<{ data?: unknown[] }>().data ?? []).length > 0;

/** Routes not bound to a website: the caller's own (session, keys, profile) or reading what any writer may. */
const NOT_SITE_BOUND = new Set([
  'GET /api/v2/me',
  'PUT /api/v2/me/language',
  'GET /api/v2/session',
  'GET /api/v2/keys',
  'POST /api/v2/keys',
  'DELETE /api/v2/keys/{id}',
  'GET /api/v2/themes',
  'GET /api/v2/posts/slug-check',
  // Public content: what a visitor of website two reads anyway.
  'GET /api/v2/tags/{id}',
  'GET /api/v2/tags',
  'GET /api/v2/links',
  'GET /api/v2/links/{id}',
  'GET /api/v2/websites/{id}/menus',
  'GET /api/v2/websites/{id}/menus/{handle}',
  'GET /api/v2/menus/{id}',
  // A preview token is the permission itself (issue 37 #3): whoever holds it may read the draft.
  'GET /api/v2/preview/{token}',
]);

describe('authorization matrix (issue 34): every route x every caller x two websites', () => {
  let ctx: TestContext;
  let admin: TestUser;
  let writer2: TestUser; // writes website two's content
  let victim: TestUser; // an account administrators manage
  const callers = new Map<CallerName, string | null>();
  const f = {} as Record<string, number | string>;

  const png = () =>
    sharp({ create: { width: 8, height: 8, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
  const multipart = async () => {
    const boundary = `----folio${randomBytes(8).toString('hex')}`;
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="m.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      await png(),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return { payload, type: `multipart/form-data; boundary=${boundary}` };
  };

  const v2 = async (
    credential: string | null,
    method: Case['method'],
    url: string,
    host: string,
    body?: unknown,
    asMultipart = false,
    raw?: Case['raw'],
  ) => {
    const headers: Record<string, string> = { host };
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (raw) {
      headers['content-type'] = raw.type;
      return ctx.request({ method, url: `/api/v2${url}`, headers, payload: raw.body() });
    }
    if (asMultipart) {
      const form = await multipart();
      headers['content-type'] = form.type;
      return ctx.request({ method, url: `/api/v2${url}`, headers, payload: form.payload });
    }
    return ctx.request({
      method,
      url: `/api/v2${url}`,
      headers,
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  };
  /** An API v2 call as the administrator on website two, which must succeed (fixtures). */
  const made = async (method: Case['method'], url: string, body?: unknown) => {
    const response = await v2(admin.token, method, url, 'two.test', body);
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`);
    return response.statusCode === 204 ? null : response.json<{ data: Record<string, unknown> }>().data;
  };

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.services.settings.set('api_v2_rate_limit', '100000');
    f.site1 = await websiteWrites(ctx.services).create({ siteName: 'One', domain: 'one.test' });
    f.site2 = await websiteWrites(ctx.services).create({ siteName: 'Two', domain: 'two.test' });
    f.site3 = await websiteWrites(ctx.services).create({ siteName: 'Three', domain: 'three.test' });
    admin = await ctx.createUser({ admin: true });
    writer2 = await ctx.createUser();
    victim = await ctx.createUser();
    await ctx.services.memberships.grant(writer2.id, Number(f.site2), 'author');
    const roleOnOne = async (role: string) => {
      const user = await ctx.createUser();
      await ctx.services.memberships.grant(user.id, Number(f.site1), role);
      return user.token;
    };
    callers.set(
      'admin key limited to site one',
      (await ctx.services.apiKeys.create(admin.id, { name: 'one', websiteIds: [Number(f.site1)] })).secret,
    );
    callers.set('site admin of one', await roleOnOne('site_admin'));
    callers.set('editor of one', await roleOnOne('editor'));
    callers.set('author of one', await roleOnOne('author'));
    callers.set('contributor of one', await roleOnOne('contributor'));
    callers.set('reader of one', await roleOnOne('reader'));
    callers.set('no role', (await ctx.createUser()).token);
    callers.set(
      'content key of one',
      (
        await ctx.services.apiKeys.create(admin.id, {
          name: 'content',
          websiteIds: [Number(f.site1)],
          contentOnly: true,
        })
      ).secret,
    );
    callers.set('nobody', null);

    // Website two's content, some of it not public.
    const post = async (title: string, status = 'draft') =>
      Number((await made('POST', '/posts', { title, content: 'x', status, website_id: [f.site2] }))!.id);
    f.draft = await post(`${SECRET} draft`);
    // Two revisions of the draft (issue 37): its create and an update.
    await made('PATCH', `/posts/${f.draft}`, { title: `${SECRET} draft, again` });
    const revisionIds = await ctx.services.database.db
      .selectFrom('revisions')
      .select('id')
      .where('resource_type', '=', 'post')
      .where('resource_id', '=', f.draft)
      .orderBy('id')
      .execute();
    assert.equal(revisionIds.length, 2);
    f.revision = revisionIds[0]!.id;
    f.revision2 = revisionIds[1]!.id;
    f.published = await post('Public two', 'published');
    f.bulk = await post(`${SECRET} bulk`);
    f.toSubmit = await post(`${SECRET} to submit`);
    f.toDelete = await post(`${SECRET} to delete`);
    for (const name of ['toApprove', 'toReturn', 'returned']) {
      f[name] = await post(`${SECRET} ${name}`);
      await made('POST', `/posts/${f[name]}/submit`);
    }
    await made('POST', `/posts/${f.returned}/return`, { note: `${SECRET} note` });
    f.page = Number((await made('POST', '/pages', { title: `${SECRET} page`, content: 'x', status: 'draft', website_ids: [f.site2] }))!.id); // prettier-ignore
    // Two revisions of the draft page (issue 37): its create and an update.
    await made('PATCH', `/pages/${f.page}`, { title: `${SECRET} page, again` });
    const pageRevisions = await ctx.services.database.db
      .selectFrom('revisions')
      .select('id')
      .where('resource_type', '=', 'page')
      .where('resource_id', '=', Number(f.page))
      .orderBy('id')
      .execute();
    assert.equal(pageRevisions.length, 2);
    f.pageRevision = pageRevisions[0]!.id;
    f.pageRevision2 = pageRevisions[1]!.id;
    // Preview links and the administrator's autosaves of the drafts (issue 37); a save clears the
    // saver's autosave, so the cases keep one (PUT) just before they read it.
    await made('POST', `/posts/${f.draft}/preview-links`, {});
    await made('POST', `/pages/${f.page}/preview-links`, {});
    f.previewDel = Number((await made('POST', `/posts/${f.draft}/preview-links`, {}))!.id);
    await made('PUT', `/posts/${f.draft}/autosave`, { title: `${SECRET} autosave` });
    await made('PUT', `/pages/${f.page}/autosave`, { title: `${SECRET} autosave` });
    f.pageW = Number((await made('POST', '/pages', { title: 'Page w', content: 'x', website_ids: [f.site2] }))!.id); // prettier-ignore
    f.pageDel = Number((await made('POST', '/pages', { title: 'Page d', content: 'x', website_ids: [f.site2] }))!.id); // prettier-ignore
    f.tag = Number((await made('POST', '/tags', { name: 'Two tag', type: 'post_tag', website_ids: [f.site2] }))!.id); // prettier-ignore
    f.tagDel = Number((await made('POST', '/tags', { name: 'Two del', type: 'post_tag', website_ids: [f.site2] }))!.id); // prettier-ignore
    f.tagMerge = Number((await made('POST', '/tags', { name: 'Two merge', type: 'post_tag', website_ids: [f.site2] }))!.id); // prettier-ignore
    f.link = Number((await made('POST', '/links', { name: 'Two link', url: 'https://example.com/', website_ids: [f.site2] }))!.id); // prettier-ignore
    f.linkDel = Number((await made('POST', '/links', { name: 'Two link d', url: 'https://example.com/d', website_ids: [f.site2] }))!.id); // prettier-ignore
    f.menu = Number((await made('POST', `/websites/${f.site2}/menus`, { handle: 'two', name: 'Two' }))!.id);
    f.menuDel = Number((await made('POST', `/websites/${f.site2}/menus`, { handle: 'two-d', name: 'Two d' }))!.id); // prettier-ignore
    await made('POST', `/websites/${f.site2}/domains`, { domain: 'old-two.test' });
    const memberDel = await ctx.createUser();
    await ctx.services.memberships.grant(memberDel.id, Number(f.site2), 'reader');
    f.memberDel = memberDel.id;
    f.invite = Number((await made('POST', `/websites/${f.site2}/invites`, { email: 'invited@example.test', role: 'reader' }))!.id); // prettier-ignore
    f.inviteDel = Number((await made('POST', `/websites/${f.site2}/invites`, { email: 'invited2@example.test', role: 'reader' }))!.id); // prettier-ignore
    f.writerKey = (await ctx.services.apiKeys.create(writer2.id, { name: 'w2' })).key.id;
    // Webhooks of two (issue 38): their target is refused by the SSRF guard, so a test answers at once.
    const hookBody = { url: 'http://127.0.0.1:9/hook', events: ['post.published'] };
    f.hook = Number((await made('POST', `/websites/${f.site2}/webhooks`, hookBody))!.id);
    f.hookDel = Number((await made('POST', `/websites/${f.site2}/webhooks`, hookBody))!.id);
    f.delivery = Number((await made('POST', `/webhooks/${f.hook}/test`))!.id);
    f.job = (await ctx.services.jobs.enqueue('matrix-test', {}))!;
    // An export of two (issue 39), run to its end by the job queue, so that it can be downloaded.
    f.transfer = Number((await made('POST', '/exports', { website_id: f.site2 }))!.id);
    await ctx.services.jobs.runDue();
    for (const name of ['media', 'mediaDel']) {
      const form = await multipart();
      const uploaded = await ctx.request({
        method: 'POST',
        url: `/api/v2/media`,
        headers: { host: 'two.test', authorization: `Bearer ${admin.token}`, 'content-type': form.type },
        payload: form.payload,
      });
      assert.equal(uploaded.statusCode, 201, uploaded.body);
      f[name] = Number(uploaded.json<{ data: Array<{ id: number }> }>().data[0]!.id);
    }
    await made('PATCH', `/media/${f.media}?website=${f.site2}`, { alt: `${SECRET} alt` });
    f.comment = (
      await ctx.services.comments.store({
        postId: Number(f.published),
        content: `${SECRET} comment`,
        name: 'Ann',
        email: 'ann@example.test',
        user: null,
        websiteId: Number(f.site2),
        ipHash: '1'.padStart(64, '0'),
        userAgent: 'test',
      })
    ).id;
  });
  after(() => ctx.close());

  const s2 = () => f.site2;
  const cases: Case[] = [
    // Posts
    { name: 'list drafts', method: 'GET', route: '/posts', url: () => `/posts?filter[website]=${s2()}&filter[status]=draft`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    // A search reads its candidates from the whole index first (issue 40): the caller's filters still hold.
    { name: 'search drafts', method: 'GET', route: '/posts', url: () => `/posts?q=${SECRET}&sort=relevance&filter[website]=${s2()}&filter[status]=draft`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'show a draft', method: 'GET', route: '/posts/{id}', url: () => `/posts/${f.draft}`, kind: 'private-read' }, // prettier-ignore
    { name: 'create', method: 'POST', route: '/posts', url: () => '/posts', body: () => ({ title: 'Intruder', content: 'x', status: 'draft', website_id: [s2()] }), kind: 'write' }, // prettier-ignore
    { name: 'update', method: 'PATCH', route: '/posts/{id}', url: () => `/posts/${f.published}`, body: () => ({ title: 'Public two' }), kind: 'write' }, // prettier-ignore
    { name: 'submit', method: 'POST', route: '/posts/{id}/submit', url: () => `/posts/${f.toSubmit}/submit`, kind: 'write' }, // prettier-ignore
    { name: 'approve', method: 'POST', route: '/posts/{id}/approve', url: () => `/posts/${f.toApprove}/approve`, body: () => ({}), kind: 'write' }, // prettier-ignore
    { name: 'send back', method: 'POST', route: '/posts/{id}/return', url: () => `/posts/${f.toReturn}/return`, body: () => ({ note: 'No.' }), kind: 'write' }, // prettier-ignore
    { name: 'revisions', method: 'GET', route: '/posts/{id}/revisions', url: () => `/posts/${f.draft}/revisions`, kind: 'private-read', leaks: hasRows }, // prettier-ignore
    { name: 'a revision', method: 'GET', route: '/posts/{id}/revisions/{revision}', url: () => `/posts/${f.draft}/revisions/${f.revision}`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'compare revisions', method: 'GET', route: '/posts/{id}/revisions/compare', url: () => `/posts/${f.draft}/revisions/compare?from=${f.revision}&to=${f.revision2}`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'restore a revision', method: 'POST', route: '/posts/{id}/revisions/{revision}/restore', url: () => `/posts/${f.draft}/revisions/${f.revision}/restore`, body: () => ({}), kind: 'write' }, // prettier-ignore
    { name: 'issue a preview link', method: 'POST', route: '/posts/{id}/preview-links', url: () => `/posts/${f.draft}/preview-links`, body: () => ({}), kind: 'write' }, // prettier-ignore
    { name: 'preview links', method: 'GET', route: '/posts/{id}/preview-links', url: () => `/posts/${f.draft}/preview-links`, kind: 'private-read', leaks: hasRows }, // prettier-ignore
    { name: 'revoke a preview link', method: 'DELETE', route: '/preview-links/{id}', url: () => `/preview-links/${f.previewDel}`, kind: 'write' }, // prettier-ignore
    { name: 'autosave', method: 'PUT', route: '/posts/{id}/autosave', url: () => `/posts/${f.draft}/autosave`, body: () => ({ title: `${SECRET} autosave` }), kind: 'write' }, // prettier-ignore
    { name: 'an autosave', method: 'GET', route: '/posts/{id}/autosave', url: () => `/posts/${f.draft}/autosave`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'discard an autosave', method: 'DELETE', route: '/posts/{id}/autosave', url: () => `/posts/${f.draft}/autosave`, kind: 'write' }, // prettier-ignore
    { name: 'review step', method: 'GET', route: '/posts/{id}/review', url: () => `/posts/${f.returned}/review`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'review queue', method: 'GET', route: '/reviews', url: () => `/reviews?website=${s2()}`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'bulk publish', method: 'POST', route: '/posts/bulk', url: () => '/posts/bulk', body: () => ({ ids: [f.bulk], action: 'publish' }), kind: 'write', leaks: () => false }, // prettier-ignore
    { name: 'delete', method: 'DELETE', route: '/posts/{id}', url: () => `/posts/${f.toDelete}`, kind: 'write' }, // prettier-ignore
    // Audit, statistics
    { name: 'audit of two', method: 'GET', route: '/audit', url: () => `/audit?filter[website]=${s2()}`, kind: 'private-read', leaks: hasRows }, // prettier-ignore
    { name: 'stats of two', method: 'GET', route: '/stats', url: () => `/stats?website_id=${s2()}`, kind: 'private-read' }, // prettier-ignore
    // Comments
    { name: 'comments of two', method: 'GET', route: '/comments', url: () => `/comments?filter[website]=${s2()}`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'moderate', method: 'POST', route: '/comments/moderate', url: () => '/comments/moderate', body: () => ({ ids: [f.comment], action: 'approve', website_id: s2() }), kind: 'write' }, // prettier-ignore
    { name: 'reply', method: 'POST', route: '/comments/{id}/replies', url: () => `/comments/${f.comment}/replies`, body: () => ({ content: 'Thanks', website_id: s2() }), kind: 'write' }, // prettier-ignore
    { name: 'moderation rules', method: 'GET', route: '/comments/settings', url: () => `/comments/settings?website_id=${s2()}`, kind: 'private-read' }, // prettier-ignore
    { name: 'change moderation rules', method: 'PUT', route: '/comments/settings', url: () => '/comments/settings', body: () => ({ mode: 'all', website_id: s2() }), kind: 'write' }, // prettier-ignore
    // Websites
    { name: 'list websites', method: 'GET', route: '/websites', url: () => '/websites', kind: 'private-read', leaks: (r) => r.body.includes('two.test') }, // prettier-ignore
    { name: 'create a website', method: 'POST', route: '/websites', url: () => '/websites', body: () => ({ site_name: 'New', domain: `new-${randomBytes(3).toString('hex')}.test` }), kind: 'installation' }, // prettier-ignore
    { name: 'show website two', method: 'GET', route: '/websites/{id}', url: () => `/websites/${s2()}`, kind: 'private-read' }, // prettier-ignore
    { name: 'change website two', method: 'PATCH', route: '/websites/{id}', url: () => `/websites/${s2()}`, body: () => ({ site_slogan: 'Slogan' }), kind: 'write' }, // prettier-ignore
    { name: 'add a domain', method: 'POST', route: '/websites/{id}/domains', url: () => `/websites/${s2()}/domains`, body: () => ({ domain: `alias-${randomBytes(3).toString('hex')}.test` }), kind: 'write' }, // prettier-ignore
    { name: 'remove a domain', method: 'DELETE', route: '/websites/{id}/domains/{domain}', url: () => `/websites/${s2()}/domains/old-two.test`, kind: 'write' }, // prettier-ignore
    { name: 'usage of website two', method: 'GET', route: '/websites/{id}/usage', url: () => `/websites/${s2()}/usage`, kind: 'private-read' }, // prettier-ignore
    { name: 'domain check', method: 'POST', route: '/websites/{id}/domain-check', url: () => `/websites/${s2()}/domain-check`, body: () => ({ domain: 'two.test' }), kind: 'write', control: 'not-refused' }, // prettier-ignore
    { name: 'delete a website', method: 'DELETE', route: '/websites/{id}', url: () => `/websites/${f.site3}`, kind: 'installation' }, // prettier-ignore
    // Tags
    { name: 'create a tag on two', method: 'POST', route: '/tags', url: () => '/tags', body: () => ({ name: `T ${randomBytes(3).toString('hex')}`, type: 'post_tag', website_ids: [s2()] }), kind: 'write' }, // prettier-ignore
    { name: 'create an all-sites tag', method: 'POST', route: '/tags', url: () => '/tags', body: () => ({ name: `A ${randomBytes(3).toString('hex')}`, type: 'post_tag', website_ids: [] }), kind: 'installation' }, // prettier-ignore
    { name: 'rename a tag of two', method: 'PATCH', route: '/tags/{id}', url: () => `/tags/${f.tag}`, body: () => ({ sort: 3 }), kind: 'write' }, // prettier-ignore
    { name: 'merge a tag of two', method: 'POST', route: '/tags/{id}/merge', url: () => `/tags/${f.tagMerge}/merge`, body: () => ({ into: f.tag }), kind: 'write' }, // prettier-ignore
    { name: 'delete a tag of two', method: 'DELETE', route: '/tags/{id}', url: () => `/tags/${f.tagDel}?force=true`, kind: 'write' }, // prettier-ignore
    // Accounts
    { name: 'list accounts', method: 'GET', route: '/users', url: () => '/users', kind: 'installation' }, // prettier-ignore
    { name: 'show an account', method: 'GET', route: '/users/{id}', url: () => `/users/${victim.id}`, kind: 'installation' }, // prettier-ignore
    { name: 'disable an account', method: 'PATCH', route: '/users/{id}', url: () => `/users/${victim.id}`, body: () => ({ is_active: true }), kind: 'installation' }, // prettier-ignore
    { name: 'send a reset', method: 'POST', route: '/users/{id}/password-reset', url: () => `/users/${victim.id}/password-reset`, kind: 'installation' }, // prettier-ignore
    { name: 'another user\u2019s keys', method: 'GET', route: '/users/{id}/keys', url: () => `/users/${writer2.id}/keys`, kind: 'installation' }, // prettier-ignore
    { name: 'revoke another user\u2019s key', method: 'DELETE', route: '/users/{id}/keys/{key}', url: () => `/users/${writer2.id}/keys/${f.writerKey}`, kind: 'installation' }, // prettier-ignore
    // Members and invitations
    { name: 'members of two', method: 'GET', route: '/websites/{id}/members', url: () => `/websites/${s2()}/members`, kind: 'private-read' }, // prettier-ignore
    { name: 'add a member', method: 'POST', route: '/websites/{id}/members', url: () => `/websites/${s2()}/members`, body: () => ({ email: victim.email, role: 'reader' }), kind: 'write' }, // prettier-ignore
    { name: 'change a role', method: 'PUT', route: '/websites/{id}/members/{user}', url: () => `/websites/${s2()}/members/${writer2.id}`, body: () => ({ role: 'author' }), kind: 'write' }, // prettier-ignore
    { name: 'remove a member', method: 'DELETE', route: '/websites/{id}/members/{user}', url: () => `/websites/${s2()}/members/${f.memberDel}`, kind: 'write' }, // prettier-ignore
    { name: 'invitations of two', method: 'GET', route: '/websites/{id}/invites', url: () => `/websites/${s2()}/invites`, kind: 'private-read' }, // prettier-ignore
    { name: 'invite', method: 'POST', route: '/websites/{id}/invites', url: () => `/websites/${s2()}/invites`, body: () => ({ email: `i${randomBytes(3).toString('hex')}@example.test`, role: 'reader' }), kind: 'write' }, // prettier-ignore
    { name: 'withdraw an invitation', method: 'DELETE', route: '/websites/{id}/invites/{invite}', url: () => `/websites/${s2()}/invites/${f.inviteDel}`, kind: 'write' }, // prettier-ignore
    // Pages
    { name: 'list pages', method: 'GET', route: '/pages', url: () => `/pages?filter[website]=${s2()}`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'show a draft page', method: 'GET', route: '/pages/{id}', url: () => `/pages/${f.page}`, kind: 'private-read' }, // prettier-ignore
    { name: 'create a page', method: 'POST', route: '/pages', url: () => '/pages', body: () => ({ title: `P ${randomBytes(3).toString('hex')}`, content: 'x', website_ids: [s2()] }), kind: 'write' }, // prettier-ignore
    { name: 'change a page', method: 'PATCH', route: '/pages/{id}', url: () => `/pages/${f.pageW}`, body: () => ({ title: 'Page w' }), kind: 'write' }, // prettier-ignore
    { name: 'page revisions', method: 'GET', route: '/pages/{id}/revisions', url: () => `/pages/${f.page}/revisions`, kind: 'private-read', leaks: hasRows }, // prettier-ignore
    { name: 'a page revision', method: 'GET', route: '/pages/{id}/revisions/{revision}', url: () => `/pages/${f.page}/revisions/${f.pageRevision}`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'compare page revisions', method: 'GET', route: '/pages/{id}/revisions/compare', url: () => `/pages/${f.page}/revisions/compare?from=${f.pageRevision}&to=${f.pageRevision2}`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'restore a page revision', method: 'POST', route: '/pages/{id}/revisions/{revision}/restore', url: () => `/pages/${f.page}/revisions/${f.pageRevision}/restore`, body: () => ({}), kind: 'write' }, // prettier-ignore
    { name: 'issue a page preview link', method: 'POST', route: '/pages/{id}/preview-links', url: () => `/pages/${f.page}/preview-links`, body: () => ({}), kind: 'write' }, // prettier-ignore
    { name: 'page preview links', method: 'GET', route: '/pages/{id}/preview-links', url: () => `/pages/${f.page}/preview-links`, kind: 'private-read', leaks: hasRows }, // prettier-ignore
    { name: 'autosave a page', method: 'PUT', route: '/pages/{id}/autosave', url: () => `/pages/${f.page}/autosave`, body: () => ({ title: `${SECRET} autosave` }), kind: 'write' }, // prettier-ignore
    { name: 'a page autosave', method: 'GET', route: '/pages/{id}/autosave', url: () => `/pages/${f.page}/autosave`, kind: 'private-read', leaks: hasSecret }, // prettier-ignore
    { name: 'discard a page autosave', method: 'DELETE', route: '/pages/{id}/autosave', url: () => `/pages/${f.page}/autosave`, kind: 'write' }, // prettier-ignore
    { name: 'delete a page', method: 'DELETE', route: '/pages/{id}', url: () => `/pages/${f.pageDel}?force=true`, kind: 'write' }, // prettier-ignore
    // Menus
    { name: 'create a menu', method: 'POST', route: '/websites/{id}/menus', url: () => `/websites/${s2()}/menus`, body: () => ({ handle: `m-${randomBytes(3).toString('hex')}`, name: 'M' }), kind: 'write' }, // prettier-ignore
    { name: 'rename a menu', method: 'PATCH', route: '/menus/{id}', url: () => `/menus/${f.menu}`, body: () => ({ name: 'Two' }), kind: 'write' }, // prettier-ignore
    { name: 'rebuild a menu', method: 'PUT', route: '/menus/{id}/items', url: () => `/menus/${f.menu}/items`, body: () => ({ items: [] }), kind: 'write' }, // prettier-ignore
    { name: 'delete a menu', method: 'DELETE', route: '/menus/{id}', url: () => `/menus/${f.menuDel}`, kind: 'write' }, // prettier-ignore
    // Media
    { name: 'library of two', method: 'GET', route: '/media', url: () => `/media?filter[website]=${s2()}`, kind: 'private-read', leaks: hasRows }, // prettier-ignore
    { name: 'upload to two', method: 'POST', route: '/media', url: () => `/media?website=${s2()}`, multipart: true, kind: 'write' }, // prettier-ignore
    { name: 'show an item of two', method: 'GET', route: '/media/{id}', url: () => `/media/${f.media}?website=${s2()}`, kind: 'private-read' }, // prettier-ignore
    { name: 'usage of an item of two', method: 'GET', route: '/media/{id}/usage', url: () => `/media/${f.media}/usage?website=${s2()}`, kind: 'private-read' }, // prettier-ignore
    { name: 'change an item of two', method: 'PATCH', route: '/media/{id}', url: () => `/media/${f.media}?website=${s2()}`, body: () => ({ caption: 'c' }), kind: 'write' }, // prettier-ignore
    { name: 'delete an item of two', method: 'DELETE', route: '/media/{id}', url: () => `/media/${f.mediaDel}?website=${s2()}&force=true`, kind: 'write' }, // prettier-ignore
    // Links
    { name: 'create a link', method: 'POST', route: '/links', url: () => '/links', body: () => ({ name: 'L', url: 'https://example.com/l', website_ids: [s2()] }), kind: 'write' }, // prettier-ignore
    { name: 'change a link', method: 'PATCH', route: '/links/{id}', url: () => `/links/${f.link}`, body: () => ({ name: 'Two link' }), kind: 'write' }, // prettier-ignore
    { name: 'delete a link', method: 'DELETE', route: '/links/{id}', url: () => `/links/${f.linkDel}`, kind: 'write' }, // prettier-ignore
    // The installation
    { name: 'API switches', method: 'GET', route: '/api-switches', url: () => '/api-switches', kind: 'installation' }, // prettier-ignore
    { name: 'test mail', method: 'POST', route: '/mail/test', url: () => '/mail/test', kind: 'installation' }, // prettier-ignore
    { name: 'settings', method: 'GET', route: '/settings', url: () => '/settings', kind: 'installation' }, // prettier-ignore
    { name: 'change settings', method: 'PATCH', route: '/settings', url: () => '/settings', body: () => ({ site_matrix_probe: '1' }), kind: 'installation' }, // prettier-ignore
    { name: 'flush every cache', method: 'POST', route: '/cache/flush', url: () => '/cache/flush', body: () => ({}), kind: 'installation' }, // prettier-ignore
    { name: 'flush website two', method: 'POST', route: '/cache/flush', url: () => '/cache/flush', body: () => ({ website_id: s2() }), kind: 'write' }, // prettier-ignore
    { name: 'update the core', method: 'POST', route: '/updates', url: () => '/updates', body: () => ({ package: 'folio', version: '9.9.9' }), kind: 'installation', control: 'not-refused' }, // prettier-ignore
    { name: 'update progress', method: 'GET', route: '/updates/progress', url: () => '/updates/progress', kind: 'installation' }, // prettier-ignore
    { name: 'health', method: 'GET', route: '/system/health', url: () => '/system/health', kind: 'installation' }, // prettier-ignore
    { name: 'webhooks of two', method: 'GET', route: '/websites/{id}/webhooks', url: () => `/websites/${s2()}/webhooks`, kind: 'private-read' }, // prettier-ignore
    { name: 'add a webhook to two', method: 'POST', route: '/websites/{id}/webhooks', url: () => `/websites/${s2()}/webhooks`, body: () => ({ url: 'https://example.com/h', events: ['post.published'] }), kind: 'write' }, // prettier-ignore
    { name: 'a webhook of two', method: 'GET', route: '/webhooks/{id}', url: () => `/webhooks/${f.hook}`, kind: 'private-read' }, // prettier-ignore
    { name: 'change a webhook of two', method: 'PATCH', route: '/webhooks/{id}', url: () => `/webhooks/${f.hook}`, body: () => ({ active: true }), kind: 'write' }, // prettier-ignore
    { name: 'delete a webhook of two', method: 'DELETE', route: '/webhooks/{id}', url: () => `/webhooks/${f.hookDel}`, kind: 'write' }, // prettier-ignore
    { name: 'deliveries of a webhook of two', method: 'GET', route: '/webhooks/{id}/deliveries', url: () => `/webhooks/${f.hook}/deliveries`, kind: 'private-read' }, // prettier-ignore
    { name: 'redeliver to a webhook of two', method: 'POST', route: '/webhooks/{id}/deliveries/{delivery}/redeliver', url: () => `/webhooks/${f.hook}/deliveries/${f.delivery}/redeliver`, kind: 'write' }, // prettier-ignore
    { name: 'test a webhook of two', method: 'POST', route: '/webhooks/{id}/test', url: () => `/webhooks/${f.hook}/test`, kind: 'write' }, // prettier-ignore
    { name: 'installation webhooks', method: 'GET', route: '/webhooks', url: () => '/webhooks', kind: 'installation' }, // prettier-ignore
    { name: 'add an installation webhook', method: 'POST', route: '/webhooks', url: () => '/webhooks', body: () => ({ url: 'https://example.com/i', events: ['user.registered'] }), kind: 'installation' }, // prettier-ignore
    { name: 'jobs', method: 'GET', route: '/jobs', url: () => '/jobs', kind: 'installation' }, // prettier-ignore
    { name: 'export two', method: 'POST', route: '/exports', url: () => '/exports', body: () => ({ website_id: f.site2 }), kind: 'write' }, // prettier-ignore
    { name: 'transfers (two\u2019s export among them)', method: 'GET', route: '/transfers', url: () => '/transfers', kind: 'private-read', leaks: (r) => r.json<{ data: Array<{ id: number }> }>().data.some((t) => t.id === Number(f.transfer)) }, // prettier-ignore
    { name: 'an export of two', method: 'GET', route: '/transfers/{id}', url: () => `/transfers/${f.transfer}`, kind: 'private-read' }, // prettier-ignore
    { name: 'download an export of two', method: 'GET', route: '/exports/{id}/download', url: () => `/exports/${f.transfer}/download`, kind: 'private-read' }, // prettier-ignore
    { name: 'import into two (a dry run)', method: 'POST', route: '/imports', url: () => `/imports?website_id=${s2()}&dry_run=true`, raw: { type: 'application/octet-stream', body: () => WXR }, kind: 'installation' }, // prettier-ignore
    { name: 'retry a job', method: 'POST', route: '/jobs/{id}/retry', url: () => `/jobs/${f.job}/retry`, kind: 'installation' }, // prettier-ignore
  ];

  it('classifies every API v2 route (a new route joins the matrix)', async () => {
    const document = (await ctx.request({ method: 'GET', url: '/api/v2/openapi.json' })).json<{
      paths: Record<string, Record<string, unknown>>;
    }>();
    const covered = new Set(cases.map((c) => `${c.method} /api/v2${c.route}`));
    const unclassified: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) {
        const key = `${method.toUpperCase()} ${path}`;
        if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(method.toUpperCase())) continue;
        if (!covered.has(key) && !NOT_SITE_BOUND.has(key)) unclassified.push(key);
      }
    }
    assert.deepEqual(unclassified, []);
  });

  for (const c of cases) {
    it(`${c.kind}: ${c.method} ${c.route} (${c.name})`, async () => {
      for (const host of ['one.test', 'two.test']) {
        for (const [caller, credential] of callers) {
          const response = await v2(credential, c.method, c.url(), host, c.body?.(), c.multipart, c.raw);
          const what = `${caller} on ${host}: ${response.statusCode} ${response.body.slice(0, 300)}`;
          if (process.env.MATRIX_DEBUG) console.log('DBG', c.name, what.slice(0, 160));
          if (REFUSED.includes(response.statusCode)) continue;
          // A read refused as invalid for this caller (a visitor asking for drafts) reveals nothing.
          if (c.kind === 'private-read' && response.statusCode >= 400 && response.statusCode < 500) continue;
          if (c.kind === 'private-read' && response.statusCode === 200 && c.leaks) {
            assert.ok(!c.leaks(response), `leaks website two's private content to ${what}`);
            continue;
          }
          if (c.name === 'bulk publish' && response.statusCode === 200) {
            assert.equal((await ctx.services.posts.findDetail(Number(f.bulk)))?.status, 'draft', what);
            continue;
          }
          assert.fail(`not refused: ${what}`);
        }
      }
      // The control: the installation's administrator carries the same request out.
      const control = await v2(admin.token, c.method, c.url(), 'two.test', c.body?.(), c.multipart, c.raw);
      if (c.control === 'not-refused') {
        assert.ok(
          !REFUSED.includes(control.statusCode),
          `administrator: ${control.statusCode} ${control.body}`,
        );
      } else {
        assert.ok(control.statusCode < 300, `administrator: ${control.statusCode} ${control.body}`);
        if (c.leaks && c.name !== 'bulk publish')
          assert.ok(c.leaks(control), `the control sees what others may not: ${control.body.slice(0, 300)}`);
      }
    });
  }

  describe('API v1, through website one\u2019s Host', () => {
    const v1 = (
      credential: string | null,
      url: string,
      payload: Record<string, unknown> = {},
      host = 'one.test',
    ) =>
      ctx.request({
        method: 'POST',
        url: `/api/v1${url}`,
        headers: { host, ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
        payload,
      });
    const v1Cases: Array<{ name: string; url: () => string; body: () => Record<string, unknown>; leaks?: (r: LightMyRequestResponse) => boolean }> = [
      { name: 'show a draft of two', url: () => `/posts/${f.draft}`, body: () => ({}) },
      { name: 'update a post of two', url: () => `/posts/update/${f.published}`, body: () => ({ title: 'Public two' }) },
      { name: 'create on two', url: () => '/posts/store', body: () => ({ title: 'Intruder', content: 'x', website_id: s2() }) },
      { name: 'tag on two', url: () => '/tags/store', body: () => ({ name: `V1 ${randomBytes(3).toString('hex')}`, type: 'post_tag', website_id: s2() }) },
      { name: 'sync the menu of two', url: () => '/menus/sync', body: () => ({ website_id: s2(), menu_items: [{ order: 1, name: 'Home', type: 'link', url: 'https://example.com/' }] }) },
      { name: 'list websites', url: () => '/websites', body: () => ({}), leaks: (r) => r.body.includes('two.test') },
      { name: 'update website two', url: () => `/websites/update/${s2()}`, body: () => ({ site_slogan: 'x' }) },
      { name: 'create a website', url: () => '/websites/store', body: () => ({ site_name: 'N', domain: `v1-${randomBytes(3).toString('hex')}.test` }) },
      { name: 'delete a post of two', url: () => `/posts/delete/${f.published}`, body: () => ({}) },
    ]; // prettier-ignore
    for (const c of v1Cases) {
      it(`API v1 ${c.url()} (${c.name})`, async () => {
        for (const [caller, credential] of callers) {
          if (credential === null) continue; // endpoints in `none` mode answer visitors as visitors
          const response = await v1(credential, c.url(), c.body());
          const what = `${caller}: ${response.statusCode} ${response.body.slice(0, 300)}`;
          if (REFUSED.includes(response.statusCode)) continue;
          if (c.leaks && response.statusCode === 200) {
            assert.ok(!c.leaks(response), `leaks to ${what}`);
            continue;
          }
          assert.fail(`not refused: ${what}`);
        }
        const control = await v1(admin.token, c.url(), c.body());
        assert.ok(control.statusCode < 300, `administrator: ${control.statusCode} ${control.body}`);
      });
    }
  });
});
