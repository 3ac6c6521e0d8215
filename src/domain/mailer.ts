// Outgoing mail behind one small interface: SMTP through nodemailer when SMTP_URL is set, else the
// message is written to the log (development, or an installation without a mail server). Tests put
// a recording mailer in its place.
import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  /** Plain text; Folio sends no HTML mail. */
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    url: string,
    private readonly from: string,
  ) {
    // A slow or dead mail server must not hold a background job for long.
    this.transport = nodemailer.createTransport({
      url,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...message });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

/** Writes every message to the log: the operator reads reset links there. */
export class LogMailer implements Mailer {
  constructor(
    private readonly from: string,
    private readonly write: (line: string) => void,
  ) {}

  async send(message: MailMessage): Promise<void> {
    this.write(
      `mail (no SMTP_URL configured): from ${this.from} to ${message.to}\n` +
        `Subject: ${message.subject}\n\n${message.text}`,
    );
  }

  async close(): Promise<void> {}
}

export function createMailer(
  config: { smtpUrl: string | null; mailFrom: string },
  write: (line: string) => void,
): Mailer {
  return config.smtpUrl
    ? new SmtpMailer(config.smtpUrl, config.mailFrom)
    : new LogMailer(config.mailFrom, write);
}
