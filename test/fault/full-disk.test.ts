// Fault test (issue 21, "fault tests to keep"): a full disk under the SQLite file. A real
// `folio start` serves from a database on a small tmpfs of this test's own; the disk is filled,
// writes then fail with a clear error (507 in the envelope) while the process lives and reads go
// on; once space returns, writes work again, every acknowledged post is there and SQLite's
// integrity check passes. Needs root to mount the tmpfs (CI has it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { jsonOf, request, startFolio } from '../support/folio-process.js';
import type { FolioProcess } from '../support/folio-process.js';
import { freePort } from '../support/net.js';
import { skipUnless } from '../support/requirements.js';

const onSqlite = !process.env.TEST_DATABASE_URL;

function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-mount-probe-'));
  try {
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]).status === 0;
    if (mounted) spawnSync('umount', [probe]);
    return mounted;
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

const skip = onSqlite
  ? skipUnless(canMount(), 'mounting a small tmpfs needs root')
  : 'runs on the SQLite pass only';

describe('a full disk under the SQLite file (fault test)', { skip, timeout: 180_000 }, () => {
  let dir: string;
  let mounted = false;
  let folio: FolioProcess | undefined;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-full-'));
    assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir]).status, 0);
    mounted = true;
  });
  after(() => {
    folio?.child.kill('SIGKILL');
    if (mounted) spawnSync('umount', ['-l', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes fail with 507 while the disk is full, nothing is corrupted, and writes work again once space returns', async () => {
    const port = await freePort();
    const file = path.join(dir, 'folio.db');
    folio = await startFolio(port, {
      DATABASE_URL: `sqlite://${file}`,
      LOG_LEVEL: 'error',
      MEDIA_DIR: path.join(os.tmpdir(), 'folio-full-media'),
    });
    const { child, output, token } = folio;
    assert.ok(token, `the server did not start:\n${output()}`);
    const create = (n: number, kb = 64) =>
      request(port, '/api/v1/posts/store', {
        json: { api_token: token, title: `Full disk ${n}`, content: `<p>${'x'.repeat(kb * 1024)}</p>` },
      });
    for (let i = 0; i < 30 && (await create(0, 1)).status !== 200; i++)
      await new Promise((r) => setTimeout(r, 200));

    // Fill the disk but for a little room, then write until it is gone.
    const { bavail, bsize } = fs.statfsSync(dir);
    fs.writeFileSync(path.join(dir, 'filler'), Buffer.alloc(Math.max(0, bavail * bsize - 512 * 1024)));
    const acknowledged: number[] = [];
    let refused: Awaited<ReturnType<typeof create>> | undefined;
    for (let n = 1; n <= 200 && !refused; n++) {
      const answer = await create(n);
      if (answer.status === 200) acknowledged.push(jsonOf<{ data: { id: number } }>(answer)!.data.id);
      else refused = answer;
    }
    assert.ok(refused, 'the disk never filled');
    // On a failure, give the server's log a moment to reach `output` for the message below.
    if (refused.status !== 507) await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(refused.status, 507, `${refused.body}\n${output().slice(-3000)}`);
    assert.equal(jsonOf<{ code: number }>(refused)?.code, 507);
    assert.equal(child.exitCode, null, `the server died:\n${output()}`);
    assert.equal(
      (await request(port, '/api/v1/posts', { json: { api_token: token } })).status,
      200,
      'reads go on',
    );

    // Space returns: writes work again, and nothing acknowledged is lost.
    fs.rmSync(path.join(dir, 'filler'));
    let again = await create(1000, 1);
    for (let i = 0; i < 20 && again.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      again = await create(1000, 1);
    }
    assert.equal(again.status, 200);
    for (const id of acknowledged) {
      assert.equal(
        (await request(port, `/api/v1/posts/${id}`, { json: { api_token: token } })).status,
        200,
        `post ${id}`,
      );
    }
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const db = new Database(file);
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      db.close();
    }
  });
});
