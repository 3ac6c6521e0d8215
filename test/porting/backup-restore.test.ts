// Backup and restore (issue 39 #5): `folio backup` while the data is there, `folio restore` refusing a
// database with content unless --force, and putting the backup's content back (SQLite through its
// backup API, PostgreSQL through pg_dump/pg_restore); old backups before updates rotate.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { main } from '../../src/cli.js';
import { migrate } from '../../src/db/database.js';
import { backupBeforeUpdate, rotateBackups } from '../../src/domain/system/backup.js';
import { createServices } from '../../src/services.js';
import { createTestDatabase, testConfig, usingPostgres } from '../support/harness.js';
import type { TestDatabase } from '../support/harness.js';
import { insertPost } from '../support/seed.js';

async function ownPostgresDatabase(): Promise<TestDatabase> {
  const base = process.env.TEST_DATABASE_URL!;
  const name = `folio_restore_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

async function folio(args: string[], env: Record<string, string>) {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await main(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    process.env = saved;
  }
}

describe('folio backup and restore', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let dir: string;

  const titles = async () => {
    const services = createServices(testConfig(database.url));
    try {
      return (await services.database.db.selectFrom('posts').select('title').orderBy('title').execute()).map(
        (r) => r.title,
      );
    } finally {
      await services.close();
    }
  };

  before(async () => {
    // PostgreSQL: a database of its own (as in production: Folio in `public`, pg_trgm beside it), not
    // a schema of the shared test database, whose pg_trgm lives in whichever test's schema came first.
    database = usingPostgres ? await ownPostgresDatabase() : await createTestDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-restore-'));
    env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent', MEDIA_DIR: path.join(dir, 'media') };
    const services = createServices(testConfig(database.url));
    try {
      await migrate(services.database);
      await insertPost(services.database.db, { title: 'Before the backup' });
      await services.users.create({
        name: 'Admin',
        email: 'admin@example.test',
        password: 'correct horse battery',
        isAdmin: true,
      });
    } finally {
      await services.close();
    }
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  it('backup, a change, restore refused without --force, restored with it', async () => {
    const file = path.join(dir, usingPostgres ? 'backup.pgdump' : 'backup.sqlite');
    const backup = await folio(['backup', '--out', file], env);
    assert.equal(backup.code, 0, backup.err);

    const services = createServices(testConfig(database.url));
    try {
      await insertPost(services.database.db, { title: 'After the backup' });
    } finally {
      await services.close();
    }
    assert.deepEqual(await titles(), ['After the backup', 'Before the backup']);

    const refused = await folio(['restore', file], env);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /not empty: .*--force/);
    assert.deepEqual(await titles(), ['After the backup', 'Before the backup'], 'nothing changed');

    const restored = await folio(['restore', file, '--force'], env);
    assert.equal(restored.code, 0, restored.err);
    assert.match(restored.out, /Restored from/);
    assert.deepEqual(await titles(), ['Before the backup']);
  });

  it('a file that is no backup, or one of the other database, is refused', async () => {
    const junk = path.join(dir, 'junk.bin');
    fs.writeFileSync(junk, 'not a backup at all');
    const result = await folio(['restore', junk, '--force'], env);
    assert.equal(result.code, 2);
    assert.match(result.err, /not a Folio backup/);
    const other = path.join(dir, 'other');
    fs.writeFileSync(
      other,
      usingPostgres ? Buffer.from('SQLite format 3\u0000rest') : Buffer.from('PGDMPrest'),
    );
    const mismatch = await folio(['restore', other, '--force'], env);
    assert.equal(mismatch.code, 2);
    assert.match(mismatch.err, /backup; DATABASE_URL names a/);
  });

  it('backups before an update rotate: the newest `keep` stay', async () => {
    const services = createServices(testConfig(database.url));
    const dataDir = path.join(dir, 'data');
    try {
      const made: string[] = [];
      for (let minute = 0; minute < 4; minute += 1) {
        const file = await backupBeforeUpdate(
          services.database,
          new Date(Date.UTC(2026, 10, 28, 3, minute)),
          {
            databaseUrl: database.url,
            dataDir,
            keep: 2,
          },
        );
        assert.ok(file);
        made.push(file);
      }
      const backups = path.dirname(made[0]!);
      assert.deepEqual(
        fs.readdirSync(backups).sort(),
        made.slice(2).map((file) => path.basename(file)),
      );
      assert.deepEqual(rotateBackups(backups, 1), [path.basename(made[2]!)]);
    } finally {
      await services.close();
    }
  });
});
