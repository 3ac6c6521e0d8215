// The CLI's moving-in and safety commands (issue 39): `folio export`, `folio import`. A face like the
// others: it turns arguments into (actor, input), calls the domain (services.exporter, …) and prints
// the result, with a progress bar (cli-progress) on a terminal and a line per tenth of the way elsewhere.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type CliProgress from 'cli-progress';
import { lazyModule } from '../lib/lazy-module.js';
import { loadConfig } from '../config.js';
import type { Config } from '../config.js';
import {
  backupDatabase,
  backupKind,
  BackupUnsupportedError,
  currentSchema,
  databaseHasContent,
  restorePgDump,
  restoreSqlite,
} from '../domain/system/backup.js';
import { migrate } from '../db/database.js';
import { INSTALLATION_OPERATOR } from '../domain/policy.js';
import { detectFormat, UnknownFormatError } from '../domain/porting/detect.js';
import { ArchiveError } from '../domain/porting/archive-reader.js';
import { ImportError } from '../domain/porting/import-folio.js';
import type { ImportReport } from '../domain/porting/import-folio.js';
import { createServices, faceServices } from '../services.js';
import type { FaceServices, Services } from '../services.js';

const progressBars = lazyModule<typeof CliProgress>('cli-progress');

export type Output = { out: (line: string) => void; err: (line: string) => void };

/** The commands this module answers; cli.ts hands them over before its own argument parsing. */
export const PORTING_COMMANDS = new Set(['export', 'import', 'backup', 'restore']);

export const PORTING_USAGE = `  backup --out FILE              a consistent copy of the database while the server keeps serving:
                                 SQLite through its online backup API, PostgreSQL through pg_dump
                                 (without pg_dump: a Folio archive with secrets)
  restore FILE [--force]         put a backup back (stop the server first); refuses a database
                                 that has content without --force
  export [--website ID|DOMAIN] --out FILE [--with-secrets]
                                 write a website (or the whole installation) and its media to a
                                 Folio archive (.tar.gz; docs/export-format.md); users' password
                                 hashes and secret settings only with --with-secrets
  import FILE [--website ID|DOMAIN] [--dry-run] [--no-media] [--keep-html] [--site-url URL]
              [--invite-authors]
                                 bring in a Folio archive, a WordPress export (WXR) or a Ghost
                                 export (recognized by content); --dry-run reports what it would
                                 do. Into --website, or as the archive's own websites; --no-media
                                 leaves a WordPress site's images at their old URLs; a WordPress
                                 or Ghost site's HTML is cut to the site's allow-list unless
                                 --keep-html (a source you trust); --site-url names a Ghost site's
                                 address, so that its own images are fetched; --invite-authors
                                 mails the authors it brings a link to choose a password`;

export class PortingUsageError extends Error {}

/** Progress with a total: a cli-progress bar on a terminal, a line per tenth of the way elsewhere. */
export function progress(output: Output, label: string, total: number, tty = process.stderr.isTTY === true) {
  if (tty) {
    const bar = new (progressBars().SingleBar)(
      {
        format: `${label} [{bar}] {percentage}% {value}/{total} ETA {eta_formatted}`,
        stream: process.stderr,
      },
      progressBars().Presets.legacy,
    );
    bar.start(total, 0);
    return { update: (done: number) => bar.update(Math.min(done, total)), end: () => bar.stop() };
  }
  let shownTenth = -1;
  return {
    update: (done: number) => {
      const tenth = total === 0 ? 10 : Math.floor((Math.min(done, total) / total) * 10);
      if (tenth !== shownTenth) {
        shownTenth = tenth;
        output.err(`${label} ${String(tenth * 10).padStart(3)}% ${Math.min(done, total)}/${total}`);
      }
    },
    end: () => undefined,
  };
}

async function websiteOption(services: FaceServices, value: string | undefined): Promise<number | null> {
  if (value === undefined) return null;
  const id = /^\d{1,10}$/.test(value)
    ? (await services.websiteLookup.find(Number(value)))?.id
    : await services.websiteLookup.findIdByDomain(value);
  if (id == null) throw new PortingUsageError(`no website ${value}`);
  return id;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export async function runPortingCommand(command: string, args: string[], output: Output): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        out: { type: 'string' },
        website: { type: 'string' },
        'with-secrets': { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        'no-media': { type: 'boolean', default: false },
        'keep-html': { type: 'boolean', default: false },
        'site-url': { type: 'string' },
        'invite-authors': { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
      },
    });
    const config = loadConfig();
    if (command === 'restore')
      return await restoreCommand(config, positionals, values.force === true, output);
    const services = createServices(config);
    try {
      await migrate(services.database);
      switch (command) {
        case 'export':
          return await exportCommand(faceServices(services), values, output);
        case 'import':
          return await importCommand(faceServices(services), positionals, values, output);
        case 'backup':
          return await backupCommand(services, config, values.out, output);
        default:
          throw new PortingUsageError(`unknown command "${command}"`);
      }
    } finally {
      await services.close();
    }
  } catch (error) {
    if (error instanceof BackupUnsupportedError) {
      output.err(`folio: ${error.message}`);
      return 2;
    }
    if (
      error instanceof ArchiveError ||
      error instanceof ImportError ||
      error instanceof UnknownFormatError
    ) {
      output.err(`folio: nothing was imported: ${error.message}`);
      return 1;
    }
    const usage =
      error instanceof PortingUsageError ||
      (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS'));
    output.err(`folio: ${error instanceof Error ? error.message : String(error)}`);
    return usage ? 2 : 1;
  }
}

async function exportCommand(
  services: FaceServices,
  values: { out?: string; website?: string; 'with-secrets'?: boolean },
  output: Output,
): Promise<number> {
  if (!values.out) throw new PortingUsageError('usage: export [--website ID|DOMAIN] --out FILE');
  const file = path.resolve(values.out);
  if (fs.existsSync(file)) throw new PortingUsageError(`${values.out} already exists; not overwritten`);
  const websiteId = await websiteOption(services, values.website);
  const counts = await services.exporter.count(INSTALLATION_OPERATOR, websiteId);
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const bar = progress(output, 'export', total);
  const done: Record<string, number> = {};
  const partial = `${file}.partial`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    const result = await services.exporter.export(
      INSTALLATION_OPERATOR,
      {
        websiteId,
        withSecrets: values['with-secrets'] === true,
        onProgress: ({ kind, done: n }) => {
          if (kind === 'media') return;
          done[kind] = n;
          bar.update(Object.values(done).reduce((sum, k) => sum + k, 0));
        },
      },
      fs.createWriteStream(partial),
    );
    bar.end();
    fs.renameSync(partial, file);
    const { counts: written, media_files, media_bytes, missing_media } = result.summary;
    const parts = Object.entries(written)
      .filter(([, n]) => n)
      .map(([kind, n]) => `${n} ${kind}`);
    output.out(
      `Exported to ${file} (${formatBytes(fs.statSync(file).size)}): ${parts.join(', ') || 'nothing'}.`,
    );
    output.out(`Media: ${media_files} files, ${formatBytes(media_bytes)}.`);
    if (missing_media.length) {
      output.err(
        `folio: ${missing_media.length} media file(s) named by the library were missing from the storage:`,
      );
      for (const missing of missing_media.slice(0, 20)) output.err(`  ${missing}`);
    }
    return 0;
  } catch (error) {
    bar.end();
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

/** The report of an import (or dry run), for people: counts first, then what was renamed or left out. */
function printReport(report: ImportReport, output: Output): void {
  const list = (bucket: Record<string, number>) =>
    Object.entries(bucket)
      .filter(([, n]) => n)
      .map(([kind, n]) => `${n} ${kind}`)
      .join(', ') || 'nothing';
  output.out(
    `${report.dry_run ? 'Dry run (nothing written): would create' : 'Imported'} from a ${report.format} export: ${list(report.created)}; ${report.media_files} media files.`,
  );
  if (Object.keys(report.merged).length) output.out(`Already here, reused: ${list(report.merged)}.`);
  for (const rename of report.renamed.slice(0, 50))
    output.out(`Renamed ${rename.kind}: ${rename.from} -> ${rename.to}`);
  if (report.renamed.length > 50) output.out(`… and ${report.renamed.length - 50} more renamed`);
  for (const skip of report.skipped.slice(0, 50))
    output.out(`Skipped ${skip.kind} ${String(skip.id)}: ${skip.reason}`);
  if (report.skipped.length > 50) output.out(`… and ${report.skipped.length - 50} more skipped`);
  if (!report.dry_run && report.websites.length)
    output.out(`Websites written to: ${report.websites.join(', ')}.`);
}

async function importCommand(
  services: FaceServices,
  positionals: string[],
  values: {
    website?: string;
    'dry-run'?: boolean;
    'no-media'?: boolean;
    'keep-html'?: boolean;
    'site-url'?: string;
    'invite-authors'?: boolean;
  },
  output: Output,
): Promise<number> {
  if (positionals.length !== 1)
    throw new PortingUsageError('usage: import FILE [--website ID|DOMAIN] [--dry-run]');
  const file = path.resolve(positionals[0]!);
  if (!fs.existsSync(file) || !fs.statSync(file).isFile())
    throw new PortingUsageError(`no file ${positionals[0]}`);
  const websiteId = await websiteOption(services, values.website);
  const format = detectFormat(file);
  const dryRun = values['dry-run'] === true;
  let bar: ReturnType<typeof progress> | null = null;
  const onProgress = (done: number, total: number) => {
    bar ??= progress(output, 'import', total);
    bar.update(done);
  };
  let report: ImportReport;
  try {
    const options = { websiteId, dryRun, onProgress };
    // WordPress and Ghost posts carry HTML and media of their own.
    const contentOptions = { noMedia: values['no-media'] === true, keepHtml: values['keep-html'] === true };
    switch (format) {
      case 'folio':
        report = await services.folioImporter.import(INSTALLATION_OPERATOR, file, options);
        break;
      case 'wordpress':
        report = await services.wordpressImporter.import(INSTALLATION_OPERATOR, file, {
          ...options,
          ...contentOptions,
        });
        break;
      case 'ghost':
        report = await services.ghostImporter.import(INSTALLATION_OPERATOR, file, {
          ...options,
          ...contentOptions,
          siteUrl: values['site-url'] ?? null,
        });
        break;
    }
  } finally {
    (bar as ReturnType<typeof progress> | null)?.end();
  }
  printReport(report, output);
  if (!report.dry_run && report.without_password.length > 0) {
    if (values['invite-authors'] === true) {
      const invites = await services.authorInviter.invite(INSTALLATION_OPERATOR, report);
      for (const failed of invites.failed) output.err(`folio: ${failed.email} not invited: ${failed.reason}`);
      output.out(
        `Invited ${invites.invited} of ${report.without_password.length} authors to choose a password.`,
      );
    } else {
      output.out(
        `${report.without_password.length} accounts have no password yet (${report.without_password
          .slice(0, 5)
          .map((account) => account.email)
          .join(', ')}${report.without_password.length > 5 ? ', …' : ''}): import with --invite-authors, ` +
          'or send each a reset link from the admin panel (People).',
      );
    }
  }
  return 0;
}

/**
 * A copy of the database itself (not an operation on content): like migrate, it is the composition
 * root's, and holds the database handle.
 */
async function backupCommand(services: Services, config: Config, out: string | undefined, output: Output) {
  if (!out) throw new PortingUsageError('usage: backup --out FILE');
  const result = await backupDatabase(services.database, out, {
    databaseUrl: config.database.url,
    archive: async (file) => {
      await services.exporter.export(
        INSTALLATION_OPERATOR,
        { websiteId: null, withSecrets: true },
        fs.createWriteStream(file),
      );
    },
  });
  const how = { sqlite: 'SQLite online backup', pg_dump: 'pg_dump, custom format', archive: 'Folio archive' }[
    result.kind
  ];
  output.out(`Backup written to ${result.file} (${formatBytes(result.bytes)}, ${how}).`);
  if (result.kind !== 'archive') {
    output.out('Media files are not in it: copy MEDIA_DIR (or the bucket) alongside, or use folio export.');
  }
  return 0;
}

async function restoreCommand(config: Config, positionals: string[], force: boolean, output: Output) {
  if (positionals.length !== 1) throw new PortingUsageError('usage: restore FILE [--force]');
  const file = path.resolve(positionals[0]!);
  if (!fs.existsSync(file) || !fs.statSync(file).isFile())
    throw new PortingUsageError(`no file ${positionals[0]}`);
  const kind = backupKind(file);
  if (!kind)
    throw new PortingUsageError(`${positionals[0]} is not a Folio backup (SQLite, pg_dump or Folio archive)`);
  const wanted = { sqlite: 'sqlite', pg_dump: 'postgres', archive: config.database.dialect }[kind];
  if (wanted !== config.database.dialect) {
    throw new PortingUsageError(
      `${positionals[0]} is a ${kind} backup; DATABASE_URL names a ${config.database.dialect} database`,
    );
  }
  // Whether the database has content: a restore over it only with --force.
  let services = createServices(config);
  let schema = 'public';
  try {
    if (kind === 'pg_dump') schema = await currentSchema(services.database);
    await migrate(services.database);
    if (!force && (await databaseHasContent(services.database))) {
      throw new PortingUsageError(
        'the database is not empty: restoring replaces its content; add --force to do so',
      );
    }
    if (kind === 'archive') {
      const report = await services.folioImporter.import(INSTALLATION_OPERATOR, file, {
        websiteId: null,
        dryRun: false,
      });
      printReport(report, output);
      output.out(`Restored from ${file}.`);
      return 0;
    }
  } finally {
    await services.close();
  }
  if (kind === 'sqlite') {
    if (config.database.dialect !== 'sqlite' || config.database.file === ':memory:') {
      throw new PortingUsageError('a SQLite backup is restored into a SQLite database file');
    }
    await restoreSqlite(file, config.database.file);
  } else {
    await restorePgDump(file, config.database.url, schema);
  }
  // A backup of an older Folio: its schema brought up to date.
  services = createServices(config);
  try {
    const applied = await migrate(services.database);
    output.out(`Restored from ${file}${applied.length ? ` (then migrated: ${applied.join(', ')})` : ''}.`);
  } finally {
    await services.close();
  }
  return 0;
}
