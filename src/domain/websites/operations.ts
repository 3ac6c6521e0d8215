// Websites as operations (issues 19, 20): every face (API v1 now, API v2 and the admin panel next)
// creates, changes and deletes websites and their domains here, so the same policy decides
// (`policy.manageWebsite`: administrators, the website's owners and bound users (R-W7), its site
// admins) and every write is audited. Input is parsed by each face (API v1's schemas keep the spec's
// messages and order of checks, R-A7); the rules on domains live in websites.ts.
import { recordWrite } from '../system/audit.js';
import type { ContentChanges } from '../changes.js';
import type { OperationRunner } from '../run.js';
import type { AuditLog } from '../system/audit.js';
import type { DomainCheck, DomainChecker } from './domain-check.js';
import { ForbiddenError, InputError, NotFoundError } from '../errors.js';
import type { MediaLibrary } from '../media/library.js';
import type { MediaService } from '../media/files.js';
import type { Actor, Policy } from '../policy.js';
import { ADMIN_ONLY_WEBSITE_FIELDS, WEBSITE_CODE_FIELDS, normalizeDomain } from './store.js';
import type {
  AddDomainResult,
  NewWebsite,
  Website,
  WebsitePatch,
  WebsiteUsage,
  WebsitesService,
} from './store.js';

/** What deleting a website needs besides the website store (its media go with it). */
export interface WebsiteDeleteDeps {
  library: Pick<MediaLibrary, 'removeBoundOnlyTo'>;
  media: Pick<MediaService, 'removeFiles'>;
}

export const websiteNotFound = () => new NotFoundError('Website not found');

export class WebsiteOperations {
  constructor(
    private readonly websites: WebsitesService,
    private readonly policy: Policy,
    private readonly runner: OperationRunner,
    private readonly changes: ContentChanges,
    private readonly audit?: AuditLog,
    private readonly extras?: {
      deleting?: WebsiteDeleteDeps;
      checker?: DomainChecker;
      /** The installed themes' names. */
      themes?: () => Promise<string[]>;
      /** Whether an account exists (a website's owner, `user_id`, must). */
      userExists?: (id: number) => Promise<boolean>;
    },
  ) {}

  /**
   * The website as the actor may see it through the management faces: without the code it puts
   * into every page unless the policy lets the actor manage that code.
   */
  async visible(actor: Actor, website: Website): Promise<Website> {
    if (await this.policy.can(actor, 'website.code', {})) return website;
    const fields = { ...website.fields };
    for (const field of WEBSITE_CODE_FIELDS) delete (fields as Record<string, unknown>)[field];
    return { ...website, fields };
  }

  /** What deleting the website takes with it (administrators: those who may delete it). */
  /** The installation's token that every website answers at DOMAIN_CHECK_PATH (public: it proves nothing else). */
  async domainCheckToken(): Promise<string> {
    const checker = this.extras?.checker;
    if (!checker) throw new Error('no domain checker configured');
    return checker.token();
  }

  async usage(actor: Actor, id: number): Promise<WebsiteUsage> {
    await this.show(actor, id);
    if (!(await this.policy.can(actor, 'installation.manage', {}))) throw new ForbiddenError();
    return this.websites.usage(id);
  }

  /**
   * Whether one of the website's domains leads to this server (domain-check.ts). Only its own
   * domains: the check is no probe of arbitrary names.
   */
  async checkDomain(actor: Actor, id: number, input: string): Promise<DomainCheck> {
    const website = await this.show(actor, id);
    const domain = normalizeDomain(input);
    const own = [website.domain, ...website.aliases.map((alias) => alias.domain)];
    if (domain === null || !own.includes(domain)) {
      throw new InputError('domain', 'The domain is not one of this website\u2019s domains.');
    }
    if (!this.extras?.checker) throw new Error('no domain checker configured');
    return this.extras.checker.check(domain);
  }

  /** The installed themes (whoever manages a website chooses among them). */
  async themes(actor: Actor): Promise<string[]> {
    if (!(await this.policy.can(actor, 'caller.identified', {}))) throw new ForbiddenError();
    return (await this.extras?.themes?.()) ?? ['default'];
  }

  /**
   * The websites the actor manages (R-W7): every website for administrators (with a key limited to
   * websites: those), the ones they own, are bound to or are site admin of for others; nothing for a
   * caller without a user (a content key reads as a visitor).
   */
  async list(actor: Actor, query: { keyword?: string; page: number; pageSize: number }) {
    if (!(await this.policy.can(actor, 'caller.identified', {}))) throw new ForbiddenError();
    if (await this.policy.can(actor, 'website.see_all', {})) return this.websites.list(query);
    const scope = actor.key && actor.key.websiteIds.length > 0 ? actor.key.websiteIds : undefined;
    if (await this.policy.can(actor, 'website.see_key_scope', {}))
      return this.websites.list({ ...query, ids: scope });
    return this.websites.list({ ...query, accessibleTo: actor.userId ?? 0, ids: scope });
  }

  /** The website, when it exists and the actor may manage it (others are "not found" too, R-W7). */
  async show(actor: Actor, id: number): Promise<Website> {
    const website = (await this.policy.can(actor, 'website.manage', { websiteId: id }))
      ? await this.websites.find(id)
      : null;
    if (!website) throw websiteNotFound();
    return website;
  }

  /** A new website (administrators only: the face's guard answers first in the spec's words). */
  async create(actor: Actor, input: NewWebsite): Promise<Website> {
    return this.runner.run(async () => {
      if (!(await this.policy.can(actor, 'installation.manage', {}))) throw new ForbiddenError();
      const id = await this.websites.create(input);
      await this.announce(id, true);
      await this.audited(actor, 'website.create', id, input);
      return this.show(actor, id);
    });
  }

  /**
   * Refuses a change of the administrators' fields (page code, the owner: R-W6) by anyone else,
   * before the input is even read (API v1 answers this before validation, R-A7).
   */
  async requireFieldsAllowed(actor: Actor, fields: Record<string, unknown>): Promise<void> {
    if (
      ADMIN_ONLY_WEBSITE_FIELDS.some((field) => fields[field] !== undefined) &&
      !(await this.policy.can(actor, 'website.code', {}))
    ) {
      throw new ForbiddenError();
    }
  }

  async update(actor: Actor, id: number, patch: WebsitePatch): Promise<Website> {
    return this.runner.run(async () => {
      const managesCode = await this.policy.can(actor, 'website.code', {});
      // The owner named must exist; API v1 has always answered this before an unknown website.
      if (
        managesCode &&
        typeof patch.user_id === 'number' &&
        !(await this.extras?.userExists?.(patch.user_id))
      ) {
        throw new InputError('user_id', 'The selected user id is invalid.');
      }
      const current = await this.show(actor, id);
      // Code that runs on every page, and who owns the website, are the administrators' (R-W6).
      if (!managesCode && ADMIN_ONLY_WEBSITE_FIELDS.some((field) => patch[field] !== undefined)) {
        throw new ForbiddenError();
      }
      if (patch.domain !== undefined) this.policy.requireDomainClaim(actor, patch.domain);
      const website = await this.websites.update(id, patch);
      await this.announce(id, website.domain !== current.domain);
      await this.audited(actor, 'website.update', id, patch);
      return website;
    });
  }

  async delete(actor: Actor, id: number): Promise<void> {
    return this.runner.run(async (scope) => {
      await this.show(actor, id);
      if (!(await this.policy.can(actor, 'installation.manage', {}))) throw new ForbiddenError();
      const deleting = this.extras?.deleting;
      const usage = await this.websites.usage(id);
      const files = await this.websites.delete(
        id,
        deleting ? (trx) => deleting.library.removeBoundOnlyTo(trx, id) : undefined,
      );
      // After the commit: a failed transaction never loses a file a row still names.
      if (files.length > 0) scope.afterCommit(() => deleting?.media.removeFiles(files));
      await this.announce(id, true);
      await this.audited(actor, 'website.delete', id, usage);
    });
  }

  async addDomain(actor: Actor, id: number, domain: string): Promise<AddDomainResult> {
    return this.runner.run(async () => {
      await this.show(actor, id);
      this.policy.requireDomainClaim(actor, domain);
      const result = await this.websites.addDomain(id, domain);
      if (result.outcome === 'created') {
        await this.announce(id, true);
        await this.audited(actor, 'website.add_domain', id, { domain });
      }
      return result;
    });
  }

  async removeDomain(actor: Actor, id: number, domain: string) {
    return this.runner.run(async () => {
      await this.show(actor, id);
      const result = await this.websites.removeDomain(id, domain);
      await this.announce(id, true);
      await this.audited(actor, 'website.remove_domain', id, { domain });
      return result;
    });
  }

  /** Every website write is announced here (the caches of its pages and of the hosts listen). */
  private announce(id: number, domainsChanged: boolean): Promise<void> {
    return this.changes.announce({ kind: 'website', id, domainsChanged });
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
