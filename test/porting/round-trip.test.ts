// Round trip (issue 39 "Tests and measures"): a seeded installation exported from this run's database,
// imported into an empty one on the other database (SQLite -> PostgreSQL on the SQLite run,
// PostgreSQL -> SQLite on the PostgreSQL run), exported again and imported back into an empty one of
// the first kind: every record (ids aside, references followed) and every media file compared.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import sharp from 'sharp';
import { migrate } from '../../src/db/database.js';
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import { createServices, faceServices } from '../../src/services.js';
import type { Services } from '../../src/services.js';
import { installIfNeeded } from '../../src/setup/install.js';
import { createTestContext, createTestDatabase, testConfig, usingPostgres } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { readWhole } from '../support/archive.js';
import { websiteWrites } from '../support/website-writes.js';

const POSTGRES = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** An empty, migrated installation on the given dialect, with a media directory of its own. */
async function emptyInstallation(dialect: 'sqlite' | 'postgres') {
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-rt-media-'));
  let url: string;
  let pgSchema: string | undefined;
  let drop: () => Promise<void>;
  if (dialect === 'postgres') {
    pgSchema = `rt_${randomBytes(6).toString('hex')}`;
    const client = new pg.Client({ connectionString: POSTGRES });
    await client.connect();
    await client.query(`CREATE SCHEMA ${pgSchema}`);
    await client.end();
    const u = new URL(POSTGRES);
    u.searchParams.set('options', `-c search_path=${pgSchema}`);
    url = u.toString();
    const schema = pgSchema;
    drop = async () => {
      const c = new pg.Client({ connectionString: POSTGRES });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    };
  } else {
    const db = await createTestDatabase();
    url = db.url;
    drop = () => db.drop();
  }
  const services = createServices(testConfig(url, { mediaDir }), { pgSchema, warn: () => undefined });
  await migrate(services.database);
  return {
    services,
    async close() {
      await services.close();
      await drop();
      fs.rmSync(mediaDir, { recursive: true, force: true });
    },
  };
}

/** Where each kind's columns point: the kind they name (a polymorphic column names it by a type column). */
const REFS: Record<string, Record<string, string>> = {
  websites: { user_id: 'users' },
  domains: { website_id: 'websites' },
  memberships: { website_id: 'websites', user_id: 'users' },
  media: { user_id: 'users' },
  tags: { parent_id: 'tags' },
  posts: { author_id: 'users' },
  links: { post_id: 'posts' },
  pages: { author_id: 'users' },
  menus: { website_id: 'websites' },
  menu_items: {
    website_id: 'websites',
    menu_id: 'menus',
    parent_id: 'menu_items',
    page_id: 'pages',
    post_id: 'posts',
    tag_id: 'tags',
  },
  comments: { post_id: 'posts', user_id: 'users', parent_id: 'comments', website_id: 'websites' },
  revisions: { user_id: 'users' },
  website_bindings: { website_id: 'websites' },
  taggables: { tag_id: 'tags' },
};
const POLY: Record<string, [string, string]> = {
  translations: ['model_type', 'model_id'],
  revisions: ['resource_type', 'resource_id'],
  website_bindings: ['model_type', 'model_id'],
  taggables: ['taggable_type', 'taggable_id'],
};
const TYPE_KIND: Record<string, string> = {
  post: 'posts',
  page: 'pages',
  tag: 'tags',
  media: 'media',
  website: 'websites',
  menu_item: 'menu_items',
  user: 'users',
};

/** The records with every id replaced by the position of its record in its kind (ids aside). */
function normalized(records: Record<string, Array<Record<string, unknown>>>) {
  const position = new Map<string, number>();
  for (const [kind, list] of Object.entries(records)) {
    list.forEach(
      (record, index) => record.id !== undefined && position.set(`${kind}:${Number(record.id)}`, index),
    );
  }
  const ref = (kind: string, id: unknown) =>
    id == null ? null : (position.get(`${kind}:${Number(id)}`) ?? `missing ${kind}:${Number(id)}`);
  const out: Record<string, string[]> = {};
  for (const [kind, list] of Object.entries(records)) {
    out[kind] = list
      .map((record) => {
        const copy: Record<string, unknown> = { ...record };
        delete copy.id;
        for (const [column, target] of Object.entries(REFS[kind] ?? {}))
          copy[column] = ref(target, record[column]);
        const poly = POLY[kind];
        if (poly) copy[poly[1]] = ref(TYPE_KIND[String(record[poly[0]])] ?? '?', record[poly[1]]);
        if (kind === 'revisions') copy.api_key_id = null;
        return JSON.stringify(copy);
      })
      .sort();
  }
  return out;
}

describe('export -> import round trip across SQLite and PostgreSQL', () => {
  let ctx: TestContext;
  let dir: string;
  const closers: Array<() => Promise<void>> = [];

  before(async () => {
    ctx = await createTestContext();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-rt-'));
    const services = ctx.services;
    const installation = await installIfNeeded(faceServices(services));
    assert.ok(installation);
    const admin = (await services.users.findByEmail(installation.email))!;
    const writer = await ctx.createUser();
    const second = await websiteWrites(services).create({
      siteName: 'Second',
      domain: 'second.example.test',
    });
    await services.memberOps.grant(INSTALLATION_OPERATOR, second, writer.id, { role: 'author' });
    const actor = { userId: admin.id, isAdmin: true, websiteId: installation.websiteId };
    const png = await sharp({ create: { width: 12, height: 8, channels: 3, background: '#36c' } })
      .png()
      .toBuffer();
    const [item] = await services.mediaOps.upload(actor, {
      files: { filename: 'blue.png', data: png, truncated: false },
    });
    const post = await services.postOps.create(actor, {
      title: 'Round trip',
      content: `<p>With an image</p><img src="${item!.url}" alt="">`,
      status: 'published',
      website_id: [installation.websiteId],
    });
    await services.postOps.update(actor, String(post.id), { title: 'Round trip, revised' });
    const db = services.database.db;
    const now = new Date().toISOString();
    const top = await db
      .insertInto('comments')
      .values({
        post_id: post.id,
        author_name: 'Ann',
        author_email: 'ann@example.test',
        content: 'First',
        status: 'approved',
        website_id: installation.websiteId,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('comments')
      .values({
        post_id: post.id,
        user_id: writer.id,
        parent_id: top.id,
        content: 'A reply',
        status: 'approved',
        website_id: installation.websiteId,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await services.settings.set('site_title_suffix', ' | Folio');
  });
  after(async () => {
    for (const close of closers.reverse()) await close();
    fs.rmSync(dir, { recursive: true, force: true });
    await ctx.close();
  });

  async function exportOf(services: Services, name: string) {
    const file = path.join(dir, name);
    await services.exporter.export(
      INSTALLATION_OPERATOR,
      { websiteId: null, withSecrets: true },
      fs.createWriteStream(file),
    );
    return { file, read: await readWhole(file) };
  }

  it(`every record and media file survives ${usingPostgres ? 'PostgreSQL -> SQLite -> PostgreSQL' : 'SQLite -> PostgreSQL -> SQLite'}`, async () => {
    const first = await exportOf(ctx.services, 'first.tar.gz');
    assert.ok((first.read.records.revisions?.length ?? 0) >= 2, 'revisions seeded');
    assert.ok((first.read.records.comments?.length ?? 0) === 2, 'a comment thread seeded');
    assert.ok(first.read.media.size >= 1, 'media seeded');

    const other = await emptyInstallation(usingPostgres ? 'sqlite' : 'postgres');
    closers.push(() => other.close());
    const report = await other.services.folioImporter.import(INSTALLATION_OPERATOR, first.file, {
      websiteId: null,
      dryRun: false,
    });
    assert.deepEqual(report.renamed, []);
    const second = await exportOf(other.services, 'second.tar.gz');

    const back = await emptyInstallation(usingPostgres ? 'postgres' : 'sqlite');
    closers.push(() => back.close());
    await back.services.folioImporter.import(INSTALLATION_OPERATOR, second.file, {
      websiteId: null,
      dryRun: false,
    });
    const third = await exportOf(back.services, 'third.tar.gz');

    const expected = normalized(first.read.records);
    for (const [label, archive] of [
      ['the other database', second],
      ['back again', third],
    ] as const) {
      const actual = normalized(archive.read.records);
      for (const kind of Object.keys(expected)) {
        assert.deepEqual(actual[kind], expected[kind], `${label}: ${kind}`);
      }
      assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), `${label}: the same kinds`);
      assert.deepEqual(
        [...archive.read.media.keys()].sort(),
        [...first.read.media.keys()].sort(),
        `${label}: media paths`,
      );
      for (const [file, bytes] of first.read.media)
        assert.ok(archive.read.media.get(file)?.equals(bytes), `${label}: ${file}`);
    }
  });
});
