// Invitations (issue 25 #7): the people who manage a website's members (policy.managesMembers)
// invite someone by email to a role there; the mail (through the mailer: the log when no SMTP is
// set) carries a one-time link valid for a week. Opening it, a person with no account chooses a name
// and a password (the link proves the address); a person with one signs in first, as that address.
// Accepting is one conditional write, so a link works once however many times it is sent.
import { createHash, randomBytes } from 'node:crypto';
import type { OperationRunner } from '../run.js';
import { z } from 'zod';
import type { Db } from '../../db/database.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { ForbiddenError, InputError, NotFoundError, TooManyRequestsError } from '../errors.js';
import type { Limit, RateLimits } from '../../lib/rate-limits.js';
import type { Mailer } from '../system/mailer.js';
import { SITE_ROLES } from './memberships.js';
import type { MembershipsService, SiteRole } from './memberships.js';
import type { Actor, Policy } from '../policy.js';
import { parse } from '../schema-fields.js';
import { normalizeEmail } from './users.js';
import type { User, UsersService } from './users.js';
import { toIso } from '../values.js';
import type { WebsitesService } from '../websites/store.js';
import { mailLocale, mailOf, mailText } from '../system/mail-texts.js';

/**
 * How many invitations may be sent (issue 34 #10): each mails an address someone typed, so a
 * manager's account (or a key) must not become a mail cannon. Per inviting person, whatever the
 * website, and per website, whoever invites.
 */
export const INVITE_LIMITS: { perInviter: Limit; perWebsite: Limit } = {
  perInviter: { max: 20, windowSeconds: 60 * 60 },
  perWebsite: { max: 50, windowSeconds: 24 * 60 * 60 },
};

const SITE_NAME_IN_MAIL = 60;

/**
 * A website's free-text name as an invitation mail may quote it: no control or direction-changing
 * characters (a newline would start a made-up paragraph), no URL scheme a mail reader would make a
 * link of, whitespace collapsed, at most 60 characters.
 */
export function nameForMail(name: string): string {
  const cleaned = name
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, ' ')
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/\b[a-z][a-z0-9+.-]*:\/*/gi, (scheme) =>
      /^(https?|ftp|mailto|file|data|javascript):/i.test(scheme) ? '' : scheme,
    )
    .replace(/\s+/g, ' ')
    .trim();
  const chars = [...cleaned];
  return chars.length > SITE_NAME_IN_MAIL
    ? `${chars
        .slice(0, SITE_NAME_IN_MAIL - 1)
        .join('')
        .trimEnd()}\u2026`
    : cleaned;
}

/** How long an invitation's link works. */
export const INVITE_LIFETIME_DAYS = 7;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{20,100}$/;
const hashInviteToken = (token: string) => createHash('sha256').update(`invite:${token}`).digest('hex');

export const createInviteInput = z.object({ email: z.email().max(255), role: z.enum(SITE_ROLES) }).strict();

export const acceptInviteInput = z
  .object({ name: z.string().trim().min(1).max(255), password: z.string().min(8).max(1000) })
  .strict();

export interface Invite {
  id: number;
  websiteId: number;
  email: string;
  role: SiteRole;
  invitedBy: number | null;
  createdAt: string;
  expiresAt: string;
  acceptedAt: string | null;
}

/** A live invitation as its link shows it: to which website, as what, for which address. */
export interface OpenInvite extends Invite {
  websiteName: string;
  /** An account with the invited address exists already (then: sign in as it to accept). */
  hasAccount: boolean;
}

type Row = {
  id: number;
  website_id: number;
  email: string;
  role: string;
  invited_by: number | null;
  created_at: string | Date;
  expires_at: string | Date;
  accepted_at: string | Date | null;
};

const toInvite = (row: Row): Invite => ({
  id: row.id,
  websiteId: row.website_id,
  email: row.email,
  role: row.role as SiteRole,
  invitedBy: row.invited_by,
  createdAt: toIso(row.created_at),
  expiresAt: toIso(row.expires_at),
  acceptedAt: toIso(row.accepted_at),
});

export class InviteOperations {
  constructor(
    private readonly deps: {
      /** Every write runs as one operation (run.ts). */
      runner: OperationRunner;
      db: Db;
      clock: Clock;
      policy: Policy;
      users: UsersService;
      memberships: MembershipsService;
      websites: Pick<WebsitesService, 'find'>;
      mailer: () => Mailer;
      /** The public link of a token on a website (its primary domain). */
      link: (website: { domain: string }, token: string) => string;
      /** The site's default locale: the invitation's language for an address with no account. */
      defaultLocale?: () => Promise<string>;
      audit?: AuditLog;
      warn: (message: string) => void;
      /** Counts invitations against INVITE_LIMITS (absent: no limit). */
      rateLimits?: RateLimits;
    },
  ) {}

  /** Counts an invitation under both limits; refused: TooManyRequestsError with the wait. */
  private async countInvitation(actor: Actor, websiteId: number): Promise<void> {
    const limiter = this.deps.rateLimits;
    if (!limiter) return;
    const { perInviter, perWebsite } = INVITE_LIMITS;
    const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));
    // The person's count first: one who is refused uses up none of the website's invitations.
    const byInviter = await limiter.hit('invite:by', String(actor.userId), perInviter);
    if (!byInviter.allowed) {
      throw new TooManyRequestsError(
        `Too many invitations: at most ${perInviter.max} an hour from one person. Try again in ${minutes(byInviter.retryAfter)} minutes.`,
        byInviter.retryAfter,
      );
    }
    const byWebsite = await limiter.hit('invite:site', String(websiteId), perWebsite);
    if (!byWebsite.allowed) {
      throw new TooManyRequestsError(
        `Too many invitations: at most ${perWebsite.max} a day to one website. Try again in ${minutes(byWebsite.retryAfter)} minutes.`,
        byWebsite.retryAfter,
      );
    }
  }

  /** The website's invitations not yet accepted (newest first), for those who manage its members. */
  async list(actor: Actor, websiteId: number): Promise<Invite[]> {
    await this.requireManager(actor, websiteId);
    const rows = await this.deps.db
      .selectFrom('invites')
      .selectAll()
      .where('website_id', '=', websiteId)
      .where('accepted_at', 'is', null)
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toInvite);
  }

  /**
   * Invites an address to a role on the website and mails the link (in the background: a mail
   * server that is slow or away does not hold the answer; a failure is logged). Site admins invite
   * every role but site admin, like they grant them.
   */
  async create(actor: Actor, websiteId: number, raw: unknown): Promise<Invite> {
    return this.deps.runner.run(async (scope) => {
      const input = parse(createInviteInput, raw);
      await this.requireManager(actor, websiteId);
      if (
        !(await this.deps.policy.can(actor, 'member.grant', { websiteId, role: input.role, current: null }))
      )
        throw new ForbiddenError();
      const website = await this.deps.websites.find(websiteId);
      if (!website) throw new NotFoundError('Website not found');
      const email = normalizeEmail(input.email);
      const existing = await this.deps.users.findByEmail(email);
      if (existing && (await this.deps.memberships.roleOn(existing.id, websiteId))) {
        throw new InputError('email', 'This person is already a member of the website.');
      }
      await this.countInvitation(actor, websiteId);
      const token = randomBytes(32).toString('base64url');
      const now = this.deps.clock.now();
      const row = await this.deps.db
        .insertInto('invites')
        .values({
          website_id: websiteId,
          email,
          role: input.role,
          token_hash: hashInviteToken(token),
          invited_by: actor.userId,
          created_at: now.toISOString(),
          expires_at: new Date(now.getTime() + INVITE_LIFETIME_DAYS * 86_400_000).toISOString(),
          accepted_at: null,
          accepted_by: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const invite = toInvite(row);
      await recordWrite(this.deps.audit, actor, {
        action: 'invite.create',
        resourceType: 'invite',
        resourceId: invite.id,
        websiteIds: [websiteId],
        input: { email, role: input.role },
      });
      // The name is the website's free text: cleaned for the body, and kept out of the subject (the
      // domain, a checked host name, says where the invitation leads).
      const siteName = nameForMail(website.fields.site_name ?? '') || website.domain;
      // In the language the invitee chose when they have an account, else the site's.
      const locale = mailLocale(existing?.locale, await this.deps.defaultLocale?.());
      // Sent once the invitation is committed: a rolled-back one sends no link.
      scope.afterCommit(() => {
        void this.deps
          .mailer()
          .send({
            to: email,
            siteDomain: website.domain,
            ...mailOf(locale, 'invite', {
              site: siteName,
              domain: website.domain,
              role: mailText(locale, `role.${input.role}`),
              days: String(INVITE_LIFETIME_DAYS),
              link: this.deps.link(website, token),
            }),
          })
          .catch((error: unknown) => this.deps.warn(`invitation mail failed: ${(error as Error).message}`));
      });
      return invite;
    });
  }

  /** Withdraws an invitation not yet accepted; answers whether there was one. */
  async revoke(actor: Actor, websiteId: number, inviteId: number): Promise<boolean> {
    return this.deps.runner.run(async () => {
      await this.requireManager(actor, websiteId);
      const deleted = await this.deps.db
        .deleteFrom('invites')
        .where('id', '=', inviteId)
        .where('website_id', '=', websiteId)
        .where('accepted_at', 'is', null)
        .executeTakeFirst();
      const removed = Number(deleted.numDeletedRows) > 0;
      if (removed) {
        await recordWrite(this.deps.audit, actor, {
          action: 'invite.revoke',
          resourceType: 'invite',
          resourceId: inviteId,
          websiteIds: [websiteId],
        });
      }
      return removed;
    });
  }

  /** The live invitation of a link's token (unknown, used, expired or withdrawn: null). */
  async open(token: string): Promise<OpenInvite | null> {
    if (!TOKEN_PATTERN.test(token)) return null;
    const row = await this.deps.db
      .selectFrom('invites')
      .selectAll()
      .where('token_hash', '=', hashInviteToken(token))
      .where('accepted_at', 'is', null)
      .where('expires_at', '>', nowIso(this.deps.clock))
      .executeTakeFirst();
    if (!row) return null;
    const website = await this.deps.websites.find(row.website_id);
    if (!website) return null;
    return {
      ...toInvite(row),
      websiteName: website.fields.site_name || website.domain,
      hasAccount: (await this.deps.users.findByEmail(row.email)) !== null,
    };
  }

  /**
   * Accepts an invitation: as `user` (signed in, with the invited address), or as a new account made
   * from `raw` (name and password) when the address has none. Gives the role and answers the user;
   * null when the link is no longer live (used meanwhile, expired, withdrawn).
   */
  async accept(token: string, who: { user: User } | { raw: unknown }): Promise<User | null> {
    return this.deps.runner.run(async () => {
      const invite = await this.open(token);
      if (!invite) return null;
      const input = 'raw' in who ? parse(acceptInviteInput, who.raw) : null;
      if ('user' in who && normalizeEmail(who.user.email) !== invite.email) {
        throw new ForbiddenError('This invitation is for another address.');
      }
      if (input && invite.hasAccount) {
        throw new InputError('email', 'An account with this address exists: sign in to accept.');
      }
      // The account first (its checks may refuse the password): should the link be taken meanwhile,
      // the account stays, with no role, and its owner can sign in.
      const user =
        'user' in who
          ? who.user
          : await this.deps.users.create({
              name: input!.name,
              email: invite.email,
              password: input!.password,
            });
      // One conditional write decides who takes the link; a second attempt finds it used.
      const taken = await this.deps.db
        .updateTable('invites')
        .set({ accepted_at: nowIso(this.deps.clock), accepted_by: user.id })
        .where('id', '=', invite.id)
        .where('accepted_at', 'is', null)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 0) return null;
      await this.deps.memberships.grant(user.id, invite.websiteId, invite.role);
      await recordWrite(
        this.deps.audit,
        { userId: user.id, isAdmin: user.isAdmin, websiteId: invite.websiteId, origin: { surface: 'site' } },
        {
          action: 'invite.accept',
          resourceType: 'invite',
          resourceId: invite.id,
          websiteIds: [invite.websiteId],
          input: { role: invite.role },
        },
      );
      return user;
    });
  }

  private async requireManager(actor: Actor, websiteId: number): Promise<void> {
    if (!(await this.deps.policy.can(actor, 'member.manage', { websiteId }))) throw new ForbiddenError();
  }
}
