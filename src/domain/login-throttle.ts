// The attempt limits of login, registration and password-reset requests: fixed windows counted per
// key (an account's email, a client address) through the installation's one rate limiter
// (lib/rate-limits.ts: Redis shared by every node, memory while Redis is down or absent).
import type { Limit, RateLimits } from '../lib/rate-limits.js';

export interface ThrottleLimits {
  /**
   * Failed logins per account (email) from one client address. Counted per address so that nobody
   * can lock another person out of their account by failing on purpose (issue 21 #7): their own
   * address still gets through with the right password.
   */
  loginPerAccount: Limit;
  /** Failed logins per client address, whatever the account. */
  loginPerAddress: Limit;
  /** Registrations per client address. */
  registerPerAddress: Limit;
  /** Registrations per email (each one mails the address), whether or not it has an account. */
  registerPerEmail: Limit;
  /** Password reset requests per client address, and per email. */
  resetPerAddress: Limit;
  resetPerAccount: Limit;
}

export const DEFAULT_LIMITS: ThrottleLimits = {
  loginPerAccount: { max: 5, windowSeconds: 15 * 60 },
  loginPerAddress: { max: 20, windowSeconds: 15 * 60 },
  registerPerAddress: { max: 10, windowSeconds: 60 * 60 },
  registerPerEmail: { max: 3, windowSeconds: 60 * 60 },
  resetPerAddress: { max: 10, windowSeconds: 60 * 60 },
  resetPerAccount: { max: 3, windowSeconds: 60 * 60 },
};

/** Refused: the number of seconds until the caller may try again. */
export type Verdict = { allowed: true } | { allowed: false; retryAfter: number };

/** Every attempt is counted under each of its limits (so none slips past), then the verdicts join. */
function joined(verdicts: Array<{ allowed: boolean; retryAfter?: number }>): Verdict {
  const retryAfter = Math.max(
    0,
    ...verdicts.map((verdict) => (verdict.allowed ? 0 : (verdict.retryAfter ?? 1))),
  );
  return retryAfter > 0 ? { allowed: false, retryAfter } : { allowed: true };
}

/**
 * The policies over the rate limiter. Account keys use the normalized email whether or not an
 * account has it, so a refusal says nothing about which emails exist.
 */
export class LoginThrottle {
  constructor(
    private readonly limiter: RateLimits,
    readonly limits: ThrottleLimits = DEFAULT_LIMITS,
  ) {}

  private static account(email: string): string {
    return email.trim().toLowerCase().slice(0, 320);
  }

  private static accountFrom(email: string, address: string): string {
    return `${LoginThrottle.account(email)}|${address}`;
  }

  /** Counts a login attempt, before the password is checked, and says whether it may go on. */
  async loginAttempt(email: string, address: string): Promise<Verdict> {
    const { loginPerAccount, loginPerAddress } = this.limits;
    return joined(
      await Promise.all([
        this.limiter.hit('login:acct', LoginThrottle.accountFrom(email, address), loginPerAccount),
        this.limiter.hit('login:addr', address, loginPerAddress),
      ]),
    );
  }

  /**
   * A successful login clears the account's attempts and takes back its own count from the
   * address (many people behind one address may log in; only failures should add up there).
   */
  async loginSucceeded(email: string, address: string): Promise<void> {
    await Promise.all([
      this.limiter.reset(
        'login:acct',
        LoginThrottle.accountFrom(email, address),
        this.limits.loginPerAccount,
      ),
      this.limiter.undo('login:addr', address, this.limits.loginPerAddress),
    ]);
  }

  /** Counts a registration attempt and says whether it may go on. */
  async registerAttempt(address: string): Promise<Verdict> {
    return joined([await this.limiter.hit('register:addr', address, this.limits.registerPerAddress)]);
  }

  /**
   * Counts a valid registration for an email (normalized, existing or not) and says whether it may
   * mail the address again.
   */
  async registerEmailAttempt(email: string): Promise<Verdict> {
    return joined([
      await this.limiter.hit('register:acct', LoginThrottle.account(email), this.limits.registerPerEmail),
    ]);
  }

  /** Counts a password reset request and says whether it may go on. */
  async resetAttempt(email: string, address: string): Promise<Verdict> {
    const { resetPerAddress, resetPerAccount } = this.limits;
    return joined(
      await Promise.all([
        this.limiter.hit('reset:addr', address, resetPerAddress),
        this.limiter.hit('reset:acct', LoginThrottle.account(email), resetPerAccount),
      ]),
    );
  }
}
