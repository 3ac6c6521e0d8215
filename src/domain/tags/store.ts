// Tags and categories (spec 4.2, 2.4, R-Tg1..R-Tg4): the tree of a type with translated names, the
// existence check, and the store rules (create, skip or update a duplicate). A duplicate is an exact
// match on name and type; the unique constraint (type, name) keeps it so under concurrent requests.
import type { Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { TagsTable } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { WebsiteBindings } from '../websites/bindings.js';
import { visibleOnWebsite } from '../websites/bindings.js';
import { nowIso } from '../clock.js';
import type { Clock } from '../clock.js';
import { InputError } from '../errors.js';
import { isStorableId, storableIds } from '../ids.js';
import { slugify, uniqueSlug } from '../text/slugs.js';
import { splitTranslatable, translate } from '../translations.js';
import type { Translatable, TranslationsService } from '../translations.js';
import { toIso } from '../values.js';

export const TAG_MODEL = 'tag';
export const DEFAULT_TAG_TYPE = 'post_category';
export const KNOWN_TAG_TYPES = [
  'post_category',
  'post_tag',
  'product_category',
  'link_category',
  'page_category',
] as const;
export const MAX_TAG_NAME_LENGTH = 255;
export const MAX_TAG_TYPE_LENGTH = 50;

export interface Tag {
  id: number;
  name: string;
  slug: string;
  type: string;
  parentId: number | null;
  description: string | null;
  icon: string | null;
  sort: number;
  createdAt: string;
  updatedAt: string;
}

export interface TagNode extends Tag {
  children: TagNode[];
}

export interface TagInput {
  /** A plain name, or a locale map (its default-locale value is the name; R-T2). */
  name: Translatable;
  type: string;
  slug?: string;
  parentId?: number;
  description?: string;
  icon?: string;
  sort?: number;
  /** Websites to bind the tag to (only existing ones are kept); absent: bindings untouched. */
  websiteIds?: readonly number[];
  updateWhenDuplicated: boolean;
  /** The locale whose value of a locale map is the base name. */
  defaultLocale: string;
}

/** The fields of a tag a change may send besides its name (absent: unchanged; null: cleared). */
export interface TagFields {
  slug?: string;
  parentId?: number | null;
  description?: string | null;
  icon?: string | null;
  sort?: number;
}

export type StoreOutcome = 'created' | 'skipped' | 'updated';

const COLUMNS = [
  'id',
  'name',
  'slug',
  'type',
  'parent_id',
  'description',
  'icon',
  'sort',
  'created_at',
  'updated_at',
] as const;
type TagRow = Pick<Selectable<TagsTable>, (typeof COLUMNS)[number]>;

export const invalidParent = () => new InputError('parent_id', 'The selected parent id is invalid.');

export class TagsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly translations: TranslationsService,
    private readonly bindings: WebsiteBindings,
  ) {}

  /**
   * Every tag of a type as a tree (R-Tg1): one query for the tags and one for their translations;
   * every level sorted by `sort` desc then `id` asc; names in `locale`, else the base name. A tag
   * whose parent is missing or of another type is a root.
   */
  /** `websiteId`: only the tags shown on that website (bound to it, or to every website). */
  async tree(type: string, locale: string, websiteId?: number): Promise<TagNode[]> {
    let query = this.db.selectFrom('tags').select(COLUMNS).where('type', '=', type);
    if (websiteId !== undefined) {
      query = query.where((eb) => visibleOnWebsite(eb, TAG_MODEL, eb.ref('tags.id'), websiteId));
    }
    const rows = await query.orderBy('sort', 'desc').orderBy('id', 'asc').execute();
    const names = await this.translations.forModels(
      TAG_MODEL,
      rows.map((row) => row.id),
    );
    const nodes = new Map<number, TagNode>();
    for (const row of rows) {
      const tag = toTag(row);
      nodes.set(row.id, {
        ...tag,
        name: translate(tag.name, names.get(row.id), 'name', locale),
        children: [],
      });
    }
    const roots: TagNode[] = [];
    // Rows come sorted, so appending keeps every level sorted.
    for (const row of rows) {
      const node = nodes.get(row.id) as TagNode;
      const parent = row.parent_id === null ? undefined : nodes.get(row.parent_id);
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
    return roots;
  }

  /** The given ids that exist, ascending, without duplicates (R-Tg3). */
  async existingIds(ids: readonly number[]): Promise<number[]> {
    const candidates = storableIds(ids);
    if (candidates.length === 0) return [];
    const rows = await this.db
      .selectFrom('tags')
      .select('id')
      .where('id', 'in', candidates)
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  }

  async findById(id: number, db: Db = this.db): Promise<Tag | null> {
    if (!isStorableId(id)) return null;
    const row = await db.selectFrom('tags').select(COLUMNS).where('id', '=', id).executeTakeFirst();
    return row ? toTag(row) : null;
  }

  async findDuplicate(name: string, type: string, db: Db = this.db): Promise<Tag | null> {
    const row = await db
      .selectFrom('tags')
      .select(COLUMNS)
      .where('type', '=', type)
      .where('name', '=', name)
      .executeTakeFirst();
    return row ? toTag(row) : null;
  }

  /** The websites of these ids that exist (a tag's bindings keep only those). */
  async existingWebsites(ids: readonly number[]): Promise<number[]> {
    return this.bindings.existing(ids);
  }

  /** A new tag (the operations decide whether it may be made; `create` writes it). */
  async create(
    name: string,
    input: TagInput,
    translations: Record<string, string>,
    websiteIds: number[],
  ): Promise<Tag> {
    const now = nowIso(this.clock);
    return this.db.transaction().execute(async (trx) => {
      const slug = await this.freeSlug(trx, input.slug ?? name, input.type, null);
      const row = await trx
        .insertInto('tags')
        .values({
          name,
          slug,
          type: input.type,
          parent_id: input.parentId ?? null,
          description: input.description ?? null,
          icon: input.icon ?? null,
          sort: input.sort ?? 0,
          created_at: now,
          updated_at: now,
        })
        .returning(COLUMNS)
        .executeTakeFirstOrThrow();
      await this.translations.save(trx, TAG_MODEL, row.id, 'name', translations);
      if (websiteIds.length > 0) await this.bindings.sync(trx, TAG_MODEL, row.id, websiteIds);
      return toTag(row);
    });
  }

  /** Updates the fields the request sent (name and type are the duplicate's already). */
  async updateDuplicate(
    existing: Tag,
    input: TagInput,
    translations: Record<string, string>,
    websiteIds: number[],
  ): Promise<Tag> {
    if (input.parentId !== undefined) await this.checkParent(input.parentId, existing.type, existing.id);
    return this.db.transaction().execute(async (trx) => {
      const row = await this.writeFields(trx, existing, input);
      await this.translations.save(trx, TAG_MODEL, existing.id, 'name', translations);
      if (websiteIds.length > 0) await this.bindings.sync(trx, TAG_MODEL, existing.id, websiteIds);
      return toTag(row);
    });
  }

  /** The websites each tag is bound to (none: an all-sites tag). */
  async websitesOf(id: number): Promise<number[]> {
    return (await this.bindings.websitesOf(TAG_MODEL, [id])).get(id) ?? [];
  }

  /** What uses a tag: the items tagged with it, by type, and its children. */
  async usage(id: number): Promise<{ items: Record<string, number>; children: number }> {
    const items = await this.db
      .selectFrom('taggables')
      .select(['taggable_type', (eb) => eb.fn.countAll<number>().as('n')])
      .where('tag_id', '=', id)
      .groupBy('taggable_type')
      .execute();
    const children = await this.db
      .selectFrom('tags')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('parent_id', '=', id)
      .executeTakeFirst();
    return {
      items: Object.fromEntries(items.map((row) => [row.taggable_type, Number(row.n)])),
      children: Number(children?.n ?? 0),
    };
  }

  /**
   * Changes a tag's fields (absent: unchanged): a new name must stay unique in its type (InputError),
   * a parent must exist, be of its type and not below it (`null`: a root). Announces the change.
   */
  async change(
    tag: Tag,
    patch: TagFields & { name?: Translatable; websiteIds?: readonly number[] },
    defaultLocale: string,
  ): Promise<Tag> {
    const name = patch.name === undefined ? undefined : splitTranslatable(patch.name, defaultLocale);
    const baseName = name?.base.trim();
    if (baseName === '') throw new InputError('name', 'The name field is required.');
    if (baseName !== undefined && baseName !== tag.name) {
      const duplicate = await this.findDuplicate(baseName, tag.type);
      if (duplicate && duplicate.id !== tag.id) {
        throw new InputError('name', 'A tag of this type already has this name.');
      }
    }
    if (patch.parentId !== undefined && patch.parentId !== null) {
      await this.checkParent(patch.parentId, tag.type, tag.id);
    }
    const websiteIds = patch.websiteIds ? await this.bindings.existing(patch.websiteIds) : undefined;
    let changed: Tag;
    try {
      changed = await this.db.transaction().execute(async (trx) => {
        const row = await this.writeFields(trx, tag, patch, baseName);
        if (name) await this.translations.save(trx, TAG_MODEL, tag.id, 'name', name.translations);
        if (websiteIds !== undefined) await this.bindings.sync(trx, TAG_MODEL, tag.id, websiteIds);
        return toTag(row);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new InputError('name', 'A tag of this type already has this name.');
      throw error;
    }
    return changed;
  }

  /**
   * Deletes a tag: what it tagged loses it, its children move up to its parent, its translations and
   * bindings go. One transaction (the operation announces it).
   */
  async remove(tag: Tag): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('tags')
        .set({ parent_id: tag.parentId })
        .where('parent_id', '=', tag.id)
        .execute();
      await trx.deleteFrom('taggables').where('tag_id', '=', tag.id).execute();
      await this.deleteRow(trx, tag.id);
    });
  }

  /**
   * Merges `source` into `target` (same type): whatever source tagged is tagged with target (once),
   * source's children become target's, and source is deleted. One transaction (the operation announces both).
   */
  async merge(source: Tag, target: Tag): Promise<Tag> {
    if (source.id === target.id || source.type !== target.type) {
      throw new InputError('into', 'The tag to merge into must be another tag of the same type.');
    }
    await this.db.transaction().execute(async (trx) => {
      // A target below the source first moves up to the source's place: no cycle once source goes.
      if (await this.isWithin(trx, target.parentId, source.id)) {
        await trx
          .updateTable('tags')
          .set({ parent_id: source.parentId })
          .where('id', '=', target.id)
          .execute();
      }
      await trx
        .updateTable('tags')
        .set({ parent_id: target.id })
        .where('parent_id', '=', source.id)
        .where('id', '!=', target.id)
        .execute();
      // Items already tagged with target keep one link; the others move over.
      await trx
        .deleteFrom('taggables')
        .where('tag_id', '=', source.id)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('taggables as kept')
              .select('kept.tag_id')
              .where('kept.tag_id', '=', target.id)
              .whereRef('kept.taggable_type', '=', 'taggables.taggable_type')
              .whereRef('kept.taggable_id', '=', 'taggables.taggable_id'),
          ),
        )
        .execute();
      await trx.updateTable('taggables').set({ tag_id: target.id }).where('tag_id', '=', source.id).execute();
      await this.deleteRow(trx, source.id);
      await trx
        .updateTable('tags')
        .set({ updated_at: nowIso(this.clock) })
        .where('id', '=', target.id)
        .execute();
    });
    return (await this.findById(target.id)) ?? target;
  }

  /** The parent exists, is of the same type, and (for an existing tag) is not the tag or below it. */
  async checkParent(parentId: number, type: string, tagId: number | null): Promise<void> {
    const parent = await this.findById(parentId);
    if (!parent || parent.type !== type) throw invalidParent();
    if (tagId !== null && (await this.isWithin(this.db, parent.id, tagId))) throw invalidParent();
  }

  /** Whether the tag `from` is `ancestor` or below it (a cycle in the data ends the walk). */
  private async isWithin(db: Db, from: number | null, ancestor: number): Promise<boolean> {
    const seen = new Set<number>();
    let current = from;
    while (current !== null && !seen.has(current)) {
      if (current === ancestor) return true;
      seen.add(current);
      const row: { parent_id: number | null } | undefined = await db
        .selectFrom('tags')
        .select('parent_id')
        .where('id', '=', current)
        .executeTakeFirst();
      current = row?.parent_id ?? null;
    }
    return false;
  }

  /** Deletes a tag's row with its translations and website bindings (what it tagged is the caller's). */
  private async deleteRow(db: Db, id: number): Promise<void> {
    await db
      .deleteFrom('translations')
      .where('model_type', '=', TAG_MODEL)
      .where('model_id', '=', id)
      .execute();
    await this.bindings.sync(db, TAG_MODEL, id, []);
    await db.deleteFrom('tags').where('id', '=', id).execute();
  }

  /** Writes the fields sent (absent: unchanged) and the base name when given; the tag as written. */
  private async writeFields(db: Db, tag: Pick<Tag, 'id' | 'type'>, fields: TagFields, name?: string) {
    const changes: Updateable<TagsTable> = { updated_at: nowIso(this.clock) };
    if (name !== undefined) changes.name = name;
    if (fields.slug !== undefined) changes.slug = await this.freeSlug(db, fields.slug, tag.type, tag.id);
    if (fields.parentId !== undefined) changes.parent_id = fields.parentId;
    if (fields.description !== undefined) changes.description = fields.description;
    if (fields.icon !== undefined) changes.icon = fields.icon;
    if (fields.sort !== undefined) changes.sort = fields.sort;
    return db
      .updateTable('tags')
      .set(changes)
      .where('id', '=', tag.id)
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** `text` as a slug, made unique within the type (`-2`, `-3`…), ignoring the tag itself. */
  private async freeSlug(db: Db, text: string, type: string, ownId: number | null): Promise<string> {
    return uniqueSlug(slugify(text), async (candidates) => {
      let query = db
        .selectFrom('tags')
        .select('slug')
        .where('type', '=', type)
        .where('slug', 'in', candidates);
      if (ownId !== null) query = query.where('id', '!=', ownId);
      const rows = await query.execute();
      return new Set(rows.map((row) => row.slug));
    });
  }
}

function toTag(row: TagRow): Tag {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    type: row.type,
    parentId: row.parent_id,
    description: row.description,
    icon: row.icon,
    sort: Number(row.sort),
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  };
}
