// Fault test (issue 21, "fault tests to keep"): a full disk under the SQLite file. A real
// `folio start` serves from a database on a small tmpfs of this test's own; the disk is filled,
// writes then fail with a clear error (507 in the envelope) while the process lives and reads go
// on; once space returns, writes work again, every acknowledged post is there and SQLite's
// integrity check passes. Needs root to mount the tmpfs (CI has it).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
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

function post(
  port: number,
  url: string,
  body: unknown,
): Promise<{ status: number; json: { code?: number; data?: { id?: number } } | null }> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: url,
        method: 'POST',
        headers: { host: `localhost:${port}`, 'content-type': 'application/json' },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let json = null;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', () => resolve({ status: 0, json: null }));
    req.end(JSON.stringify(body));
  });
}

describe('a full disk under the SQLite file (fault test)', { skip, timeout: 180_000 }, () => {
  let dir: string;
  let mounted = false;
  let child: ReturnType<typeof spawn> | undefined;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-full-'));
    assert.equal(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir]).status, 0);
    mounted = true;
  });
  after(() => {
    child?.kill('SIGKILL');
    if (mounted) spawnSync('umount', ['-l', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes fail with 507 while the disk is full, nothing is corrupted, and writes work again once space returns', async () => {
    const port = await freePort();
    const file = path.join(dir, 'folio.db');
    let output = '';
    child = spawn(process.execPath, ['--import', 'tsx', 'src/dev.ts', 'start'], {
      env: {
        ...process.env,
        DATABASE_URL: `sqlite://${file}`,
        REDIS_URL: '',
        PORT: String(port),
        LOG_LEVEL: 'error',
        MEDIA_DIR: path.join(os.tmpdir(), 'folio-full-media'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let token: string | undefined;
    for (let i = 0; i < 300 && !token; i++) {
      token = /api_token: (\S+)/.exec(output)?.[1];
      if (!token) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(token, `the server did not start:\n${output}`);
    const create = (n: number, kb = 64) =>
      post(port, '/api/v1/posts/store', {
        api_token: token,
        title: `Full disk ${n}`,
        content: `<p>${'x'.repeat(kb * 1024)}</p>`,
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
      if (answer.status === 200) acknowledged.push(answer.json!.data!.id!);
      else refused = answer;
    }
    assert.ok(refused, 'the disk never filled');
    // On a failure, give the server's log a moment to reach `output` for the message below.
    if (refused.status !== 507) await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(refused.status, 507, `${JSON.stringify(refused.json)}\n${output.slice(-3000)}`);
    assert.equal(refused.json?.code, 507);
    assert.equal(child.exitCode, null, `the server died:\n${output}`);
    assert.equal((await post(port, '/api/v1/posts', { api_token: token })).status, 200, 'reads go on');

    // Space returns: writes work again, and nothing acknowledged is lost.
    fs.rmSync(path.join(dir, 'filler'));
    let again = await create(1000, 1);
    for (let i = 0; i < 20 && again.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      again = await create(1000, 1);
    }
    assert.equal(again.status, 200);
    for (const id of acknowledged) {
      assert.equal((await post(port, `/api/v1/posts/${id}`, { api_token: token })).status, 200, `post ${id}`);
    }
    const exited = new Promise((resolve) => child!.once('exit', resolve));
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
