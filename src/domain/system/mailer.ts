// Outgoing mail behind one small interface: SMTP through nodemailer when SMTP_URL is set, else the
// message is written to the log (development, or an installation without a mail server). Tests put
// a recording mailer in its place.
import { isIP } from 'node:net';
import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; Folio sends no HTML mail. */
  text: string;
  /**
   * The primary domain of the website the mail speaks for: without MAIL_FROM, the sender is
   * `no-reply@` that domain (issue 22 #9: never an IP address).
   */
  siteDomain?: string;
}

/**
 * The sender of a message: MAIL_FROM when it is set, else `Folio <no-reply@…>` at the website's
 * primary domain, or (a mail about no website) at the fallback domain.
 */
export function senderOf(mailFrom: string | null, message: MailMessage, fallbackDomain: string): string {
  return mailFrom ?? `Folio <no-reply@${message.siteDomain ?? fallbackDomain}>`;
}

/** APP_URL's host name for mail about no website, unless it is an IP address (then `localhost`). */
export function fallbackMailDomain(appUrl: string): string {
  const host = new URL(appUrl).hostname;
  return isIP(host) !== 0 || host.startsWith('[') ? 'localhost' : host;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export class SmtpMailer implements Mailer {
  /** Made at the first mail: nodemailer (40 modules) is not loaded by a start that sends none. */
  private transport: Promise<Transporter> | null = null;

  constructor(
    private readonly url: string,
    private readonly from: string | null,
    private readonly fallbackDomain: string,
  ) {}

  private connect(): Promise<Transporter> {
    this.transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      // A slow or dead mail server must not hold a background job for long.
      nodemailer.createTransport({
        url: this.url,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
    );
    return this.transport;
  }

  async send(message: MailMessage): Promise<void> {
    const { siteDomain: _domain, ...mail } = message;
    const transport = await this.connect();
    await transport.sendMail({ ...mail, from: senderOf(this.from, message, this.fallbackDomain) });
  }

  async close(): Promise<void> {
    if (this.transport) (await this.transport).close();
  }
}

/** Writes every message to the log: the operator reads reset links there. */
export class LogMailer implements Mailer {
  constructor(
    private readonly from: string | null,
    private readonly write: (line: string) => void,
    private readonly fallbackDomain = 'localhost',
  ) {}

  async send(message: MailMessage): Promise<void> {
    this.write(
      `mail (no SMTP_URL configured): from ${senderOf(this.from, message, this.fallbackDomain)} to ${message.to}\n` +
        `Subject: ${message.subject}\n\n${message.text}`,
    );
  }

  async close(): Promise<void> {}
}

export function createMailer(
  config: { smtpUrl: string | null; mailFrom: string | null; appUrl: string },
  write: (line: string) => void,
): Mailer {
  const fallback = fallbackMailDomain(config.appUrl);
  return config.smtpUrl
    ? new SmtpMailer(config.smtpUrl, config.mailFrom, fallback)
    : new LogMailer(config.mailFrom, write, fallback);
}
