// `folio import` of a Folio archive (issue 39 #2) into an empty or an existing installation, or into
// one existing website (`--website`). Two passes over the archive:
//
//   1. plan (all a dry run does): every entry read, every record checked against the published JSON
//      Schema (docs/folio-export.schema.json), clashes with what is there found and decided:
//      a user with the same email is the same person (merged), a tag with the same type and slug is
//      the same tag (merged), a post's or page's slug taken is renamed (`slug-2`) and reported, a
//      domain served by another website refuses the import (import into that website with --website).
//   2. write: ids remapped, one transaction on the runner per entry (at most 500 records), the media
//      files copied into the storage. Should a batch fail all the same (the database going away),
//      what the earlier batches wrote is deleted again and the copied files removed: no half import.
//
// One audit row and one event sum up the import (no webhook storm of one event per post).
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { MediaStore } from '../../storage/store.js';
import { isSafePath } from '../../storage/store.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { ContentChanges } from '../changes.js';
import { DomainError, ForbiddenError } from '../errors.js';
import type { RevisionsService } from '../revisions/revisions.js';
import { IMPORTED_WITHOUT_PASSWORD } from '../people/users.js';
import type { Actor, Policy } from '../policy.js';
import type { OperationRunner } from '../run.js';
import { ArchiveError, readArchive } from './archive-reader.js';
import type { ArchiveManifest, RecordKind } from './format.js';
import { SECRET_SETTING } from './format.js';

type Row = Record<string, unknown>;
type LooseDb = Kysely<Record<string, Row>>;

/** What an import did, or a dry run would do. */
export interface ImportReport {
  format: 'folio' | 'wordpress' | 'ghost';
  dry_run: boolean;
  /** Records written (or that would be) per kind. */
  created: Record<string, number>;
  /** Records found already there and reused (users by email, tags by type and slug). */
  merged: Record<string, number>;
  /** Slugs and handles taken here, and what they became. */
  renamed: Array<{ kind: string; from: string; to: string }>;
  /** Records left out, and why. */
  skipped: Array<{ kind: string; id: unknown; reason: string }>;
  media_files: number;
  /** The websites written to (ids of this installation; none in a dry run). */
  websites: number[];
  /**
   * The accounts this import made without a password (a WordPress or Ghost author; a Folio archive
   * without its secrets): their owners sign in once invited to choose one (none in a dry run).
   */
  without_password: Array<{ id: number; email: string }>;
}

export class ImportError extends DomainError {}

/** The kinds whose rows name a parent of their own kind (parent_id). */
type ParentedKind = 'tags' | 'menu_items' | 'comments';

export interface ImportOptions {
  /** Into this existing website; null: the archive's websites are created. */
  websiteId: number | null;
  dryRun: boolean;
  onProgress?: (done: number, total: number) => void;
  /**
   * The site this archive was converted from (WordPress, Ghost): each post and page then gets a first
   * revision (action `import`), and the audit row and webhook event name the source. A Folio archive
   * carries its own history, and a round trip keeps it as it was.
   */
  convertedFrom?: 'wordpress' | 'ghost';
}

/** Models of `website_bindings`, `translations`, `revisions` and `taggables` and their kinds. */
const MODEL_KINDS: Record<string, RecordKind> = {
  post: 'posts',
  page: 'pages',
  tag: 'tags',
  media: 'media',
  website: 'websites',
  menu_item: 'menu_items',
  user: 'users',
  menu: 'menus',
};

let validator: ((kind: string, value: unknown) => string | null) | null = null;
/** Checks a record against the published schema: null, or what is wrong. */
function validate(kind: string, value: unknown): string | null {
  if (!validator) {
    const schema = JSON.parse(
      readFileSync(new URL('../../../docs/folio-export.schema.json', import.meta.url), 'utf8'),
    ) as { $id: string };
    const ajv = new Ajv2020({ strict: false, allErrors: false });
    (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
    ajv.addSchema(schema);
    validator = (k, v) =>
      ajv.validate(`${schema.$id}#/$defs/${k}`, v)
        ? null
        : (ajv.errors ?? [])
            .map((e) => `${e.instancePath || '(record)'} ${e.message ?? ''}`.trim())
            .join('; ');
  }
  return validator(kind, value);
}

/** What the plan decided, read by the write pass. */
interface Plan {
  manifest: ArchiveManifest;
  total: number;
  /** Source id -> existing id, for merged users and tags. */
  merge: Map<string, number>;
  /** `kind:id` -> new slug (or handle, username). */
  rename: Map<string, string>;
  skip: Set<string>;
  report: ImportReport;
  mediaPaths: Set<string>;
}

const key = (kind: string, id: unknown) => `${kind}:${String(id)}`;

export class FolioImporter {
  constructor(
    private readonly deps: {
      db: Db;
      store: MediaStore;
      policy: Policy;
      runner: OperationRunner;
      audit?: AuditLog;
      changes: ContentChanges;
      /** Absent when the installation keeps no revisions. */
      revisions?: RevisionsService;
    },
  ) {}

  async import(actor: Actor, file: string, options: ImportOptions): Promise<ImportReport> {
    if (!(await this.deps.policy.can(actor, 'installation.manage', {})))
      throw new ForbiddenError('Importing is for administrators.');
    const plan = await this.plan(file, options);
    if (options.dryRun) return plan.report;
    return this.write(actor, file, options, plan);
  }

  // ---- pass 1 -------------------------------------------------------------------------------------

  private async plan(file: string, options: ImportOptions): Promise<Plan> {
    const db = this.deps.db as unknown as LooseDb;
    let manifest: ArchiveManifest | null = null;
    const report: ImportReport = {
      format: 'folio',
      dry_run: options.dryRun,
      created: {},
      merged: {},
      renamed: [],
      skipped: [],
      media_files: 0,
      websites: [],
      without_password: [],
    };
    const plan: Plan = {
      manifest: null as unknown as ArchiveManifest,
      total: 0,
      merge: new Map(),
      rename: new Map(),
      skip: new Set(),
      report,
      mediaPaths: new Set(),
    };
    const emails = new Map<string, unknown>();
    const usernames = new Set<string>();
    const slugs = { posts: new Set<string>(), pages: new Set<string>(), tags: new Set<string>() };
    const handles = new Set<string>();
    const count = (bucket: Record<string, number>, kind: string) => (bucket[kind] = (bucket[kind] ?? 0) + 1);
    const skip = (kind: string, id: unknown, reason: string) => {
      plan.skip.add(key(kind, id));
      report.skipped.push({ kind, id, reason });
    };
    for await (const entry of readArchive(file, (m) => (manifest = m))) {
      if (entry.type === 'media') {
        if (!isSafePath(entry.path)) throw new ImportError(`media/${entry.path} is not a safe path`);
        plan.mediaPaths.add(entry.path);
        report.media_files += 1;
        continue;
      }
      if (entry.type === 'summary') continue;
      const { kind, records } = entry;
      for (const [index, record] of records.entries()) {
        const problem = validate(kind, record);
        if (problem)
          throw new ImportError(
            `${kind} record ${index + 1} of an entry (id ${String(record.id)}): ${problem}`,
          );
        plan.total += 1;
        const id = record.id;
        switch (kind) {
          case 'users': {
            const email = String(record.email).trim().toLowerCase();
            if (emails.has(email)) {
              throw new ImportError(
                `two users of the archive (${String(emails.get(email))} and ${String(id)}) have the email ${email}`,
              );
            }
            emails.set(email, id);
            const existing = await db
              .selectFrom('users')
              .select('id')
              .where('email', '=', email)
              .executeTakeFirst();
            if (existing) {
              plan.merge.set(key(kind, id), Number(existing.id));
              count(report.merged, kind);
              continue;
            }
            if (typeof record.username === 'string') {
              let name = record.username;
              for (
                let n = 2;
                usernames.has(name) ||
                (await db.selectFrom('users').select('id').where('username', '=', name).executeTakeFirst());
                n += 1
              ) {
                name = `${record.username}-${n}`;
              }
              usernames.add(name);
              if (name !== record.username) {
                plan.rename.set(key(kind, id), name);
                report.renamed.push({ kind: 'users.username', from: record.username, to: name });
              }
            }
            break;
          }
          case 'settings':
            if (options.websiteId != null) {
              skip(kind, record.key, "settings are the installation's: not imported into a website");
              continue;
            }
            if (
              await db
                .selectFrom('settings')
                .select('key')
                .where('key', '=', String(record.key))
                .executeTakeFirst()
            ) {
              skip(kind, record.key, 'already set here: kept');
              continue;
            }
            break;
          case 'websites':
            if (options.websiteId != null) {
              plan.merge.set(key(kind, id), options.websiteId);
              count(report.merged, kind);
              continue;
            }
            break;
          case 'domains': {
            if (options.websiteId != null) {
              skip(kind, record.domain, 'importing into an existing website: its domains are kept');
              continue;
            }
            const existing = await db
              .selectFrom('domains')
              .select('website_id')
              .where('domain', '=', String(record.domain).toLowerCase())
              .executeTakeFirst();
            if (existing) {
              throw new ImportError(
                `the domain ${String(record.domain)} is already served by website ${String(existing.website_id)}: import into it with --website ${String(existing.website_id)}`,
              );
            }
            break;
          }
          case 'tags': {
            const type = String(record.type);
            const tagKey = `${type}\u0000${String(record.slug)}`;
            if (slugs.tags.has(tagKey)) {
              skip(kind, id, `a second ${type} with the slug ${String(record.slug)} in the archive`);
              continue;
            }
            slugs.tags.add(tagKey);
            const existing = await db
              .selectFrom('tags')
              .select('id')
              .where('type', '=', type)
              .where((eb) =>
                eb.or([eb('slug', '=', String(record.slug)), eb('name', '=', String(record.name))]),
              )
              .executeTakeFirst();
            if (existing) {
              plan.merge.set(key(kind, id), Number(existing.id));
              count(report.merged, kind);
              continue;
            }
            break;
          }
          case 'posts':
          case 'pages': {
            if (record.deleted_at != null) break;
            const slug = String(record.slug);
            const taken = kind === 'posts' ? slugs.posts : slugs.pages;
            const scoped = `${kind === 'posts' ? String(record.type) : ''}\u0000`;
            const table: string = kind;
            const clash = async (candidate: string) => {
              if (taken.has(scoped + candidate)) return true;
              let query = db
                .selectFrom(table)
                .select('id')
                .where('slug', '=', candidate)
                .where('deleted_at', 'is', null);
              if (kind === 'posts') query = query.where('type', '=', String(record.type));
              return (await query.executeTakeFirst()) != null;
            };
            let final = slug;
            for (let n = 2; await clash(final); n += 1) final = `${slug.slice(0, 240)}-${n}`;
            taken.add(scoped + final);
            if (final !== slug) {
              plan.rename.set(key(kind, id), final);
              report.renamed.push({ kind, from: slug, to: final });
            }
            break;
          }
          case 'menus': {
            if (options.websiteId == null) break;
            const handle = String(record.handle);
            let final = handle;
            const websiteId = options.websiteId;
            const clash = async (candidate: string) =>
              handles.has(candidate) ||
              (await db
                .selectFrom('menus')
                .select('id')
                .where('website_id', '=', websiteId)
                .where('handle', '=', candidate)
                .executeTakeFirst()) != null;
            for (let n = 2; await clash(final); n += 1) final = `${handle}-${n}`;
            handles.add(final);
            if (final !== handle) {
              plan.rename.set(key(kind, id), final);
              report.renamed.push({ kind: 'menus.handle', from: handle, to: final });
            }
            break;
          }
          case 'memberships':
            if (options.websiteId != null) {
              const user = plan.merge.get(key('users', record.user_id));
              const websiteId = options.websiteId;
              const held =
                user !== undefined &&
                (await db
                  .selectFrom('memberships')
                  .select('id')
                  .where('user_id', '=', user)
                  .where('website_id', '=', websiteId)
                  .executeTakeFirst()) != null;
              if (held) {
                skip(kind, id, 'the user already has a role on this website: kept');
                continue;
              }
            }
            break;
          default:
            break;
        }
        count(report.created, kind);
      }
    }
    if (!manifest) throw new ArchiveError('not a Folio archive');
    plan.manifest = manifest;
    return plan;
  }

  // ---- pass 2 -------------------------------------------------------------------------------------

  private async write(actor: Actor, file: string, options: ImportOptions, plan: Plan): Promise<ImportReport> {
    const db = this.deps.db as unknown as LooseDb;
    const { store, runner } = this.deps;
    /** Source id -> new id, per kind (merged ones included). */
    const ids = new Map<string, number>(plan.merge);
    const created: Array<{ kind: RecordKind; id: number }> = [];
    const createdBindings: Row[] = [];
    const copied: string[] = [];
    /** Rows whose parent (of their own kind) came after them in the archive: set once all are in. */
    const fixups: Array<{ kind: ParentedKind; id: number; source: unknown }> = [];
    const websites = new Set<number>(options.websiteId != null ? [options.websiteId] : []);
    let done = 0;
    const mapped = (kind: RecordKind, source: unknown): number | null =>
      source == null ? null : (ids.get(key(kind, source)) ?? null);

    const insert = async (kind: RecordKind, row: Row, sourceId: unknown): Promise<number> => {
      const result = await db.insertInto(kind).values(row).returning('id').executeTakeFirstOrThrow();
      const id = Number(result.id);
      ids.set(key(kind, sourceId), id);
      created.push({ kind, id });
      return id;
    };

    /** Inserts a row whose parent_id names a row of its own kind, the parent mapped if it is in yet. */
    const insertWithParent = async (kind: ParentedKind, row: Row, sourceId: unknown): Promise<void> => {
      const parent = row.parent_id;
      row.parent_id = mapped(kind, parent);
      const id = await insert(kind, row, sourceId);
      if (parent != null && row.parent_id == null) fixups.push({ kind, id, source: parent });
    };

    const bound = new Set<string>();
    const bind = async (website: number, modelType: string, modelId: number) => {
      const id = `${modelType}:${modelId}`;
      const binding = { website_id: website, model_type: modelType, model_id: modelId };
      if (bound.has(`${website}:${id}`)) return;
      bound.add(`${website}:${id}`);
      bound.add(id);
      await db.insertInto('website_bindings').values(binding).execute();
      createdBindings.push(binding);
    };

    const writeRecord = async (kind: RecordKind, record: Row): Promise<void> => {
      const sourceId = record.id;
      if (plan.merge.has(key(kind, sourceId))) return;
      if (
        plan.skip.has(
          key(kind, kind === 'settings' ? record.key : kind === 'domains' ? record.domain : sourceId),
        )
      )
        return;
      const { id: _id, ...row } = record;
      const renamed = plan.rename.get(key(kind, sourceId));
      switch (kind) {
        case 'users':
          if (renamed) row.username = renamed;
          row.email = String(row.email).trim().toLowerCase();
          if (typeof row.password_hash !== 'string') row.password_hash = IMPORTED_WITHOUT_PASSWORD;
          await insert(kind, row, sourceId);
          return;
        case 'settings':
          if (!plan.manifest.with_secrets && SECRET_SETTING.test(String(row.key))) return;
          await db.insertInto('settings').values(record).execute();
          return;
        case 'websites': {
          row.user_id = mapped('users', row.user_id);
          const id = await insert(kind, row, sourceId);
          websites.add(id);
          return;
        }
        case 'domains':
        case 'memberships':
        case 'menus': {
          const website = mapped('websites', row.website_id);
          if (website == null) return;
          row.website_id = website;
          if (kind === 'memberships') {
            const user = mapped('users', row.user_id);
            if (user == null) return;
            row.user_id = user;
          }
          if (kind === 'menus' && renamed) row.handle = renamed;
          await insert(kind, row, sourceId);
          return;
        }
        case 'media': {
          row.user_id = mapped('users', row.user_id);
          row.disk = store.disk;
          row.url = store.url(String(row.path));
          await insert(kind, row, sourceId);
          return;
        }
        case 'tags':
          await insertWithParent(kind, row, sourceId);
          return;
        case 'posts':
        case 'pages':
          row.author_id = mapped('users', row.author_id);
          if (renamed) row.slug = renamed;
          await insert(kind, row, sourceId);
          return;
        case 'links': {
          const post = mapped('posts', row.post_id);
          if (post == null) return;
          await db
            .insertInto('links')
            .values({ ...row, post_id: post })
            .execute();
          return;
        }
        case 'menu_items': {
          const website = mapped('websites', row.website_id);
          if (website == null) return;
          Object.assign(row, {
            website_id: website,
            menu_id: mapped('menus', row.menu_id),
            page_id: mapped('pages', row.page_id),
            post_id: mapped('posts', row.post_id),
            tag_id: mapped('tags', row.tag_id),
          });
          await insertWithParent(kind, row, sourceId);
          return;
        }
        case 'comments': {
          const post = mapped('posts', row.post_id);
          if (post == null) return;
          Object.assign(row, {
            post_id: post,
            user_id: mapped('users', row.user_id),
            website_id: mapped('websites', row.website_id),
          });
          await insertWithParent(kind, row, sourceId);
          return;
        }
        case 'redirects': {
          const website = mapped('websites', row.website_id);
          if (website == null) return;
          const taken = await db
            .selectFrom('redirects')
            .select('id')
            .where('website_id', '=', website)
            .where('from_path', '=', String(row.from_path))
            .executeTakeFirst();
          if (taken) return;
          Object.assign(row, {
            website_id: website,
            post_id: mapped('posts', row.post_id),
            page_id: mapped('pages', row.page_id),
          });
          await insert(kind, row, sourceId);
          return;
        }
        case 'translations': {
          const model = MODEL_KINDS[String(row.model_type)];
          const target = model ? mapped(model, row.model_id) : null;
          if (target == null || (model && plan.merge.has(key(model, row.model_id)))) return;
          row.model_id = target;
          await insert(kind, row, sourceId);
          return;
        }
        case 'revisions': {
          const model = MODEL_KINDS[String(row.resource_type)];
          const target = model ? mapped(model, row.resource_id) : null;
          if (target == null) return;
          Object.assign(row, {
            resource_id: target,
            user_id: mapped('users', row.user_id),
            api_key_id: null,
          });
          await insert(kind, row, sourceId);
          return;
        }
        case 'website_bindings': {
          const model = MODEL_KINDS[String(row.model_type)];
          const website = mapped('websites', row.website_id);
          const target = model ? mapped(model, row.model_id) : null;
          if (website == null || target == null || (model && plan.merge.has(key(model, row.model_id))))
            return;
          await bind(website, String(row.model_type), target);
          return;
        }
        case 'taggables': {
          const tag = mapped('tags', row.tag_id);
          const model = MODEL_KINDS[String(row.taggable_type)];
          const target = model ? mapped(model, row.taggable_id) : null;
          if (tag == null || target == null) return;
          const exists = await db
            .selectFrom('taggables')
            .select('tag_id')
            .where('tag_id', '=', tag)
            .where('taggable_type', '=', String(row.taggable_type))
            .where('taggable_id', '=', target)
            .executeTakeFirst();
          if (!exists)
            await db
              .insertInto('taggables')
              .values({ tag_id: tag, taggable_type: row.taggable_type, taggable_id: target })
              .execute();
          return;
        }
      }
    };

    try {
      for await (const entry of readArchive(file, () => undefined)) {
        if (entry.type === 'records') {
          await runner.run(async () => {
            for (const record of entry.records) await writeRecord(entry.kind, record);
          });
          done += entry.records.length;
          options.onProgress?.(done, plan.total);
        } else if (entry.type === 'media') {
          if ((await store.stat(entry.path)) == null) {
            await store.put(entry.path, entry.body, contentTypeOf(entry.path));
            copied.push(entry.path);
          } else {
            entry.body.resume();
          }
        }
      }
      // Into one website: what the archive bound to no website (global there) is bound to it here.
      if (options.websiteId != null) {
        const target = options.websiteId;
        const models: Partial<Record<RecordKind, string>> = {
          posts: 'post',
          pages: 'page',
          tags: 'tag',
          media: 'media',
        };
        const unbound = created.filter(({ kind, id }) => models[kind] && !bound.has(`${models[kind]}:${id}`));
        for (let start = 0; start < unbound.length; start += 500) {
          await runner.run(async () => {
            for (const { kind, id } of unbound.slice(start, start + 500))
              await bind(target, models[kind]!, id);
          });
        }
      }
      // Parents that came after their children in the archive.
      if (fixups.length) {
        await runner.run(async () => {
          for (const fix of fixups) {
            await db
              .updateTable(fix.kind)
              .set({ parent_id: mapped(fix.kind, fix.source) })
              .where('id', '=', fix.id)
              .execute();
          }
        });
      }
      // Posts and pages from elsewhere get their first revision (its action: import).
      const revisions = this.deps.revisions;
      if (revisions && options.convertedFrom !== undefined) {
        for (const [kind, model] of [
          ['posts', 'post'],
          ['pages', 'page'],
        ] as const) {
          const ids = created.filter((each) => each.kind === kind).map((each) => each.id);
          for (let start = 0; start < ids.length; start += 500) {
            await runner.run(() => revisions.recordImported(actor, model, ids.slice(start, start + 500)));
          }
        }
      }
      // One audit row and one event sum up the import (webhooks: `website.imported`, with the counts).
      const format = options.convertedFrom ?? 'folio';
      await runner.run(async () => {
        await recordWrite(this.deps.audit, actor, {
          action: `import.${format}`,
          resourceType: 'import',
          resourceId: plan.manifest.created_at,
          websiteIds: [...websites],
          input: { created: plan.report.created, media_files: plan.report.media_files },
          detail: {
            format,
            websites: [...websites],
            created: plan.report.created,
            merged: plan.report.merged,
            renamed: plan.report.renamed.length,
            skipped: plan.report.skipped.length,
            media_files: plan.report.media_files,
          },
        });
        for (const website of websites) {
          await this.deps.changes.announce({ kind: 'website', id: website, domainsChanged: true });
        }
      });
    } catch (error) {
      await this.undo(created, createdBindings, copied);
      throw error;
    }
    const madeUsers = created.filter((each) => each.kind === 'users').map((each) => each.id);
    const withoutPassword = [];
    for (let start = 0; start < madeUsers.length; start += 500) {
      withoutPassword.push(
        ...(await this.deps.db
          .selectFrom('users')
          .select(['id', 'email'])
          .where('id', 'in', madeUsers.slice(start, start + 500))
          .where('password_hash', '=', IMPORTED_WITHOUT_PASSWORD)
          .orderBy('id')
          .execute()),
      );
    }
    return { ...plan.report, websites: [...websites], without_password: withoutPassword };
  }

  /** Deletes what an import that failed half way wrote (newest first) and the files it copied. */
  private async undo(created: Array<{ kind: RecordKind; id: number }>, bindings: Row[], copied: string[]) {
    const db = this.deps.db as unknown as LooseDb;
    await this.deps.runner.run(async () => {
      for (const binding of bindings) {
        await db
          .deleteFrom('website_bindings')
          .where('website_id', '=', binding.website_id as number)
          .where('model_type', '=', binding.model_type as string)
          .where('model_id', '=', binding.model_id as number)
          .execute();
      }
      for (const { kind, id } of [...created].reverse()) {
        if (kind === 'posts' || kind === 'pages') {
          await db
            .deleteFrom('revisions')
            .where('resource_type', '=', kind === 'posts' ? 'post' : 'page')
            .where('resource_id', '=', id)
            .execute();
        }
        if (kind === 'posts') {
          await db
            .deleteFrom('taggables')
            .where('taggable_type', '=', 'post')
            .where('taggable_id', '=', id)
            .execute();
          await db.deleteFrom('links').where('post_id', '=', id).execute();
        }
        await db.deleteFrom(kind).where('id', '=', id).execute();
      }
    });
    for (const path of copied) await this.deps.store.delete(path).catch(() => undefined);
  }
}

function contentTypeOf(path: string): string {
  const ext = path.split('.').pop()?.toLowerCase() ?? '';
  const types: Record<string, string> = {
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    png: 'image/png',
    gif: 'image/gif',
    webp: 'image/webp',
    avif: 'image/avif',
    svg: 'image/svg+xml',
  };
  return types[ext] ?? 'application/octet-stream';
}
