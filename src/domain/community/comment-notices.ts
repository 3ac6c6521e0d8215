// The mail to a website's administrators when a comment is held for moderation (issue 22, dead end 5):
// without it nobody knows that something waits. Sent in the background (a visitor's comment never
// waits for a mail server); without SMTP_URL the mailer writes it to the log.
import type * as CheerioSlim from 'cheerio/slim';
import { lazyModule } from '../../lib/lazy-module.js';
import type { Db } from '../../db/database.js';
import type { Limit, RateLimits } from '../../lib/rate-limits.js';
import { isSiteAdmin } from '../people/memberships.js';
import { madeOnWebsite } from '../websites/bindings.js';
import type { Mailer } from '../system/mailer.js';
import { siteOrigin } from '../websites/urls.js';
import { mailLocale, mailOf } from '../system/mail-texts.js';
import type { WebsitesService } from '../websites/store.js';

const cheerio = lazyModule<typeof CheerioSlim>('cheerio/slim');

/** The most administrators one notice is mailed to. */
const MAX_RECIPIENTS = 50;
/** How much of the comment the mail quotes. */
const QUOTE_LENGTH = 500;
/**
 * At most this many notice mails per website an hour: a wave of held comments (spam from many
 * addresses, each within the comment rate limit) must not flood the administrators' inboxes. Each
 * mail says how many comments wait, so the next one catches up.
 */
export const NOTICE_LIMIT: Limit = { max: 12, windowSeconds: 3600 };

export interface HeldComment {
  commentId: number;
  postId: number;
  postSlug: string;
  websiteId: number;
  authorName: string;
  /** Sanitized HTML (CommentsService.store): quoted as plain text. */
  content: string;
}

/** The stored HTML of a comment as plain text for a mail (line breaks kept, entities read). */
export function quoteOf(html: string): string {
  const $ = cheerio().load(html, null, false);
  $('br').replaceWith('\n');
  $('p, li, blockquote, pre').append('\n');
  const text = $.root()
    .text()
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return text.length > QUOTE_LENGTH ? `${text.slice(0, QUOTE_LENGTH)}…` : text;
}

export class CommentNotices {
  /** Mail still being sent; drain() waits for it (shutdown, tests). */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly deps: {
      websites: Pick<WebsitesService, 'find'>;
      /** Read when sending: tests replace the services' mailer. */
      mailer: () => Mailer;
      appUrl: string;
      warn: (message: string) => void;
      rateLimits?: Pick<RateLimits, 'hit'>;
      /** The site's default locale: the mail's language for an administrator who chose none. */
      defaultLocale?: () => Promise<string>;
    },
  ) {}

  /** Mails the website's administrators about a held comment, in the background. */
  held(comment: HeldComment): void {
    const work = this.send(comment).catch((error: unknown) =>
      this.deps.warn(`comment notice mail failed: ${(error as Error).message}`),
    );
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /**
   * Who is told: the installation's administrators and the website's site admins, active accounts
   * only (the same people who may approve it, less the editors, who see the notice on the post page).
   */
  async recipients(websiteId: number): Promise<{ email: string; locale: string | null }[]> {
    const rows = await this.db
      .selectFrom('users')
      .select(['users.email', 'users.locale'])
      .where('users.is_active', '=', true)
      .where((eb) => eb.or([eb('users.is_admin', '=', true), isSiteAdmin(eb, eb.ref('users.id'), websiteId)]))
      .orderBy('users.id')
      .limit(MAX_RECIPIENTS)
      .execute();
    return rows.map((row) => ({ email: row.email, locale: row.locale ?? null }));
  }

  /** Held comments under posts shown on the website. */
  private async waitingCount(websiteId: number): Promise<number> {
    const row = await this.db
      .selectFrom('comments')
      .innerJoin('posts', 'posts.id', 'comments.post_id')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('comments.status', '=', 'pending')
      .where((eb) => madeOnWebsite(eb, websiteId))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  private async send(comment: HeldComment): Promise<void> {
    const website = await this.deps.websites.find(comment.websiteId);
    if (!website) return;
    const recipients = await this.recipients(website.id);
    if (recipients.length === 0) return;
    const verdict = await this.deps.rateLimits?.hit('comment-notices', String(website.id), NOTICE_LIMIT);
    if (verdict && !verdict.allowed) return;
    const waiting = await this.waitingCount(website.id);
    const siteName = website.fields.site_name ?? website.domain;
    // Built from the website's primary domain, never a request's Host (site-urls.ts).
    const postUrl = `${siteOrigin(website, this.deps.appUrl)}/post/${encodeURIComponent(comment.postSlug)}`;
    const vars = {
      site: siteName,
      waiting: String(waiting),
      author: comment.authorName,
      quote: quoteOf(comment.content),
      post_url: postUrl,
      admin_url: `${siteOrigin(website, this.deps.appUrl)}/admin/comments`,
    };
    const siteLocale = (await this.deps.defaultLocale?.()) ?? null;
    // Each administrator reads it in the language they chose (else the site's).
    for (const { email, locale } of recipients) {
      await this.deps.mailer().send({
        to: email,
        siteDomain: website.domain,
        ...mailOf(mailLocale(locale, siteLocale), 'comment_held', vars),
      });
    }
  }
}
