// Reading the audit log, for API v2 and the CLI: administrators read every entry, a site admin the
// entries of their website (the policy's `audit.read`).
import type { AuditLog, AuditQuery, AuditRecord } from './audit.js';
import { ForbiddenError } from '../errors.js';
import type { Actor, Policy } from '../policy.js';

export class AuditReads {
  constructor(private readonly deps: { audit: AuditLog; policy: Policy }) {}

  /** Entries newest first; `query.websiteId` absent reads the installation's (administrators). */
  async list(actor: Actor, query: AuditQuery): Promise<AuditRecord[]> {
    if (!(await this.deps.policy.can(actor, 'audit.read', { websiteId: query.websiteId }))) {
      throw new ForbiddenError();
    }
    return this.deps.audit.list(query);
  }
}
