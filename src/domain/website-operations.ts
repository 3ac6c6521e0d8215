// Websites as operations (issues 19, 20): every face (API v1 now, API v2 and the admin panel next)
// creates, changes and deletes websites and their domains here, so the same policy decides
// (`policy.manageWebsite`: administrators, the website's owners and bound users (R-W7), its site
// admins) and every write is audited. Input is parsed by each face (API v1's schemas keep the spec's
// messages and order of checks, R-A7); the rules on domains live in websites.ts.
import { recordWrite } from './audit.js';
import type { AuditLog } from './audit.js';
import { ForbiddenError, NotFoundError } from './errors.js';
import type { Actor, Policy } from './policy.js';
import { ADMIN_ONLY_WEBSITE_FIELDS } from './websites.js';
import type { AddDomainResult, NewWebsite, Website, WebsitePatch, WebsitesService } from './websites.js';

export const websiteNotFound = () => new NotFoundError('Website not found');

export class WebsiteOperations {
  constructor(
    private readonly websites: WebsitesService,
    private readonly policy: Policy,
    private readonly audit?: AuditLog,
  ) {}

  /** The website, when it exists and the actor may manage it (others are "not found" too, R-W7). */
  async show(actor: Actor, id: number): Promise<Website> {
    const website = (await this.policy.managesWebsite(actor, id)) ? await this.websites.find(id) : null;
    if (!website) throw websiteNotFound();
    return website;
  }

  /** A new website (administrators only: the face's guard answers first in the spec's words). */
  async create(actor: Actor, input: NewWebsite): Promise<Website> {
    if (!actor.isAdmin) throw new ForbiddenError();
    const id = await this.websites.create(input);
    await this.audited(actor, 'website.create', id, input);
    return this.show(actor, id);
  }

  async update(actor: Actor, id: number, patch: WebsitePatch): Promise<Website> {
    await this.show(actor, id);
    // Code that runs on every page, and who owns the website, are the administrators' (R-W6).
    if (!actor.isAdmin && ADMIN_ONLY_WEBSITE_FIELDS.some((field) => patch[field] !== undefined)) {
      throw new ForbiddenError();
    }
    if (patch.domain !== undefined) this.policy.requireDomainClaim(actor, patch.domain);
    const website = await this.websites.update(id, patch);
    await this.audited(actor, 'website.update', id, patch);
    return website;
  }

  async delete(actor: Actor, id: number): Promise<void> {
    await this.show(actor, id);
    if (!actor.isAdmin) throw new ForbiddenError();
    await this.websites.delete(id);
    await this.audited(actor, 'website.delete', id);
  }

  async addDomain(actor: Actor, id: number, domain: string): Promise<AddDomainResult> {
    await this.show(actor, id);
    this.policy.requireDomainClaim(actor, domain);
    const result = await this.websites.addDomain(id, domain);
    if (result.outcome === 'created') await this.audited(actor, 'website.add_domain', id, { domain });
    return result;
  }

  async removeDomain(actor: Actor, id: number, domain: string) {
    await this.show(actor, id);
    const result = await this.websites.removeDomain(id, domain);
    await this.audited(actor, 'website.remove_domain', id, { domain });
    return result;
  }

  private audited(actor: Actor, action: string, id: number, input?: unknown): Promise<void> {
    return recordWrite(this.audit, actor, {
      action,
      resourceType: 'website',
      resourceId: id,
      websiteIds: [id],
      input,
    });
  }
}
