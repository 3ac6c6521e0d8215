// SQLite checkpoints in a thread of their own (issue 26 #1): the server's connection stops
// checkpointing in its commits, the thread copies the WAL into the database file, and a failed thread
// hands checkpoints back to the server's connection.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { checkpointOffTheLoop } from '../../src/db/checkpointer.js';

describe('SQLite checkpoints off the event loop', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-checkpoint-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const open = (name: string) => {
    const file = path.join(dir, name);
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.exec('create table notes (id integer primary key, body text not null)');
    return { file, sqlite };
  };
  const autocheckpoint = (sqlite: SQLite.Database) => sqlite.pragma('wal_autocheckpoint', { simple: true });
  /** Commits that together write about 2,500 pages: past SQLite's automatic checkpoint at 1,000. */
  const writeMuch = (sqlite: SQLite.Database) => {
    const insert = sqlite.prepare('insert into notes (body) values (?)');
    for (let i = 0; i < 50; i++) sqlite.transaction(() => insert.run('x'.repeat(200_000)))();
  };

  it('the server commits without checkpointing; the thread copies every page of the WAL', async () => {
    const { file, sqlite } = open('busy.sqlite');
    const checkpoints = checkpointOffTheLoop(sqlite, file, { intervalMs: 3_600_000, warn: () => undefined });
    try {
      assert.equal(autocheckpoint(sqlite), 0);
      writeMuch(sqlite);
      // Nothing was checkpointed by the commits: the WAL holds every page written.
      const walPages = fs.statSync(`${file}-wal`).size / 4096;
      assert.ok(walPages > 2000, `the WAL kept ${walPages} pages`);
      const result = await checkpoints.checkpointNow();
      assert.ok(result.log > 2000, JSON.stringify(result));
      assert.equal(result.checkpointed, result.log);
      // The database file has the rows (read by a new connection without the WAL's help is not
      // possible in WAL mode, so: its size grew to hold them).
      assert.ok(fs.statSync(file).size > 9_000_000, `database file ${fs.statSync(file).size} B`);
    } finally {
      await checkpoints.stop();
    }
    assert.equal(autocheckpoint(sqlite), 1000, 'stopping hands checkpoints back');
    sqlite.close();
  });

  it('a thread that cannot work hands checkpoints back to the server, and says so', async () => {
    const { sqlite } = open('alone.sqlite');
    const warnings: string[] = [];
    const checkpoints = checkpointOffTheLoop(sqlite, path.join(dir, 'missing', 'nothing.sqlite'), {
      warn: (message) => warnings.push(message),
    });
    for (let tries = 0; tries < 100 && warnings.length === 0; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(warnings[0] ?? '', /checkpoints are back on the server's connection/);
    assert.equal(autocheckpoint(sqlite), 1000);
    await checkpoints.stop();
    sqlite.close();
  });
});
