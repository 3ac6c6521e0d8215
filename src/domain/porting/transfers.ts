// Exports and imports for administrators in API v2 and the admin panel (issue 39 #1, #2, #6). Each
// start is an operation (policy + audit) that records a `transfers` row (0056_transfers) and queues a
// job (src/jobs/queue.ts); a node's worker runs the same porting code as the CLI (Exporter, the
// importers), writes its progress (done of total, the phase) to the row as it goes, and at the end its
// result: an export's archive (kept EXPORT_TTL_MS, then deleted by `expire()` on the hourly upkeep) or
// an import's report. A failure marks the transfer failed with the porting code's message, and its job
// too (a transfer is tried once: a second attempt could not do better on the same file).
//
// Files live in a `transfers` folder beside the media directory: uploads (`upload-…`, deleted once
// their import ran) and archives (`export-….tar.gz`).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { z } from 'zod';
import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { TransfersTable } from '../../db/schema.js';
import type { JobQueue } from '../../jobs/queue.js';
import { recordWrite } from '../system/audit.js';
import type { AuditLog } from '../system/audit.js';
import type { Clock } from '../clock.js';
import {
  ConflictError,
  FileTooLargeError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
} from '../errors.js';
import type { Actor, Policy } from '../policy.js';
import type { OperationRunner } from '../run.js';
import { parse } from '../schema-fields.js';
import type { SettingsService } from '../system/settings.js';
import { detectFormat, UnknownFormatError } from './detect.js';
import type { ImportFormat } from './detect.js';
import type { Exporter } from './export.js';
import type { ImportReport } from './import-folio.js';
import type { FolioImporter } from './import-folio.js';
import type { GhostImporter } from './ghost.js';
import type { AuthorInviter } from './invite-authors.js';
import type { WordPressImporter } from './wxr.js';

export const TRANSFER_QUEUE = 'porting.transfer';
/** How long a finished export's archive is kept for download. */
export const EXPORT_TTL_MS = 24 * 3_600_000;
/** The setting bounding an uploaded import file, in megabytes. */
export const IMPORT_MAX_MB_SETTING = 'import_max_mb';
export const DEFAULT_IMPORT_MAX_MB = 512;
/** Progress is written at most this often (and at each phase's end). */
const PROGRESS_EVERY_MS = 500;
/** How often a running transfer renews its job's lease (the queue's lease is minutes). */
const LEASE_RENEW_MS = 30_000;

export type TransferKind = 'export' | 'import';
export type TransferStatus = 'queued' | 'running' | 'done' | 'failed' | 'expired';

export interface Transfer {
  id: number;
  kind: TransferKind;
  status: TransferStatus;
  websiteId: number | null;
  userId: number | null;
  jobId: number | null;
  /** Export: with_secrets; import: dry_run, format, file_name. */
  options: {
    withSecrets?: boolean;
    dryRun?: boolean;
    noMedia?: boolean;
    inviteAuthors?: boolean;
    format?: ImportFormat;
    fileName?: string;
  };
  phase: string | null;
  done: number;
  total: number;
  /** The archive's size (export, once done) or the upload's (import). */
  bytes: number | null;
  /** An export's summary (counts, media), or an import's report. */
  result: unknown;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  expiresAt: string | null;
}

export const startExportInput = z.object({
  website_id: z
    .int()
    .positive()
    .nullable()
    .optional()
    .describe('The website to export; null or absent: the whole installation (administrators).'),
  with_secrets: z
    .boolean()
    .optional()
    .describe(
      'Users\u2019 password hashes and secret settings: the whole installation\u2019s, administrators.',
    ),
});

export const startImportInput = z.object({
  website_id: z
    .int()
    .positive()
    .nullable()
    .optional()
    .describe('Into this website; absent: a Folio archive\u2019s own websites (a Ghost export needs one).'),
  dry_run: z.boolean().optional().describe('Report what would happen, write nothing.'),
  no_media: z
    .boolean()
    .optional()
    .describe('A WordPress export: leave its images at their old URLs instead of fetching them.'),
  invite_authors: z
    .boolean()
    .optional()
    .describe(
      'Mail each account the import makes without a password (WordPress and Ghost authors) a week-long link to choose one.',
    ),
  file_name: z.string().max(255).optional().describe('The uploaded file\u2019s name, for people.'),
});

/** An uploaded file stored in the transfers folder, not yet imported. */
export interface StoredUpload {
  file: string;
  bytes: number;
}

interface JobPayload {
  transfer: number;
  actor: Actor;
}

type Row = Selectable<TransfersTable>;

const iso = (value: Date | string | null): string | null =>
  value === null ? null : typeof value === 'string' ? value : value.toISOString();

function toTransfer(row: Row): Transfer {
  const options = JSON.parse(row.options) as Transfer['options'];
  return {
    id: Number(row.id),
    kind: row.kind as TransferKind,
    status: row.status as TransferStatus,
    websiteId: row.website_id === null ? null : Number(row.website_id),
    userId: row.user_id === null ? null : Number(row.user_id),
    jobId: row.job_id === null ? null : Number(row.job_id),
    options,
    phase: row.phase,
    done: Number(row.done),
    total: Number(row.total),
    bytes: row.bytes === null ? null : Number(row.bytes),
    result: row.result === null ? null : (JSON.parse(row.result) as unknown),
    error: row.error,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    finishedAt: iso(row.finished_at),
    expiresAt: iso(row.expires_at),
  };
}

/** What an actor's refusal in the porting code says, kept for people; anything else is a plain message. */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.slice(0, 2000) || 'The transfer failed.';
}

export interface TransferDeps {
  db: Db;
  clock: Clock;
  policy: Policy;
  runner: OperationRunner;
  audit: AuditLog;
  jobs: JobQueue;
  settings: SettingsService;
  exporter: Exporter;
  folioImporter: FolioImporter;
  wordpressImporter: WordPressImporter;
  ghostImporter: GhostImporter;
  /** Mails the accounts an import made without a password a link to choose one. */
  authorInviter: AuthorInviter;
  /** Where uploads and archives are kept (beside the media directory). */
  dir: string;
  /** The primary domain of a website, for an archive's file name. */
  domainOf: (websiteId: number) => Promise<string | null>;
  websiteExists: (websiteId: number) => Promise<boolean>;
  warn: (message: string) => void;
}

export class TransferService {
  constructor(private readonly deps: TransferDeps) {}

  /** Registers the worker of the transfer queue on this node. */
  install(): this {
    this.deps.jobs.work(TRANSFER_QUEUE, (payload, job) => this.runJob(payload as JobPayload, job.id));
    return this;
  }

  // ---- starting -----------------------------------------------------------------------------------

  /** Queues an export of a website (its managers) or the installation (administrators). */
  async startExport(actor: Actor, raw: unknown): Promise<Transfer> {
    const input = parse(startExportInput, raw ?? {});
    const websiteId = input.website_id ?? null;
    const withSecrets = input.with_secrets === true;
    return this.deps.runner.run(async () => {
      if (websiteId !== null && !(await this.deps.websiteExists(websiteId))) {
        throw new NotFoundError('Website not found');
      }
      await this.deps.policy.require(actor, 'website.export', { websiteId });
      if (
        withSecrets &&
        (websiteId !== null || !(await this.deps.policy.can(actor, 'installation.manage', {})))
      ) {
        throw new ForbiddenError(
          'Only the installation\u2019s administrators export secrets, of the whole installation.',
        );
      }
      const domain = websiteId === null ? null : await this.deps.domainOf(websiteId);
      const stamp = this.deps.clock.now().toISOString().slice(0, 10);
      const fileName = `folio-${(domain ?? (websiteId === null ? 'installation' : `website-${websiteId}`)).replace(/[^a-z0-9.-]+/gi, '-')}-${stamp}.tar.gz`;
      const transfer = await this.insert(actor, 'export', websiteId, { withSecrets, fileName }, null, null);
      await recordWrite(this.deps.audit, actor, {
        action: 'transfer.export',
        resourceType: 'transfer',
        resourceId: transfer.id,
        websiteIds: websiteId === null ? [] : [websiteId],
        input: { website_id: websiteId, with_secrets: withSecrets },
      });
      return transfer;
    });
  }

  /** The largest upload an import takes, in bytes (setting `import_max_mb`). */
  async maxUploadBytes(): Promise<number> {
    const mb = Number(await this.deps.settings.get(IMPORT_MAX_MB_SETTING));
    return (Number.isFinite(mb) && mb > 0 ? mb : DEFAULT_IMPORT_MAX_MB) * 1024 * 1024;
  }

  /**
   * Stores an uploaded file in the transfers folder (importers only), refusing one past the limit
   * (by its declared length before a byte is read, else as soon as it passes): FileTooLargeError.
   */
  async receiveUpload(actor: Actor, body: Readable, declaredLength?: number): Promise<StoredUpload> {
    await this.deps.policy.require(actor, 'installation.manage', {});
    const max = await this.maxUploadBytes();
    const tooLarge = () =>
      new FileTooLargeError(
        'file',
        `The file may not be greater than ${Math.floor(max / 1024 / 1024)} megabytes.`,
      );
    if (declaredLength !== undefined && declaredLength > max) {
      body.resume();
      throw tooLarge();
    }
    fs.mkdirSync(this.deps.dir, { recursive: true });
    const file = path.join(this.deps.dir, `upload-${Date.now()}-${randomBytes(6).toString('hex')}`);
    let bytes = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        if (bytes > max) callback(tooLarge());
        else callback(null, chunk);
      },
    });
    try {
      await pipeline(body, counter, fs.createWriteStream(file, { flags: 'wx' }));
    } catch (error) {
      fs.rmSync(file, { force: true });
      body.resume();
      throw error;
    }
    return { file, bytes };
  }

  /**
   * Queues the import of a stored upload (administrators). Its format is recognized now, by content:
   * a file that is none of them is refused (422, with the reason) and deleted.
   */
  async startImport(actor: Actor, upload: StoredUpload, raw: unknown): Promise<Transfer> {
    try {
      const input = parse(startImportInput, raw ?? {});
      const websiteId = input.website_id ?? null;
      return await this.deps.runner.run(async () => {
        await this.deps.policy.require(actor, 'installation.manage', {});
        if (websiteId !== null && !(await this.deps.websiteExists(websiteId))) {
          throw new NotFoundError('Website not found');
        }
        let format: ImportFormat;
        try {
          format = detectFormat(upload.file);
        } catch (error) {
          if (!(error instanceof UnknownFormatError)) throw error;
          // The detector names the temporary file: people know it by what they uploaded.
          const reason = error.message.replace(upload.file, input.file_name ?? 'the file');
          throw new ValidationError({ file: [reason] });
        }
        if (format === 'ghost' && websiteId === null) {
          throw new ValidationError({
            website_id: ['A Ghost export names no domain: choose the website to import it into.'],
          });
        }
        const options = {
          dryRun: input.dry_run === true,
          noMedia: input.no_media === true,
          inviteAuthors: input.invite_authors === true,
          format,
          fileName: input.file_name ?? 'upload',
        };
        const transfer = await this.insert(actor, 'import', websiteId, options, upload.file, upload.bytes);
        await recordWrite(this.deps.audit, actor, {
          action: 'transfer.import',
          resourceType: 'transfer',
          resourceId: transfer.id,
          websiteIds: websiteId === null ? [] : [websiteId],
          input: { website_id: websiteId, dry_run: options.dryRun, format, file_name: options.fileName },
        });
        return transfer;
      });
    } catch (error) {
      fs.rmSync(upload.file, { force: true });
      throw error;
    }
  }

  private async insert(
    actor: Actor,
    kind: TransferKind,
    websiteId: number | null,
    options: Transfer['options'],
    file: string | null,
    bytes: number | null,
  ): Promise<Transfer> {
    const now = this.deps.clock.now().toISOString();
    const row = await this.deps.db
      .insertInto('transfers')
      .values({
        kind,
        status: 'queued',
        website_id: websiteId,
        user_id: actor.userId,
        job_id: null,
        options: JSON.stringify(options),
        phase: null,
        done: 0,
        total: 0,
        file,
        bytes,
        result: null,
        error: null,
        created_at: now,
        updated_at: now,
        finished_at: null,
        expires_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = Number(row.id);
    const payload: JobPayload = { transfer: id, actor: { ...actor } };
    const jobId = await this.deps.jobs.enqueue(TRANSFER_QUEUE, payload, { maxAttempts: 1 });
    await this.deps.db.updateTable('transfers').set({ job_id: jobId }).where('id', '=', id).execute();
    return (await this.row(id))!;
  }

  // ---- reading ------------------------------------------------------------------------------------

  private async row(id: number): Promise<Transfer | null> {
    const row = await this.deps.db
      .selectFrom('transfers')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toTransfer(row) : null;
  }

  private async sees(actor: Actor, transfer: Transfer): Promise<boolean> {
    if (transfer.kind === 'import') return this.deps.policy.can(actor, 'installation.manage', {});
    if (transfer.options.withSecrets && !(await this.deps.policy.can(actor, 'installation.manage', {})))
      return false;
    return this.deps.policy.can(actor, 'website.export', { websiteId: transfer.websiteId });
  }

  /** One transfer: 404 when there is none, 403 when it is not the actor's to see. */
  async find(actor: Actor, id: number): Promise<Transfer> {
    const transfer = await this.row(id);
    if (!transfer) throw new NotFoundError(`No transfer ${id}.`);
    if (!(await this.sees(actor, transfer))) throw new ForbiddenError();
    return transfer;
  }

  /** The latest transfers the actor may see (administrators: all; others: their websites' exports). */
  async list(actor: Actor, filter: { kind?: TransferKind; limit?: number } = {}): Promise<Transfer[]> {
    const limit = Math.min(Math.max(filter.limit ?? 50, 1), 200);
    let query = this.deps.db
      .selectFrom('transfers')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(limit * 4);
    if (filter.kind) query = query.where('kind', '=', filter.kind);
    const found: Transfer[] = [];
    for (const row of await query.execute()) {
      const transfer = toTransfer(row);
      if (await this.sees(actor, transfer)) found.push(transfer);
      if (found.length >= limit) break;
    }
    return found;
  }

  /** An export's archive to download: 409 until it is done, 410-like 404 once expired. */
  async download(actor: Actor, id: number): Promise<{ transfer: Transfer; file: string; fileName: string }> {
    const transfer = await this.find(actor, id);
    if (transfer.kind !== 'export') throw new NotFoundError(`Transfer ${id} is not an export.`);
    if (transfer.status === 'expired') throw new NotFoundError(`The archive of export ${id} has expired.`);
    if (transfer.status !== 'done') throw new ConflictError(`Export ${id} is ${transfer.status}, not done.`);
    const row = await this.deps.db
      .selectFrom('transfers')
      .select('file')
      .where('id', '=', id)
      .executeTakeFirst();
    const file = row?.file ?? null;
    if (!file || !fs.existsSync(file)) throw new NotFoundError(`The archive of export ${id} is gone.`);
    return { transfer, file, fileName: transfer.options.fileName ?? `folio-export-${id}.tar.gz` };
  }

  // ---- running ------------------------------------------------------------------------------------

  private async update(id: number, values: Partial<Omit<Row, 'id'>>): Promise<void> {
    await this.deps.db
      .updateTable('transfers')
      .set({ ...values, updated_at: this.deps.clock.now().toISOString() } as never)
      .where('id', '=', id)
      .execute();
  }

  /** Progress as the porting code reports it: written at most every PROGRESS_EVERY_MS, in order. */
  private progress(id: number, jobId: number) {
    let chain: Promise<void> = Promise.resolve();
    let last = 0;
    let leased = Date.now();
    let pending: { phase: string; done: number; total: number } | null = null;
    const flush = () => {
      if (!pending) return;
      const values = pending;
      pending = null;
      // A long transfer keeps its job's lease: no other node takes it over while it runs.
      const renew = Date.now() - leased >= LEASE_RENEW_MS;
      if (renew) leased = Date.now();
      chain = chain
        .then(() => this.update(id, values))
        .then(() => (renew ? this.deps.jobs.extendLease(jobId) : undefined))
        .catch((error: unknown) =>
          this.deps.warn(`transfer ${id}: progress not recorded: ${messageOf(error)}`),
        );
    };
    return {
      report: (phase: string, done: number, total: number, force = false) => {
        pending = { phase, done, total };
        const now = Date.now();
        if (force || now - last >= PROGRESS_EVERY_MS) {
          last = now;
          flush();
        }
      },
      settle: async () => {
        flush();
        await chain;
      },
    };
  }

  private async runJob(payload: JobPayload, jobId: number): Promise<void> {
    const transfer = await this.row(Number(payload.transfer));
    if (!transfer) return; // deleted with its website: nothing left to do
    await this.update(transfer.id, { status: 'running', error: null, phase: 'starting' });
    const progress = this.progress(transfer.id, jobId);
    try {
      if (transfer.kind === 'export') await this.runExport(transfer, payload.actor, progress);
      else await this.runImport(transfer, payload.actor, progress);
    } catch (error) {
      await progress.settle();
      const message = messageOf(error);
      await this.update(transfer.id, {
        status: 'failed',
        error: message,
        finished_at: this.deps.clock.now().toISOString(),
      });
      // The job fails too, with the same message (System → Jobs shows it).
      throw new Error(`transfer ${transfer.id} failed: ${message}`, { cause: error });
    } finally {
      if (transfer.kind === 'import') {
        const row = await this.deps.db
          .selectFrom('transfers')
          .select('file')
          .where('id', '=', transfer.id)
          .executeTakeFirst();
        if (row?.file) fs.rmSync(row.file, { force: true });
      }
    }
  }

  private async runExport(
    transfer: Transfer,
    actor: Actor,
    progress: ReturnType<TransferService['progress']>,
  ): Promise<void> {
    const { exporter } = this.deps;
    const counts = await exporter.count(actor, transfer.websiteId);
    const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
    progress.report('records', 0, total, true);
    fs.mkdirSync(this.deps.dir, { recursive: true });
    const file = path.join(this.deps.dir, `export-${transfer.id}-${randomBytes(6).toString('hex')}.tar.gz`);
    const partial = `${file}.partial`;
    const done: Record<string, number> = {};
    try {
      const result = await exporter.export(
        actor,
        {
          websiteId: transfer.websiteId,
          withSecrets: transfer.options.withSecrets === true,
          onProgress: ({ kind, done: n }) => {
            if (kind === 'media') {
              progress.report('media', n, n);
              return;
            }
            done[kind] = n;
            progress.report(
              kind,
              Object.values(done).reduce((sum, k) => sum + k, 0),
              total,
            );
          },
        },
        fs.createWriteStream(partial),
      );
      fs.renameSync(partial, file);
      await progress.settle();
      const now = this.deps.clock.now();
      await this.update(transfer.id, {
        status: 'done',
        phase: 'done',
        done: total,
        total,
        file,
        bytes: fs.statSync(file).size,
        result: JSON.stringify(result.summary),
        finished_at: now.toISOString(),
        expires_at: new Date(now.getTime() + EXPORT_TTL_MS).toISOString(),
      });
    } catch (error) {
      fs.rmSync(partial, { force: true });
      throw error;
    }
  }

  private async runImport(
    transfer: Transfer,
    actor: Actor,
    progress: ReturnType<TransferService['progress']>,
  ): Promise<void> {
    const row = await this.deps.db
      .selectFrom('transfers')
      .select('file')
      .where('id', '=', transfer.id)
      .executeTakeFirst();
    const file = row?.file;
    if (!file || !fs.existsSync(file)) throw new Error('The uploaded file is gone: upload it again.');
    const options = {
      websiteId: transfer.websiteId,
      dryRun: transfer.options.dryRun === true,
      onProgress: (done: number, total: number) => progress.report('records', done, total),
    };
    let report: ImportReport;
    switch (transfer.options.format ?? detectFormat(file)) {
      case 'folio':
        report = await this.deps.folioImporter.import(actor, file, options);
        break;
      case 'wordpress':
        report = await this.deps.wordpressImporter.import(actor, file, {
          ...options,
          noMedia: transfer.options.noMedia === true,
        });
        break;
      case 'ghost':
        report = await this.deps.ghostImporter.import(actor, file, options);
        break;
    }
    await progress.settle();
    const invites =
      transfer.options.inviteAuthors === true
        ? await this.deps.authorInviter.invite(actor, report)
        : undefined;
    const total = Object.values(report.created).reduce((sum, n) => sum + n, 0);
    await this.update(transfer.id, {
      status: 'done',
      phase: 'done',
      done: total,
      total,
      result: JSON.stringify(invites ? { ...report, invites } : report),
      finished_at: this.deps.clock.now().toISOString(),
    });
  }

  // ---- upkeep -------------------------------------------------------------------------------------

  /** Deletes the archives of exports past their time (hourly upkeep); answers how many. */
  async expire(): Promise<number> {
    const now = this.deps.clock.now().toISOString();
    const rows = await this.deps.db
      .selectFrom('transfers')
      .select(['id', 'file'])
      .where('kind', '=', 'export')
      .where('status', '=', 'done')
      .where('expires_at', '<', now)
      .execute();
    for (const row of rows) {
      if (row.file) fs.rmSync(row.file, { force: true });
      await this.update(Number(row.id), { status: 'expired', file: null });
    }
    return rows.length;
  }
}
