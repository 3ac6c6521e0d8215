// `folio backup --out FILE`: a consistent copy of the SQLite database; PostgreSQL says it is not there yet.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { folio } from './support/cli.js';
import { createServices } from '../src/services.js';
import { migrate } from '../src/db/database.js';
import { backupBeforeUpdate } from '../src/domain/system/backup.js';
import { createTestDatabase, testConfig, usingPostgres } from './support/harness.js';
import { insertPost } from './support/seed.js';
import type { TestDatabase } from './support/harness.js';

describe('folio backup', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let dir: string;

  before(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-backup-'));
    const services = createServices(testConfig(database.url));
    try {
      await migrate(services.database);
      await insertPost(services.database.db, { title: 'Kept in the backup' });
    } finally {
      await services.close();
    }
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  it('needs --out', async () => {
    const result = await folio(['backup'], env);
    assert.equal(result.code, 2);
    assert.match(result.err, /backup --out FILE/);
  });

  it(usingPostgres ? 'dumps PostgreSQL with pg_dump' : 'copies the SQLite database', async () => {
    const file = path.join(dir, 'folio-backup.sqlite');
    const result = await folio(['backup', '--out', file], env);
    if (usingPostgres) {
      assert.equal(result.code, 0, result.err);
      assert.match(result.out, /pg_dump, custom format/);
      assert.equal(fs.readFileSync(file).subarray(0, 5).toString('latin1'), 'PGDMP');
      return;
    }
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, /Backup written to/);
    const copy = new SQLite(file, { readonly: true });
    try {
      const row = copy.prepare('select title from posts').get() as { title: string } | undefined;
      assert.equal(row?.title, 'Kept in the backup');
    } finally {
      copy.close();
    }
    const again = await folio(['backup', '--out', file], env);
    assert.equal(again.code, 2, 'an existing file is not overwritten');
    assert.match(again.err, /already exists/);
  });

  it('the backup before a core update goes into backups/ next to the database (SQLite)', async () => {
    if (usingPostgres) return; // PostgreSQL's: test/porting/backup-restore.test.ts
    const services = createServices(testConfig(database.url));
    try {
      const file = await backupBeforeUpdate(services.database, new Date('2026-11-28T02:50:00.000Z'));
      assert.ok(file);
      assert.equal(path.basename(file), 'folio-backup-2026-11-28T02-50-00-000Z.sqlite');
      assert.equal(path.basename(path.dirname(file)), 'backups');
      assert.ok(fs.statSync(file).size > 0);
    } finally {
      await services.close();
    }
  });
});
