// `folio import` of a Folio archive (issue 39 #2): a dry run writes nothing, an import into an existing
// website renames taken slugs and reuses users and tags, and bad archives (cut short, a newer version,
// two users with one email, a record the database refuses half way) leave nothing behind.
import { faceServices } from '../../src/services.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../src/cli.js';
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import { installIfNeeded } from '../../src/setup/install.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { jsonl, manifestOf, summaryOf, writeArchive } from '../support/archive.js';

const T = '2026-11-01T10:00:00.000Z';
const user = (id: number, email: string) => ({
  id,
  name: `U${id}`,
  email,
  username: null,
  is_admin: false,
  is_active: true,
  created_at: T,
  updated_at: T,
  locale: null,
});

describe('folio import (Folio archive)', () => {
  let ctx: TestContext;
  let dir: string;
  let websiteId: number;
  let full: string;

  const counts = async () => {
    const db = ctx.services.database.db;
    const n = async (table: 'posts' | 'users' | 'websites' | 'tags' | 'domains') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      posts: await n('posts'),
      users: await n('users'),
      websites: await n('websites'),
      tags: await n('tags'),
      domains: await n('domains'),
    };
  };

  before(async () => {
    ctx = await createTestContext();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-import-'));
    const installation = await installIfNeeded(faceServices(ctx.services));
    websiteId = installation!.websiteId;
    full = path.join(dir, 'site.tar.gz');
    await ctx.services.exporter.export(
      INSTALLATION_OPERATOR,
      { websiteId, withSecrets: false },
      fs.createWriteStream(full),
    );
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await ctx.close();
  });

  it('a dry run reports what it would do and writes nothing', async () => {
    const before = await counts();
    const report = await ctx.services.folioImporter.import(INSTALLATION_OPERATOR, full, {
      websiteId,
      dryRun: true,
    });
    assert.equal(report.dry_run, true);
    assert.equal(report.created.posts, 3);
    assert.ok(
      report.renamed.some(
        (r) => r.kind === 'posts' && r.from === 'welcome-to-folio' && r.to === 'welcome-to-folio-2',
      ),
    );
    assert.equal(report.merged.users, 1, 'the admin is the same person (same email)');
    assert.deepEqual(await counts(), before);
  });

  it('into an existing website: taken slugs renamed and reported, users and tags reused', async () => {
    const before = await counts();
    const report = await ctx.services.folioImporter.import(INSTALLATION_OPERATOR, full, {
      websiteId,
      dryRun: false,
    });
    const after = await counts();
    assert.equal(after.posts, before.posts + 3);
    assert.equal(after.users, before.users, 'no second admin');
    assert.equal(after.tags, before.tags, 'tags merged by type and slug');
    assert.equal(after.websites, before.websites);
    assert.deepEqual(report.websites, [websiteId]);
    const db = ctx.services.database.db;
    const copy = await db
      .selectFrom('posts')
      .select(['id', 'slug'])
      .where('slug', '=', 'welcome-to-folio-2')
      .executeTakeFirst();
    assert.ok(copy, 'renamed copy is there');
    const bound = await db
      .selectFrom('website_bindings')
      .select('website_id')
      .where('model_type', '=', 'post')
      .where('model_id', '=', copy.id)
      .execute();
    assert.deepEqual(
      bound.map((b) => b.website_id),
      [websiteId],
    );
    const tagged = await db
      .selectFrom('taggables')
      .select('tag_id')
      .where('taggable_type', '=', 'post')
      .where('taggable_id', '=', copy.id)
      .execute();
    assert.ok(tagged.length >= 1, 'tags of the copy point at the existing tags');
    const audit = await db
      .selectFrom('audit_log')
      .select(['action'])
      .where('action', '=', 'import.folio')
      .execute();
    assert.equal(audit.length, 1, 'one audit row sums up the import');
  });

  it('an archive cut short is refused and nothing is written', async () => {
    const cut = path.join(dir, 'cut.tar.gz');
    fs.writeFileSync(cut, fs.readFileSync(full).subarray(0, Math.floor(fs.statSync(full).size * 0.6)));
    const before = await counts();
    await assert.rejects(
      ctx.services.folioImporter.import(INSTALLATION_OPERATOR, cut, { websiteId, dryRun: false }),
      /cut short|damaged/,
    );
    assert.deepEqual(await counts(), before);
  });

  it('an archive without its summary (cut at an entry boundary) is refused', async () => {
    const file = path.join(dir, 'nosummary.tar.gz');
    await writeArchive(file, [
      { name: 'manifest.json', body: manifestOf() },
      { name: 'records/users/000001.jsonl', body: jsonl([user(1, 'a@example.test')]) },
    ]);
    await assert.rejects(
      ctx.services.folioImporter.import(INSTALLATION_OPERATOR, file, { websiteId: null, dryRun: false }),
      /summary\.json is missing/,
    );
  });

  it('an archive of a newer format version is refused, saying to update Folio', async () => {
    const file = path.join(dir, 'newer.tar.gz');
    await writeArchive(file, [
      { name: 'manifest.json', body: manifestOf(2) },
      { name: 'summary.json', body: summaryOf() },
    ]);
    await assert.rejects(
      ctx.services.folioImporter.import(INSTALLATION_OPERATOR, file, { websiteId: null, dryRun: true }),
      /format version 2, newer than this Folio reads \(1\); update Folio first/,
    );
  });

  it('two users with one email: refused before anything is written', async () => {
    const file = path.join(dir, 'twins.tar.gz');
    await writeArchive(file, [
      { name: 'manifest.json', body: manifestOf() },
      {
        name: 'records/users/000001.jsonl',
        body: jsonl([user(1, 'twin@example.test'), user(2, 'TWIN@example.test')]),
      },
      { name: 'summary.json', body: summaryOf() },
    ]);
    const before = await counts();
    await assert.rejects(
      ctx.services.folioImporter.import(INSTALLATION_OPERATOR, file, { websiteId: null, dryRun: false }),
      /two users of the archive \(1 and 2\) have the email twin@example.test/,
    );
    assert.deepEqual(await counts(), before);
  });

  it('a record that breaks the schema is named', async () => {
    const file = path.join(dir, 'bad.tar.gz');
    await writeArchive(file, [
      { name: 'manifest.json', body: manifestOf() },
      {
        name: 'records/users/000001.jsonl',
        body: jsonl([{ ...user(1, 'x@example.test'), is_admin: 'yes' }]),
      },
      { name: 'summary.json', body: summaryOf() },
    ]);
    await assert.rejects(
      ctx.services.folioImporter.import(INSTALLATION_OPERATOR, file, { websiteId: null, dryRun: true }),
      /users record 1 .*is_admin must be boolean/,
    );
  });

  it('a failure half way (the database refuses a later batch) undoes the earlier batches', async () => {
    const file = path.join(dir, 'halfway.tar.gz');
    const site = {
      id: 7,
      user_id: null,
      site_name: 'Half',
      theme: 'default',
      enabled_page_cache: false,
      enabled_data_cache: false,
      created_at: T,
      updated_at: T,
    };
    const domain = (id: number) => ({
      id,
      website_id: 7,
      domain: 'half.example.test',
      is_primary: id === 1,
      created_at: T,
      updated_at: T,
    });
    await writeArchive(file, [
      { name: 'manifest.json', body: manifestOf() },
      { name: 'records/users/000001.jsonl', body: jsonl([user(1, 'half@example.test')]) },
      { name: 'records/websites/000001.jsonl', body: jsonl([site]) },
      // The same domain twice: the plan sees it free here, the database's unique index refuses the second.
      { name: 'records/domains/000001.jsonl', body: jsonl([domain(1)]) },
      { name: 'records/domains/000002.jsonl', body: jsonl([domain(2)]) },
      { name: 'summary.json', body: summaryOf() },
    ]);
    const before = await counts();
    await assert.rejects(
      ctx.services.folioImporter.import(INSTALLATION_OPERATOR, file, { websiteId: null, dryRun: false }),
    );
    assert.deepEqual(await counts(), before, 'the user, website and first domain are gone again');
  });

  it('the CLI: a dry run prints the report; a file of no known format exits 1 with a clear line', async () => {
    const saved = { ...process.env };
    process.env.DATABASE_URL = ctx.database.url;
    process.env.LOG_LEVEL = 'silent';
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
    try {
      assert.equal(
        await main(['import', full, '--website', String(websiteId), '--dry-run'], io),
        0,
        err.join('\n'),
      );
      assert.match(out.join('\n'), /Dry run \(nothing written\): would create .*posts/);
      assert.match(out.join('\n'), /Renamed posts: welcome-to-folio -> welcome-to-folio-3/);
      const junk = path.join(dir, 'junk.txt');
      fs.writeFileSync(junk, 'hello');
      assert.equal(await main(['import', junk], io), 1);
      assert.match(err.join('\n'), /nothing was imported: .*neither a Folio archive/);
      assert.equal(await main(['import'], io), 2);
    } finally {
      process.env = saved;
    }
  });
});
