// The attempt limits of login, registration and password-reset requests: fixed windows counted per
// key (an account's email, a client address) through the installation's one rate limiter
// (lib/rate-limits.ts: Redis shared by every node, memory while Redis is down or absent). Addresses
// count by client (lib/client-address.ts): an IPv6 client by its /64, which it may roam at will.
import { clientBucket } from '../../lib/client-address.js';
import type { Limit, RateLimits } from '../../lib/rate-limits.js';

export interface ThrottleLimits {
  /**
   * Failed logins per account (email) from one client address. Counted per address so that nobody
   * can lock another person out of their account by failing on purpose (issue 21 #7): their own
   * address still gets through with the right password.
   */
  loginPerAccount: Limit;
  /** Failed logins per client address, whatever the account. */
  loginPerAddress: Limit;
  /**
   * Login attempts per account from every address together (issue 34 #9): past it, attempts from
   * addresses the account has not logged in from lately wait for the (short) window to end. A
   * ceiling that slows guessing from many networks down to `max` per window, not a lockout: the
   * owner's own known addresses (`knownAddressSeconds`) are never refused by it.
   */
  loginPerAccountAnywhere: Limit;
  /** How long a successful login makes its address (/64 for IPv6) known for the account. */
  knownAddressSeconds: number;
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
  loginPerAccountAnywhere: { max: 30, windowSeconds: 10 * 60 },
  knownAddressSeconds: 21 * 24 * 60 * 60,
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
    return `${LoginThrottle.account(email)}|${clientBucket(address)}`;
  }

  /** Counts a login attempt, before the password is checked, and says whether it may go on. */
  async loginAttempt(email: string, address: string): Promise<Verdict> {
    const { loginPerAccount, loginPerAddress, loginPerAccountAnywhere, knownAddressSeconds } = this.limits;
    const accountFrom = LoginThrottle.accountFrom(email, address);
    const [fromHere, fromAddress, anywhere, known] = await Promise.all([
      this.limiter.hit('login:acct', accountFrom, loginPerAccount),
      this.limiter.hit('login:addr', clientBucket(address), loginPerAddress),
      this.limiter.hit('login:acct-all', LoginThrottle.account(email), loginPerAccountAnywhere),
      this.limiter.remembers('login:known', accountFrom, knownAddressSeconds),
    ]);
    return joined(known ? [fromHere, fromAddress] : [fromHere, fromAddress, anywhere]);
  }

  /**
   * A successful login clears the account's attempts and takes back its own count from the
   * address (many people behind one address may log in; only failures should add up there).
   */
  async loginSucceeded(email: string, address: string): Promise<void> {
    const accountFrom = LoginThrottle.accountFrom(email, address);
    await Promise.all([
      this.limiter.reset('login:acct', accountFrom, this.limits.loginPerAccount),
      this.limiter.undo('login:addr', clientBucket(address), this.limits.loginPerAddress),
      // The success is not a guess: it leaves the account-wide count as the guessers left it.
      this.limiter.undo('login:acct-all', LoginThrottle.account(email), this.limits.loginPerAccountAnywhere),
      this.limiter.remember('login:known', accountFrom, this.limits.knownAddressSeconds),
    ]);
  }

  /** Counts a registration attempt and says whether it may go on. */
  async registerAttempt(address: string): Promise<Verdict> {
    return joined([
      await this.limiter.hit('register:addr', clientBucket(address), this.limits.registerPerAddress),
    ]);
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
        this.limiter.hit('reset:addr', clientBucket(address), resetPerAddress),
        this.limiter.hit('reset:acct', LoginThrottle.account(email), resetPerAccount),
      ]),
    );
  }
}
