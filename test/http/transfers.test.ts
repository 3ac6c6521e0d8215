// Exports and imports through API v2 (issue 39): started as background jobs (202 + Location), followed
// at GET /transfers/{id} until done, an export downloaded as a .tar.gz that holds the website's posts,
// a WordPress WXR file imported after a dry run, refusals (403 for an author, 404 for an unknown id,
// 422 for a file of no known format, 413 past the size limit) and a broken file that fails with a
// clear message, never a 500.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readArchive } from '../../src/domain/porting/archive-reader.js';
import { IMPORT_MAX_MB_SETTING } from '../../src/domain/porting/transfers.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import { RecordingMailer } from '../support/mail.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const WXR = path.resolve('test/fixtures/wordpress/wxr-1.2.xml');

interface TransferJson {
  id: number;
  kind: string;
  status: string;
  website_id: number | null;
  format?: string;
  dry_run?: boolean;
  progress: { phase: string | null; done: number; total: number };
  bytes: number | null;
  result: Record<string, unknown> | null;
  error: string | null;
  download_url: string | null;
}

describe('exports and imports through API v2 (transfers)', () => {
  let ctx: TestContext;
  let dir: string;
  let site: number;
  let target: number;
  let admin: TestUser;
  let siteAdmin: TestUser;
  let author: TestUser;

  before(async () => {
    ctx = await createTestContext();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-transfers-'));
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Club', domain: 'club.test' });
    target = await websiteWrites(ctx.services).create({ siteName: 'Garden', domain: 'garden.test' });
    admin = await ctx.createUser({ admin: true });
    siteAdmin = await ctx.createUser();
    author = await ctx.createUser();
    await ctx.services.memberships.grant(siteAdmin.id, site, 'site_admin');
    await ctx.services.memberships.grant(author.id, site, 'author');
    for (const title of ['Exported one', 'Exported two']) {
      const made = await call(author, 'POST', '/posts', { title, content: '<p>Hi</p>', status: 'published' });
      assert.equal(made.statusCode, 201, made.body);
    }
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await ctx.close();
  });

  function call(as: TestUser, method: 'GET' | 'POST', url: string, payload?: unknown) {
    return ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host: 'club.test', authorization: `Bearer ${as.token}` },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
  }

  function upload(as: TestUser, query: string, body: Buffer, headers: Record<string, string> = {}) {
    return ctx.request({
      method: 'POST',
      url: `/api/v2/imports?${query}`,
      headers: {
        host: 'club.test',
        authorization: `Bearer ${as.token}`,
        'content-type': 'application/octet-stream',
        ...headers,
      },
      payload: body,
    });
  }

  /** Runs the queue's due jobs (the transfer's) and answers the transfer as the API shows it. */
  async function finish(as: TestUser, id: number): Promise<TransferJson> {
    await ctx.services.runner.settle();
    for (let round = 0; round < 20; round++) {
      const shown = await call(as, 'GET', `/transfers/${id}`);
      assert.equal(shown.statusCode, 200, shown.body);
      const transfer = shown.json().data as TransferJson;
      if (transfer.status === 'done' || transfer.status === 'failed') return transfer;
      await ctx.services.jobs.runDue();
    }
    throw new Error(`transfer ${id} never finished`);
  }

  function problem(
    response: { statusCode: number; headers: Record<string, unknown>; body: string },
    status: number,
  ) {
    assert.equal(response.statusCode, status, response.body);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    return JSON.parse(response.body) as {
      status: number;
      detail?: string;
      errors?: Record<string, string[]>;
    };
  }

  it('exports a website for its site admin: 202, progress, then a download that holds its posts', async () => {
    const started = await call(siteAdmin, 'POST', '/exports', { website_id: site });
    assert.equal(started.statusCode, 202, started.body);
    const queued = started.json().data as TransferJson;
    assert.equal(started.headers.location, `/api/v2/transfers/${queued.id}`);
    assert.equal(queued.status, 'queued');
    assert.equal(queued.download_url, null);
    // Not downloadable before it is done.
    problem(await call(siteAdmin, 'GET', `/exports/${queued.id}/download`), 409);

    const done = await finish(siteAdmin, queued.id);
    assert.equal(done.status, 'done', done.error ?? '');
    assert.equal(done.progress.phase, 'done');
    assert.ok(done.progress.total > 0 && done.progress.done === done.progress.total);
    assert.ok(done.bytes! > 0);
    assert.equal((done.result as { counts: Record<string, number> }).counts.posts, 2);
    assert.equal(done.download_url, `/api/v2/exports/${queued.id}/download`);

    const download = await call(siteAdmin, 'GET', `/exports/${queued.id}/download`);
    assert.equal(download.statusCode, 200);
    assert.equal(download.headers['content-type'], 'application/gzip');
    assert.match(
      String(download.headers['content-disposition']),
      /^attachment; filename="folio-club\.test-.+\.tar\.gz"$/,
    );
    assert.equal(download.rawPayload.length, done.bytes);
    const file = path.join(dir, 'club.tar.gz');
    fs.writeFileSync(file, download.rawPayload);
    const titles: unknown[] = [];
    let scope: unknown = null;
    for await (const entry of readArchive(file, (manifest) => (scope = manifest.scope))) {
      if (entry.type === 'records' && entry.kind === 'posts')
        titles.push(...entry.records.map((r) => r.title));
      if (entry.type === 'media') entry.body.resume();
    }
    assert.deepEqual(scope, { kind: 'website', website_id: site, domain: 'club.test' });
    assert.deepEqual(titles.sort(), ['Exported one', 'Exported two']);

    // The job ran on the queue and is done; the start is in the audit log.
    const [job] = await ctx.services.database.db
      .selectFrom('jobs')
      .select(['status', 'queue'])
      .where(
        'id',
        '=',
        (await ctx.services.transfers.find({ userId: admin.id, isAdmin: true, websiteId: null }, queued.id))
          .jobId!,
      )
      .execute();
    assert.deepEqual(job, { status: 'done', queue: 'porting.transfer' });
    const audit = await ctx.services.database.db
      .selectFrom('audit_log')
      .select(['action', 'user_id'])
      .where('action', '=', 'transfer.export')
      .execute();
    assert.deepEqual(
      audit.map((row) => [row.action, Number(row.user_id)]),
      [['transfer.export', siteAdmin.id]],
    );
    // Listed for them.
    const listed = await call(siteAdmin, 'GET', '/transfers');
    assert.deepEqual(
      (listed.json().data as TransferJson[]).map((t) => t.id),
      [queued.id],
    );
  });

  it('refuses what is not the caller\u2019s: an author 403, unknown ids 404, secrets of a website 403', async () => {
    problem(await call(author, 'POST', '/exports', { website_id: site }), 403);
    problem(await call(siteAdmin, 'POST', '/exports', {}), 403);
    problem(await call(siteAdmin, 'POST', '/exports', { website_id: target }), 403);
    problem(await call(admin, 'POST', '/exports', { website_id: site, with_secrets: true }), 403);
    problem(await call(admin, 'POST', '/exports', { website_id: 999999 }), 404);
    problem(await call(admin, 'GET', '/transfers/999999'), 404);
    problem(await call(admin, 'GET', '/exports/999999/download'), 404);
    problem(await upload(author, 'dry_run=true', fs.readFileSync(WXR)), 403);
    problem(await upload(siteAdmin, 'dry_run=true', fs.readFileSync(WXR)), 403);
    // Another's export: the author sees neither it nor its archive.
    const started = await call(admin, 'POST', '/exports', { website_id: site });
    const id = (started.json().data as TransferJson).id;
    assert.equal((await finish(admin, id)).status, 'done');
    problem(await call(author, 'GET', `/transfers/${id}`), 403);
    problem(await call(author, 'GET', `/exports/${id}/download`), 403);
    // The whole installation's, with secrets, is the administrators'.
    const whole = await call(admin, 'POST', '/exports', { with_secrets: true });
    assert.equal(whole.statusCode, 202, whole.body);
    const wholeDone = await finish(admin, (whole.json().data as TransferJson).id);
    assert.equal(wholeDone.status, 'done', wholeDone.error ?? '');
    problem(await call(siteAdmin, 'GET', `/transfers/${wholeDone.id}`), 403);
  });

  it('imports a WordPress export: a dry run reports and writes nothing, then the import writes the posts', async () => {
    const wxr = fs.readFileSync(WXR);
    const dry = await upload(
      admin,
      `website_id=${target}&dry_run=true&no_media=true&file_name=garden.xml`,
      wxr,
    );
    assert.equal(dry.statusCode, 202, dry.body);
    const dryQueued = dry.json().data as TransferJson;
    assert.equal(dry.headers.location, `/api/v2/transfers/${dryQueued.id}`);
    assert.equal(dryQueued.format, 'wordpress');
    assert.equal(dryQueued.dry_run, true);
    const dryDone = await finish(admin, dryQueued.id);
    assert.equal(dryDone.status, 'done', dryDone.error ?? '');
    const dryReport = dryDone.result as {
      dry_run: boolean;
      created: Record<string, number>;
      skipped: unknown[];
    };
    assert.equal(dryReport.dry_run, true);
    assert.ok(dryReport.created.posts! >= 3, JSON.stringify(dryReport));
    const titles = ['First roses of the year', 'Planting plans', 'Roses again'];
    const db = ctx.services.database.db;
    const count = async () =>
      (await db.selectFrom('posts').select('title').where('title', 'in', titles).execute()).length;
    assert.equal(await count(), 0);

    const real = await upload(admin, `website_id=${target}&no_media=true&file_name=garden.xml`, wxr);
    assert.equal(real.statusCode, 202, real.body);
    const done = await finish(admin, (real.json().data as TransferJson).id);
    assert.equal(done.status, 'done', done.error ?? '');
    const report = done.result as { dry_run: boolean; created: Record<string, number>; websites: number[] };
    assert.equal(report.dry_run, false);
    assert.deepEqual(report.websites, [target]);
    assert.equal(report.created.posts, dryReport.created.posts);
    assert.equal(await count(), 3);
    // The uploads were deleted once imported.
    const left = fs.readdirSync(path.join(path.dirname(ctx.services.config.mediaDir), 'transfers'));
    assert.deepEqual(
      left.filter((name) => name.startsWith('upload-')),
      [],
    );
  });

  it('invite_authors: each author the import made without a password is mailed a link on the website it went into', async () => {
    const wxr = Buffer.from(
      fs.readFileSync(WXR, 'utf8').replaceAll('@old-garden.example.test', '@invited-by-api.example.test'),
    );
    const mailer = new RecordingMailer();
    const previous = ctx.services.mailer;
    ctx.services.mailer = mailer;
    try {
      const started = await upload(
        admin,
        `website_id=${target}&no_media=true&invite_authors=true&file_name=garden.xml`,
        wxr,
      );
      assert.equal(started.statusCode, 202, started.body);
      assert.equal((started.json().data as { invite_authors?: boolean }).invite_authors, true);
      const done = await finish(admin, (started.json().data as TransferJson).id);
      assert.equal(done.status, 'done', done.error ?? '');
      const report = done.result as {
        without_password: Array<{ email: string }>;
        invites: { invited: number; failed: unknown[] };
      };
      assert.deepEqual(report.without_password.map((account) => account.email).sort(), [
        'rosa@invited-by-api.example.test',
        'tom@invited-by-api.example.test',
      ]);
      assert.deepEqual(report.invites, { invited: 2, failed: [] });
      assert.deepEqual(mailer.sent.map((mail) => mail.to).sort(), [
        'rosa@invited-by-api.example.test',
        'tom@invited-by-api.example.test',
      ]);
      // The link is on the website the import went into, and its token lets the author choose a password.
      const mail = mailer.sent[0]!;
      assert.match(mail.subject, /Garden/);
      const link = /https?:\/\/garden\.test(?::\d+)?\/user\/password\/reset\/([\w-]+)/.exec(mail.text);
      assert.ok(link, mail.text);
      assert.equal(await ctx.services.accounts.resetTokenValid(link[1]!), true);
    } finally {
      ctx.services.mailer = previous;
    }
  });

  it('answers 422 with the detector\u2019s reason for a file of no known format, nothing queued', async () => {
    const before = (await ctx.services.database.db.selectFrom('transfers').select('id').execute()).length;
    const refused = problem(
      await upload(admin, 'file_name=notes.txt', Buffer.from('just some notes\n')),
      422,
    );
    assert.match(refused.errors?.file?.[0] ?? '', /neither a Folio archive.*WordPress export.*Ghost export/);
    assert.doesNotMatch(refused.errors?.file?.[0] ?? '', /upload-/);
    // Not sent as a file: 415, never a 500.
    const json = await ctx.request({
      method: 'POST',
      url: '/api/v2/imports',
      headers: { host: 'club.test', authorization: `Bearer ${admin.token}` },
      payload: { file: 'x' },
    });
    assert.match(problem(json, 415).detail ?? '', /application\/octet-stream/);
    const xml = problem(await upload(admin, '', Buffer.from('<?xml version="1.0"?><html></html>')), 422);
    assert.match(xml.errors?.file?.[0] ?? '', /not a WordPress export/);
    assert.equal(
      (await ctx.services.database.db.selectFrom('transfers').select('id').execute()).length,
      before,
    );
  });

  it('a broken file fails with a clear message (its job too), never a 500, and imports nothing', async () => {
    const truncated = fs.readFileSync(WXR).subarray(0, 2000);
    const started = await upload(admin, `website_id=${target}&no_media=true`, truncated);
    assert.equal(started.statusCode, 202, started.body);
    const failed = await finish(admin, (started.json().data as TransferJson).id);
    assert.equal(failed.status, 'failed');
    assert.ok(failed.error && failed.error.length > 10, failed.error ?? '');
    assert.equal(failed.result, null);
    const jobs = await call(admin, 'GET', '/jobs?status=failed');
    assert.equal(jobs.statusCode, 200, jobs.body);
    const job = (jobs.json().data as Array<{ id: number; last_error: string }>).find(
      (j) => j.id === (failed as unknown as { job_id: number }).job_id,
    );
    assert.ok(job, 'the job failed too');
    assert.ok(job.last_error.includes(failed.error));

    // A gzip stream that is no tar: a Folio archive by its first bytes, damaged inside.
    const gz = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x02]);
    const broken = await upload(admin, '', gz);
    assert.equal(broken.statusCode, 202, broken.body);
    const brokenDone = await finish(admin, (broken.json().data as TransferJson).id);
    assert.equal(brokenDone.status, 'failed');
    assert.ok(brokenDone.error);
  });

  it('refuses an upload past import_max_mb: 413 by its length, nothing stored', async () => {
    await ctx.services.settings.set(IMPORT_MAX_MB_SETTING, '1');
    try {
      const big = Buffer.alloc(1024 * 1024 + 10, 0x20);
      const refused = problem(await upload(admin, 'dry_run=true', big), 413);
      assert.match(refused.detail ?? '', /1 megabytes/);
      const transfers = path.join(path.dirname(ctx.services.config.mediaDir), 'transfers');
      const left = fs.existsSync(transfers) ? fs.readdirSync(transfers) : [];
      assert.deepEqual(
        left.filter((name) => name.startsWith('upload-')),
        [],
      );
    } finally {
      await ctx.services.settings.set(IMPORT_MAX_MB_SETTING, '512');
    }
  });

  it('deletes an export\u2019s archive once it expires', async () => {
    const started = await call(admin, 'POST', '/exports', { website_id: site });
    const id = (started.json().data as TransferJson).id;
    assert.equal((await finish(admin, id)).status, 'done');
    const row = await ctx.services.database.db
      .selectFrom('transfers')
      .select('file')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    assert.ok(fs.existsSync(row.file!));
    await ctx.services.database.db
      .updateTable('transfers')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', id)
      .execute();
    assert.ok((await ctx.services.transfers.expire()) >= 1);
    assert.equal(fs.existsSync(row.file!), false);
    const shown = (await call(admin, 'GET', `/transfers/${id}`)).json().data as TransferJson;
    assert.equal(shown.status, 'expired');
    problem(await call(admin, 'GET', `/exports/${id}/download`), 404);
  });
});
