// Pages as operations for the management faces (API v2, the admin panel): list, show, create, change,
// delete (refused while a menu links to the page, unless forced). Pages are the editors': an editor
// or site admin of every website a page is on may write it; a page on every website (bound to none)
// is the administrators'. One schema per input, the policy, the store's transaction, audited.
import { z } from 'zod';
import type { ContentChanges } from '../changes.js';
import type { OperationRunner } from '../run.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import { ConflictError, ForbiddenError, NotFoundError, StaleWriteError } from '../errors.js';
import { PAGE_STATUSES, PAGE_TYPES } from './store.js';
import type { Page, PageStatus, PagesService } from './store.js';
import type { Actor, Policy } from '../policy.js';
import { integer, optional, parse, translatable } from '../schema-fields.js';
import type { SettingsService } from '../system/settings.js';
import { DEFAULT_LOCALE } from '../translations.js';

const websiteIds = z.array(integer()).max(100);

export const createPageInput = z.object({
  title: translatable(),
  content: translatable().nullable().optional(),
  slug: optional(z.string().max(190)),
  type: optional(z.enum(PAGE_TYPES)),
  template: z.string().max(100).nullable().optional(),
  status: optional(z.enum(PAGE_STATUSES)),
  /** For search engines (issue 34 #20); blank or null: the title and the start of the content. */
  meta_title: z.string().max(255).nullable().optional(),
  meta_description: z.string().max(500).nullable().optional(),
  website_ids: optional(websiteIds),
});

/** A blank SEO field is no field: the page's own title or text is used. */
const seoText = (value: string | null | undefined) =>
  value === undefined ? undefined : value === null || value.trim() === '' ? null : value.trim();

/** The page fields an input sets, for a create and an update alike (absent: unchanged). */
const pageFields = (input: z.output<typeof updatePageInput>) => ({
  title: input.title,
  content: input.content,
  slug: input.slug,
  type: input.type,
  template: input.template,
  status: input.status,
  metaTitle: seoText(input.meta_title),
  metaDescription: seoText(input.meta_description),
});

export const updatePageInput = createPageInput.partial();

export const pageNotFound = () => new NotFoundError('Page not found');

export class PageOperations {
  constructor(
    private readonly pages: PagesService,
    private readonly policy: Policy,
    private readonly settings: SettingsService,
    private readonly runner: OperationRunner,
    /** Each write announces its page (the runner tells the caches after commit); the store does not. */
    private readonly changes: ContentChanges,
    private readonly audit?: AuditLog,
  ) {}

  /** Pages of a website (drafts too, for its editors; published ones for everyone else). */
  async list(
    actor: Actor,
    query: { websiteId: number; status?: PageStatus; q?: string; page: number; perPage: number },
  ) {
    // Drafts are the editors': anyone else lists published pages, whatever they asked for.
    const edits = await this.policy.can(actor, 'website.edit', { websiteId: query.websiteId });
    return this.pages.list({
      websiteId: query.websiteId,
      status: edits ? query.status : 'published',
      q: query.q,
      page: query.page,
      perPage: query.perPage,
    });
  }

  async show(actor: Actor, id: number): Promise<Page> {
    const page = await this.pages.findById(id);
    if (!page) throw pageNotFound();
    if (page.status !== 'published' && !(await this.writes(actor, page.websiteIds))) throw pageNotFound();
    return page;
  }

  async create(actor: Actor, raw: unknown): Promise<Page> {
    return this.runner.run(async () => {
      const input = parse(createPageInput, raw);
      const sites = input.website_ids ?? (actor.websiteId === null ? [] : [actor.websiteId]);
      if (!(await this.writes(actor, sites))) throw new ForbiddenError();
      const page = await this.pages.create({
        ...pageFields(input),
        title: input.title,
        authorId: actor.userId,
        websiteIds: sites,
        defaultLocale: await this.defaultLocale(),
      });
      await this.changes.announce({ kind: 'page', id: page.id });
      await this.audited(actor, 'page.create', page, raw);
      return page;
    });
  }

  /** `ifVersion`: the `updatedAt` the writer read; a later change makes it StaleWriteError. */
  async update(actor: Actor, id: number, raw: unknown, ifVersion?: string): Promise<Page> {
    return this.runner.run(async () => {
      const input = parse(updatePageInput, raw);
      const current = await this.show(actor, id);
      if (ifVersion !== undefined && ifVersion !== current.updatedAt) throw new StaleWriteError();
      if (!(await this.writes(actor, [...current.websiteIds, ...(input.website_ids ?? [])])))
        throw new ForbiddenError();
      if (input.website_ids?.length === 0 && !(await this.writes(actor, []))) throw new ForbiddenError();
      const page = await this.pages.update(
        id,
        {
          ...pageFields(input),
          websiteIds: input.website_ids,
          defaultLocale: await this.defaultLocale(),
        },
        ifVersion,
      );
      if (!page) throw pageNotFound();
      await this.changes.announce({ kind: 'page', id });
      await this.audited(actor, 'page.update', page, raw);
      return page;
    });
  }

  /** Deletes a page; while a menu links to it, only with `force` (ConflictError). */
  async delete(actor: Actor, id: number, force: boolean): Promise<void> {
    return this.runner.run(async () => {
      const page = await this.show(actor, id);
      if (!(await this.writes(actor, page.websiteIds))) throw new ForbiddenError();
      const links = await this.pages.menuItemsUsing(id);
      if (links > 0 && !force) {
        throw new ConflictError(
          `Page #${id} is linked from ${links} menu item${links === 1 ? '' : 's'}; delete with force to remove it anyway.`,
        );
      }
      if (!(await this.pages.delete(id))) throw pageNotFound();
      await this.changes.announce({ kind: 'page', id });
      await this.audited(actor, 'page.delete', page, { force });
    });
  }

  /**
   * A page, whatever its status, for a preview on the site's theme (the page editor's "Preview"):
   * only for those who may write it (issue 34 #20); anyone else is told it does not exist.
   */
  async preview(actor: Actor, id: number): Promise<Page> {
    const page = await this.pages.findById(id);
    if (!page || !(await this.writes(actor, page.websiteIds))) throw pageNotFound();
    return page;
  }

  /** Editor (or site admin) of every one of these websites; none: an all-sites page, administrators'. */
  private writes(actor: Actor, websiteIds: readonly number[]): Promise<boolean> {
    return this.policy.can(actor, 'content.write', { websiteIds });
  }

  private async defaultLocale(): Promise<string> {
    return (await this.settings.get('default_locale'))?.trim() || DEFAULT_LOCALE;
  }

  private audited(actor: Actor, action: string, page: Page, input: unknown) {
    return recordWrite(this.audit, actor, {
      action,
      resourceType: 'page',
      resourceId: page.id,
      websiteIds: page.websiteIds,
      input,
    });
  }
}
