// The link directory as operations for the management faces (API v2, the admin panel): list a
// website's links with their click counts, show one, create, change, delete. Links are the editors'
// (policy.editsContent: an editor or site admin of every website a link is on; a link of every
// website is the administrators'); anyone with access to the website reads them (they are public).
// One schema per input; each write one operation (run.ts): the store's rows, the audit row and the
// announced change commit together, the change told after commit.
import { z } from 'zod';
import type { ContentChanges } from '../changes.js';
import type { OperationRunner } from '../run.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { ClicksService } from './clicks.js';
import { ForbiddenError, NotFoundError, StaleWriteError } from '../errors.js';
import { MAX_LINK_DESCRIPTION_LENGTH, MAX_LINK_NAME_LENGTH, MAX_LINK_URL_LENGTH } from './links.js';
import type { Link, LinkChange, LinksService } from './links.js';
import type { Actor, Policy } from '../policy.js';
import { integer, parse } from '../schema-fields.js';
import type { SettingsService } from '../system/settings.js';
import { DEFAULT_LOCALE } from '../translations.js';

export const createLinkInput = z.object({
  name: z.string().max(MAX_LINK_NAME_LENGTH),
  url: z.string().max(MAX_LINK_URL_LENGTH).describe('An absolute http or https URL.'),
  description: z.string().max(MAX_LINK_DESCRIPTION_LENGTH).nullable().optional(),
  icon: z
    .string()
    .max(MAX_LINK_URL_LENGTH)
    .nullable()
    .optional()
    .describe('An image URL (http/https) or a path on this site.'),
  categories: z
    .array(z.string().max(255))
    .max(50)
    .optional()
    .describe('Names of `link_category` tags; missing ones are created.'),
  website_ids: z
    .array(integer())
    .max(100)
    .optional()
    .describe('Default: the Host\u2019s website; empty: every website (administrators).'),
});

export const updateLinkInput = createLinkInput.partial();

/** A link with its outbound clicks (all time). */
export interface CountedLink extends Link {
  clicks: number;
}

export const linkNotFound = () => new NotFoundError('Link not found');

export class LinkOperations {
  constructor(
    private readonly deps: {
      /** Every write runs as one operation (run.ts). */
      runner: OperationRunner;
      links: LinksService;
      clicks: ClicksService;
      policy: Policy;
      settings: SettingsService;
      /** Where each write announces its change (the caches listen: cache-tags.ts); never the store. */
      changes: ContentChanges;
      audit?: AuditLog;
    },
  ) {}

  /** A page of the links shown on the actor's website, newest first; `tagId`: of one category. */
  async list(actor: Actor, query: { page: number; perPage: number; tagId?: number; locale?: string }) {
    const websiteId = this.websiteOf(actor);
    const { items, total } = await this.deps.links.list({
      websiteId,
      locale: query.locale ?? (await this.defaultLocale()),
      page: query.page,
      pageSize: query.perPage,
      tagId: query.tagId,
    });
    return { items: await this.counted(items), total };
  }

  /** A link shown on the actor's website; another website's is not found. */
  async show(actor: Actor, id: number, locale?: string): Promise<CountedLink> {
    const link = await this.deps.links.find(
      id,
      this.websiteOf(actor),
      locale ?? (await this.defaultLocale()),
    );
    if (!link) throw linkNotFound();
    return (await this.counted([link]))[0]!;
  }

  async create(actor: Actor, raw: unknown): Promise<CountedLink> {
    return this.deps.runner.run(async () => {
      const input = parse(createLinkInput, raw);
      const sites = input.website_ids ?? [this.websiteOf(actor)];
      if (!(await this.deps.policy.can(actor, 'content.write', { websiteIds: sites })))
        throw new ForbiddenError();
      const link = await this.deps.links.create({
        name: input.name,
        url: input.url,
        description: input.description,
        icon: input.icon,
        categories: input.categories,
        websiteIds: sites,
        authorId: actor.userId,
      });
      await this.announced(link.id);
      await this.audited(actor, 'link.create', link, raw);
      return { ...link, clicks: 0 };
    });
  }

  async update(actor: Actor, id: number, raw: unknown, options: { ifVersion?: string } = {}) {
    return this.deps.runner.run(async () => {
      const input = parse(updateLinkInput, raw);
      const current = await this.show(actor, id);
      if (
        !(await this.deps.policy.can(actor, 'content.write', {
          websiteIds: [...current.websiteIds, ...(input.website_ids ?? [])],
        }))
      )
        throw new ForbiddenError();
      if (
        input.website_ids?.length === 0 &&
        !(await this.deps.policy.can(actor, 'content.write', { websiteIds: [] }))
      )
        throw new ForbiddenError();
      const change: LinkChange = {
        name: input.name,
        url: input.url,
        description: input.description,
        icon: input.icon,
        categories: input.categories,
        websiteIds: input.website_ids,
      };
      const link = await this.deps.links.update(id, change, options);
      if (!link) throw linkNotFound();
      await this.announced(link.id);
      await this.audited(actor, 'link.update', link, raw);
      return (await this.counted([link]))[0]!;
    });
  }

  async delete(actor: Actor, id: number, options: { ifVersion?: string } = {}): Promise<void> {
    return this.deps.runner.run(async () => {
      const link = await this.show(actor, id);
      if (!(await this.deps.policy.can(actor, 'content.write', { websiteIds: link.websiteIds })))
        throw new ForbiddenError();
      if (options.ifVersion !== undefined && options.ifVersion !== link.updatedAt)
        throw new StaleWriteError();
      if (!(await this.deps.links.remove(id))) throw linkNotFound();
      await this.announced(link.id);
      await this.audited(actor, 'link.delete', link, {});
    });
  }

  private async counted(links: Link[]): Promise<CountedLink[]> {
    const clicks = await this.deps.clicks.totals(
      'link',
      'click',
      links.map((link) => link.id),
    );
    return links.map((link) => ({ ...link, clicks: clicks.get(link.id) ?? 0 }));
  }

  private websiteOf(actor: Actor): number {
    if (actor.websiteId === null) throw new NotFoundError('No website is configured for this host.');
    return actor.websiteId;
  }

  private async defaultLocale(): Promise<string> {
    return (await this.deps.settings.get('default_locale'))?.trim() || DEFAULT_LOCALE;
  }

  /** Announces a change of a link (its pages and the directory's lists: cache-tags.ts). */
  private announced(id: number): Promise<void> {
    return this.deps.changes.announce({ kind: 'link', id });
  }

  private audited(actor: Actor, action: string, link: Link, input: unknown) {
    return recordWrite(this.deps.audit, actor, {
      action,
      resourceType: 'link',
      resourceId: link.id,
      websiteIds: link.websiteIds,
      input,
    });
  }
}
