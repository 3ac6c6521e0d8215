// Accounts of the public site over real HTTP (spec 4.8, R-F1 `frontend.users.*`): login (form and
// JSON), sessions in signed cookies, rotation, logout, CSRF refusal, attempt limits, registration
// confirmed by mail (no user enumeration), password reset by mail, profile and settings, and the cache
// headers of pages that depend on a session (issue 8 parts 1 and 6).
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { sql } from 'kysely';
import { redactUrl } from '../../src/app.js';
import { ForbiddenError } from '../../src/domain/errors.js';
import { dialectOf } from '../../src/domain/posts/search.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext, exposeRouteNames, manualClock, testRedisUrl } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import { Visitor, tokenIn } from '../support/visitor.js';
import { eventually } from '../support/wait.js';
import { websiteWrites } from '../support/website-writes.js';

describe('accounts', () => {
  let ctx: TestContext;
  let mailer: RecordingMailer;
  const clock = manualClock(new Date());
  let addressCounter = 0;
  /** Every test gets its own client address, so attempt counters never cross tests. */
  const visitor = () =>
    new Visitor(ctx, 'site.test', `10.0.${Math.floor(++addressCounter / 250)}.${addressCounter % 250}`);

  before(async () => {
    ctx = await createTestContext({
      clock,
      extend: exposeRouteNames,
    });
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
  });
  beforeEach(() => {
    mailer = new RecordingMailer();
    ctx.services.mailer = mailer;
  });
  after(() => ctx.close());

  const sessionCookie = (response: { cookies: Array<{ name: string }> }) =>
    (
      response.cookies as Array<{
        name: string;
        value: string;
        httpOnly?: boolean;
        sameSite?: string;
        maxAge?: number;
        path?: string;
      }>
    ).find((cookie) => cookie.name === 'folio_session');

  describe('login', () => {
    let user: TestUser;
    before(async () => (user = await ctx.createUser({ password: 'correct horse battery' })));

    it('R-F1 users.login: the form carries a CSRF token, and is never cached', async () => {
      const response = await visitor().get('/user/login');
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-test-route-name'], 'frontend.users.login');
      assert.ok(tokenIn(response.body));
      assert.match(String(response.headers['set-cookie']), /folio_csrf=.*HttpOnly.*SameSite=Lax/i);
      assert.equal(response.headers['cache-control'], 'private, no-store');
      assert.match(response.body, /action="\/user\/login\/submit"/);
    });

    it('a right password starts a session in a signed, HttpOnly, SameSite=Lax cookie', async () => {
      const client = visitor();
      const response = await client.submit('/user/login', '/user/login/submit', {
        email: user.email.toUpperCase(),
        password: user.password,
      });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/');
      assert.equal(response.headers['cache-control'], 'private, no-store');
      const cookie = sessionCookie(response);
      assert.ok(cookie);
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      assert.equal(cookie.path, '/');
      assert.equal(cookie.maxAge, 7 * 24 * 3600);
      assert.match(cookie.value, /^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]+$/);
      const home = await client.get('/');
      assert.match(home.body, /data-user-name>User \d+</);
      assert.equal(home.headers['cache-control'], 'private, no-store', 'a page for a session is private');
    });

    it('the session id is stored hashed: the table never holds the cookie value', async () => {
      const client = visitor();
      await client.logIn(user.email, user.password);
      const id = (client.cookies.get('folio_session') as string).split('.')[0] as string;
      if (!testRedisUrl) {
        const rows = await ctx.services.database.db.selectFrom('sessions').selectAll().execute();
        assert.ok(rows.length > 0);
        assert.ok(rows.every((row) => row.token_hash !== id && /^[0-9a-f]{64}$/.test(row.token_hash)));
      }
      assert.equal((await ctx.services.sessions.userOf(id))?.id, user.id);
    });

    it('unknown email and wrong password get the same answer (no user enumeration)', async () => {
      const wrong = await visitor().submit('/user/login', '/user/login/submit', {
        email: user.email,
        password: 'not the password',
      });
      const unknown = await visitor().submit('/user/login', '/user/login/submit', {
        email: 'nobody@example.test',
        password: 'not the password',
      });
      assert.equal(wrong.statusCode, 422);
      assert.equal(unknown.statusCode, 422);
      const message = (body: string) => /role="alert"[^>]*>([^<]*)</.exec(body)?.[1];
      assert.equal(message(wrong.body), 'These credentials do not match our records.');
      assert.equal(message(unknown.body), message(wrong.body));
      assert.equal(sessionCookie(wrong), undefined);
      // The form keeps the email, never the password.
      assert.match(unknown.body, /value="nobody@example.test"/);
      assert.doesNotMatch(unknown.body, /not the password/);
    });

    it('missing fields are named in the messages', async () => {
      const response = await visitor().submit('/user/login', '/user/login/submit', {
        email: '',
        password: '',
      });
      assert.equal(response.statusCode, 422);
      assert.match(response.body, /The password field is required\./);
    });

    it('logging in rotates the session: a planted or previous session id is worth nothing after it', async () => {
      const client = visitor();
      await client.logIn(user.email, user.password);
      const before = client.cookies.get('folio_session') as string;
      // Signed in, the login form redirects; a login posted anyway (another tab) starts a new session.
      assert.equal((await client.get('/user/login')).statusCode, 302);
      const again = await client.submit('/', '/user/login/submit', {
        email: user.email,
        password: user.password,
      });
      assert.equal(again.statusCode, 303);
      const after = client.cookies.get('folio_session') as string;
      assert.notEqual(after, before);
      assert.equal(await ctx.services.sessions.userOf(before.split('.')[0] as string), null);
    });

    it('after login, only a local path is a redirect target (no open redirect)', async () => {
      const targets: Array<[string, string]> = [
        ['/user/profile?tab=1', '/user/profile?tab=1'],
        ['//evil.test/x', '/'],
        ['https://evil.test/', '/'],
        ['/\\evil.test', '/'],
        ['javascript:alert(1)', '/'],
        ['/%0d%0aSet-Cookie:x=1', '/%0d%0aSet-Cookie:x=1'],
        // Issue 21 #6: paths that normalize into a protocol-relative URL.
        ['/%2e//evil.test/x', '/'],
        ['/.//evil.test/x', '/'],
        ['/%2E%2E//evil.test', '/'],
        ['/%2e/\\evil.test', '/'],
      ];
      for (const [redirect, expected] of targets) {
        const response = await visitor().submit('/user/login', '/user/login/submit', {
          email: user.email,
          password: user.password,
          redirect,
        });
        assert.equal(response.headers.location, expected, redirect);
      }
    });

    it('issue 21 #6: a signed-in visitor sent to the login form is redirected only to a local path', async () => {
      const client = visitor();
      await client.logIn(user.email, user.password);
      const response = await client.get('/user/login?redirect=/%2e//evil.test/x');
      assert.equal(response.headers.location, '/');
    });

    it('the login form keeps a safe redirect from its query and drops an unsafe one', async () => {
      assert.match(
        (await visitor().get('/user/login?redirect=/post/create')).body,
        /name="redirect" value="\/post\/create"/,
      );
      assert.match(
        (await visitor().get('/user/login?redirect=//evil.test')).body,
        /name="redirect" value=""/,
      );
    });

    it('a tampered session cookie is no session', async () => {
      const client = visitor();
      await client.logIn(user.email, user.password);
      const [id, mac] = (client.cookies.get('folio_session') as string).split('.') as [string, string];
      // A changed character inside the signature (the last one may carry padding bits only).
      const flip = (text: string, at: number) =>
        `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
      client.cookies.set('folio_session', `${id}.${flip(mac, 5)}`);
      assert.doesNotMatch((await client.get('/')).body, /data-user-name/);
      client.cookies.set('folio_session', `${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}.${mac}`);
      assert.doesNotMatch((await client.get('/')).body, /data-user-name/);
    });

    it('a disabled user is signed out at once', async () => {
      const other = await ctx.createUser();
      const client = visitor();
      await client.logIn(other.email, other.password);
      assert.match((await client.get('/')).body, /data-user-name/);
      await ctx.services.users.setActive(other.id, false);
      assert.doesNotMatch((await client.get('/')).body, /data-user-name/);
      const again = await visitor().submit('/user/login', '/user/login/submit', {
        email: other.email,
        password: other.password,
      });
      assert.equal(again.statusCode, 422);
    });

    it(
      'a session ends after its lifetime (setting session_lifetime, minutes)',
      { skip: testRedisUrl ? 'Redis expires sessions on its own clock' : false },
      async () => {
        await ctx.services.settings.set('session_lifetime', '30');
        try {
          const client = visitor();
          await client.logIn(user.email, user.password);
          clock.advance(29 * 60_000);
          assert.match((await client.get('/')).body, /data-user-name/);
          clock.advance(2 * 60_000);
          assert.doesNotMatch((await client.get('/')).body, /data-user-name/);
        } finally {
          await ctx.services.settings.delete('session_lifetime');
        }
      },
    );

    it('R-F3: the login form is served under a locale prefix, posting to the prefixed action', async () => {
      await ctx.services.settings.set('supported_locales', 'en,fr');
      try {
        const response = await visitor().get('/fr/user/login');
        assert.equal(response.statusCode, 200);
        assert.match(response.body, /action="\/fr\/user\/login\/submit"/);
      } finally {
        await ctx.services.settings.delete('supported_locales');
      }
    });
  });

  describe('login through JSON (/user/login/ajax)', () => {
    let user: TestUser;
    before(async () => (user = await ctx.createUser()));

    it('success: 200 {status: success, message, redirect} and the session cookie', async () => {
      const client = visitor();
      const response = await client.submit('/user/login', '/user/login/ajax', {
        email: user.email,
        password: user.password,
        redirect: '/user/settings',
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-test-route-name'], 'frontend.users.login.ajax');
      assert.deepEqual(response.json(), {
        code: 200,
        status: 'success',
        message: 'You are logged in.',
        redirect: '/user/settings',
      });
      assert.ok(sessionCookie(response));
      assert.equal(response.headers['cache-control'], 'private, no-store');
    });

    it('bad credentials and bad input: 422 with errors by field', async () => {
      const client = visitor();
      const wrong = await client.submit('/user/login', '/user/login/ajax', {
        email: user.email,
        password: 'nope-nope',
      });
      assert.equal(wrong.statusCode, 422);
      assert.deepEqual(wrong.json(), {
        code: 422,
        status: 'fail',
        message: 'These credentials do not match our records.',
        errors: { email: ['These credentials do not match our records.'] },
      });
      const missing = await client.submit('/user/login', '/user/login/ajax', { email: user.email });
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json().errors, { password: ['The password field is required.'] });
    });

    it('a JSON body with the token in X-CSRF-Token works too', async () => {
      const client = visitor();
      const token = await client.token('/user/login');
      const response = await ctx.request({
        method: 'POST',
        url: '/user/login/ajax',
        remoteAddress: client.address,
        headers: {
          host: 'site.test',
          'content-type': 'application/json',
          'x-csrf-token': token,
          cookie: `folio_csrf=${client.cookies.get('folio_csrf')}`,
        },
        payload: JSON.stringify({ email: user.email, password: user.password }),
      });
      assert.equal(response.statusCode, 200);
    });

    it('without the form token: 403 in JSON', async () => {
      const response = await visitor().post('/user/login/ajax', {
        email: user.email,
        password: user.password,
      });
      assert.equal(response.statusCode, 403);
      assert.equal(response.json().status, 'fail');
      assert.match(response.json().message, /form has expired/);
    });
  });

  describe('CSRF refusal', () => {
    let user: TestUser;
    before(async () => (user = await ctx.createUser()));

    it('a login form without its token, or with a token not of its cookie, is refused (403)', async () => {
      const client = visitor();
      const missing = await client.post('/user/login/submit', { email: user.email, password: user.password });
      assert.equal(missing.statusCode, 403);
      assert.match(missing.body, /form has expired/);
      const other = await visitor().token('/user/login');
      await client.get('/user/login');
      const foreign = await client.post('/user/login/submit', {
        _token: other,
        email: user.email,
        password: user.password,
      });
      assert.equal(foreign.statusCode, 403);
      assert.equal(sessionCookie(foreign), undefined);
    });

    it('a form posted from another site is refused, token or not', async () => {
      const client = visitor();
      const token = await client.token('/user/login');
      const crossSite: Record<string, string>[] = [
        { origin: 'http://evil.test' },
        { 'sec-fetch-site': 'cross-site' },
        { referer: 'http://evil.test/x' },
      ];
      for (const headers of crossSite) {
        const response = await client.post(
          '/user/login/submit',
          { _token: token, email: user.email, password: user.password },
          headers,
        );
        assert.equal(response.statusCode, 403, JSON.stringify(headers));
        assert.match(response.body, /Cross-site form submission refused/);
      }
      const same = await client.post(
        '/user/login/submit',
        { _token: token, email: user.email, password: user.password },
        { origin: 'http://site.test' },
      );
      assert.equal(same.statusCode, 303);
    });

    it('a token issued before login does not work after it (it is bound to the session)', async () => {
      const client = visitor();
      const before = await client.token('/user/login');
      await client.post('/user/login/submit', { _token: before, email: user.email, password: user.password });
      // The csrf cookie of before the login is still in the jar; its token no longer verifies.
      const stale = await client.post('/user/profile/update', { _token: before, name: 'X', username: 'xxx' });
      assert.equal(stale.statusCode, 403);
      const fresh = await client.submit('/user/profile', '/user/profile/update', {
        name: 'Renamed',
        username: `u${user.id}-renamed`,
      });
      assert.equal(fresh.statusCode, 303);
    });

    it('every account form refuses a post without its token', async () => {
      const client = visitor();
      await client.logIn(user.email, user.password);
      for (const url of [
        '/user/register/submit',
        '/user/password/forgot/submit',
        '/user/profile/update',
        '/user/settings/update',
        '/user/logout',
      ]) {
        const response = await client.post(url, { email: user.email, name: 'x' });
        assert.equal(response.statusCode, 403, url);
      }
      assert.match((await client.get('/')).body, /data-user-name/, 'still signed in');
    });
  });

  describe('attempt limits', () => {
    it('5 attempts per account from one address in 15 minutes, then 429 with Retry-After there, even with the right password', async () => {
      const user = await ctx.createUser();
      const address = visitor().address;
      const from = () => new Visitor(ctx, 'site.test', address); // a fresh client, the same address
      for (let i = 0; i < 5; i++) {
        const response = await from().submit('/user/login', '/user/login/submit', {
          email: user.email,
          password: 'wrong-password',
        });
        assert.equal(response.statusCode, 422);
      }
      const blocked = await from().submit('/user/login', '/user/login/submit', {
        email: user.email,
        password: user.password,
      });
      assert.equal(blocked.statusCode, 429);
      assert.match(blocked.body, /Too many login attempts\. Please try again in 15 minutes\./);
      const retryAfter = Number(blocked.headers['retry-after']);
      assert.ok(retryAfter > 800 && retryAfter <= 900, String(retryAfter));
      assert.equal(sessionCookie(blocked), undefined);
      const json = await from().submit('/user/login', '/user/login/ajax', {
        email: user.email,
        password: user.password,
      });
      assert.equal(json.statusCode, 429);
      assert.equal(json.json().status, 'fail');
      assert.match(json.json().message, /Too many login attempts/);
      assert.ok(json.json().retry_after > 0);
      // Issue 21 #7: whoever failed on purpose locked only their own address out; the owner signs in.
      const owner = await visitor().submit('/user/login', '/user/login/submit', {
        email: user.email,
        password: user.password,
      });
      assert.equal(owner.statusCode, 303);
    });

    it('an unknown email is limited the same way (the limit reveals no account)', async () => {
      const address = visitor().address;
      for (let i = 0; i < 5; i++) {
        await new Visitor(ctx, 'site.test', address).submit('/user/login', '/user/login/submit', {
          email: 'ghost@example.test',
          password: 'wrong-password',
        });
      }
      const response = await new Visitor(ctx, 'site.test', address).submit(
        '/user/login',
        '/user/login/submit',
        {
          email: 'ghost@example.test',
          password: 'x',
        },
      );
      assert.equal(response.statusCode, 429);
    });

    it('20 failed attempts per address, whatever the accounts; other addresses go on', async () => {
      const client = visitor();
      for (let i = 0; i < 20; i++) {
        const response = await client.submit('/user/login', '/user/login/submit', {
          email: `spray${i}@example.test`,
          password: 'wrong-password',
        });
        assert.equal(response.statusCode, 422, `attempt ${i + 1}`);
      }
      const user = await ctx.createUser();
      const blocked = await client.submit('/user/login', '/user/login/submit', {
        email: user.email,
        password: user.password,
      });
      assert.equal(blocked.statusCode, 429);
      const elsewhere = await visitor().submit('/user/login', '/user/login/submit', {
        email: user.email,
        password: user.password,
      });
      assert.equal(elsewhere.statusCode, 303);
    });

    it('a successful login clears the account count', async () => {
      const user = await ctx.createUser();
      const client = visitor();
      for (let i = 0; i < 4; i++) {
        await client.submit('/user/login', '/user/login/submit', {
          email: user.email,
          password: 'wrong-password',
        });
      }
      await client.logIn(user.email, user.password);
      for (let i = 0; i < 4; i++) {
        const response = await visitor().submit('/user/login', '/user/login/submit', {
          email: user.email,
          password: 'wrong-password',
        });
        assert.equal(response.statusCode, 422);
      }
    });
  });

  describe('logout', () => {
    it('ends the session and clears the cookie; the old cookie gives no user', async () => {
      const user = await ctx.createUser();
      const client = visitor();
      await client.logIn(user.email, user.password);
      const old = client.cookies.get('folio_session') as string;
      const home = await client.get('/');
      const response = await client.post('/user/logout', { _token: tokenIn(home.body) as string });
      assert.equal(response.statusCode, 303);
      assert.equal(response.headers.location, '/');
      assert.equal(response.headers['x-test-route-name'], 'frontend.users.logout');
      assert.match(String(response.headers['set-cookie']), /folio_session=;/);
      assert.equal(client.cookies.has('folio_session'), false);
      assert.equal(await ctx.services.sessions.userOf(old.split('.')[0] as string), null);
      const replay = new Visitor(ctx, 'site.test', client.address);
      replay.cookies.set('folio_session', old);
      assert.doesNotMatch((await replay.get('/')).body, /data-user-name/);
    });
  });

  describe('registration (confirmed by mail)', () => {
    const confirmIn = (text: string) =>
      /http:\/\/site\.test(\/user\/register\/confirm\/[A-Za-z0-9_-]{43})(?:\s|$)/.exec(text)?.[1];
    const register = (client: Visitor, form: Record<string, string>) =>
      client.submit('/user/register', '/user/register/submit', form);
    const fields = (name: string, email: string, extra: Record<string, string> = {}) => ({
      name,
      email,
      password: 'analytical engine',
      password_confirmation: 'analytical engine',
      ...extra,
    });
    /** The confirmation link mailed to `email` (the latest), once the background work is done. */
    const linkFor = async (email: string) => {
      await ctx.services.accounts.drain();
      const mail = mailer.sent.filter((sent) => sent.to === email).pop();
      assert.ok(mail, `no mail to ${email}`);
      const link = confirmIn(mail.text);
      assert.ok(link, mail.text);
      return link;
    };
    /** Opens a mailed confirmation link and presses its button (the POST that creates the account). */
    const confirm = async (client: Visitor, link: string, headers: Record<string, string> = {}) => {
      const page = await client.get(link, headers);
      if (page.statusCode !== 200) return page;
      return client.post(link, { _token: tokenIn(page.body) as string });
    };
    const main = (body: string) => /<main[^>]*>([\s\S]*)<\/main>/.exec(body)?.[1];
    const INVALID = /This link is invalid or has expired\./;

    it('issue 20: a confirmed registration is a reader of its website (writes nothing there); the setting registration_role may make it contributor', async () => {
      const website = (await ctx.services.websites.findIdByDomain('site.test'))!;
      await register(visitor(), fields('New Reader', 'reader@example.test'));
      const client = visitor();
      assert.equal((await confirm(client, await linkFor('reader@example.test'))).statusCode, 303);
      const reader = (await ctx.services.users.findByEmail('reader@example.test'))!;
      assert.equal(await ctx.services.memberships.roleOn(reader.id, website), 'reader');
      const actor = { userId: reader.id, isAdmin: false, websiteId: website };
      await assert.rejects(
        ctx.services.postOps.create(actor, { title: 'Mine', content: 'x' }),
        /unauthorized/,
      );

      await ctx.services.settings.set('registration_role', 'contributor');
      try {
        await register(visitor(), fields('New Writer', 'writer2@example.test'));
        assert.equal((await confirm(visitor(), await linkFor('writer2@example.test'))).statusCode, 303);
        const writer = (await ctx.services.users.findByEmail('writer2@example.test'))!;
        assert.equal(await ctx.services.memberships.roleOn(writer.id, website), 'contributor');
        const draft = await ctx.services.postOps.create(
          { userId: writer.id, isAdmin: false, websiteId: website },
          { title: 'Draft for review', content: 'x' },
        );
        assert.equal(draft.status, 'draft');
      } finally {
        await ctx.services.settings.delete('registration_role');
      }
    });

    it('issue 21 #9: the mail to a possibly foreign address carries nothing the sender typed (no name)', async () => {
      const spam = 'Win 1000 USD at http://spam.example/claim now';
      const response = await register(visitor(), fields(spam, 'stranger@example.test'));
      assert.equal(response.statusCode, 200);
      await linkFor('stranger@example.test');
      const mail = mailer.sent.filter((sent) => sent.to === 'stranger@example.test').pop()!;
      assert.doesNotMatch(mail.text, /spam\.example|Win 1000/);
      assert.doesNotMatch(mail.subject, /spam\.example|Win 1000/);
    });

    it('end to end: the form answers "check your email"; the mailed link creates the account, signs in, and sends to the profile', async () => {
      const client = visitor();
      const response = await register(client, fields('Ada Lovelace', 'Ada@Example.test'));
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['x-test-route-name'], 'frontend.users.register.submit');
      assert.equal(response.headers['cache-control'], 'private, no-store');
      assert.match(
        response.body,
        /Check your email: we sent a link to finish creating your account to Ada@Example\.test\./,
      );
      assert.equal(sessionCookie(response), undefined, 'nobody is signed in yet');
      assert.equal(await ctx.services.users.findByEmail('ada@example.test'), null, 'nothing created yet');

      const link = await linkFor('ada@example.test');
      const mail = mailer.sent.at(-1)!;
      assert.match(mail.subject, /Finish creating your account on Site/);
      // Sent as no-reply@ the website's primary domain, never APP_URL's host (issue 22 #9).
      assert.equal(mail.siteDomain, 'site.test');
      assert.match(mail.text, /within 60 minutes/);
      // Only a hash of the token is stored, with the password's argon2 hash (never the password).
      const token = link.split('/').pop() as string;
      const rows = await ctx.services.database.db.selectFrom('pending_registrations').selectAll().execute();
      const row = rows.find((candidate) => candidate.email === 'ada@example.test');
      assert.ok(row);
      assert.notEqual(row.token_hash, token);
      assert.match(row.token_hash, /^[0-9a-f]{64}$/);
      assert.match(row.password_hash, /^\$argon2/);

      // Opened from the mail client: another visitor (no cookies, no form token), a cross-site navigation.
      const opener = visitor();
      const opened = await opener.get(link, { 'sec-fetch-site': 'cross-site' });
      assert.equal(opened.statusCode, 200);
      assert.equal(opened.headers['x-test-route-name'], 'frontend.users.register.confirm');
      assert.equal(opened.headers['referrer-policy'], 'same-origin');
      assert.equal(
        await ctx.services.users.findByEmail('ada@example.test'),
        null,
        'opening the link creates nothing',
      );
      const confirmed = await opener.post(link, { _token: tokenIn(opened.body) as string });
      assert.equal(confirmed.statusCode, 303);
      assert.equal(confirmed.headers.location, '/user/profile?welcome=1');
      assert.equal(confirmed.headers['x-test-route-name'], 'frontend.users.register.confirm.submit');
      assert.equal(confirmed.headers['referrer-policy'], 'same-origin');
      assert.equal(confirmed.headers['cache-control'], 'private, no-store');
      assert.ok(sessionCookie(confirmed));
      const profile = await opener.get('/user/profile?welcome=1');
      assert.match(profile.body, /Welcome! Your account is ready\./);
      assert.match(profile.body, /name="username"[^>]*value="ada-lovelace"/);
      assert.equal(
        (await ctx.services.users.authenticatePassword('ada@example.test', 'analytical engine'))?.name,
        'Ada Lovelace',
      );
      assert.equal(
        (await ctx.services.database.db.selectFrom('pending_registrations').selectAll().execute()).find(
          (candidate) => candidate.email === 'ada@example.test',
        ),
        undefined,
        'the pending registration is gone',
      );

      // The next Ada gets the next free username.
      await register(visitor(), fields('Ada Lovelace', 'ada2@example.test'));
      assert.equal((await confirm(visitor(), await linkFor('ada2@example.test'))).statusCode, 303);
      assert.equal((await ctx.services.users.findByEmail('ada2@example.test'))?.username, 'ada-lovelace-2');
    });

    it('a new and an existing email get the same answer; the owner is mailed a notice and nothing is created (no user enumeration)', async () => {
      const owner = await ctx.createUser({ password: 'the owner password' });
      const fresh = `fresh-${addressCounter}@example.test`;
      const existing = await register(visitor(), fields('Mallory', owner.email));
      const unknown = await register(visitor(), fields('Mallory', fresh));
      const upper = await register(visitor(), fields('Mallory', owner.email.toUpperCase()));
      await ctx.services.accounts.drain();
      for (const response of [existing, upper]) {
        assert.equal(response.statusCode, unknown.statusCode);
        assert.equal(response.headers['cache-control'], unknown.headers['cache-control']);
        assert.deepEqual(
          response.cookies.map((cookie) => cookie.name).sort(),
          unknown.cookies.map((cookie) => cookie.name).sort(),
        );
      }
      assert.equal(unknown.statusCode, 200);
      // The pages differ only by the echoed email.
      const generic = (body: string, email: string) => main(body)?.replaceAll(email, '{email}');
      assert.equal(generic(existing.body, owner.email), generic(unknown.body, fresh));
      assert.equal(generic(upper.body, owner.email.toUpperCase()), generic(unknown.body, fresh));

      // The owner is told (twice: one per attempt); the new address gets its link.
      const notices = mailer.sent.filter((mail) => mail.to === owner.email);
      assert.equal(notices.length, 2);
      assert.match(notices[0]!.subject, /Someone tried to register with your address on Site/);
      assert.match(
        notices[0]!.text,
        /Someone tried to create an account on Site with your address\. You already have one, so nothing was created\./,
      );
      assert.match(
        notices[0]!.text,
        /If that was you, you can log in or reset your password: http:\/\/site\.test\/user\/password\/forgot\n/,
      );
      assert.match(notices[0]!.text, /Log in: http:\/\/site\.test\/user\/login\n/);
      assert.equal(confirmIn(notices[0]!.text), undefined, 'no confirmation link for an existing account');
      assert.ok(await linkFor(fresh));

      // Nothing changed for the owner, and nothing waits for their email.
      const user = await ctx.services.users.findByEmail(owner.email);
      assert.equal(user?.name, `User ${/^user(\d+)-/.exec(owner.email)?.[1]}`);
      assert.equal(
        (await ctx.services.users.authenticatePassword(owner.email, 'the owner password'))?.id,
        owner.id,
      );
      const pending = await ctx.services.database.db
        .selectFrom('pending_registrations')
        .select('email')
        .where('email', '=', owner.email)
        .execute();
      assert.deepEqual(pending, []);
    });

    it('the link works once, also under two clicks at once', async () => {
      await register(visitor(), fields('Twice', 'twice@example.test'));
      const link = await linkFor('twice@example.test');
      const [a, b] = await Promise.all([confirm(visitor(), link), confirm(visitor(), link)]);
      assert.deepEqual([a.statusCode, b.statusCode].sort(), [303, 400]);
      const loser = a.statusCode === 400 ? a : b;
      assert.match(loser.body, INVALID);
      assert.equal(sessionCookie(loser), undefined);
      const users = await ctx.services.database.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'twice@example.test')
        .execute();
      assert.equal(users.length, 1);
      const again = await visitor().get(link);
      assert.equal(again.statusCode, 400);
      assert.match(again.body, INVALID);
      assert.equal(again.headers['referrer-policy'], 'same-origin');
      assert.equal(again.headers['cache-control'], 'private, no-store');
    });

    it('issue 21 #12: neither a HEAD nor a GET of the link (a mail scanner) uses it up', async () => {
      await register(visitor(), fields('Scanned', 'scanned@example.test'));
      const link = await linkFor('scanned@example.test');
      const head = await ctx.request({ method: 'HEAD', url: link, headers: { host: 'site.test' } });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers['referrer-policy'], 'same-origin');
      // Nor does a GET (a scanner that follows links): only the page's button creates the account.
      assert.equal((await visitor().get(link)).statusCode, 200);
      assert.equal(await ctx.services.users.findByEmail('scanned@example.test'), null);
      assert.equal((await confirm(visitor(), link)).statusCode, 303);
    });

    it('a link expires (setting registration_confirm_lifetime, minutes); a new registration replaces the old link', async () => {
      await ctx.services.settings.set('registration_confirm_lifetime', '10');
      try {
        await register(visitor(), fields('Late', 'late-comer@example.test'));
        const first = await linkFor('late-comer@example.test');
        assert.match(mailer.sent.at(-1)!.text, /within 10 minutes/);
        await register(visitor(), fields('Late Two', 'late-comer@example.test'));
        const second = await linkFor('late-comer@example.test');
        assert.notEqual(first, second);
        const replaced = await visitor().get(first);
        assert.equal(replaced.statusCode, 400, 'replaced');
        assert.match(replaced.body, INVALID);
        clock.advance(11 * 60_000);
        const expired = await visitor().get(second);
        assert.equal(expired.statusCode, 400, 'expired');
        assert.match(expired.body, INVALID);
        assert.equal(await ctx.services.users.findByEmail('late-comer@example.test'), null);
        // Registering again works, and the new name is the one kept.
        await register(visitor(), fields('Late Three', 'late-comer@example.test'));
        assert.equal((await confirm(visitor(), await linkFor('late-comer@example.test'))).statusCode, 303);
        assert.equal((await ctx.services.users.findByEmail('late-comer@example.test'))?.name, 'Late Three');
      } finally {
        await ctx.services.settings.delete('registration_confirm_lifetime');
      }
    });

    it('a made-up token is an invalid link', async () => {
      for (const url of [`/user/register/confirm/${'A'.repeat(43)}`, '/user/register/confirm/short']) {
        const response = await visitor().get(url);
        assert.equal(response.statusCode, 400, url);
        assert.match(response.body, INVALID);
        assert.equal(response.headers['referrer-policy'], 'same-origin');
      }
    });

    it('an email that got an account since the registration makes the link invalid', async () => {
      await register(visitor(), fields('Slow', 'slow@example.test'));
      const link = await linkFor('slow@example.test');
      const user = await ctx.createUser({ email: 'slow@example.test', password: 'someone else' });
      const response = await confirm(visitor(), link);
      assert.equal(response.statusCode, 400);
      assert.match(response.body, INVALID);
      assert.equal(sessionCookie(response), undefined);
      assert.equal((await ctx.services.users.findByEmail('slow@example.test'))?.id, user.id);
      assert.equal(
        await ctx.services.users.authenticatePassword('slow@example.test', 'analytical engine'),
        null,
      );
      assert.equal((await visitor().get(link)).statusCode, 400);
    });

    it('a confirmation token in a URL is never written to the request log', () => {
      assert.equal(
        redactUrl(`/fr/user/register/confirm/${'a'.repeat(43)}?x=1`),
        '/fr/user/register/confirm/[redacted]?x=1',
      );
    });

    it('a chosen username is kept; a taken one, a bad one, a short password or a mismatch are 422 on the form with the values kept', async () => {
      const ok = await register(visitor(), fields('Grace', 'grace@example.test', { username: 'Grace_H' }));
      assert.equal(ok.statusCode, 200);
      assert.equal((await confirm(visitor(), await linkFor('grace@example.test'))).statusCode, 303);
      assert.equal((await ctx.services.users.findByEmail('grace@example.test'))?.username, 'grace_h');
      const sent = mailer.sent.length;
      const bad = await register(visitor(), {
        name: 'Grace <b>Two</b>',
        email: 'not-an-email',
        username: 'grace_h',
        password: 'short',
        password_confirmation: 'other',
      });
      assert.equal(bad.statusCode, 422);
      assert.match(bad.body, /The email must be a valid email address\./);
      assert.match(bad.body, /The password must be at least 8 characters\./);
      assert.match(bad.body, /value="Grace &lt;b&gt;Two&lt;\/b&gt;"/);
      // Issue 22: each message is tied to its input; a field without one is not marked.
      assert.match(
        bad.body,
        /<input id="email" name="email"[^>]*value="not-an-email" aria-invalid="true" aria-describedby="email-errors">\s*<ul class="field-errors" id="email-errors"><li>The email must be a valid email address\.<\/li><\/ul>/,
      );
      assert.match(
        bad.body,
        /<input id="password" [^>]*aria-invalid="true" aria-describedby="password-errors">/,
      );
      assert.match(
        bad.body,
        /<ul class="field-errors" id="password-errors"><li>The password must be at least 8/,
      );
      assert.match(bad.body, /<input id="name" [^>]*value="Grace &lt;b&gt;Two&lt;\/b&gt;">/);
      const mismatch = await register(visitor(), {
        ...fields('Grace', 'grace2@example.test', { username: 'grace_h' }),
        password_confirmation: 'compiler2',
      });
      assert.equal(mismatch.statusCode, 422);
      assert.match(mismatch.body, /The password confirmation does not match\./);
      const missing = await register(visitor(), { name: '', email: '', password: '' });
      assert.equal(missing.statusCode, 422);
      assert.match(missing.body, /The name field is required\./);
      assert.match(missing.body, /The email field is required\./);
      // A taken username says nothing about emails (usernames are public, in the address of posts).
      const takenUsername = await register(
        visitor(),
        fields('Grace', 'grace2@example.test', { username: 'grace_h' }),
      );
      assert.equal(takenUsername.statusCode, 422);
      assert.match(takenUsername.body, /The username has already been taken\./);
      assert.match(takenUsername.body, /value="grace2@example.test"/);
      const invalidUsername = await register(
        visitor(),
        fields('Grace', 'grace3@example.test', { username: 'a/b' }),
      );
      assert.equal(invalidUsername.statusCode, 422);
      assert.match(invalidUsername.body, /The username must be 3 to 32 lower-case letters/);
      await ctx.services.accounts.drain();
      assert.equal(mailer.sent.length, sent, 'no mail for a refused form');
      assert.equal(await ctx.services.users.findByEmail('grace2@example.test'), null);
    });

    it('a username taken between the registration and its confirmation becomes the next free variant', async () => {
      await register(visitor(), fields('Hopper One', 'hopper1@example.test', { username: 'hopper' }));
      await register(visitor(), fields('Hopper Two', 'hopper2@example.test', { username: 'hopper' }));
      const second = await linkFor('hopper2@example.test');
      const first = await linkFor('hopper1@example.test');
      assert.equal((await confirm(visitor(), second)).statusCode, 303);
      assert.equal((await confirm(visitor(), first)).statusCode, 303);
      assert.equal((await ctx.services.users.findByEmail('hopper2@example.test'))?.username, 'hopper');
      assert.equal((await ctx.services.users.findByEmail('hopper1@example.test'))?.username, 'hopper-2');
    });

    it('setting enable_registration off closes the form, its submission and the links (403)', async () => {
      await register(visitor(), fields('Before', 'before-closing@example.test'));
      const link = await linkFor('before-closing@example.test');
      await ctx.services.settings.set('enable_registration', 'off');
      try {
        const client = visitor();
        const form = await client.get('/user/register');
        assert.equal(form.statusCode, 403);
        assert.match(form.body, /Registration is closed/);
        const token = tokenIn(form.body) as string;
        const submit = await client.post('/user/register/submit', {
          _token: token,
          ...fields('Closed', 'closed@example.test'),
        });
        assert.equal(submit.statusCode, 403);
        assert.equal((await visitor().get(link)).statusCode, 403);
        await ctx.services.accounts.drain();
        assert.equal(
          mailer.sent.filter((mail) => mail.to === 'closed@example.test').length,
          0,
          'no mail while closed',
        );
        assert.equal(await ctx.services.users.findByEmail('before-closing@example.test'), null);
        assert.doesNotMatch((await client.get('/user/login')).body, /Create an account/);
      } finally {
        await ctx.services.settings.delete('enable_registration');
      }
    });

    it("issue 35 #1: registration open is the operations' rule: requesting and confirming refuse when enable_registration is off, whatever the face", async () => {
      await register(visitor(), fields('Before Direct', 'before-direct@example.test'));
      const link = await linkFor('before-direct@example.test');
      const token = link.split('/').pop() as string;
      const website = (await ctx.services.websites.findIdByDomain('site.test'))!;
      await ctx.services.settings.set('enable_registration', 'off');
      const closedError = (error: Error) =>
        error instanceof ForbiddenError && error.message === 'This site does not take new accounts.';
      try {
        const links = { confirm: (t: string) => `http://site.test/c/${t}`, login: 'l', reset: 'r' };
        await assert.rejects(
          ctx.services.accounts.requestRegistration(
            { name: 'Direct', email: 'direct@example.test', password: 'analytical engine' },
            links,
            { name: 'Site', domain: 'site.test' },
          ),
          closedError,
        );
        await assert.rejects(ctx.services.accounts.confirmRegistration(token, website), closedError);
        await ctx.services.accounts.drain();
        assert.equal(mailer.sent.filter((mail) => mail.to === 'direct@example.test').length, 0);
        assert.equal(await ctx.services.users.findByEmail('before-direct@example.test'), null);
        assert.equal(await ctx.services.accounts.registrationTokenValid(token), true, 'the link is kept');
      } finally {
        await ctx.services.settings.delete('enable_registration');
      }
    });

    it('10 registrations per address per hour, then 429', async () => {
      const client = visitor();
      for (let i = 0; i < 10; i++) {
        // Invalid forms count too: the limit is on attempts.
        const response = await register(client, { name: 'x', email: 'bad' });
        assert.equal(response.statusCode, 422);
      }
      const blocked = await register(client, fields('Late', 'blocked@example.test'));
      assert.equal(blocked.statusCode, 429);
      assert.match(blocked.body, /Too many registrations/);
      await ctx.services.accounts.drain();
      assert.equal(mailer.sent.length, 0);
    });

    it('3 mails per email per hour, existing account or not; past it the same page and no mail', async () => {
      const owner = await ctx.createUser();
      const fresh = `often-${addressCounter}@example.test`;
      const pages: string[] = [];
      for (const email of [owner.email, fresh]) {
        for (let i = 0; i < 4; i++) {
          const response = await register(visitor(), fields('Often', email));
          assert.equal(response.statusCode, 200);
          pages.push(main(response.body)?.replaceAll(email, '{email}') ?? '');
        }
      }
      assert.equal(new Set(pages).size, 1, 'one page for all of them');
      await ctx.services.accounts.drain();
      assert.equal(mailer.sent.filter((mail) => mail.to === owner.email).length, 3);
      assert.equal(mailer.sent.filter((mail) => mail.to === fresh).length, 3);
    });

    /** PostgreSQL: a statement of this database waits on a lock (a row another transaction holds). */
    const aWriteWaitsOnALock = async () =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.services.database.db)
        ).rows[0]?.n ?? 0,
      ) > 0;

    it('an email change saved twice at once: the later replaces the other, and its link works', async (t) => {
      // As registrations below: another pending change of this user is stored by a transaction still
      // open while this one replaces it; its insert met the user's row, and the save failed (500).
      const { db } = ctx.services.database;
      if (dialectOf(db) !== 'postgres') return t.skip('SQLite writes one at a time');
      const user = await ctx.createUser();
      const account = (await ctx.services.users.findById(user.id))!;
      let token = '';
      let saving: Promise<unknown> = Promise.resolve();
      await db.transaction().execute(async (trx) => {
        const now = new Date();
        await trx
          .insertInto('email_changes')
          .values({
            user_id: user.id,
            new_email: 'elsewhere@example.test',
            token_hash: 'e'.repeat(64),
            created_at: now.toISOString(),
            expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
          })
          .execute();
        saving = ctx.services.accounts.updateSettings(
          account,
          { email: `moved-${user.id}@example.test`, currentPassword: user.password },
          'no-session',
          { link: (sent) => (token = sent), siteName: 'Site' },
        );
        await eventually(aWriteWaitsOnALock);
      });
      // Committed: the save goes on, meets the row, and tries again.
      await saving;
      assert.ok(token, 'the change is mailed');
      assert.equal(await ctx.services.accounts.confirmEmailChange(token), true);
      assert.equal((await ctx.services.users.findById(user.id))?.email, `moved-${user.id}@example.test`);
    });

    it('registrations for one email at once: each is mailed, and the link of the last one stored is the one that works', async (t) => {
      // Each request's work goes on after its answer, so two quick submits overlap. Made certain here
      // on PostgreSQL: another registration for the email is stored by a transaction still open while
      // this one deletes (it sees nothing yet) and inserts (it waits on the unique email), then
      // commits. That insert failed, and its mail was dropped.
      const { db } = ctx.services.database;
      if (dialectOf(db) !== 'postgres') return t.skip('SQLite writes one at a time');
      const email = `together-${addressCounter}@example.test`;
      const links = {
        confirm: (t: string) => `http://site.test/user/register/confirm/${t}`,
        login: 'l',
        reset: 'r',
      };
      await db.transaction().execute(async (trx) => {
        const now = new Date();
        await trx
          .insertInto('pending_registrations')
          .values({
            token_hash: 'held by the test',
            email,
            name: 'Earlier',
            username: null,
            password_hash: 'x',
            created_at: now.toISOString(),
            expires_at: new Date(now.getTime() + 3_600_000).toISOString(),
          })
          .execute();
        await ctx.services.accounts.requestRegistration(
          { name: 'Later', email, password: 'analytical engine' },
          links,
          { name: 'Site', domain: 'site.test' },
        );
        await eventually(aWriteWaitsOnALock);
      });
      await ctx.services.accounts.drain();
      const mails = mailer.sent.filter((mail) => mail.to === email);
      assert.equal(mails.length, 1, 'the later registration is mailed');
      const token = confirmIn(mails[0]!.text)?.split('/').pop() ?? '';
      assert.equal(await ctx.services.accounts.registrationTokenValid(token), true, 'and its link works');
    });
  });

  describe('password reset', () => {
    const linkIn = (text: string) =>
      /http:\/\/site\.test(\/user\/password\/reset\/[A-Za-z0-9_-]{43})/.exec(text)?.[1];

    it('issue 21 #1: the mailed link names the primary domain, whatever Host the form came through', async () => {
      const user = await ctx.createUser({ password: 'old password' });
      const website = (await ctx.services.websites.findIdByDomain('site.test')) as number;
      await websiteWrites(ctx.services).addDomain(website, 'alias.site.test');
      try {
        const client = new Visitor(ctx, 'alias.site.test', '10.9.0.1');
        const form = await client.get('/user/password/forgot');
        await client.post('/user/password/forgot/submit', {
          _token: tokenIn(form.body) as string,
          email: user.email,
        });
        await ctx.services.accounts.drain();
        assert.equal(mailer.sent.length, 1);
        assert.ok(linkIn(mailer.sent[0]!.text), mailer.sent[0]!.text);
        assert.doesNotMatch(mailer.sent[0]!.text, /alias\.site\.test/);
      } finally {
        await websiteWrites(ctx.services).removeDomain(website, 'alias.site.test');
      }
    });

    it('issue 21 #1: a Host with @, \\, /, a space or a control character is refused (400) on the site and the API', async () => {
      for (const host of [
        'site.test:4201@evil.example',
        'evil.example\\@site.test',
        'site.test/x',
        'site .test',
      ]) {
        const page = await ctx.request({
          method: 'POST',
          url: '/user/password/forgot/submit',
          headers: { host },
        });
        assert.equal(page.statusCode, 400, host);
        assert.match(page.headers['content-type'] as string, /text\/html/);
        const api = await ctx.request({ method: 'POST', url: '/api/v1/posts', headers: { host } });
        assert.equal(api.statusCode, 400, host);
        assert.deepEqual(
          { code: api.json().code, status: api.json().status, message: api.json().message },
          { code: 400, status: 'fail', message: 'Invalid Host header' },
        );
      }
      assert.equal(mailer.sent.length, 0);
    });

    it('end to end: mail with a one-time link, new password, every session ended, old password refused', async () => {
      const user = await ctx.createUser({ password: 'old password' });
      const signedIn = visitor();
      await signedIn.logIn(user.email, 'old password');

      const client = visitor();
      const form = await client.get('/user/password/forgot');
      assert.equal(form.headers['x-test-route-name'], 'frontend.users.password.forgot');
      const response = await client.post('/user/password/forgot/submit', {
        _token: tokenIn(form.body) as string,
        email: user.email,
      });
      assert.equal(response.statusCode, 200);
      assert.match(response.body, /If an account exists for that email/);
      await ctx.services.accounts.drain();
      assert.equal(mailer.sent.length, 1);
      const mail = mailer.sent[0]!;
      assert.equal(mail.to, user.email);
      assert.match(mail.subject, /Reset your password on Site/);
      // Sent as no-reply@ the website's primary domain, never APP_URL's host (issue 22 #9).
      assert.equal(mail.siteDomain, 'site.test');
      const link = linkIn(mail.text);
      assert.ok(link, mail.text);
      // Only a hash of the token is stored.
      const token = link.split('/').pop() as string;
      const rows = await ctx.services.database.db.selectFrom('password_resets').selectAll().execute();
      assert.ok(rows.every((row) => row.token_hash !== token));

      const page = await client.get(link);
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['referrer-policy'], 'same-origin');
      assert.equal(page.headers['x-test-route-name'], 'frontend.users.password.reset');
      const mismatch = await client.post(link, {
        _token: tokenIn(page.body) as string,
        password: 'new password',
        password_confirmation: 'other',
      });
      assert.equal(mismatch.statusCode, 422);
      const done = await client.post(link, {
        _token: tokenIn(page.body) as string,
        password: 'new password',
        password_confirmation: 'new password',
      });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, '/user/login?reset=1');
      assert.match((await client.get('/user/login?reset=1')).body, /Your password has been changed/);

      assert.equal(await ctx.services.users.authenticatePassword(user.email, 'old password'), null);
      assert.equal((await ctx.services.users.authenticatePassword(user.email, 'new password'))?.id, user.id);
      assert.doesNotMatch((await signedIn.get('/')).body, /data-user-name/, 'the other session ended');

      // The link works once.
      const again = await client.get(link);
      assert.equal(again.statusCode, 404);
      assert.match(again.body, /invalid, used or expired/);
      const replay = await client.post(link, {
        _token: await client.token('/user/login'),
        password: 'third password',
        password_confirmation: 'third password',
      });
      assert.equal(replay.statusCode, 404);
      assert.equal(await ctx.services.users.authenticatePassword(user.email, 'third password'), null);
    });

    it('an unknown email gets the same answer and no mail (no user enumeration)', async () => {
      const user = await ctx.createUser();
      const known = await visitor().submit('/user/password/forgot', '/user/password/forgot/submit', {
        email: user.email,
      });
      const unknown = await visitor().submit('/user/password/forgot', '/user/password/forgot/submit', {
        email: 'nobody-here@example.test',
      });
      await ctx.services.accounts.drain();
      assert.equal(unknown.statusCode, known.statusCode);
      const main = (body: string) => /<main[^>]*>([\s\S]*)<\/main>/.exec(body)?.[1];
      assert.equal(main(unknown.body), main(known.body));
      assert.deepEqual(
        mailer.sent.map((mail) => mail.to),
        [user.email],
      );
    });

    it('a link expires (setting password_reset_lifetime, minutes); a new request replaces the old link', async () => {
      await ctx.services.settings.set('password_reset_lifetime', '10');
      try {
        const user = await ctx.createUser();
        await visitor().submit('/user/password/forgot', '/user/password/forgot/submit', {
          email: user.email,
        });
        await ctx.services.accounts.drain();
        const first = linkIn(mailer.sent[0]!.text) as string;
        await visitor().submit('/user/password/forgot', '/user/password/forgot/submit', {
          email: user.email,
        });
        await ctx.services.accounts.drain();
        const second = linkIn(mailer.sent[1]!.text) as string;
        assert.equal((await visitor().get(first)).statusCode, 404, 'replaced');
        assert.equal((await visitor().get(second)).statusCode, 200);
        assert.match(mailer.sent[1]!.text, /within 10 minutes/);
        clock.advance(11 * 60_000);
        assert.equal((await visitor().get(second)).statusCode, 404, 'expired');
      } finally {
        await ctx.services.settings.delete('password_reset_lifetime');
      }
    });

    it('a reset token in a URL is never written to the request log', () => {
      assert.equal(
        redactUrl(`/fr/user/password/reset/${'a'.repeat(43)}?x=1`),
        '/fr/user/password/reset/[redacted]?x=1',
      );
    });

    it('a made-up token is an invalid link', async () => {
      assert.equal((await visitor().get(`/user/password/reset/${'A'.repeat(43)}`)).statusCode, 404);
      assert.equal((await visitor().get('/user/password/reset/short')).statusCode, 404);
    });

    it('3 requests per email per hour, then 429', async () => {
      const user = await ctx.createUser();
      for (let i = 0; i < 3; i++) {
        const response = await visitor().submit('/user/password/forgot', '/user/password/forgot/submit', {
          email: user.email,
        });
        assert.equal(response.statusCode, 200);
      }
      const blocked = await visitor().submit('/user/password/forgot', '/user/password/forgot/submit', {
        email: user.email,
      });
      assert.equal(blocked.statusCode, 429);
      assert.match(blocked.body, /Too many password reset requests/);
      await ctx.services.accounts.drain();
      assert.equal(mailer.sent.length, 3);
    });
  });

  describe('profile and settings (auth)', () => {
    it('anonymous visitors are sent to the login form, and come back after it', async () => {
      const client = visitor();
      for (const url of ['/user/profile', '/user/settings']) {
        const response = await client.get(url);
        assert.equal(response.statusCode, 302);
        assert.equal(response.headers.location, `/user/login?redirect=${encodeURIComponent(url)}`);
      }
      const user = await ctx.createUser();
      const login = await client.submit('/user/login?redirect=%2Fuser%2Fsettings', '/user/login/submit', {
        email: user.email,
        password: user.password,
        redirect: '/user/settings',
      });
      assert.equal(login.headers.location, '/user/settings');
      const settings = await client.get('/user/settings');
      assert.equal(settings.statusCode, 200);
      assert.equal(settings.headers['x-test-route-name'], 'frontend.users.settings');
      assert.equal(settings.headers['cache-control'], 'private, no-store');
    });

    it('the profile changes the name and the username; a taken username is 422', async () => {
      const user = await ctx.createUser();
      const other = await ctx.createUser();
      await ctx.services.accounts.updateProfile(other.id, { name: 'Other', username: 'taken-name' });
      const client = visitor();
      await client.logIn(user.email, user.password);
      const taken = await client.submit('/user/profile', '/user/profile/update', {
        name: 'Me',
        username: 'taken-name',
      });
      assert.equal(taken.statusCode, 422);
      assert.match(taken.body, /The username has already been taken\./);
      assert.match(taken.body, /value="Me"/);
      const saved = await client.submit('/user/profile', '/user/profile/update', {
        name: 'Me <i>',
        username: 'My-Name',
      });
      assert.equal(saved.statusCode, 303);
      assert.equal(saved.headers.location, '/user/profile?saved=1');
      const page = await client.get('/user/profile?saved=1');
      assert.match(page.body, /Your profile has been saved\./);
      assert.match(page.body, /data-user-name>Me &lt;i&gt;</);
      assert.equal((await ctx.services.users.findById(user.id))?.username, 'my-name');
      const get = await client.get('/user/profile/update');
      assert.equal(get.statusCode, 302);
      assert.equal(get.headers.location, '/user/profile');
    });

    it("issue 22 #7: the profile lists the writer's own posts here, drafts included, with edit links", async () => {
      const user = await ctx.createUser();
      const other = await ctx.createUser();
      const website = (await ctx.services.websites.findIdByDomain('site.test'))!;
      const draft = await ctx.services.posts.create(
        { title: 'My unfinished draft', content: 'x', status: 'draft', websiteIds: [website] },
        { userId: user.id, isAdmin: false },
      );
      const published = await ctx.services.posts.create(
        { title: 'My published post', content: 'x', status: 'published', websiteIds: [website] },
        { userId: user.id, isAdmin: false },
      );
      await ctx.services.posts.create(
        { title: 'Someone else', content: 'x', status: 'draft', websiteIds: [website] },
        { userId: other.id, isAdmin: false },
      );
      const client = visitor();
      await client.logIn(user.email, user.password);
      const profile = (await client.get('/user/profile')).body;
      assert.match(
        profile,
        new RegExp(
          `<a href="/post/edit/${draft.id}">My unfinished draft</a> <span class="status">\\(draft\\)</span>`,
        ),
      );
      assert.match(profile, new RegExp(`<a href="/post/edit/${published.id}">My published post</a>`));
      assert.match(profile, new RegExp(`<a href="/post/${published.slug}">View</a>`));
      assert.doesNotMatch(profile, /Someone else/);
      const fresh = visitor();
      await fresh.logIn(other.email, other.password);
      assert.doesNotMatch((await fresh.get('/user/profile')).body, /My unfinished draft/);
    });

    it('settings: a new password needs the current one, and ends every other session but this one', async () => {
      const user = await ctx.createUser({ password: 'first password' });
      const elsewhere = visitor();
      await elsewhere.logIn(user.email, 'first password');
      const client = visitor();
      await client.logIn(user.email, 'first password');
      const missing = await client.submit('/user/settings', '/user/settings/update', {
        email: user.email,
        password: 'second password',
        password_confirmation: 'second password',
      });
      assert.equal(missing.statusCode, 422);
      assert.match(missing.body, /The current password field is required\./);
      const wrong = await client.submit('/user/settings', '/user/settings/update', {
        email: user.email,
        current_password: 'nope nope',
        password: 'second password',
        password_confirmation: 'second password',
      });
      assert.equal(wrong.statusCode, 422);
      assert.match(wrong.body, /The current password is incorrect\./);
      const ok = await client.submit('/user/settings', '/user/settings/update', {
        email: user.email,
        current_password: 'first password',
        password: 'second password',
        password_confirmation: 'second password',
      });
      assert.equal(ok.statusCode, 303);
      assert.equal(ok.headers.location, '/user/settings?saved=1');
      assert.match((await client.get('/user/settings?saved=1')).body, /Your settings have been saved\./);
      assert.match((await client.get('/')).body, /data-user-name/, 'this session stays');
      assert.doesNotMatch((await elsewhere.get('/')).body, /data-user-name/, 'the other one ended');
      assert.equal(
        (await ctx.services.users.authenticatePassword(user.email, 'second password'))?.id,
        user.id,
      );
    });

    it('issue 21 #12: a new email needs the current password and is confirmed from the new address; a taken one is answered the same', async () => {
      const user = await ctx.createUser();
      const other = await ctx.createUser();
      const client = visitor();
      await client.logIn(user.email, user.password);
      const taken = await client.submit('/user/settings', '/user/settings/update', {
        email: other.email,
        current_password: user.password,
      });
      const fresh = `New-${user.email}`;
      const ok = await client.submit('/user/settings', '/user/settings/update', {
        email: fresh,
        current_password: user.password,
      });
      // Nothing tells the two apart: the same answer, the same notice.
      assert.deepEqual([taken.statusCode, taken.headers.location], [303, '/user/settings?saved=email']);
      assert.deepEqual([ok.statusCode, ok.headers.location], [303, '/user/settings?saved=email']);
      assert.match((await client.get('/user/settings?saved=email')).body, /Check your new email address/);
      assert.equal(
        (await ctx.services.users.findById(user.id))?.email,
        user.email,
        'unchanged until confirmed',
      );
      await ctx.services.accounts.drain();
      const toOther = mailer.sent.filter((mail) => mail.to === other.email);
      assert.equal(toOther.length, 1);
      assert.match(toOther[0]!.text, /It already belongs to your account, so nothing changed/);
      const toNew = mailer.sent.filter((mail) => mail.to === fresh.toLowerCase());
      assert.equal(toNew.length, 1);
      const link = /http:\/\/site\.test(\/user\/settings\/email\/[A-Za-z0-9_-]{43})/.exec(
        toNew[0]!.text,
      )?.[1];
      assert.ok(link, toNew[0]!.text);
      // Opening the link changes nothing (a mail scanner); its button does, once.
      const opener = visitor();
      const page = await opener.get(link);
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['referrer-policy'], 'same-origin');
      assert.equal((await ctx.services.users.findById(user.id))?.email, user.email);
      const confirmed = await opener.post(link, { _token: tokenIn(page.body) as string });
      assert.equal(confirmed.statusCode, 200);
      assert.match(confirmed.body, /Your account now uses this email address/);
      assert.equal((await ctx.services.users.findById(user.id))?.email, fresh.toLowerCase());
      assert.equal((await visitor().get(link)).statusCode, 400, 'the link works once');
      // A wrong current password is still a 422 on the form.
      const wrong = await client.submit('/user/settings', '/user/settings/update', {
        email: `third-${user.email}`,
        current_password: 'not it at all',
      });
      assert.equal(wrong.statusCode, 422);
    });
  });

  describe('cache headers (issue 8 part 6)', () => {
    it('a public page is not marked private for an anonymous visitor, and is for a session', async () => {
      const anonymous = await visitor().get('/');
      assert.equal(anonymous.statusCode, 200);
      assert.equal(anonymous.headers['cache-control'], undefined);
      const user = await ctx.createUser();
      const client = visitor();
      await client.logIn(user.email, user.password);
      await client.get('/');
      const home = await client.get('/');
      assert.equal(home.headers['cache-control'], 'private, no-store');
      assert.equal(
        home.headers['set-cookie'],
        undefined,
        'no cookie is set: the page depends on the session',
      );
    });
  });
});
