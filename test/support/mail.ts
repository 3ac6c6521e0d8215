// A mailer that keeps what it is given: tests read reset links from it.
import type { MailMessage, Mailer } from '../../src/domain/system/mailer.js';

export class RecordingMailer implements Mailer {
  readonly sent: MailMessage[] = [];

  async send(message: MailMessage): Promise<void> {
    this.sent.push(message);
  }

  async close(): Promise<void> {}
}
