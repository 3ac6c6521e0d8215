// After an import (issue 39 #3): the accounts it made without a password (WordPress and Ghost authors,
// a Folio archive's users without their secrets) are mailed a week-long link to choose one. The CLI's
// `import --invite-authors` and API v2's `invite_authors` (the panel's checkbox) both come here.
import type { AccountsService } from '../people/accounts.js';
import type { Actor } from '../policy.js';
import { siteOrigin } from '../websites/urls.js';
import type { Website } from '../websites/store.js';
import type { ImportReport } from './import-folio.js';

export interface AuthorInviteDeps {
  /** The accounts service (made after this one in services.ts, so asked for when needed). */
  accounts: () => AccountsService;
  findWebsite: (id: number) => Promise<Website | null>;
  appUrl: string;
}

export interface AuthorInvites {
  invited: number;
  /** The accounts that could not be invited (disabled since, or given a password), and why. */
  failed: Array<{ email: string; reason: string }>;
}

export class AuthorInviter {
  constructor(private readonly deps: AuthorInviteDeps) {}

  /**
   * Invites each account of the report without a password, from the first website the import wrote
   * to (its name and domain in the mail, its address in the link). One that fails is said, not thrown.
   */
  async invite(
    actor: Actor,
    report: Pick<ImportReport, 'websites' | 'without_password' | 'dry_run'>,
  ): Promise<AuthorInvites> {
    const { deps } = this;
    const outcome: AuthorInvites = { invited: 0, failed: [] };
    if (report.dry_run || report.without_password.length === 0) return outcome;
    const website = report.websites[0] === undefined ? null : await deps.findWebsite(report.websites[0]);
    const origin = (website ? siteOrigin(website, deps.appUrl) : deps.appUrl).replace(/\/$/, '');
    const site = {
      name: website?.fields.site_name ?? 'Folio',
      domain: website?.domain ?? new URL(deps.appUrl).hostname,
    };
    for (const account of report.without_password) {
      try {
        await deps
          .accounts()
          .inviteImportedUser(actor, account.id, (token) => `${origin}/user/password/reset/${token}`, site);
        outcome.invited += 1;
      } catch (error) {
        outcome.failed.push({ email: account.email, reason: (error as Error).message });
      }
    }
    return outcome;
  }
}
