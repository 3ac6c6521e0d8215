// Self-service accounts of the public site: registration (with a unique public username), profile and
// settings changes, and password reset by a one-time, expiring token delivered by mail. The token is
// 32 random bytes; only its SHA-256 is stored, and using it is one conditional UPDATE, so it works
// once even when two requests race. Shapes of input are checked by the routes; the rules that need the
// database are checked here and reported per field, like a validation error.
import { createHash, randomBytes } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import type { Db } from '../db/database.js';
import { isUniqueViolation } from '../db/errors.js';
import { nowIso } from './clock.js';
import type { Clock } from './clock.js';
import type { Mailer } from './mailer.js';
import type { SessionService } from './sessions.js';
import type { SettingsService } from './settings.js';
import { slugify, uniqueSlug } from './slugs.js';
import { normalizeEmail } from './users.js';
import type { User, UsersService } from './users.js';

/** Public usernames (they appear in `/user/{username}/posts`): 3 to 32 of a-z, 0-9, `_`, `-`. */
export const USERNAME_PATTERN = /^[a-z0-9][a-z0-9_-]{2,31}$/;
export const REGISTRATION_SETTING = 'enable_registration';
export const RESET_LIFETIME_SETTING = 'password_reset_lifetime';
/** Minutes a reset link stays valid. */
export const DEFAULT_RESET_LIFETIME = 60;

export class AccountInputError extends Error {
  constructor(readonly errors: Record<string, string[]>) {
    super('invalid account input');
    this.name = 'AccountInputError';
  }
}

export interface Registration {
  name: string;
  email: string;
  /** Blank: one is made from the name. */
  username?: string;
  password: string;
}

export interface SettingsChange {
  email: string;
  /** Blank: the password stays. */
  newPassword?: string;
  /** Required when the email or the password changes. */
  currentPassword?: string;
}

const hashResetToken = (token: string) => createHash('sha256').update(`reset:${token}`).digest('hex');

export class AccountsService {
  /** Background work (reset mail) still running; close() waits for it. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly deps: {
      users: UsersService;
      sessions: SessionService;
      settings: SettingsService;
      mailer: () => Mailer;
      warn: (message: string) => void;
    },
  ) {}

  async registrationOpen(): Promise<boolean> {
    return this.deps.settings.flag(REGISTRATION_SETTING, true);
  }

  async register(input: Registration): Promise<User> {
    const errors: Record<string, string[]> = {};
    if (await this.deps.users.findByEmail(input.email)) errors.email = ['The email has already been taken.'];
    let username = input.username?.trim().toLowerCase() || undefined;
    if (username !== undefined && (await this.usernameTaken(username, null))) {
      errors.username = ['The username has already been taken.'];
    }
    if (Object.keys(errors).length > 0) throw new AccountInputError(errors);
    username ??= await this.freeUsername(input.name, input.email);
    try {
      return await this.deps.users.create({
        name: input.name,
        email: input.email,
        username,
        password: input.password,
      });
    } catch (error) {
      // Another registration took the email or the username since we looked.
      if (isUniqueViolation(error))
        throw new AccountInputError(await this.takenFields(input.email, username));
      throw error;
    }
  }

  async updateProfile(userId: number, input: { name: string; username: string }): Promise<void> {
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
  }

  /**
   * Changes the email and, when given, the password. Either change needs the current password. A new
   * password ends every other session of the user (`keepSessionId` is the caller's own).
   */
  async updateSettings(user: User, input: SettingsChange, keepSessionId: string): Promise<void> {
    const email = normalizeEmail(input.email);
    const changingEmail = email !== user.email;
    const changingPassword = (input.newPassword ?? '') !== '';
    if (!changingEmail && !changingPassword) return;
    if (!input.currentPassword) {
      throw new AccountInputError({ current_password: ['The current password field is required.'] });
    }
    if (!(await this.passwordMatches(user.id, input.currentPassword))) {
      throw new AccountInputError({ current_password: ['The current password is incorrect.'] });
    }
    if (changingEmail && (await this.deps.users.findByEmail(email))) {
      throw new AccountInputError({ email: ['The email has already been taken.'] });
    }
    const changes: { email?: string; password_hash?: string; updated_at: string } = {
      updated_at: nowIso(this.clock),
    };
    if (changingEmail) changes.email = email;
    if (changingPassword) changes.password_hash = await argon2Hash(input.newPassword as string);
    try {
      await this.db.updateTable('users').set(changes).where('id', '=', user.id).execute();
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AccountInputError({ email: ['The email has already been taken.'] });
      throw error;
    }
    if (changingPassword) await this.deps.sessions.endAllOf(user.id, keepSessionId);
  }

  // ---- Password reset ------------------------------------------------------------------------------

  /**
   * Mails a reset link to the account with this email, if there is one, in the background: the
   * caller answers at once and the same way whether or not the account exists, and its response
   * time says nothing either.
   */
  requestPasswordReset(email: string, link: (token: string) => string, siteName: string): void {
    const work = this.sendResetLink(email, link, siteName).catch((error: unknown) =>
      this.deps.warn(`password reset mail failed: ${(error as Error).message}`),
    );
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async sendResetLink(email: string, link: (token: string) => string, siteName: string) {
    const user = await this.deps.users.findByEmail(email);
    if (!user || !user.isActive) return;
    const token = randomBytes(32).toString('base64url');
    const minutes = await this.resetLifetimeMinutes();
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
      subject: `Reset your password on ${siteName}`,
      text:
        `Hello ${user.name},\n\n` +
        `Someone (hopefully you) asked to reset the password of your account on ${siteName}.\n` +
        `To choose a new password, open this link within ${minutes} minutes:\n\n${link(token)}\n\n` +
        `The link works once. If you did not ask for it, ignore this message: your password stays as it is.\n`,
    });
  }

  /** Whether a reset token is live (the form is shown only for one). */
  async resetTokenValid(token: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
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
  async resetPassword(token: string, password: string): Promise<boolean> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
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
    return true;
  }

  async resetLifetimeMinutes(): Promise<number> {
    const minutes = Number((await this.deps.settings.get(RESET_LIFETIME_SETTING))?.trim());
    return Number.isInteger(minutes) && minutes >= 1 && minutes <= 7 * 24 * 60
      ? minutes
      : DEFAULT_RESET_LIFETIME;
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

  private async takenFields(email: string, username: string): Promise<Record<string, string[]>> {
    const errors: Record<string, string[]> = {};
    if (await this.deps.users.findByEmail(email)) errors.email = ['The email has already been taken.'];
    if (await this.usernameTaken(username, null)) errors.username = ['The username has already been taken.'];
    return Object.keys(errors).length > 0 ? errors : { email: ['The email has already been taken.'] };
  }
}
