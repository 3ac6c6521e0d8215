// Exports and imports through API v2 (issue 39): POST /exports and POST /imports start one as a
// background job (202, Location: its transfer), GET /transfers/{id} follows its progress and result,
// GET /exports/{id}/download streams the finished archive. The domain (porting/transfers.ts) decides
// who may: a website's export its managers, the installation's and every import the administrators.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { UnsupportedFileError } from '../../domain/errors.js';
import { startExportInput } from '../../domain/porting/transfers.js';
import type { Transfer } from '../../domain/porting/transfers.js';
import type { FaceServices } from '../../services.js';
import { actorOf } from './auth.js';
import { idOf, pathId, listOf } from './conventions.js';
import type { V2Router } from './router.js';
import { problemSchema } from './schemas.js';

const id = pathId('An id.');

const transferSchema = z
  .object({
    id: z.int(),
    kind: z.enum(['export', 'import']),
    status: z
      .enum(['queued', 'running', 'done', 'failed', 'expired'])
      .describe('`expired`: an export whose archive was deleted (24 hours after it was done).'),
    website_id: z
      .int()
      .nullable()
      .describe('Null: the whole installation (or, importing, the archive\u2019s own).'),
    user_id: z.int().nullable().describe('Who started it.'),
    job_id: z.int().nullable().describe('Its job on the queue (GET /jobs).'),
    with_secrets: z.boolean().optional(),
    dry_run: z.boolean().optional(),
    no_media: z.boolean().optional(),
    invite_authors: z.boolean().optional(),
    format: z
      .enum(['folio', 'wordpress', 'ghost'])
      .optional()
      .describe('An import\u2019s, recognized by content.'),
    file_name: z.string().optional(),
    progress: z.object({
      phase: z.string().nullable().describe('What it is at: a kind of record (`posts`, …), `media`, `done`.'),
      done: z.int(),
      total: z.int(),
    }),
    bytes: z
      .int()
      .nullable()
      .describe('The archive\u2019s size (a done export) or the uploaded file\u2019s.'),
    result: z
      .unknown()
      .describe(
        'A done export: its summary (counts per kind, media files and bytes, missing media). A done import: ' +
          'its report (format, dry_run, created and merged counts per kind, renamed slugs, skipped records ' +
          'with reasons, media files, websites written to, accounts made without a password; with ' +
          '`invite_authors`, `invites`: how many were invited and which could not be).',
      ),
    error: z.string().nullable().describe('Why it failed: nothing was imported.'),
    download_url: z.string().nullable().describe('A done export\u2019s archive.'),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
    expires_at: z.string().nullable().describe('When a done export\u2019s archive is deleted.'),
  })
  .meta({ id: 'Transfer' });

export function transferJson(transfer: Transfer) {
  return {
    id: transfer.id,
    kind: transfer.kind,
    status: transfer.status,
    website_id: transfer.websiteId,
    user_id: transfer.userId,
    job_id: transfer.jobId,
    ...(transfer.kind === 'export'
      ? { with_secrets: transfer.options.withSecrets === true }
      : {
          dry_run: transfer.options.dryRun === true,
          no_media: transfer.options.noMedia === true,
          invite_authors: transfer.options.inviteAuthors === true,
          format: transfer.options.format,
        }),
    ...(transfer.options.fileName ? { file_name: transfer.options.fileName } : {}),
    progress: { phase: transfer.phase, done: transfer.done, total: transfer.total },
    bytes: transfer.bytes,
    result: transfer.result,
    error: transfer.error,
    download_url:
      transfer.kind === 'export' && transfer.status === 'done'
        ? `/api/v2/exports/${transfer.id}/download`
        : null,
    created_at: transfer.createdAt,
    updated_at: transfer.updatedAt,
    finished_at: transfer.finishedAt,
    expires_at: transfer.expiresAt,
  };
}

const importQuery = z
  .object({
    website_id: z
      .string()
      .regex(/^\d{1,10}$/)
      .optional()
      .describe('Into this website; absent: a Folio archive\u2019s own websites (a Ghost export needs one).'),
    dry_run: z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .describe('Report what would happen, write nothing.'),
    no_media: z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .describe('A WordPress export: leave its images at their old URLs instead of fetching them.'),
    invite_authors: z
      .enum(['true', 'false', '1', '0'])
      .optional()
      .describe(
        'Mail each account the import makes without a password (WordPress and Ghost authors) a week-long link to choose one.',
      ),
    file_name: z.string().max(255).optional().describe('The file\u2019s name, for people.'),
  })
  .strict();

const listQuery = z
  .object({
    kind: z.enum(['export', 'import']).optional(),
    limit: z
      .string()
      .regex(/^\d{1,3}$/)
      .optional(),
  })
  .strict();

export function registerTransferRoutes(router: V2Router, services: FaceServices): void {
  const ops = services.transfers;

  router.route({
    method: 'POST',
    url: '/exports',
    summary: 'Export a website or the installation',
    description:
      'Starts writing a Folio archive (.tar.gz, docs/export-format.md) as a background job and answers ' +
      '202 with the transfer (Location: /api/v2/transfers/{id}); follow it there, then download it from ' +
      '`download_url` (kept 24 hours). A website: its site admins, owners and administrators; the whole ' +
      'installation (`website_id` absent or null) and `with_secrets`: administrators.',
    tags: ['transfers'],
    body: startExportInput.strict(),
    response: { 202: z.object({ data: transferSchema }), 404: problemSchema },
    handler: async (request, reply) => {
      const transfer = await ops.startExport(await actorOf(services, request), request.body);
      reply.header('location', `/api/v2/transfers/${transfer.id}`);
      return reply.code(202).send({ data: transferJson(transfer) });
    },
  });

  router.route({
    method: 'POST',
    url: '/imports',
    summary: 'Import a Folio archive, a WordPress export (WXR) or a Ghost export',
    description:
      'The file is the body, as is (`Content-Type: application/octet-stream`); its format is recognized ' +
      'by content (422 with the reason when it is none of them) and its size bounded by the setting ' +
      '`import_max_mb` (default 512; 413 beyond). Starts the import as a background job and answers 202 ' +
      'with the transfer (Location: /api/v2/transfers/{id}). `dry_run=true` reports what would happen ' +
      'and writes nothing: run it first, then import for real. Administrators.',
    tags: ['transfers'],
    querystring: importQuery,
    rawBody: {
      contentType: 'application/octet-stream',
      description: 'The file: a Folio archive (.tar.gz), a WordPress WXR file or a Ghost JSON export.',
    },
    response: {
      202: z.object({ data: transferSchema }),
      404: problemSchema,
      413: problemSchema,
      415: problemSchema,
    },
    handler: async (request, reply) => {
      const query = importQuery.parse(request.query);
      const actor = await actorOf(services, request);
      const body = (request.body as { upload?: unknown } | undefined)?.upload;
      if (!(body instanceof Readable)) {
        throw new UnsupportedFileError(
          'file',
          'Send the file as the body, with Content-Type: application/octet-stream.',
        );
      }
      const length = Number(request.headers['content-length']);
      const upload = await ops.receiveUpload(actor, body, Number.isFinite(length) ? length : undefined);
      const transfer = await ops.startImport(actor, upload, {
        website_id: query.website_id === undefined ? null : Number(query.website_id),
        dry_run: query.dry_run === 'true' || query.dry_run === '1',
        no_media: query.no_media === 'true' || query.no_media === '1',
        invite_authors: query.invite_authors === 'true' || query.invite_authors === '1',
        ...(query.file_name === undefined ? {} : { file_name: query.file_name }),
      });
      reply.header('location', `/api/v2/transfers/${transfer.id}`);
      return reply.code(202).send({ data: transferJson(transfer) });
    },
  });

  router.route({
    method: 'GET',
    url: '/transfers',
    summary: 'Recent exports and imports',
    description:
      'Newest first (at most 200): administrators see all, site admins their websites\u2019 exports.',
    tags: ['transfers'],
    querystring: listQuery,
    response: { 200: listOf(transferSchema) },
    handler: async (request) => {
      const query = listQuery.parse(request.query);
      const list = await ops.list(await actorOf(services, request), {
        ...(query.kind ? { kind: query.kind } : {}),
        ...(query.limit ? { limit: Number(query.limit) } : {}),
      });
      return { data: list.map(transferJson) };
    },
  });

  router.route({
    method: 'GET',
    url: '/transfers/:id',
    summary: 'An export or import: status, progress, result',
    tags: ['transfers'],
    params: z.object({ id }),
    response: { 200: z.object({ data: transferSchema }), 404: problemSchema },
    handler: async (request) => {
      return { data: transferJson(await ops.find(await actorOf(services, request), idOf(request))) };
    },
  });

  router.route({
    method: 'GET',
    url: '/exports/:id/download',
    summary: 'Download an export\u2019s archive',
    description:
      'The .tar.gz of a done export, as an attachment: for those who may export what it holds. 409 while ' +
      'it is still running; 404 once expired.',
    tags: ['transfers'],
    params: z.object({ id }),
    produces: ['application/gzip'],
    response: {
      200: z.string().describe('The archive (application/gzip).'),
      404: problemSchema,
      409: problemSchema,
    },
    handler: async (request, reply) => {
      const found = await ops.download(await actorOf(services, request), idOf(request));
      const size = fs.statSync(found.file).size;
      return reply
        .header('content-type', 'application/gzip')
        .header('content-length', size)
        .header('cache-control', 'private, no-store')
        .header('content-disposition', `attachment; filename="${found.fileName.replace(/[^\w.-]+/g, '-')}"`)
        .send(fs.createReadStream(found.file));
    },
  });
}
