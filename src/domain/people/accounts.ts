// Self-service accounts of the public site: registration confirmed by mail (with a unique public
// username), profile and settings changes, and password reset by a one-time, expiring token delivered
// by mail. Tokens are 32 random bytes; only their SHA-256 is stored, and using one is a single
// conditional write (an UPDATE of the reset, a DELETE of the pending registration), so it works once
// even when two requests race. Registration never tells whether an email has an account: the answer is
// the same, at the same cost, and only the mail (to the address's owner) differs. The rules that need
// the database are checked here and reported per field,
// like a validation error. The shapes of the forms' input are in account-input.ts.
import { createHash, randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { nowIso } from '../clock.js';
import { ForbiddenError, InputError, NotFoundError, ValidationError } from '../errors.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { ContentChanges } from '../changes.js';
import type { Actor, ActorOrigin, Policy } from '../policy.js';
import type { Clock } from '../clock.js';
import type { Mailer } from '../system/mailer.js';
import { defaultLocale } from '../locales.js';
import { languageInput } from '../languages.js';
import { parse } from '../schema-fields.js';
import { mailLocale, mailOf } from '../system/mail-texts.js';
import type { SessionService } from './sessions.js';
import type { SettingsService } from '../system/settings.js';
import { slugify, uniqueSlug } from '../text/slugs.js';
import { IMPORTED_WITHOUT_PASSWORD, normalizeEmail } from './users.js';
import type { User, UsersService } from './users.js';

/** Public usernames (they appear in `/user/{username}/posts`): 3 to 32 of a-z, 0-9, `_`, `-`. */
export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9_-]{2,31}$/;
export const REGISTRATION_SETTING = 'enable_registration';
/**
 * The role a confirmed registration gets on the website it was made on (issue 20): `reader` by
 * default (comments, likes, a profile); `contributor` lets new accounts submit drafts; `author`
 * lets them publish at once, as before roles.
 */
export const REGISTRATION_ROLE_SETTING = 'registration_role';
export const REGISTRATION_ROLES = ['reader', 'contributor', 'author'] as const;
export const RESET_LIFETIME_SETTING = 'password_reset_lifetime';
/** Minutes a reset link stays valid. */
export const DEFAULT_RESET_LIFETIME = 60;
/** How long the link an imported author is sent to choose a password lives: a week. */
export const IMPORTED_INVITE_MINUTES = 7 * 24 * 60;
export const REGISTRATION_LIFETIME_SETTING = 'registration_confirm_lifetime';
/** Minutes a registration's confirmation link stays valid. */
export const DEFAULT_REGISTRATION_LIFETIME = 60;
/** Reset and confirmation tokens: 32 random bytes in base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A rule of accounts that needs the database (a taken username, a wrong current password), per field. */
export class AccountInputError extends ValidationError {
  constructor(readonly errors: Record<string, string[]>) {
    super(errors);
  }
}

/** Registration is switched off (REGISTRATION_SETTING): no request, no confirmation. Faces: 403. */
export class RegistrationClosedError extends ForbiddenError {
  constructor() {
    super('This site does not take new accounts.');
  }
}

export interface Registration {
  name: string;
  email: string;
  /** Blank: one is made from the name. */
  username?: string;
  password: string;
}

/** Absolute links for the registration mails (built by the route from the host the visitor used). */
export interface RegistrationLinks {
  confirm: (token: string) => string;
  login: string;
  reset: string;
}

export interface SettingsChange {
  email: string;
  /** Blank: the password stays. */
  newPassword?: string;
  /** Required when the email or the password changes. */
  currentPassword?: string;
}

/**
 * Runs `write` (a transaction that deletes a row, then inserts its replacement) again when its insert
 * met a row that a concurrent write committed after the delete looked (unique violation): the next
 * try sees that row and replaces it. At most three tries.
 */
async function retryOnUniqueViolation(write: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (!isUniqueViolation(error) || attempt === 3) throw error;
    }
  }
}

const hashResetToken = (token: string) => createHash('sha256').update(`reset:${token}`).digest('hex');
const hashRegistrationToken = (token: string) =>
  createHash('sha256').update(`register:${token}`).digest('hex');
const hashEmailChangeToken = (token: string) =>
  createHash('sha256').update(`email-change:${token}`).digest('hex');

/** What a settings change needs to ask the new address to confirm itself. */
export interface EmailChangeMail {
  link: (token: string) => string;
  siteName: string;
  /** The website's primary domain: the sender's (mailer.ts), unless MAIL_FROM says otherwise. */
  siteDomain?: string;
  /** The locale of the page the change was asked from (the new address has no language of its own). */
  locale?: string;
}

/**
 * The website a mail speaks for: its name in the text, its primary domain as the sender's, and the
 * locale of the page the mail was asked from (a mail to an account is in its owner's language).
 */
export interface MailSite {
  name: string;
  domain: string;
  locale?: string;
}

export class AccountsService {
  /** Background work (reset and registration mail) still running; close() waits for it. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly deps: {
      users: UsersService;
      sessions: SessionService;
      settings: SettingsService;
      mailer: () => Mailer;
      /** Account writes are recorded (the site's surface; the user is the actor). */
      audit?: AuditLog;
      warn: (message: string) => void;
      /** Told when a name or email changes (the answers that show them are flushed: cache-tags.ts). */
      changes?: ContentChanges;
      /** Asked before an administrator's action on another account. */
      policy: Pick<Policy, 'can'>;
    },
  ) {}

  async registrationOpen(): Promise<boolean> {
    return this.deps.settings.flag(REGISTRATION_SETTING, true);
  }

  /**
   * Throws RegistrationClosedError when registration is off. The registration operations ask it
   * themselves; a face may ask it first (before a rate limit, or to refuse showing the form).
   */
  async requireRegistrationOpen(): Promise<void> {
    if (!(await this.registrationOpen())) throw new RegistrationClosedError();
  }

  // ---- Registration, confirmed by mail ---------------------------------------------------------------

  /**
   * Checks what a registration can be refused for without telling anything about the email: the
   * username asked for (usernames are public). Throws AccountInputError.
   */
  async checkRegistration(input: Registration): Promise<void> {
    await this.requireRegistrationOpen();
    const username = input.username?.trim().toLowerCase() || undefined;
    if (username !== undefined && (await this.usernameTaken(username, null))) {
      throw new AccountInputError({ username: ['The username has already been taken.'] });
    }
  }

  /**
   * Starts a registration. The password is hashed here, whatever the email, so the caller's response
   * time is the same for every address; everything that depends on whether the email has an account
   * (storing the pending registration and mailing its link, or mailing the owner a notice) happens in
   * the background, like a reset request. Nothing is created until the link is opened.
   */
  async requestRegistration(input: Registration, links: RegistrationLinks, site: MailSite): Promise<void> {
    await this.requireRegistrationOpen();
    const passwordHash = await argon2Hash(input.password);
    const work = this.startRegistration(input, passwordHash, links, site).catch((error: unknown) =>
      this.deps.warn(`registration mail failed: ${(error as Error).message}`),
    );
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async startRegistration(
    input: Registration,
    passwordHash: string,
    links: RegistrationLinks,
    site: MailSite,
  ): Promise<void> {
    const { name: siteName, domain: siteDomain } = site;
    const email = normalizeEmail(input.email);
    const owner = await this.deps.users.findByEmail(email);
    if (owner) {
      // A disabled account can neither log in nor reset its password: nothing to tell its owner.
      if (!owner.isActive) return;
      await this.deps.mailer().send({
        to: owner.email,
        siteDomain,
        ...mailOf(await this.localeFor(owner, site.locale), 'register_exists', {
          site: siteName,
          name: owner.name,
          reset: links.reset,
          login: links.login,
        }),
      });
      return;
    }
    const token = randomBytes(32).toString('base64url');
    const minutes = await this.registrationLifetimeMinutes();
    const now = this.clock.now();
    // Expired registrations go (any email); a new one for this email replaces its previous link. Two
    // registrations for one email at once (a double submit: each one's work goes on after its
    // answer) meet on the unique email: the later one tries again, now seeing and replacing the
    // other, so each is mailed and the last link stored is the one that works.
    const store = () =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .deleteFrom('pending_registrations')
          .where((eb) => eb.or([eb('email', '=', email), eb('expires_at', '<=', now.toISOString())]))
          .execute();
        await trx
          .insertInto('pending_registrations')
          .values({
            token_hash: hashRegistrationToken(token),
            email,
            name: input.name.trim(),
            username: input.username?.trim().toLowerCase() || null,
            password_hash: passwordHash,
            created_at: now.toISOString(),
            expires_at: new Date(now.getTime() + minutes * 60_000).toISOString(),
          })
          .execute();
      });
    await retryOnUniqueViolation(store);
    await this.deps.mailer().send({
      to: email,
      siteDomain,
      // No name: the address may be anyone's, and the name is whatever the sender typed (a URL, an
      // advertisement), so this mail carries nothing a stranger chose (issue 21 #9). In the language
      // of the page the registration came from.
      ...mailOf(await this.localeFor(null, site.locale), 'register', {
        site: siteName,
        minutes: String(minutes),
        link: links.confirm(token),
      }),
    });
  }

  /** Whether a confirmation token is live (the page that confirms it may be shown), without using it. */
  async registrationTokenValid(token: string): Promise<boolean> {
    return TOKEN_PATTERN.test(token) && this.liveToken('pending_registrations', hashRegistrationToken(token));
  }

  /** Whether a row of `table` holds this token's hash and has not expired. */
  private async liveToken(
    table: 'pending_registrations' | 'email_changes',
    tokenHash: string,
  ): Promise<boolean> {
    const row = await this.db
      .selectFrom(table)
      .select('id')
      .where('token_hash', '=', tokenHash)
      .where('expires_at', '>', nowIso(this.clock))
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The role a new account gets on the website it registered on (REGISTRATION_ROLE_SETTING). */
  async registrationRole(): Promise<(typeof REGISTRATION_ROLES)[number]> {
    const value = (await this.deps.settings.get(REGISTRATION_ROLE_SETTING))?.trim().toLowerCase();
    return (REGISTRATION_ROLES as readonly string[]).includes(value ?? '')
      ? (value as (typeof REGISTRATION_ROLES)[number])
      : 'reader';
  }

  /**
   * Creates the account of a live confirmation token on `websiteId`, the website whose link it is,
   * with the registration role there, and uses the token up, in one transaction: an account never
   * exists without its role, and the pending row is deleted by the same transaction that inserts the
   * user, so of two clicks at once only one creates it (the unique index on users.email stays the last
   * guard). Returns null when the token is unknown, used or expired, or when the email got an account
   * in the meantime.
   *
   * A username asked for that was taken since the registration becomes its next free variant
   * (`grace` -> `grace-2`); the user sees it on the profile page and may change it there.
   */
  async confirmRegistration(token: string, websiteId: number, origin?: ActorOrigin): Promise<User | null> {
    await this.requireRegistrationOpen();
    if (!TOKEN_PATTERN.test(token)) return null;
    const tokenHash = hashRegistrationToken(token);
    for (let attempt = 1; ; attempt++) {
      const now = nowIso(this.clock);
      const pending = await this.db
        .selectFrom('pending_registrations')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (!pending) return null;
      const username =
        pending.username !== null
          ? await this.usernameOrVariant(pending.username)
          : await this.freeUsername(pending.name, pending.email);
      const role = await this.registrationRole();
      try {
        const id = await this.db.transaction().execute(async (trx) => {
          const claimed = await trx
            .deleteFrom('pending_registrations')
            .where('id', '=', pending.id)
            .where('token_hash', '=', tokenHash)
            .returning('id')
            .executeTakeFirst();
          if (!claimed) return null; // used by a request that ran at the same time
          const taken = await trx
            .selectFrom('users')
            .select('id')
            .where('email', '=', pending.email)
            .executeTakeFirst();
          if (taken) return null;
          const row = await trx
            .insertInto('users')
            .values({
              name: pending.name,
              email: pending.email,
              username,
              password_hash: pending.password_hash,
              is_admin: false,
              is_active: true,
              created_at: now,
              updated_at: now,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          await trx
            .insertInto('memberships')
            .values({ user_id: row.id, website_id: websiteId, role, created_at: now, updated_at: now })
            .execute();
          return row.id;
        });
        if (id === null) return null;
        await this.audited(id, websiteId, 'user.register', origin, { role });
        return await this.deps.users.findById(id);
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // The transaction rolled back. Either the email got an account since we looked (the link is
        // dead: its row goes), or another account took the username (try the next variant).
        if (await this.deps.users.findByEmail(pending.email)) {
          await this.db.deleteFrom('pending_registrations').where('id', '=', pending.id).execute();
          return null;
        }
        if (attempt >= 3) throw error;
      }
    }
  }

  /**
   * The language a person chose for the panel and the mails they get (issue 41), or null to let the
   * panel follow the browser again. Their own account only; audited.
   */
  async chooseLanguage(userId: number, raw: unknown, origin?: ActorOrigin): Promise<string | null> {
    const { language } = parse(languageInput, raw);
    await this.db
      .updateTable('users')
      .set({ locale: language, updated_at: nowIso(this.clock) })
      .where('id', '=', userId)
      .execute();
    await this.deps.users.credentialsChanged(); // a token's user carries the language
    await this.audited(userId, null, 'user.language', origin, { language });
    return language;
  }

  async updateProfile(
    userId: number,
    input: { name: string; username: string },
    origin?: ActorOrigin,
  ): Promise<void> {
    const username = input.username.trim().toLowerCase();
    if (await this.usernameTaken(username, userId)) {
      throw new AccountInputError({ username: ['The username has already been taken.'] });
    }
    try {
      await this.db
        .updateTable('users')
        .set({ name: input.name.trim(), username, updated_at: nowIso(this.clock) })
        .where('id', '=', userId)
        .execute();
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AccountInputError({ username: ['The username has already been taken.'] });
      throw error;
    }
    await this.deps.changes?.announce({ kind: 'author', id: userId });
    await this.deps.users.credentialsChanged(); // the name a token's user carries
    await this.audited(userId, null, 'user.profile', origin, input);
  }

  /**
   * Changes the password at once, and asks the new email address to confirm itself (issue 21 #12):
   * the email changes only when the link mailed there is used. The answer is the same whether or not
   * another account holds the address (its owner is told by mail instead). Returns whether an email
   * change now waits for its confirmation.
   */
  async updateSettings(
    user: User,
    input: SettingsChange,
    keepSessionId: string,
    mail: EmailChangeMail,
    origin?: ActorOrigin,
  ): Promise<{ emailPending: boolean }> {
    const email = normalizeEmail(input.email);
    const changingEmail = email !== user.email;
    const changingPassword = (input.newPassword ?? '') !== '';
    if (!changingEmail && !changingPassword) return { emailPending: false };
    if (!input.currentPassword) {
      throw new AccountInputError({ current_password: ['The current password field is required.'] });
    }
    if (!(await this.passwordMatches(user.id, input.currentPassword))) {
      throw new AccountInputError({ current_password: ['The current password is incorrect.'] });
    }
    if (changingPassword) {
      const hash = await argon2Hash(input.newPassword as string);
      await this.db
        .updateTable('users')
        .set({ password_hash: hash, updated_at: nowIso(this.clock) })
        .where('id', '=', user.id)
        .execute();
      await this.deps.sessions.endAllOf(user.id, keepSessionId);
    }
    if (changingEmail) await this.requestEmailChange(user, email, mail);
    await this.audited(user.id, null, 'user.settings', origin, {
      ...(changingEmail ? { email_requested: true } : {}),
      ...(changingPassword ? { password: true } : {}),
    });
    return { emailPending: changingEmail };
  }

  private async requestEmailChange(user: User, email: string, mail: EmailChangeMail): Promise<void> {
    const holder = await this.deps.users.findByEmail(email);
    if (holder) {
      // No change to that address: a change asked before is withdrawn all the same.
      await this.db.deleteFrom('email_changes').where('user_id', '=', user.id).execute();
      await this.deps.mailer().send({
        to: holder.email,
        siteDomain: mail.siteDomain,
        ...mailOf(await this.localeFor(holder, mail.locale), 'email_taken', { site: mail.siteName }),
      });
      return;
    }
    const token = randomBytes(32).toString('base64url');
    const minutes = await this.registrationLifetimeMinutes();
    const now = this.clock.now();
    // One pending change per user: this one replaces any other, also one stored meanwhile by a second
    // save at once (its insert met this user's row: tried again, as registrations are).
    await retryOnUniqueViolation(() =>
      this.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('email_changes').where('user_id', '=', user.id).execute();
        await trx
          .insertInto('email_changes')
          .values({
            user_id: user.id,
            new_email: email,
            token_hash: hashEmailChangeToken(token),
            created_at: now.toISOString(),
            expires_at: new Date(now.getTime() + minutes * 60_000).toISOString(),
          })
          .execute();
      }),
    );
    await this.deps.mailer().send({
      to: email,
      siteDomain: mail.siteDomain,
      // The new address reads the language its account chose.
      ...mailOf(await this.localeFor(user, mail.locale), 'email_change', {
        site: mail.siteName,
        minutes: String(minutes),
        link: mail.link(token),
      }),
    });
  }

  /** Whether an email change token is live, without using it. */
  async emailChangeTokenValid(token: string): Promise<boolean> {
    return TOKEN_PATTERN.test(token) && this.liveToken('email_changes', hashEmailChangeToken(token));
  }

  /**
   * Moves the account to its new address and uses the token up, in one transaction. False when the
   * token is unknown or expired, or the address got an account since.
   */
  async confirmEmailChange(token: string, origin?: ActorOrigin): Promise<boolean> {
    if (!TOKEN_PATTERN.test(token)) return false;
    const tokenHash = hashEmailChangeToken(token);
    try {
      const userId = await this.db.transaction().execute(async (trx) => {
        const change = await trx
          .deleteFrom('email_changes')
          .where('token_hash', '=', tokenHash)
          .where('expires_at', '>', nowIso(this.clock))
          .returning(['user_id', 'new_email'])
          .executeTakeFirst();
        if (!change) return null;
        await trx
          .updateTable('users')
          .set({ email: change.new_email, updated_at: nowIso(this.clock) })
          .where('id', '=', change.user_id)
          .execute();
        return change.user_id;
      });
      if (userId === null) return false;
      await this.deps.changes?.announce({ kind: 'user', id: userId });
      await this.deps.users.credentialsChanged();
      await this.audited(userId, null, 'user.email', origin, { email: true });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  // ---- Password reset ------------------------------------------------------------------------------

  /**
   * Mails a reset link to the account with this email, if there is one, in the background: the
   * caller answers at once and the same way whether or not the account exists, and its response
   * time says nothing either.
   */
  requestPasswordReset(email: string, link: (token: string) => string, site: MailSite): void {
    const work = this.sendResetLink(email, link, site).catch((error: unknown) =>
      this.deps.warn(`password reset mail failed: ${(error as Error).message}`),
    );
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async sendResetLink(email: string, link: (token: string) => string, site: MailSite) {
    const user = await this.deps.users.findByEmail(email);
    if (!user || !user.isActive) return;
    await this.mailResetLink(user, link, site);
  }

  /**
   * An administrator sends a user a reset link (issue 25 #7): the same one-time link the user would
   * ask for, mailed now (the caller hears whether the mail went). A disabled account gets none.
   */
  async sendResetByAdministrator(
    actor: Actor,
    userId: number,
    link: (token: string) => string,
    site: MailSite,
  ): Promise<User> {
    const user = await this.activeUserFor(actor, userId, 'sending a reset link');
    await this.mailResetLink(user, link, site);
    return this.recordMailed(actor, user, 'user.password_reset_sent');
  }

  /**
   * Invites the owner of an account an import brought without a password (issue 39: a WordPress or
   * Ghost author) to choose one: a one-time link valid for a week, in a mail that says the site moved.
   * Administrators only; an account that has a password, or is disabled, gets none.
   */
  async inviteImportedUser(
    actor: Actor,
    userId: number,
    link: (token: string) => string,
    site: MailSite,
  ): Promise<User> {
    const user = await this.activeUserFor(actor, userId, 'inviting its owner');
    const row = await this.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', userId)
      .executeTakeFirst();
    if (row?.password_hash !== IMPORTED_WITHOUT_PASSWORD) {
      throw new InputError('user', 'The account has a password: send a reset link instead.');
    }
    await this.mailResetLink(user, link, site, { mail: 'moved_in', minutes: IMPORTED_INVITE_MINUTES });
    return this.recordMailed(actor, user, 'user.invited_after_import');
  }

  /** Records the link an administrator mailed a user (`action`); answers the user. */
  private async recordMailed(actor: Actor, user: User, action: string): Promise<User> {
    await recordWrite(this.deps.audit, actor, {
      action,
      resourceType: 'user',
      resourceId: user.id,
      websiteIds: [],
    });
    return user;
  }

  /** An active account an administrator acts on (`doing` names the act in the refusal's words). */
  private async activeUserFor(actor: Actor, userId: number, doing: string): Promise<User> {
    if (!(await this.deps.policy.can(actor, 'account.manage', {}))) throw new ForbiddenError();
    const user = await this.deps.users.findById(userId);
    if (!user) throw new NotFoundError('User not found');
    if (!user.isActive) {
      throw new InputError('user', `The account is disabled: enable it before ${doing}.`);
    }
    return user;
  }

  private async mailResetLink(
    user: User,
    link: (token: string) => string,
    site: MailSite,
    as: { mail: 'reset' | 'moved_in'; minutes?: number } = { mail: 'reset' },
  ) {
    const siteName = site.name;
    const token = randomBytes(32).toString('base64url');
    const minutes = as.minutes ?? (await this.resetLifetimeMinutes());
    const now = this.clock.now();
    // One live link per account: a new request replaces the previous one.
    await this.db.deleteFrom('password_resets').where('user_id', '=', user.id).execute();
    await this.db
      .insertInto('password_resets')
      .values({
        token_hash: hashResetToken(token),
        user_id: user.id,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + minutes * 60_000).toISOString(),
        used_at: null,
      })
      .execute();
    await this.deps.mailer().send({
      to: user.email,
      siteDomain: site.domain,
      ...mailOf(await this.localeFor(user, site.locale), as.mail, {
        site: siteName,
        name: user.name,
        minutes: String(minutes),
        days: String(Math.round(minutes / 1440)),
        link: link(token),
      }),
    });
  }

  /**
   * The language of a mail: the recipient's chosen one, else the page's it was asked from, else the
   * site's default locale.
   */
  private async localeFor(recipient: Pick<User, 'locale'> | null, pageLocale: string | undefined) {
    return mailLocale(recipient?.locale, pageLocale, await defaultLocale(this.deps.settings));
  }

  /** Whether a reset token is live (the form is shown only for one). */
  async resetTokenValid(token: string): Promise<boolean> {
    if (!TOKEN_PATTERN.test(token)) return false;
    const row = await this.db
      .selectFrom('password_resets')
      .select('id')
      .where('token_hash', '=', hashResetToken(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', nowIso(this.clock))
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Sets a new password with a live token and uses the token up; every session of the user ends.
   * Returns false when the token is unknown, used or expired.
   */
  async resetPassword(token: string, password: string, origin?: ActorOrigin): Promise<boolean> {
    if (!TOKEN_PATTERN.test(token)) return false;
    const now = nowIso(this.clock);
    const used = await this.db
      .updateTable('password_resets')
      .set({ used_at: now })
      .where('token_hash', '=', hashResetToken(token))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    if (!used) return false;
    await this.db
      .updateTable('users')
      .set({ password_hash: await argon2Hash(password), updated_at: now })
      .where('id', '=', used.user_id)
      .execute();
    await this.deps.sessions.endAllOf(used.user_id);
    await this.audited(used.user_id, null, 'user.password_reset', origin, { password: true });
    return true;
  }

  /** Records an account write, the account's user acting on it (from the site unless told). */
  private audited(
    userId: number,
    websiteId: number | null,
    action: string,
    origin: ActorOrigin | undefined,
    input: unknown,
  ): Promise<void> {
    return recordWrite(
      this.deps.audit,
      { userId, isAdmin: false, websiteId, origin: origin ?? { surface: 'site' } },
      {
        action,
        resourceType: 'user',
        resourceId: userId,
        websiteIds: websiteId === null ? [] : [websiteId],
        input,
      },
    );
  }

  async resetLifetimeMinutes(): Promise<number> {
    return this.minutesSetting(RESET_LIFETIME_SETTING, DEFAULT_RESET_LIFETIME);
  }

  async registrationLifetimeMinutes(): Promise<number> {
    return this.minutesSetting(REGISTRATION_LIFETIME_SETTING, DEFAULT_REGISTRATION_LIFETIME);
  }

  /** A setting in minutes, 1 to 7 days; anything else is the default. */
  private async minutesSetting(key: string, fallback: number): Promise<number> {
    const minutes = Number((await this.deps.settings.get(key))?.trim());
    return Number.isInteger(minutes) && minutes >= 1 && minutes <= 7 * 24 * 60 ? minutes : fallback;
  }

  /** Waits for background work (tests, and shutdown before the database closes). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  // ---- Helpers -------------------------------------------------------------------------------------

  private async passwordMatches(userId: number, password: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!row) return false;
    return argon2Verify(row.password_hash, password).catch(() => false);
  }

  private async usernameTaken(username: string, exceptUserId: number | null): Promise<boolean> {
    let query = this.db.selectFrom('users').select('id').where('username', '=', username);
    if (exceptUserId !== null) query = query.where('id', '!=', exceptUserId);
    return (await query.executeTakeFirst()) !== undefined;
  }

  /** A free username from the name (else the email's local part): `jane-doe`, `jane-doe-2`… */
  private async freeUsername(name: string, email: string): Promise<string> {
    let base = slugify(name).slice(0, 24).replace(/-+$/, '');
    if (base.length < 3)
      base = slugify(email.split('@')[0] ?? '')
        .slice(0, 24)
        .replace(/-+$/, '');
    if (base.length < 3) base = `user-${base}`.replace(/-+$/, '');
    return uniqueSlug(base, async (candidates) => {
      const rows = await this.db
        .selectFrom('users')
        .select('username')
        .where('username', 'in', candidates)
        .execute();
      return new Set(rows.map((row) => row.username ?? ''));
    });
  }

  /** The username itself when free, else its first free variant (`grace-2`…, within 32 characters). */
  private async usernameOrVariant(username: string): Promise<string> {
    if (!(await this.usernameTaken(username, null))) return username;
    const base = username.slice(0, 28).replace(/[-_]+$/, '');
    return uniqueSlug(base.length >= 3 ? base : `user-${base}`.replace(/-+$/, ''), async (candidates) => {
      const rows = await this.db
        .selectFrom('users')
        .select('username')
        .where('username', 'in', candidates)
        .execute();
      return new Set(rows.map((row) => row.username ?? ''));
    });
  }
}
