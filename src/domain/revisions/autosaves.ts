// Server-side autosave (issue 37 #2): the admin panel's editor keeps one copy per post (or page) and
// user of what it holds. It never changes what readers see and is not a revision; reopening the
// editor on any device finds it (and whether it is newer than the saved post). A save of the post by
// that user (through any face: the runner's write hook) clears it. Only those who may change the post
// keep an autosave of it. Not audited: it is written every few seconds and changes nothing public.
import { z } from 'zod';
import type { Db } from '../../db/database.js';
import type { Clock } from '../clock.js';
import { nowIso } from '../clock.js';
import { ForbiddenError } from '../errors.js';
import type { ContentKind, EditableContent } from './content-access.js';
import type { Actor } from '../policy.js';
import type { OperationRunner } from '../run.js';
import { parse } from '../schema-fields.js';
import { toIso } from '../values.js';

export const MAX_AUTOSAVE_TEXT = 1_000_000;

/** The most locales one autosave keeps (a website has a handful; this bounds the row's size). */
export const MAX_AUTOSAVE_LOCALES = 20;

const autosaveText = z
  .object({
    title: z.string().max(255).optional(),
    content: z.string().max(MAX_AUTOSAVE_TEXT).optional(),
    excerpt: z.string().max(65535).nullable().optional(),
  })
  .strict();

export const autosaveInput = autosaveText
  .extend({
    /** The other locales' text the editor holds, by locale code (the fields above are the default's). */
    translations: z
      .record(z.string().regex(/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8}){0,2}$/), autosaveText)
      .superRefine((locales, check) => {
        if (Object.keys(locales).length > MAX_AUTOSAVE_LOCALES)
          // Worded as a list's size ("may not have more than 20 items").
          check.addIssue({
            code: 'too_big',
            origin: 'array',
            maximum: MAX_AUTOSAVE_LOCALES,
            inclusive: true,
            input: locales,
          });
      })
      .optional(),
    /** The version (`updated_at`) of the post the editor started from. */
    base_version: z.string().max(40).optional(),
  })
  .strict();
export type AutosaveFields = Pick<
  z.infer<typeof autosaveInput>,
  'title' | 'content' | 'excerpt' | 'translations'
>;

export interface Autosave {
  resourceType: ContentKind;
  resourceId: number;
  userId: number;
  fields: AutosaveFields;
  baseVersion: string | null;
  updatedAt: string;
  /** Saved after the post's current version: what the editor should offer to restore. */
  newer: boolean;
}

/** The saves that clear the saving user's autosave. */
const SAVES = new Set(['post.create', 'post.update', 'post.restore', 'page.update', 'page.restore']);

export class AutosaveService {
  constructor(
    private readonly deps: { db: Db; clock: Clock; runner: OperationRunner; access: EditableContent },
  ) {}

  /** Registers the write hook: a save of the post by a user clears that user's autosave of it. */
  install(): this {
    this.deps.runner.onWrite(async (event) => {
      if (!SAVES.has(event.action) || event.userId === null || event.resourceId === null) return;
      if (event.resourceType !== 'post' && event.resourceType !== 'page') return;
      await this.deps.db
        .deleteFrom('autosaves')
        .where('resource_type', '=', event.resourceType)
        .where('resource_id', '=', Number(event.resourceId))
        .where('user_id', '=', event.userId)
        .execute();
    });
    return this;
  }

  /** Keeps the editor's copy (one per post and user: a later autosave replaces it). */
  async save(actor: Actor, kind: ContentKind, ref: string, raw: unknown): Promise<Autosave> {
    const input = parse(autosaveInput, raw);
    return this.deps.runner.run(async () => {
      const { id, version } = await this.editable(actor, kind, ref);
      const userId = this.userOf(actor);
      const { base_version: baseVersion, ...fields } = input;
      const now = nowIso(this.deps.clock);
      const row = {
        resource_type: kind,
        resource_id: id,
        user_id: userId,
        base_version: baseVersion ?? version,
        data: JSON.stringify(fields),
        updated_at: now,
      };
      await this.deps.db
        .insertInto('autosaves')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['resource_type', 'resource_id', 'user_id'])
            .doUpdateSet({ base_version: row.base_version, data: row.data, updated_at: now }),
        )
        .execute();
      return {
        resourceType: kind,
        resourceId: id,
        userId,
        fields,
        baseVersion: row.base_version,
        updatedAt: now,
        newer: now > version,
      };
    });
  }

  /** The actor's autosave of the post, or null. */
  async find(actor: Actor, kind: ContentKind, ref: string): Promise<Autosave | null> {
    const { id, version } = await this.editable(actor, kind, ref);
    return this.stored(kind, id, this.userOf(actor), version);
  }

  /** Throws the actor's autosave away. */
  async discard(actor: Actor, kind: ContentKind, ref: string): Promise<boolean> {
    return this.deps.runner.run(async () => {
      const { id } = await this.editable(actor, kind, ref);
      const result = await this.deps.db
        .deleteFrom('autosaves')
        .where('resource_type', '=', kind)
        .where('resource_id', '=', id)
        .where('user_id', '=', this.userOf(actor))
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }

  /** A user's autosave, for a preview link issued for it (no actor: the link is the permission). */
  async forPreview(kind: ContentKind, id: number, userId: number): Promise<AutosaveFields | null> {
    return (await this.stored(kind, id, userId, ''))?.fields ?? null;
  }

  private async stored(
    kind: ContentKind,
    id: number,
    userId: number,
    version: string,
  ): Promise<Autosave | null> {
    const row = await this.deps.db
      .selectFrom('autosaves')
      .select(['base_version', 'data', 'updated_at'])
      .where('resource_type', '=', kind)
      .where('resource_id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!row) return null;
    const updatedAt = toIso(row.updated_at) ?? String(row.updated_at);
    return {
      resourceType: kind,
      resourceId: id,
      userId,
      fields: JSON.parse(row.data) as AutosaveFields,
      baseVersion: row.base_version,
      updatedAt,
      newer: updatedAt > version,
    };
  }

  private async editable(
    actor: Actor,
    kind: ContentKind,
    ref: string,
  ): Promise<{ id: number; version: string }> {
    if (kind === 'post') {
      const post = await this.deps.access.post(actor, ref);
      return { id: post.id, version: post.updatedAt };
    }
    const page = await this.deps.access.page(actor, ref);
    return { id: page.id, version: page.updatedAt };
  }

  private userOf(actor: Actor): number {
    // Only people edit: a system actor (no user) has no editor to autosave.
    if (actor.userId === null) throw new ForbiddenError();
    return actor.userId;
  }
}
