// Tags as operations for the management faces (API v2, the admin panel): create, change (rename,
// move in the tree, translate, rebind), delete (refused while in use unless forced) and merge. One
// zod schema per input, the one policy (tags have no owner: writers of every website a tag is on may
// change it; an all-sites tag is the administrators'), one transaction (the store's), audited.
import { z } from 'zod';
import type { OperationRunner } from '../run.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { Actor, Policy } from '../policy.js';
import { integer, optional, parse, translatable } from '../schema-fields.js';
import type { SettingsService } from '../system/settings.js';
import { MAX_TAG_NAME_LENGTH, MAX_TAG_TYPE_LENGTH } from './store.js';
import type { ActorTagInput, StoreOutcome, Tag, TagNode, TagsService } from './store.js';
import { DEFAULT_LOCALE } from '../translations.js';

const ids = z.array(integer()).max(100);
const TYPE = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'The :attribute format is invalid.')
  .max(MAX_TAG_TYPE_LENGTH);

export const createTagInput = z.object({
  name: translatable(),
  type: TYPE,
  slug: optional(z.string().max(190)),
  parent_id: optional(integer()),
  description: optional(z.string().max(65_535)),
  icon: optional(z.string().max(255)),
  sort: optional(integer()),
  website_ids: optional(ids),
});

export const updateTagInput = z.object({
  name: translatable().optional(),
  slug: optional(z.string().max(190)),
  parent_id: integer().nullable().optional(),
  description: z.string().max(65_535).nullable().optional(),
  icon: z.string().max(255).nullable().optional(),
  sort: optional(integer()),
  website_ids: optional(ids),
});

export const mergeTagInput = z.object({ into: integer() });

export const tagNotFound = () => new NotFoundError('Tag not found');

export class TagOperations {
  constructor(
    private readonly tags: TagsService,
    private readonly policy: Policy,
    private readonly settings: SettingsService,
    private readonly runner: OperationRunner,
    private readonly audit?: AuditLog,
  ) {}

  /**
   * API v1's tag store (spec 4.4): a new tag, or with `updateWhenDuplicated` the existing one of the
   * same name and type changed; the store asks the policy for either (tags.ts), in one transaction.
   */
  async store(input: ActorTagInput): Promise<{ outcome: StoreOutcome; tag: Tag }> {
    return this.runner.run(() => this.tags.store(input));
  }

  /** Which of these tag ids exist (API v1's tags/exist): tags are public. */
  async existingIds(ids: readonly number[]): Promise<number[]> {
    return this.tags.existingIds(ids);
  }

  /**
   * The tags of a type shown on a website (bound to it or to every website) as a tree, names in
   * `locale` (tags are public: anyone may read them). Another website's tags are not this one's
   * (issue 34 #6); without a website, every tag.
   */
  tree(type: string, locale: string, websiteId?: number | null): Promise<TagNode[]> {
    return this.tags.tree(type.slice(0, MAX_TAG_TYPE_LENGTH), locale, websiteId ?? undefined);
  }

  /** The websites a tag is bound to (none: every website). */
  websitesOf(id: number): Promise<number[]> {
    return this.tags.websitesOf(id);
  }

  async show(id: number): Promise<Tag & { websiteIds: number[] }> {
    const tag = await this.tags.findById(id);
    if (!tag) throw tagNotFound();
    return { ...tag, websiteIds: await this.tags.websitesOf(tag.id) };
  }

  async create(actor: Actor, raw: unknown): Promise<Tag> {
    return this.runner.run(async () => {
      const input = parse(createTagInput, raw);
      const { outcome, tag } = await this.tags.store({
        name: typeof input.name === 'string' ? input.name.slice(0, MAX_TAG_NAME_LENGTH) : input.name,
        type: input.type,
        slug: input.slug,
        parentId: input.parent_id,
        description: input.description,
        icon: input.icon,
        sort: input.sort,
        websiteIds: input.website_ids,
        updateWhenDuplicated: false,
        actor,
        defaultLocale: await this.defaultLocale(),
      });
      if (outcome === 'skipped')
        throw new ConflictError(`Tag #${tag.id} of this type already has this name.`);
      return tag;
    });
  }

  async update(actor: Actor, id: number, raw: unknown): Promise<Tag> {
    return this.runner.run(async () => {
      const input = parse(updateTagInput, raw);
      const tag = await this.show(id);
      await this.policy.require(actor, 'tag.update', {
        websiteIds: input.website_ids ?? tag.websiteIds,
        current: tag.websiteIds,
      });
      const changed = await this.tags.change(
        tag,
        {
          name: input.name,
          slug: input.slug,
          parentId: input.parent_id,
          description: input.description,
          icon: input.icon,
          sort: input.sort,
          websiteIds: input.website_ids,
        },
        await this.defaultLocale(),
      );
      await this.audited(actor, 'tag.update', changed.id, tag.websiteIds, raw);
      return changed;
    });
  }

  /** Deletes a tag; while it tags anything or has children, only with `force` (ConflictError). */
  async delete(actor: Actor, id: number, force: boolean): Promise<void> {
    return this.runner.run(async () => {
      const tag = await this.show(id);
      await this.policy.require(actor, 'tag.update', { websiteIds: tag.websiteIds, current: tag.websiteIds });
      const usage = await this.tags.usage(tag.id);
      const uses = Object.entries(usage.items).map(
        ([type, count]) => `${count} ${type}${count === 1 ? '' : 's'}`,
      );
      if (usage.children > 0) uses.push(`${usage.children} child tag${usage.children === 1 ? '' : 's'}`);
      if (uses.length > 0 && !force) {
        throw new ConflictError(
          `Tag #${tag.id} is in use (${uses.join(', ')}); delete with force to remove it anyway.`,
        );
      }
      await this.tags.remove(tag);
      await this.audited(actor, 'tag.delete', tag.id, tag.websiteIds, { force });
    });
  }

  /** Merges the tag into another of its type: what it tagged, and its children, go to the other. */
  async merge(actor: Actor, id: number, raw: unknown): Promise<Tag> {
    return this.runner.run(async () => {
      const input = parse(mergeTagInput, raw);
      const source = await this.show(id);
      const target = await this.tags.findById(input.into);
      if (!target) throw tagNotFound();
      const targetSites = await this.tags.websitesOf(target.id);
      await this.policy.require(actor, 'tag.update', {
        websiteIds: source.websiteIds,
        current: source.websiteIds,
      });
      await this.policy.require(actor, 'tag.update', { websiteIds: targetSites, current: targetSites });
      const merged = await this.tags.merge(source, target);
      await this.audited(actor, 'tag.merge', source.id, source.websiteIds, { into: target.id });
      return merged;
    });
  }

  private async defaultLocale(): Promise<string> {
    return (await this.settings.get('default_locale'))?.trim() || DEFAULT_LOCALE;
  }

  private audited(actor: Actor, action: string, id: number, websiteIds: readonly number[], input: unknown) {
    return recordWrite(this.audit, actor, { action, resourceType: 'tag', resourceId: id, websiteIds, input });
  }
}
