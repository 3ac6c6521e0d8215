// Issue 22 #9: without SMTP_URL, mail is written to the log; in development the pages that say "we
// sent you a link" tell the operator to look there. Never in production, never with a mail server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import { Visitor, tokenIn } from '../support/visitor.js';
import { websiteWrites } from '../support/website-writes.js';

const NOTE = /written to the server&#39;s log|written to the server's log/;

async function forgotPassword(ctx: TestContext, email: string) {
  const client = new Visitor(ctx, 'site.test', '10.9.0.1');
  const form = await client.get('/user/password/forgot');
  return client.post('/user/password/forgot/submit', { _token: tokenIn(form.body)!, email });
}

for (const [name, config, shown] of [
  ['in development without SMTP_URL', { development: true, smtpUrl: null }, true],
  ['in production without SMTP_URL', { development: false, smtpUrl: null }, false],
  ['with SMTP_URL', { development: true, smtpUrl: 'smtp://mail.example.test:587' }, false],
] as const) {
  describe(`the "mail is in the log" note, ${name}`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext({ config: config });
      ctx.services.mailer = new RecordingMailer();
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    });
    after(() => ctx.close());

    it(shown ? 'is shown after a reset request' : 'is not shown', async () => {
      const user = await ctx.createUser();
      const response = await forgotPassword(ctx, user.email);
      assert.equal(response.statusCode, 200);
      assert.match(response.body, /If an account exists for that email/);
      if (shown) assert.match(response.body, NOTE);
      else assert.doesNotMatch(response.body, NOTE);
      await ctx.services.accounts.drain();
    });

    it('is never on a page that sent nothing (the login form)', async () => {
      const page = await new Visitor(ctx, 'site.test', '10.9.0.2').get('/user/login');
      assert.doesNotMatch(page.body, NOTE);
    });
  });
}
