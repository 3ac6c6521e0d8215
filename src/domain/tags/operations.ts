// Tags as operations for the management faces (API v2, the admin panel): create, change (rename,
// move in the tree, translate, rebind), delete (refused while in use unless forced) and merge. One
// zod schema per input, the one policy (tags have no owner: writers of every website a tag is on may
// change it; an all-sites tag is the administrators'), one transaction (the store's), audited.
import type { OperationRunner } from '../run.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import { ConflictError, ForbiddenError, InputError, NotFoundError } from '../errors.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { ContentChanges } from '../changes.js';
import type { Actor, Policy } from '../policy.js';
import { parse } from '../schema-fields.js';
import { createTagInput, mergeTagInput, storeTagInput, updateTagInput } from './input.js';
import type { SettingsService } from '../system/settings.js';
import { DEFAULT_TAG_TYPE, MAX_TAG_NAME_LENGTH, MAX_TAG_TYPE_LENGTH } from './store.js';
import type { StoreOutcome, Tag, TagInput, TagNode, TagsService } from './store.js';
import { defaultLocale } from '../locales.js';
import { splitTranslatable } from '../translations.js';

export const tagNotFound = () => new NotFoundError('Tag not found');

/** How often a create is retried when a concurrent request took its slug (not its name). */
const CREATE_ATTEMPTS = 5;

export class TagOperations {
  constructor(
    private readonly tags: TagsService,
    private readonly policy: Policy,
    private readonly settings: SettingsService,
    private readonly runner: OperationRunner,
    private readonly changes: ContentChanges,
    private readonly audit?: AuditLog,
  ) {}

  /**
   * API v1's tag store (spec 4.2): a new tag, or with `update_when_duplicated` the existing one of
   * the same name and type changed, as `actor` (the policy decides; the write is audited), in one
   * transaction.
   */
  async store(actor: Actor, raw: unknown): Promise<{ outcome: StoreOutcome; tag: Tag }> {
    // The type says it; this says it to a caller that got around the type.
    if (!actor) throw new ForbiddenError();
    const input = parse(storeTagInput, raw);
    const defaultLocale = await this.defaultLocale();
    return this.runner.run(() =>
      this.write(
        {
          name: input.name,
          type: input.type || DEFAULT_TAG_TYPE,
          slug: input.slug || undefined,
          parentId: input.parent_id,
          description: input.description,
          icon: input.icon,
          sort: input.sort,
          websiteIds: input.website_id,
          updateWhenDuplicated: input.update_when_duplicated,
          defaultLocale,
        },
        actor,
      ),
    );
  }

  /**
   * The domain's own tag writes, with no actor, no policy check and no audit row: the tags a post's
   * editor names (authoring.ts), the categories of links. The operation that calls it has checked its
   * own write (and this joins its transaction).
   */
  async ensure(input: TagInput): Promise<{ outcome: StoreOutcome; tag: Tag }> {
    return this.runner.run(() => this.write(input, null));
  }

  /**
   * The store rules of spec 4.2: create, or skip or update the duplicate, as `actor` (the policy
   * decides; the write is audited). Throws InputError for a parent that does not exist, is of another
   * type, or would make a cycle.
   */
  private async write(input: TagInput, actor: Actor | null): Promise<{ outcome: StoreOutcome; tag: Tag }> {
    const name = splitTranslatable(input.name, input.defaultLocale);
    const baseName = name.base.trim();
    if (baseName === '') throw new InputError('name', 'The name field is required.');
    if (input.parentId !== undefined) await this.tags.checkParent(input.parentId, input.type, null);
    const websiteIds = input.websiteIds ? await this.tags.existingWebsites(input.websiteIds) : [];
    // What the audit row records: the fields sent (the actor is the row's own column).
    const { actor: _actor, defaultLocale: _locale, ...fields } = input as TagInput & { actor?: Actor };

    for (let attempt = 1; ; attempt++) {
      const duplicate = await this.tags.findDuplicate(baseName, input.type);
      if (duplicate) {
        if (!input.updateWhenDuplicated) return { outcome: 'skipped', tag: duplicate };
        // Tags have no owner: changing an existing one is for administrators (policy.ts).
        if (actor) {
          const current = await this.tags.websitesOf(duplicate.id);
          // No websites sent: the tag stays where it is.
          await this.policy.require(actor, 'tag.update', {
            websiteIds: websiteIds.length ? websiteIds : current,
            current,
          });
        }
        const tag = await this.tags.updateDuplicate(duplicate, input, name.translations, websiteIds);
        await this.announce(tag);
        if (actor) await this.audited(actor, 'tag.update', tag.id, websiteIds, fields);
        return { outcome: 'updated', tag };
      }
      // An all-sites tag (no websites) is the administrators' (issue 34 #4): anyone else's new tag
      // that names no websites goes to the website the request is on (an explicit [] is refused).
      const unnamed = input.websiteIds === undefined && websiteIds.length === 0;
      if (actor && unnamed && actor.websiteId !== null && !this.policy.adminOn(actor, [])) {
        websiteIds.push(actor.websiteId);
      }
      if (actor) await this.policy.require(actor, 'tag.create', { websiteIds });
      try {
        const tag = await this.tags.create(baseName, input, name.translations, websiteIds);
        await this.announce(tag);
        if (actor) await this.audited(actor, 'tag.create', tag.id, websiteIds, fields);
        return { outcome: 'created', tag };
      } catch (error) {
        // Another request created the same tag (or took the slug) since we looked: look again.
        if (!isUniqueViolation(error) || attempt >= CREATE_ATTEMPTS) throw error;
      }
    }
  }

  /** Every tag write is announced here (the caches of its trees and pages listen), never by the store. */
  private announce(tag: Pick<Tag, 'id' | 'type'>): Promise<void> {
    return this.changes.announce({ kind: 'tag', id: tag.id, type: tag.type });
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
      const { outcome, tag } = await this.write(
        {
          name: typeof input.name === 'string' ? input.name.slice(0, MAX_TAG_NAME_LENGTH) : input.name,
          type: input.type,
          slug: input.slug,
          parentId: input.parent_id,
          description: input.description,
          icon: input.icon,
          sort: input.sort,
          websiteIds: input.website_ids,
          updateWhenDuplicated: false,
          defaultLocale: await this.defaultLocale(),
        },
        actor,
      );
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
      await this.announce(changed);
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
      await this.announce(tag);
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
      await this.announce(source);
      await this.announce(target);
      await this.audited(actor, 'tag.merge', source.id, source.websiteIds, { into: target.id });
      return merged;
    });
  }

  private defaultLocale(): Promise<string> {
    return defaultLocale(this.settings);
  }

  private audited(actor: Actor, action: string, id: number, websiteIds: readonly number[], input: unknown) {
    return recordWrite(this.audit, actor, { action, resourceType: 'tag', resourceId: id, websiteIds, input });
  }
}
