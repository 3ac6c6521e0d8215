// Mail configuration (SMTP_URL, MAIL_FROM) and the choice of mailer: SMTP when configured, else the log.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import {
  LogMailer,
  SmtpMailer,
  createMailer,
  fallbackMailDomain,
  senderOf,
} from '../../src/domain/system/mailer.js';

describe('mail configuration', () => {
  it('defaults: no SMTP, and no MAIL_FROM (the sender is no-reply@ the website’s domain)', () => {
    const config = loadConfig({ APP_URL: 'https://blog.example.com' });
    assert.equal(config.smtpUrl, null);
    assert.equal(config.mailFrom, null);
  });

  it('sends from no-reply@ the website’s primary domain, never an IP address (issue 22 #9)', async () => {
    const lines: string[] = [];
    const fresh = createMailer({ smtpUrl: null, mailFrom: null, appUrl: 'http://127.0.0.1:3000' }, (line) =>
      lines.push(line),
    );
    await fresh.send({ to: 'a@b.test', subject: 'S', text: 'T', siteDomain: 'notes.example.com' });
    assert.match(lines[0]!, /from Folio <no-reply@notes\.example\.com> to a@b\.test/);
    // A mail about no website: APP_URL's host, unless it is an address.
    await fresh.send({ to: 'a@b.test', subject: 'S', text: 'T' });
    assert.match(lines[1]!, /from Folio <no-reply@localhost> /);
    assert.equal(fallbackMailDomain('http://[::1]:3000'), 'localhost');
    assert.equal(fallbackMailDomain('https://blog.example.com'), 'blog.example.com');
    // MAIL_FROM, when set, is every mail's sender.
    assert.equal(
      senderOf(
        'Blog <hi@example.com>',
        { to: 'a@b.test', subject: 'S', text: 'T', siteDomain: 'x.test' },
        'y',
      ),
      'Blog <hi@example.com>',
    );
  });

  it('reads SMTP_URL and MAIL_FROM', () => {
    const config = loadConfig({
      SMTP_URL: 'smtps://u:p@mail.example.com:465',
      MAIL_FROM: 'Blog <hi@example.com>',
    });
    assert.equal(config.smtpUrl, 'smtps://u:p@mail.example.com:465');
    assert.equal(config.mailFrom, 'Blog <hi@example.com>');
  });

  for (const [variable, value] of [
    ['SMTP_URL', 'http://mail.example.com'],
    ['SMTP_URL', 'smtp://u:s3cret@'],
    ['MAIL_FROM', 'nobody'],
    ['MAIL_FROM', 'a@b.test\r\nBcc: x@y.test'],
  ] as const) {
    it(`stops with one line naming ${variable} for ${JSON.stringify(value)}, never printing a password`, () => {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, new RegExp(`^Invalid ${variable}: `));
          assert.ok(!error.message.includes('s3cret'));
          assert.ok(!error.message.includes('\n'));
          return true;
        },
      );
    });
  }

  it('SMTP when SMTP_URL is set, else the log, which writes the whole message', async () => {
    assert.ok(
      createMailer(
        { smtpUrl: 'smtp://localhost:2525', mailFrom: 'a@b.test', appUrl: 'http://x.test' },
        () => undefined,
      ) instanceof SmtpMailer,
    );
    const lines: string[] = [];
    const mailer = createMailer({ smtpUrl: null, mailFrom: 'a@b.test', appUrl: 'http://x.test' }, (line) =>
      lines.push(line),
    );
    assert.ok(mailer instanceof LogMailer);
    await mailer.send({ to: 'c@d.test', subject: 'Hi', text: 'Open http://x.test/link' });
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /to c@d\.test/);
    assert.match(lines[0]!, /Subject: Hi/);
    assert.match(lines[0]!, /http:\/\/x\.test\/link/);
  });

  it('SMTP: a real conversation with a server on 127.0.0.1, the transport made at the first mail', async () => {
    // The smallest SMTP server that takes one message (RFC 5321's replies, no STARTTLS offered).
    let data = '';
    const server = createServer((socket) => {
      let inData = false;
      socket.write('220 test ESMTP\r\n');
      socket.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        if (inData) {
          data += text;
          if (data.includes('\r\n.\r\n')) {
            inData = false;
            socket.write('250 queued\r\n');
          }
          return;
        }
        for (const line of text.split('\r\n').filter(Boolean)) {
          if (/^(EHLO|HELO)/i.test(line)) socket.write('250 test\r\n');
          else if (/^DATA/i.test(line)) {
            inData = true;
            socket.write('354 go on\r\n');
          } else if (/^QUIT/i.test(line)) socket.end('221 bye\r\n');
          else socket.write('250 ok\r\n');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const mailer = new SmtpMailer(`smtp://127.0.0.1:${port}`, null, 'folio.test');
    try {
      await mailer.send({
        to: 'reader@example.test',
        subject: 'Over SMTP',
        text: 'Hello',
        siteDomain: 'blog.test',
      });
      assert.match(data, /Subject: Over SMTP/);
      assert.match(data, /From: Folio <no-reply@blog\.test>/);
      assert.match(data, /To: reader@example\.test/);
    } finally {
      await mailer.close();
      server.close();
    }
  });
});
