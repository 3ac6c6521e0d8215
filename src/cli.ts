// The `folio` command line. Every command reads the configuration from the environment, and exits
// non-zero with one clear line on stderr when something is wrong.
import { INSTALLATION_OPERATOR } from './domain/policy.js';
import { parseArgs } from 'node:util';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, redact } from './config.js';
import type { Config } from './config.js';
import { checkpointOffTheLoop } from './db/checkpointer.js';
import { analyzeDatabase, migrate } from './db/database.js';
import { InputError, NotFoundError, ValidationError } from './domain/errors.js';
import { MAX_MODERATION_BATCH, MODERATION_STATUSES } from './domain/community/comment-moderation.js';
import { AUDIT_RETENTION_SETTING, DEFAULT_AUDIT_RETENTION_DAYS } from './domain/system/audit.js';
import { installIfNeeded } from './setup/install.js';
import { PostScheduler } from './domain/posts/scheduler.js';
import { QueryCounter } from './http/query-counter.js';
import { createServices, faceServices } from './services.js';
import { createStore, parseStorageUrl, StorageUrlError } from './storage/config.js';
import type { StorageConfig } from './storage/config.js';
import type { User } from './domain/people/users.js';
import type { FaceServices, Services } from './services.js';
import { POST_REVISIONS_USAGE, postRevisionsCommand } from './cli/revisions.js';
import { WEBHOOK_USAGE, webhookCommand } from './cli/webhooks.js';
import { PORTING_COMMANDS, PORTING_USAGE, runPortingCommand } from './cli/porting.js';

const USAGE = `Usage: folio <command> [options]

Commands:
  start                          migrate, install on first start (prints the admin token), serve
  serve                          migrate and serve
  migrate                        bring the database schema up to date
${PORTING_USAGE}
  db:analyze                     fold the post counters and refresh the query planner's statistics (after a bulk import)
  search:reindex                 rebuild the full-text search index of posts (with a progress bar)
  user:create --email E --name N --password P [--admin]
                                 create a user; prints {"id":…,"api_token":"…"}
  user:token --email E           issue a new API token (replaces the old one); printed once
  user:disable --email E         disable a user (their token stops working)
  user:enable --email E          enable a user again
  user:role --email E --website ID|DOMAIN --role R
                                 give a role on a website (site_admin, editor, author, contributor,
                                 reader; none removes it)
  user:roles --email E           print a user's roles per website (JSON)
  key:create --email E --name N [--website ID|DOMAIN]… [--read-only] [--content] [--expires 30d|DATE]
                                 create a named API key; prints it once (JSON)
  key:list --email E             print a user's API keys, without their secrets (JSON lines)
  key:revoke --email E --id ID   revoke one of a user's API keys
  job:list [--status queued|running|done|failed]
                                 print background jobs, newest first (JSON lines)
  job:retry --id ID              put a failed job back in the queue
${WEBHOOK_USAGE}
  comment:list [--website ID|DOMAIN] [--status pending|approved|spam]
                                 print comments, newest first (JSON lines)
  comment:approve ID…, comment:spam ID…, comment:delete ID…
                                 moderate comments (a deleted comment takes its replies with it)
  audit:list [--website ID|DOMAIN] [--email E] [--since 7d|DATE]
                                 print audit log entries, newest first (JSON lines)
  post:pending --website ID|DOMAIN
                                 print the posts waiting for review on a website (JSON lines)
  post:approve ID [--at DATE]    approve a post waiting for review: published now, or scheduled
  post:return ID --note TEXT     send a post waiting for review back to its writer, with a note
${POST_REVISIONS_USAGE}
  media:prune [--apply] [--older-than 1h]
                                 list stored media files that no media item names (a dry run);
                                 --apply deletes them. Files younger than --older-than (default 1h,
                                 0 for none) are kept: an upload writes its files before its row
  media:migrate --to URL         copy the media library to another storage (a STORAGE_URL:
                                 s3://bucket/prefix?…, local:./dir), with progress, and move the
                                 items to it; then set STORAGE_URL to URL and restart
  setting:set KEY VALUE          set a system setting
  setting:get KEY                print a system setting
  link:create --name N --url U [--description D] [--icon I] [--category C]… [--website-id ID]…
                                 add a link to the link directory; prints {"id":…,"slug":"…"}
  help                           this text

Configuration comes from the environment; see docs/configuration.md.`;

class UsageError extends Error {}

/** `--older-than`: a duration (`90s`, `30m`, `1h`, `7d`) or 0. */
function ageOption(value: string): number {
  if (value === '0') return 0;
  const match = /^(\d{1,6})([smhd])$/.exec(value);
  if (!match) throw new UsageError(`--older-than must be a duration (30m, 1h, 7d) or 0, got "${value}"`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * Progress of a long command: a bar redrawn in place on a terminal; elsewhere (a log, a test) a line
 * at every tenth of the way.
 */
function progressBar(output: Output): (done: number, total: number, bytes: number) => void {
  const tty = output === consoleOutput && process.stderr.isTTY === true;
  let shownTenth = -1;
  return (done, total, bytes) => {
    const text = `${done}/${total} files, ${formatBytes(bytes)} copied`;
    if (tty) {
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`);
      if (done === total) process.stderr.write('\n');
      return;
    }
    const tenth = total === 0 ? 10 : Math.floor((done / total) * 10);
    if (tenth !== shownTenth) {
      shownTenth = tenth;
      output.out(`[${String(tenth * 10).padStart(3)}%] ${text}`);
    }
  };
}

/**
 * A progress bar on stderr: redrawn in place on a terminal, a line per 10% otherwise (logs, pipes).
 */
function percentProgress(output: Output) {
  const tty = process.stderr.isTTY === true && output.err === consoleOutput.err;
  let shownTenth = -1;
  return {
    update: ({ done, total }: { done: number; total: number }) => {
      const share = total === 0 ? 1 : Math.min(1, done / total);
      const text = `${String(Math.floor(share * 100)).padStart(3)}% ${done}/${total}`;
      if (tty) {
        const width = 30;
        const full = Math.round(share * width);
        process.stderr.write(`\r[${'#'.repeat(full)}${' '.repeat(width - full)}] ${text}`);
        return;
      }
      const tenth = Math.floor(share * 10);
      if (tenth !== shownTenth) {
        shownTenth = tenth;
        output.err(text);
      }
    },
    end: () => {
      if (tty) process.stderr.write('\n');
    },
  };
}

type Output = { out: (line: string) => void; err: (line: string) => void };
const consoleOutput: Output = { out: (line) => console.log(line), err: (line) => console.error(line) };

function option(values: Record<string, string | boolean | string[] | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** The services as the CLI's commands (a face) receive them: operations and queries only. */
async function withServices<T>(config: Config, run: (services: FaceServices) => Promise<T>): Promise<T> {
  return withAllServices(config, (services) => run(faceServices(services)));
}

/** Every service, the database's included: for the commands that keep the database itself (migrate). */
async function withAllServices<T>(config: Config, run: (services: Services) => Promise<T>): Promise<T> {
  const services = createServices(config);
  try {
    await migrate(services.database);
    return await run(services);
  } finally {
    await services.close();
  }
}

/** The CLI acts as the installation's administrator (whoever may run it holds the server). */
const CLI_ACTOR = INSTALLATION_OPERATOR;

async function requireUser(services: FaceServices, email: string) {
  const user = await services.userOps.findByEmail(CLI_ACTOR, email);
  if (!user) throw new UsageError(`no user with email ${email}`);
  return user;
}

/** The audit log's retention setting, in days (a positive integer; the default otherwise). */
function retentionDays(value: string | undefined): number {
  const days = Number(value);
  return Number.isInteger(days) && days > 0 ? days : DEFAULT_AUDIT_RETENTION_DAYS;
}

/** The one value of an option that may be repeated elsewhere. */
function single(values: string[] | undefined, name: string): string {
  if (!values || values.length === 0) throw new UsageError(`--${name} is required`);
  if (values.length > 1) throw new UsageError(`--${name} may be given once here`);
  return values[0]!;
}

/** `--expires`: a duration from now (`12h`, `30d`) or an ISO date. */
function expiryOption(value: string): Date {
  const ahead = /^(\d{1,6})([hd])$/.exec(value);
  if (ahead) return new Date(Date.now() + Number(ahead[1]) * (ahead[2] === 'h' ? 3_600_000 : 86_400_000));
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new UsageError(`--expires must be a duration (30d, 12h) or a date (2027-01-31), got "${value}"`);
  }
  return date;
}

/** `--since`: an ISO date or a duration back from now (`30m`, `12h`, `7d`). */
function sinceOption(value: string): Date {
  const ago = /^(\d{1,6})([mhd])$/.exec(value);
  if (ago) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 'm' | 'h' | 'd'];
    return new Date(Date.now() - Number(ago[1]) * unit);
  }
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw new UsageError(`--since must be a date (2026-01-31) or a duration (12h, 7d), got "${value}"`);
  }
  return date;
}

/** A website given by id or by one of its domains. */
async function websiteOption(services: FaceServices, value: string): Promise<number> {
  const id = /^\d{1,10}$/.test(value)
    ? (await services.websiteLookup.find(Number(value)))?.id
    : await services.websiteLookup.findIdByDomain(value);
  if (id == null) throw new UsageError(`no website ${value}`);
  return id;
}

async function serve(config: Config, install: boolean, output: Output): Promise<number> {
  const queryCounter = config.queryCounter ? new QueryCounter() : undefined;
  const services = createServices(config, { onQuery: queryCounter?.onQuery });
  try {
    await migrate(services.database);
    await analyzeDatabase(services.database, { atStart: true });
    // Once per APP_URL: media addresses older versions stored absolute become site-relative.
    const relativized = await services.mediaMaintenance.relativizeStoredUrls(config.appUrl);
    const rewritten = Object.values(relativized.rows).reduce((sum, n) => sum + n, 0);
    if (rewritten > 0) output.out(`Media addresses made site-relative in ${rewritten} rows.`);
    if (install) {
      const installation = await installIfNeeded(faceServices(services));
      if (installation) {
        output.out('Folio is installed. Keep these credentials: they are shown only once.');
        output.out(`  website:   http://localhost:${config.port}/ (domain localhost)`);
        output.out(`  admin:     ${installation.email}`);
        output.out(`  password:  ${installation.password}`);
        output.out(`  api_token: ${installation.apiToken}`);
      }
    }
  } catch (error) {
    await services.close();
    throw error;
  }

  const app = await buildApp(services, { queryCounter });
  // A server's SQLite checkpoints run in a thread of their own (see db/checkpointer.ts).
  const checkpoints =
    config.database.dialect === 'sqlite' && config.database.file !== ':memory:' && services.database.sqlite
      ? checkpointOffTheLoop(services.database.sqlite, config.database.file, {
          warn: (message) => app.log.warn(message),
        })
      : null;
  app.addHook('onClose', async () => checkpoints?.stop());
  const scheduler = new PostScheduler(services.posts, {
    announce: { runner: services.runner, audit: services.audit, changes: services.changes },
    onPublished: (ids) => app.log.info({ ids }, `published ${ids.length} scheduled post(s)`),
    onError: (error) => app.log.error({ err: error }, 'scheduled publishing failed'),
  });
  app.addHook('onClose', () => scheduler.stop());
  // The job queue (src/jobs/queue.ts): every node works due jobs; a dead node's jobs are taken over.
  services.jobs.start(1000);
  app.addHook('onClose', () => services.jobs.stop());
  // What a stopped node committed but did not announce is announced by the next drain (run.ts).
  const drainOutbox = () =>
    services.runner.drain().catch((error: unknown) => app.log.error({ err: error }, 'outbox drain failed'));
  const outboxTimer = setInterval(() => void drainOutbox(), 15_000).unref();
  app.addHook('onClose', () => clearInterval(outboxTimer));
  // The recent search indexes (PostgreSQL) are looked at once at start and then every hour, by one
  // node (a job per hour); building them takes minutes at most, searches and writes going on.
  const scheduleRecentSearch = () =>
    services.searchIndex
      .scheduleRecent()
      .catch((error: unknown) => app.log.error({ err: error }, 'scheduling the search upkeep failed'));
  void scheduleRecentSearch();
  // Hourly upkeep on every node: the audit log keeps `audit_retention_days` days (a DELETE is
  // idempotent), idempotency keys 24 hours, and the planner's statistics are refreshed.
  const pruneAudit = () =>
    services.settings
      .get(AUDIT_RETENTION_SETTING)
      .then((days) => services.audit.prune(retentionDays(days)))
      .then(() => services.idempotency.prune())
      .then(() => services.webhooks.prune())
      .then(() => services.transfers.expire())
      .then(() => analyzeDatabase(services.database))
      .then(scheduleRecentSearch)
      .catch((error: unknown) => app.log.error({ err: error }, 'hourly upkeep failed'));
  const auditTimer = setInterval(() => void pruneAudit(), 3_600_000).unref();
  app.addHook('onClose', () => clearInterval(auditTimer));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal} received: finishing requests in flight, then stopping`);
    setTimeout(() => {
      app.log.error('shutdown took longer than 10s; exiting');
      process.exit(1);
    }, 10_000).unref();
    // A running update is interrupted and its lock released first: other nodes need not wait 3 minutes.
    services.updates
      .releaseAll()
      .catch((error: unknown) => app.log.error({ err: error }, 'releasing update locks failed'))
      .then(() => app.close())
      .then(() => services.close())
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  await app.listen({ host: config.host, port: config.port });
  scheduler.start();
  void drainOutbox();
  // Every start says where to go (the first start's credentials are printed above, once).
  const port = (app.server.address() as { port?: number } | null)?.port ?? config.port;
  output.out(
    `Site: http://localhost:${port}/   Admin: http://localhost:${port}/admin   API: http://localhost:${port}/api/v2/docs`,
  );
  if (!config.smtpUrl) {
    output.err(
      'folio: SMTP_URL is not set: mail (password resets, registration links) is written to the log only',
    );
  }
  return 0;
}

export async function main(argv: string[], output: Output = consoleOutput): Promise<number> {
  const [command = 'help', ...rest] = argv;
  if (PORTING_COMMANDS.has(command)) return runPortingCommand(command, rest, output);
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        email: { type: 'string' },
        name: { type: 'string' },
        password: { type: 'string' },
        admin: { type: 'boolean', default: false },
        url: { type: 'string' },
        description: { type: 'string' },
        icon: { type: 'string' },
        category: { type: 'string', multiple: true },
        'website-id': { type: 'string', multiple: true },
        website: { type: 'string', multiple: true },
        role: { type: 'string' },
        since: { type: 'string' },
        expires: { type: 'string' },
        'read-only': { type: 'boolean', default: false },
        content: { type: 'boolean', default: false },
        id: { type: 'string' },
        status: { type: 'string' },
        note: { type: 'string' },
        at: { type: 'string' },
        apply: { type: 'boolean', default: false },
        'older-than': { type: 'string' },
        to: { type: 'string' },
        out: { type: 'string' },
        page: { type: 'string' },
        'per-page': { type: 'string' },
      },
    });
    if (command === 'help' || command === '--help' || command === '-h') {
      output.out(USAGE);
      return 0;
    }
    const config = loadConfig();
    /** A command about the account `--email` names (none: a usage error). */
    const forUser = (run: (services: FaceServices, user: User) => Promise<number>) =>
      withServices(config, async (services) =>
        run(services, await requireUser(services, option(values, 'email'))),
      );

    if (command.startsWith('webhook:')) {
      return await withServices(config, async (services) => {
        const website = values.website && (await websiteOption(services, single(values.website, 'website')));
        return webhookCommand(command, {
          services,
          actor: CLI_ACTOR,
          positionals,
          websiteId: website || undefined,
          out: output.out,
          err: output.err,
          usage: (message) => new UsageError(message),
        });
      });
    }
    switch (command) {
      case 'start':
        return await serve(config, true, output);
      case 'serve':
        return await serve(config, false, output);
      case 'migrate': {
        const services = createServices(config);
        try {
          const applied = await migrate(services.database);
          if (applied.length) output.out(`Applied: ${applied.join(', ')}`);
          output.out(`Database is up to date (${redact(config.database.url)}).`);
          return 0;
        } finally {
          await services.close();
        }
      }
      case 'db:analyze':
        return await withAllServices(config, async (services) => {
          // After a bulk import: the post counters' delta rows folded too (the server does it every run
          // of its scheduler), then the statistics.
          await services.posts.compactCounts();
          await analyzeDatabase(services.database, { atStart: true });
          output.out('Statistics of the database are up to date.');
          return 0;
        });
      case 'search:reindex':
        return await withAllServices(config, async (services) => {
          const started = Date.now();
          const bar = percentProgress(output);
          const result = await services.searchIndex.rebuild(bar.update);
          bar.end();
          output.out(
            `Search index rebuilt: ${result.done} posts in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
          );
          return 0;
        });
      case 'user:create':
        return await withServices(config, async (services) => {
          const { user, token } = await services.userOps.create(CLI_ACTOR, {
            email: option(values, 'email'),
            name: option(values, 'name'),
            password: option(values, 'password'),
            admin: values.admin === true,
          });
          output.out(JSON.stringify({ id: user.id, api_token: token }));
          return 0;
        });
      case 'user:token':
        return await forUser(async (services, user) => {
          const apiToken = await services.userOps.issueToken(CLI_ACTOR, user.id);
          output.out(JSON.stringify({ id: user.id, api_token: apiToken }));
          return 0;
        });
      case 'user:disable':
      case 'user:enable':
        return await forUser(async (services, user) => {
          await services.userOps.setActive(CLI_ACTOR, user.id, command === 'user:enable');
          output.out(`User ${user.email} is ${command === 'user:enable' ? 'enabled' : 'disabled'}.`);
          return 0;
        });
      case 'user:role':
        return await forUser(async (services, user) => {
          const websiteId = await websiteOption(services, single(values.website, 'website'));
          const role = option(values, 'role');
          // The members' operations: the same rules and audit as API v2 and the admin panel.
          if (role === 'none') {
            const removed = await services.memberOps.revoke(CLI_ACTOR, websiteId, user.id);
            output.out(
              `${user.email} ${removed ? 'no longer has a role' : 'had no role'} on website #${websiteId}.`,
            );
          } else {
            await services.memberOps.grant(CLI_ACTOR, websiteId, user.id, { role });
            output.out(`${user.email} is ${role} on website #${websiteId}.`);
          }
          return 0;
        });
      case 'user:roles':
        return await forUser(async (services, user) => {
          output.out(
            JSON.stringify({
              id: user.id,
              email: user.email,
              administrator: user.isAdmin,
              roles: (await services.memberOps.rolesOf(CLI_ACTOR, user.id)).map((m) => ({
                website_id: m.websiteId,
                role: m.role,
              })),
            }),
          );
          return 0;
        });
      case 'key:create':
        return await forUser(async (services, user) => {
          const websiteIds: number[] = [];
          for (const website of values.website ?? []) {
            websiteIds.push(await websiteOption(services, website));
          }
          const expires = values.expires === undefined ? null : expiryOption(values.expires);
          const { key, secret } = await services.keyOps.create(CLI_ACTOR, user.id, {
            name: option(values, 'name'),
            website_ids: websiteIds,
            read_only: values['read-only'] === true,
            content_only: values.content === true,
            ...(expires ? { expires_at: expires.toISOString() } : {}),
          });
          output.out(
            JSON.stringify({
              id: key.id,
              name: key.name,
              key: secret,
              website_ids: key.websiteIds,
              read_only: key.readOnly,
              content_only: key.contentOnly,
              expires_at: key.expiresAt,
            }),
          );
          return 0;
        });
      case 'key:list':
        return await forUser(async (services, user) => {
          for (const key of await services.keyOps.list(CLI_ACTOR, user.id)) output.out(JSON.stringify(key));
          return 0;
        });
      case 'key:revoke':
        return await forUser(async (services, user) => {
          const id = option(values, 'id');
          if (!/^\d{1,10}$/.test(id)) throw new UsageError(`--id must be an integer, got "${id}"`);
          if (!(await services.keyOps.revoke(CLI_ACTOR, user.id, Number(id)))) {
            output.err(`folio: ${user.email} has no key #${id} in use`);
            return 1;
          }
          output.out(`Key #${id} of ${user.email} is revoked.`);
          return 0;
        });
      case 'job:list':
        return await withServices(config, async (services) => {
          const status = values.status;
          for (const job of await services.jobOps.list(CLI_ACTOR, { status, limit: 500 })) {
            output.out(JSON.stringify(job));
          }
          return 0;
        });
      case 'job:retry':
        return await withServices(config, async (services) => {
          const id = option(values, 'id');
          if (!/^\d{1,10}$/.test(id)) throw new UsageError(`--id must be an integer, got "${id}"`);
          await services.jobOps.retry(CLI_ACTOR, Number(id));
          output.out(`Job #${id} is queued again.`);
          return 0;
        });
      case 'comment:list':
        return await withServices(config, async (services) => {
          const status = values.status;
          if (status !== undefined && !(MODERATION_STATUSES as readonly string[]).includes(status)) {
            throw new UsageError(
              `--status must be one of ${MODERATION_STATUSES.join(', ')}, got "${status}"`,
            );
          }
          const websiteId =
            values.website === undefined
              ? undefined
              : await websiteOption(services, single(values.website, 'website'));
          const comments = await services.commentModeration.list({
            websiteId,
            status: status as (typeof MODERATION_STATUSES)[number] | undefined,
            limit: MAX_MODERATION_BATCH,
          });
          for (const comment of comments) output.out(JSON.stringify(comment));
          return 0;
        });
      case 'comment:approve':
      case 'comment:spam':
      case 'comment:delete': {
        const ids = positionals.map((id) => {
          if (!/^\d{1,10}$/.test(id)) throw new UsageError(`comment ids are integers, got "${id}"`);
          return Number(id);
        });
        if (ids.length === 0) throw new UsageError(`usage: ${command} ID…`);
        return await withServices(config, async (services) => {
          const action = command.slice('comment:'.length);
          const done = await services.commentModeration.moderateAll(
            CLI_ACTOR,
            ids,
            action as 'approve' | 'spam' | 'delete',
          );
          const missing = ids.filter((id) => !done.includes(id));
          output.out(
            `${action === 'delete' ? 'Deleted' : action === 'approve' ? 'Approved' : 'Marked as spam'}: ${done.length ? done.join(', ') : 'none'}`,
          );
          if (missing.length) {
            output.err(`folio: no comment ${missing.join(', ')}`);
            return 1;
          }
          return 0;
        });
      }
      case 'audit:list':
        return await withServices(config, async (services) => {
          const since = values.since === undefined ? undefined : sinceOption(values.since);
          const websiteId =
            values.website === undefined
              ? undefined
              : await websiteOption(services, single(values.website, 'website'));
          const userId =
            values.email === undefined ? undefined : (await requireUser(services, values.email)).id;
          const entries = await services.auditReads.list(CLI_ACTOR, { websiteId, userId, since, limit: 500 });
          for (const entry of entries) {
            output.out(JSON.stringify(entry));
          }
          return 0;
        });
      case 'post:pending':
        return await withServices(config, async (services) => {
          const websiteId = await websiteOption(services, single(values.website, 'website'));
          for (const post of await services.postOps.reviewQueue(CLI_ACTOR, websiteId)) {
            output.out(JSON.stringify(post));
          }
          return 0;
        });
      case 'post:approve':
      case 'post:return': {
        const [id] = positionals;
        if (!id || positionals.length !== 1) throw new UsageError(`usage: ${command} ID`);
        return await withServices(config, async (services) => {
          const post =
            command === 'post:approve'
              ? await services.postOps.approve(CLI_ACTOR, id, { published_at: values.at })
              : await services.postOps.sendBack(CLI_ACTOR, id, { note: option(values, 'note') });
          output.out(`Post #${post.id} is ${post.status}.`);
          return 0;
        });
      }
      case 'post:revisions':
        return await withServices(config, (s) =>
          postRevisionsCommand(s, CLI_ACTOR, positionals, values, output),
        );
      case 'media:prune': {
        const minAgeMs = values['older-than'] === undefined ? undefined : ageOption(values['older-than']);
        return await withServices(config, async (services) => {
          const report = await services.mediaMaintenance.prune(CLI_ACTOR, {
            apply: values.apply === true,
            minAgeMs,
          });
          for (const file of report.orphans) output.out(`${file.path}\t${file.size}`);
          const what = `${report.orphans.length} orphan file${report.orphans.length === 1 ? '' : 's'} (${formatBytes(report.bytes)}) of ${report.scanned} in ${services.mediaMaintenance.location}`;
          const recent =
            report.tooRecent > 0 ? `; ${report.tooRecent} more younger than the age asked, kept` : '';
          if (values.apply === true) {
            output.out(`Deleted ${report.deleted} of ${what}${recent}.`);
          } else {
            output.out(`Dry run: ${what}${recent}. Run again with --apply to delete them.`);
          }
          return 0;
        });
      }
      case 'media:migrate': {
        const to = option(values, 'to');
        let targetConfig: StorageConfig;
        try {
          targetConfig = parseStorageUrl(to, config.mediaDir);
        } catch (error) {
          if (error instanceof StorageUrlError) throw new UsageError(`--to: ${error.message}`);
          throw error;
        }
        const target = createStore(targetConfig, { mediaBaseUrl: config.mediaBaseUrl });
        try {
          return await withServices(config, async (services) => {
            output.out(`Copying media from ${services.mediaMaintenance.location} to ${target.location}`);
            const bar = progressBar(output);
            const report = await services.mediaMaintenance.migrate(CLI_ACTOR, target, {
              onProgress: (progress) => bar(progress.done, progress.total, progress.bytes),
            });
            for (const path of report.missing)
              output.err(`folio: missing from the source, not copied: ${path}`);
            output.out(
              `Copied ${report.copied} file${report.copied === 1 ? '' : 's'} (${formatBytes(report.bytes)}), ${report.present} already there, ${report.missing.length} missing; ${report.rows} media item${report.rows === 1 ? '' : 's'} now on ${target.location}.`,
            );
            output.out(
              `Set STORAGE_URL=${to.replace(/\?.*$/, '…')} and restart every node; the source keeps its files.`,
            );
            return report.missing.length > 0 ? 1 : 0;
          });
        } finally {
          await target.close();
        }
      }
      case 'setting:set': {
        const [key, value] = positionals;
        if (!key || value === undefined || positionals.length !== 2)
          throw new UsageError('usage: setting:set KEY VALUE');
        return await withServices(config, async (services) => {
          await services.systemOps.setSetting(CLI_ACTOR, { key, value });
          output.out(`${key}=${value}`);
          return 0;
        });
      }
      case 'setting:get': {
        const [key] = positionals;
        if (!key || positionals.length !== 1) throw new UsageError('usage: setting:get KEY');
        return await withServices(config, async (services) => {
          const value = await services.settings.get(key);
          if (value === undefined) {
            output.err(`folio: setting ${key} is not set`);
            return 1;
          }
          output.out(value);
          return 0;
        });
      }
      case 'link:create': {
        const websiteIds = (values['website-id'] ?? []).map((id) => {
          if (!/^\d{1,10}$/.test(id)) throw new UsageError(`--website-id must be an integer, got "${id}"`);
          return Number(id);
        });
        return await withServices(config, async (services) => {
          const link = await services.linkOps.create(CLI_ACTOR, {
            name: option(values, 'name'),
            url: option(values, 'url'),
            description: values.description ?? null,
            icon: values.icon ?? null,
            categories: values.category ?? [],
            website_ids: websiteIds,
          });
          output.out(JSON.stringify({ id: link.id, slug: link.slug, url: link.url }));
          return 0;
        });
      }
      default:
        throw new UsageError(`unknown command "${command}" (try: folio help)`);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof InputError) {
      output.err(`folio: ${error.message}`);
      return error instanceof UsageError ? 2 : 1;
    }
    if (error instanceof ValidationError) {
      const messages = Object.values(error.messages).flat();
      const issues = error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
      output.err(`folio: ${[...messages, ...issues].join('; ').replace(/:attribute/g, 'value')}`);
      return 1;
    }
    if (error instanceof NotFoundError) {
      output.err(`folio: ${error.message}`);
      return 1;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      output.err(`folio: ${error.message}`);
      return 2;
    }
    output.err(`folio: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
