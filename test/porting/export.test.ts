// `folio export` (issue 39 #1): the archive's layout, its records per scope, secrets left out unless
// asked for, the media files' bytes, and the CLI's answers to bad options.
import { faceServices } from '../../src/services.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import sharp from 'sharp';
import { main } from '../../src/cli.js';
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import { installIfNeeded } from '../../src/setup/install.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { readWhole } from '../support/archive.js';
import { websiteWrites } from '../support/website-writes.js';

describe('folio export', () => {
  let ctx: TestContext;
  let dir: string;
  let siteOne: number;
  let siteTwo: number;
  let onlyOnTwo: number;
  let onlyOnOne: number;

  before(async () => {
    ctx = await createTestContext();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-export-'));
    const installation = await installIfNeeded(faceServices(ctx.services));
    assert.ok(installation);
    siteOne = installation.websiteId;
    siteTwo = await websiteWrites(ctx.services).create({ siteName: 'Second', domain: 'two.example.test' });
    const db = ctx.services.database.db;
    onlyOnTwo = await insertPost(db, { title: 'Only on two' });
    onlyOnOne = await insertPost(db, { title: 'Only on one' });
    await ctx.services.bindings.sync(db, 'post', onlyOnTwo, [siteTwo]);
    await ctx.services.bindings.sync(db, 'post', onlyOnOne, [siteOne]);
    await ctx.services.settings.set('smtp_password', 'hunter2');
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
    await ctx.services.mediaOps.upload(
      {
        userId: (await ctx.services.users.findByEmail(installation.email))!.id,
        isAdmin: true,
        websiteId: siteOne,
      },
      { files: { filename: 'red.png', data: png, truncated: false } },
    );
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await ctx.close();
  });

  it('writes the whole installation: manifest first, every record, media files, summary last', async () => {
    const file = path.join(dir, 'all.tar.gz');
    const result = await ctx.services.exporter.export(
      INSTALLATION_OPERATOR,
      { websiteId: null, withSecrets: false },
      fs.createWriteStream(file),
    );
    const read = await readWhole(file);
    assert.equal(read.manifest.format, 'folio-export');
    assert.equal(read.manifest.version, 1);
    assert.deepEqual(read.manifest.scope, { kind: 'installation' });
    assert.deepEqual(read.summary, result.summary);
    const db = ctx.services.database.db;
    for (const table of [
      'users',
      'websites',
      'domains',
      'posts',
      'pages',
      'tags',
      'taggables',
      'menus',
      'menu_items',
      'media',
      'website_bindings',
      'translations',
    ] as const) {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(read.records[table]?.length ?? 0, Number(row.n), `${table}: every row`);
    }
    assert.ok((read.records.posts?.length ?? 0) > 2, 'sample posts exported');
    assert.ok(
      read.records.users!.every((user) => !('password_hash' in user)),
      'no password hashes',
    );
    assert.ok(!read.records.settings?.some((s) => s.key === 'smtp_password'), 'no secret settings');
    assert.ok(
      read.records.users!.every((user) => typeof user.is_admin === 'boolean'),
      'flags as booleans',
    );
    // The media files are the stored bytes, under their stored paths.
    const item = read.records.media![0]!;
    const stored = await ctx.services.media.store.read(String(item.path));
    assert.ok(stored);
    const chunks: Buffer[] = [];
    for await (const chunk of stored) chunks.push(chunk as Buffer);
    assert.deepEqual(read.media.get(String(item.path)), Buffer.concat(chunks));
    assert.equal(read.summary.media_files, read.media.size);
    assert.deepEqual(read.summary.missing_media, []);
    // Every document matches docs/folio-export.schema.json.
    const schema = JSON.parse(
      fs.readFileSync(new URL('../../docs/folio-export.schema.json', import.meta.url), 'utf8'),
    );
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema(schema);
    const check = (ref: string, value: unknown) =>
      assert.ok(ajv.validate(`${schema.$id}#/$defs/${ref}`, value), `${ref}: ${ajv.errorsText()}`);
    check('manifest', read.manifest);
    check('summary', read.summary);
    for (const [kind, list] of Object.entries(read.records)) for (const record of list) check(kind, record);
  });

  it('with secrets (the operator and administrators, of the whole installation): password hashes and secret settings', async () => {
    const file = path.join(dir, 'secrets.tar.gz');
    await ctx.services.exporter.export(
      INSTALLATION_OPERATOR,
      { websiteId: null, withSecrets: true },
      fs.createWriteStream(file),
    );
    const read = await readWhole(file);
    assert.ok(read.records.users!.every((user) => typeof user.password_hash === 'string'));
    assert.equal(read.records.settings!.find((s) => s.key === 'smtp_password')?.value, 'hunter2');
    // An administrator exports the installation's secrets (API v2's export), never one website's.
    const admin = await ctx.createUser({ admin: true });
    const adminFile = path.join(dir, 'admin-secrets.tar.gz');
    await ctx.services.exporter.export(
      { userId: admin.id, isAdmin: true, websiteId: null },
      { websiteId: null, withSecrets: true },
      fs.createWriteStream(adminFile),
    );
    const adminRead = await readWhole(adminFile);
    assert.equal(adminRead.records.settings!.find((s) => s.key === 'smtp_password')?.value, 'hunter2');
    await assert.rejects(
      ctx.services.exporter.export(
        { userId: admin.id, isAdmin: true, websiteId: null },
        { websiteId: siteOne, withSecrets: true },
        fs.createWriteStream(path.join(dir, 'no.tar.gz')),
      ),
      /only with the whole installation/,
    );
    const writer = await ctx.createUser();
    await assert.rejects(
      ctx.services.exporter.count({ userId: writer.id, isAdmin: false, websiteId: siteOne }, null),
      /administrators/,
    );
  });

  it("one website: its posts and the global ones, its domains and menus, not another website's", async () => {
    const file = path.join(dir, 'two.tar.gz');
    await ctx.services.exporter.export(
      INSTALLATION_OPERATOR,
      { websiteId: siteTwo, withSecrets: false },
      fs.createWriteStream(file),
    );
    const read = await readWhole(file);
    assert.deepEqual(read.manifest.scope, {
      kind: 'website',
      website_id: siteTwo,
      domain: 'two.example.test',
    });
    const postIds = read.records.posts!.map((post) => post.id);
    assert.ok(postIds.includes(onlyOnTwo));
    assert.ok(!postIds.includes(onlyOnOne));
    assert.deepEqual(
      read.records.websites!.map((w) => w.id),
      [siteTwo],
    );
    assert.ok(read.records.domains!.every((d) => d.website_id === siteTwo));
    assert.equal(read.records.settings, undefined, 'installation settings stay out of a website export');
    assert.ok(read.records.website_bindings!.every((b) => b.website_id === siteTwo));
    assert.equal(read.media.size, 0, "site one's upload is bound to site one");
  });

  it('streams in chunks of at most 500 records', async () => {
    const db = ctx.services.database.db;
    for (let i = 0; i < 520; i += 1) await insertPost(db, { title: `Bulk ${i}`, slug: `bulk-${i}` });
    const file = path.join(dir, 'bulk.tar.gz');
    await ctx.services.exporter.export(
      INSTALLATION_OPERATOR,
      { websiteId: null, withSecrets: false },
      fs.createWriteStream(file),
    );
    const read = await readWhole(file);
    assert.equal(read.names.filter((name) => name === 'posts').length, 2);
    const ids = read.records.posts!.map((post) => Number(post.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
      'in id order',
    );
    assert.equal(new Set(ids).size, ids.length, 'no post twice');
  });

  it('the CLI: refuses an existing file, an unknown website, and a missing --out (exit 2)', async () => {
    const saved = { ...process.env };
    process.env.DATABASE_URL = ctx.database.url;
    process.env.LOG_LEVEL = 'silent';
    const err: string[] = [];
    const run = (args: string[]) => main(args, { out: () => undefined, err: (line) => err.push(line) });
    try {
      assert.equal(await run(['export']), 2);
      assert.match(err.join('\n'), /--out FILE/);
      const existing = path.join(dir, 'exists.tar.gz');
      fs.writeFileSync(existing, 'x');
      assert.equal(await run(['export', '--out', existing]), 2);
      assert.match(err.join('\n'), /already exists/);
      assert.equal(
        await run(['export', '--website', 'nowhere.test', '--out', path.join(dir, 'n.tar.gz')]),
        2,
      );
      assert.match(err.join('\n'), /no website nowhere.test/);
      const out: string[] = [];
      const file = path.join(dir, 'cli.tar.gz');
      const code = await main(['export', '--website', 'two.example.test', '--out', file], {
        out: (line) => out.push(line),
        err: (line) => err.push(line),
      });
      assert.equal(code, 0, err.join('\n'));
      assert.match(out.join('\n'), /Exported to .*cli\.tar\.gz/);
      assert.equal((await readWhole(file)).records.websites![0]!.id, siteTwo);
      assert.equal(fs.existsSync(`${file}.partial`), false);
    } finally {
      process.env = saved;
    }
  });
});
