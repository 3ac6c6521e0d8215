// Issue 41 over real HTTP: a page in zh_TW, zh_CN or ja shows its words and <html lang> in that
// locale (English stays as it was), dates in the locale and the website's time zone, form findings in
// the page's language, mails in the recipient's chosen language, and the language an account chooses
// through API v2 (PUT /me/language), which /me reports.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import { insertPost } from '../support/seed.js';
import { Visitor } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

describe('every word in the reader\u2019s language', () => {
  let ctx: TestContext;
  let mailer: RecordingMailer;
  let user: TestUser;
  let address = 0;
  const visitor = () => new Visitor(ctx, 'site.test', `10.41.0.${++address}`);

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.services.settings.set('supported_locales', 'en,zh_TW,zh_CN,ja');
    await ctx.services.settings.set('timezone', 'Asia/Tokyo');
    await ctx.enableApi();
    await websiteWrites(ctx.services).create({ siteName: 'Harbour', domain: 'site.test' });
    await insertPost(ctx.services.database.db, {
      title: 'Tide tables',
      slug: 'tide-tables',
      // 21:10 UTC: the next day in Tokyo.
      createdAt: '2026-11-25T21:10:00.000Z',
    });
    user = await ctx.createUser({ password: 'correct horse battery' });
  });
  beforeEach(() => {
    mailer = new RecordingMailer();
    ctx.services.mailer = mailer;
  });
  after(() => ctx.close());

  it('a zh_TW page renders its words in Traditional Chinese and <html lang="zh-TW">', async () => {
    const home = await visitor().get('/zh_TW/');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /<html lang="zh-TW">/);
    assert.match(home.body, /跳至主要內容/);
    assert.match(home.body, /placeholder="搜尋文章"/);
    assert.match(home.body, />登入</);
    assert.match(home.body, /最新文章/);
    assert.doesNotMatch(home.body, /Skip to content|Search posts|>Log in<|Latest posts/);

    const post = await visitor().get('/zh_TW/post/tide-tables');
    assert.equal(post.statusCode, 200);
    assert.match(post.body, /<html lang="zh-TW">/);
    assert.match(post.body, /發表留言/);
    assert.match(post.body, /目前還沒有留言。/);
    assert.doesNotMatch(post.body, /Leave a comment|No comments yet/);
  });

  it('zh_CN uses mainland words; English pages say exactly what they said', async () => {
    const login = await visitor().get('/zh_CN/user/login');
    assert.match(login.body, /<html lang="zh-CN">/);
    assert.match(login.body, /<h1>登录<\/h1>/);
    assert.match(login.body, /忘记密码？/);
    assert.doesNotMatch(login.body, /登入|Forgot your password/);
    const english = await visitor().get('/user/login');
    assert.match(english.body, /<html lang="en">/);
    assert.match(english.body, /<h1>Log in<\/h1>/);
    assert.match(english.body, /Forgot your password\?/);
  });

  it('a ja page prints dates in Japanese, in the website\u2019s time zone', async () => {
    const post = await visitor().get('/ja/post/tide-tables');
    assert.match(post.body, /<html lang="ja">/);
    assert.match(post.body, /<time datetime="2026-11-25T21:10:00[^"]*">2026年11月26日<\/time>/);
    assert.match(post.body, /コメントを書く/);
    const english = await visitor().get('/post/tide-tables');
    assert.match(english.body, />26 November 2026<\/time>/);
  });

  it('a form\u2019s findings are said in the page\u2019s language', async () => {
    const response = await visitor().submit('/zh_TW/user/register', '/zh_TW/user/register/submit', {
      name: '',
      email: 'not-an-address',
      password: 'short',
      password_confirmation: 'short',
    });
    assert.equal(response.statusCode, 422);
    assert.match(response.body, /請填寫名稱。/);
    assert.match(response.body, /電子郵件必須是有效的電子郵件地址。/);
    assert.match(response.body, /密碼至少需要 8 個字元。/);
    assert.doesNotMatch(response.body, /The name field is required/);
  });

  it('a mail to an address with no account is in the page\u2019s language; to an account, in its owner\u2019s', async () => {
    const page = visitor();
    const registered = await page.submit('/zh_CN/user/register', '/zh_CN/user/register/submit', {
      name: 'Mei',
      email: 'mei@example.test',
      password: 'correct horse battery',
      password_confirmation: 'correct horse battery',
    });
    assert.equal(registered.statusCode, 200, registered.body);
    await ctx.services.accounts.drain();
    const welcome = mailer.sent.find((mail) => mail.to === 'mei@example.test');
    assert.ok(welcome);
    assert.equal(welcome.subject, '完成在 Harbour 的注册');
    assert.match(welcome.text, /请在 \d+ 分钟内打开以下链接完成注册/);

    // The account chose Japanese: a reset asked from an English page is written in Japanese.
    const chosen = await ctx.request({
      method: 'PUT',
      url: '/api/v2/me/language',
      headers: { host: 'site.test', authorization: `Bearer ${user.token}` },
      payload: { language: 'ja' },
    });
    assert.equal(chosen.statusCode, 200, chosen.body);
    assert.deepEqual(chosen.json(), { data: { language: 'ja' } });
    await visitor().submit('/user/password/forgot', '/user/password/forgot/submit', { email: user.email });
    await ctx.services.accounts.drain();
    const reset = mailer.sent.find((mail) => mail.to === user.email);
    assert.ok(reset);
    assert.equal(reset.subject, 'Harbour のパスワード再設定');
    assert.match(reset.text, /新しいパスワードを設定してください/);
  });

  it('API v2: /me says the chosen language; a language Folio does not speak is refused (422)', async () => {
    const headers = { host: 'site.test', authorization: `Bearer ${user.token}` };
    const set = (language: unknown) =>
      ctx.request({ method: 'PUT', url: '/api/v2/me/language', headers, payload: { language } });
    assert.equal((await set('zh_TW')).statusCode, 200);
    const me = await ctx.request({ method: 'GET', url: '/api/v2/me', headers });
    assert.equal(me.json().data.language, 'zh_TW');
    const refused = await set('klingon');
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.json().title, refused.json().title.replace(/[^\x20-\x7e]/g, ''), 'English title');
    assert.equal((await set(null)).statusCode, 200);
    assert.equal(
      (await ctx.request({ method: 'GET', url: '/api/v2/me', headers })).json().data.language,
      null,
    );
  });
});
