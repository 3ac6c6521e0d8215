// Invitations by email (issue 25 #7): those who manage a website's members invite an address to a
// role through API v2; the mail's one-time link lets a new person make an account and join, or an
// existing one sign in and accept; a link works once, and a withdrawn one not at all.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import { Visitor } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

describe('invitations', () => {
  let ctx: TestContext;
  let site: number;
  let siteAdmin: TestUser;
  let editor: TestUser;
  let mailer: RecordingMailer;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Club', domain: 'club.test' });
    siteAdmin = await ctx.createUser();
    editor = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    await ctx.services.memberships.grant(editor.id, site, 'editor');
  });
  beforeEach(() => {
    mailer = new RecordingMailer();
    ctx.services.mailer = mailer;
  });
  after(() => ctx.close());

  const invite = (as: TestUser, body: unknown) =>
    ctx.request({
      method: 'POST',
      url: `/api/v2/websites/${site}/invites`,
      headers: { host: 'club.test', authorization: `Bearer ${as.token}` },
      payload: body as Record<string, unknown>,
    });
  /** The link of the last mail, as a path on the website. */
  const linkOf = async () => {
    for (let wait = 0; wait < 50 && mailer.sent.length === 0; wait++)
      await new Promise((r) => setTimeout(r, 10));
    const text = mailer.sent.at(-1)?.text ?? '';
    const url = /https?:\/\/\S+\/user\/invite\/\S+/.exec(text)?.[0];
    assert.ok(url, `no invitation link in: ${text}`);
    assert.match(url, /^http:\/\/club\.test[:/]/, 'the link names the website\u2019s primary domain');
    return new URL(url).pathname;
  };

  it('a new person: the site admin invites, the link makes their account, joins them and signs them in; once only', async () => {
    const created = await invite(siteAdmin, { email: 'New.Person@Example.test', role: 'editor' });
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.json().data.email, 'new.person@example.test');
    const path = await linkOf();
    assert.equal(mailer.sent.at(-1)?.to, 'new.person@example.test');
    const listed = await ctx.request({
      method: 'GET',
      url: `/api/v2/websites/${site}/invites`,
      headers: { host: 'club.test', authorization: `Bearer ${siteAdmin.token}` },
    });
    assert.ok(listed.json().data.some((item: { email: string }) => item.email === 'new.person@example.test'));

    const visitor = new Visitor(ctx, 'club.test');
    const page = await visitor.get(path);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /as <strong>editor<\/strong>/);
    assert.equal(page.headers['referrer-policy'], 'same-origin');
    assert.equal((await visitor.post(path, { name: 'New Person', password: 'long enough' })).statusCode, 403);
    const short = await visitor.submit(path, path, { name: 'New Person', password: 'short' });
    assert.equal(short.statusCode, 422);
    assert.match(short.body, /aria-invalid="true"/);
    const joined = await visitor.submit(path, path, { name: 'New Person', password: 'long enough' });
    assert.equal(joined.statusCode, 303, joined.body);
    assert.equal(joined.headers.location, '/admin');
    const user = await ctx.services.users.findByEmail('new.person@example.test');
    assert.ok(user);
    assert.equal(await ctx.services.memberships.roleOn(user.id, site), 'editor');
    assert.equal((await visitor.get('/user/profile')).statusCode, 200, 'signed in');
    assert.equal((await new Visitor(ctx, 'club.test').get(path)).statusCode, 404, 'the link worked once');
  });

  it('an existing account signs in as the invited address to accept; another account cannot', async () => {
    const existing = await ctx.createUser({ password: 'existing password' });
    assert.equal((await invite(siteAdmin, { email: existing.email, role: 'author' })).statusCode, 201);
    const path = await linkOf();
    const stranger = new Visitor(ctx, 'club.test');
    assert.match((await stranger.get(path)).body, /sign in<\/a> to accept/);
    // Making an account for an address that has one is refused.
    // (The page has no form then: the token comes from another form of the site.)
    const taken = await stranger.submit('/user/login', path, { name: 'Impostor', password: 'long enough' });
    assert.equal(taken.statusCode, 422);

    const other = await ctx.createUser({ password: 'other password' });
    const wrong = new Visitor(ctx, 'club.test');
    await wrong.logIn(other.email, 'other password');
    assert.match((await wrong.get(path)).body, /signed in with another address/);
    assert.equal((await wrong.submit('/user/profile', path, {})).statusCode, 403);
    assert.equal(await ctx.services.memberships.roleOn(other.id, site), null);

    const owner = new Visitor(ctx, 'club.test');
    await owner.logIn(existing.email, 'existing password');
    assert.match((await owner.get(path)).body, /Accept the invitation/);
    assert.equal((await owner.submit(path, path, {})).statusCode, 303);
    assert.equal(await ctx.services.memberships.roleOn(existing.id, site), 'author');
  });

  it('who may invite, and what: site admins every role but site admin; editors nobody; members not twice', async () => {
    assert.equal(
      (await invite(siteAdmin, { email: 'boss@example.test', role: 'site_admin' })).statusCode,
      403,
    );
    assert.equal((await invite(editor, { email: 'friend@example.test', role: 'author' })).statusCode, 403);
    assert.equal((await invite(siteAdmin, { email: editor.email, role: 'author' })).statusCode, 422);
    assert.equal((await invite(siteAdmin, { email: 'not an email', role: 'author' })).statusCode, 422);
    assert.equal((await invite(siteAdmin, { email: 'x@example.test', role: 'owner' })).statusCode, 422);
    assert.equal(mailer.sent.length, 0, 'no mail for a refused invitation');
  });

  it('a withdrawn invitation\u2019s link is dead', async () => {
    const created = await invite(siteAdmin, { email: 'later@example.test', role: 'reader' });
    const path = await linkOf();
    const withdrawn = await ctx.request({
      method: 'DELETE',
      url: `/api/v2/websites/${site}/invites/${created.json().data.id}`,
      headers: { host: 'club.test', authorization: `Bearer ${siteAdmin.token}` },
    });
    assert.equal(withdrawn.statusCode, 204);
    assert.equal((await new Visitor(ctx, 'club.test').get(path)).statusCode, 404);
    const audit = await ctx.services.database.db
      .selectFrom('audit_log')
      .select('action')
      .where('action', 'like', 'invite.%')
      .execute();
    assert.ok(audit.some((entry) => entry.action === 'invite.revoke'));
    assert.ok(audit.some((entry) => entry.action === 'invite.accept'));
  });

  it('issue 34 #10: invitations are limited per inviting person and per website (429 with Retry-After)', async () => {
    const team = await websiteWrites(ctx.services).create({ siteName: 'Team', domain: 'team.test' });
    const managers = [await ctx.createUser(), await ctx.createUser(), await ctx.createUser()];
    for (const manager of managers) await ctx.services.memberships.grant(manager.id, team, 'site_admin');
    const send = (as: TestUser, n: number) =>
      ctx.request({
        method: 'POST',
        url: `/api/v2/websites/${team}/invites`,
        headers: { host: 'team.test', authorization: `Bearer ${as.token}` },
        payload: { email: `guest${n}@example.test`, role: 'reader' },
      });
    let n = 0;
    for (let i = 0; i < 20; i++) assert.equal((await send(managers[0]!, n++)).statusCode, 201);
    const refused = await send(managers[0]!, n++);
    assert.equal(refused.statusCode, 429, refused.body);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.equal(refused.json().type, '/api/v2/docs#problem-rate-limit');
    assert.match(refused.json().detail, /at most 20 an hour from one person/);
    // Another manager goes on, until the website has had its 50 of the day.
    for (let i = 0; i < 20; i++) assert.equal((await send(managers[1]!, n++)).statusCode, 201);
    for (let i = 0; i < 10; i++) assert.equal((await send(managers[2]!, n++)).statusCode, 201);
    const full = await send(managers[2]!, n);
    assert.equal(full.statusCode, 429);
    assert.match(full.json().detail, /at most 50 a day to one website/);
    const sent = await ctx.services.database.db
      .selectFrom('invites')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('website_id', '=', team)
      .executeTakeFirst();
    assert.equal(Number(sent?.n), 50, 'a refused invitation is not stored');
  });

  it('issue 34 #10: the free-text site name stays out of the subject, cleaned in the body', async () => {
    const odd = await websiteWrites(ctx.services).create({
      siteName:
        'Prize\r\nClaim yours at https://evil.example/win \u202eecnalab\u202c now' + ' padding'.repeat(20),
      domain: 'odd.test',
    });
    const boss = await ctx.createUser();
    await ctx.services.memberships.grant(boss.id, odd, 'site_admin');
    const created = await ctx.request({
      method: 'POST',
      url: `/api/v2/websites/${odd}/invites`,
      headers: { host: 'odd.test', authorization: `Bearer ${boss.token}` },
      payload: { email: 'reader@example.test', role: 'reader' },
    });
    assert.equal(created.statusCode, 201, created.body);
    for (let wait = 0; wait < 50 && mailer.sent.length === 0; wait++)
      await new Promise((r) => setTimeout(r, 10));
    const mail = mailer.sent.at(-1)!;
    assert.equal(mail.subject, 'Your invitation to odd.test');
    const line = mail.text.split('\n').find((text) => text.startsWith('You are invited'))!;
    assert.ok(line, mail.text);
    assert.doesNotMatch(mail.text, /https:\/\/evil/);
    assert.doesNotMatch(mail.text, /[\r\u202e\u202c]/);
    assert.doesNotMatch(mail.text, /\nClaim yours/);
    const quoted = /\u201c([^\u201d]*)\u201d/.exec(line)?.[1] ?? '';
    assert.ok([...quoted].length <= 60, quoted);
    assert.match(quoted, /^Prize Claim yours at evil\.example\/win ecnalab now padding/);
    assert.match(line, /\(odd\.test\) as reader/);
  });
});
