// A real `folio start` process stopped with SIGTERM in the middle of an update: npm is interrupted,
// the request answers `Update failed: …`, and the lock is released at once (spec 3.2), so that other
// app nodes need not wait 3 minutes for it to go stale.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createServices } from '../src/services.js';
import { createTestDatabase, testConfig } from './support/harness.js';
import { freePort } from './support/net.js';
import type { TestDatabase } from './support/harness.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('folio serve stopped during an update (a real process)', { timeout: 90_000 }, () => {
  let database: TestDatabase;
  let dir: string;

  before(async () => {
    database = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-sigterm-'));
    // The installation directory, and an `npm` on the PATH that starts and never finishes.
    fs.mkdirSync(path.join(dir, 'site'));
    fs.writeFileSync(path.join(dir, 'site', 'package.json'), '{"name":"site","private":true}');
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(
      path.join(dir, 'bin', 'npm'),
      `#!${process.execPath}
require('node:fs').writeFileSync(${JSON.stringify(path.join(dir, 'npm.pid'))}, String(process.pid));
console.log('npm: resolving ' + process.argv.slice(2).join(' '));
setInterval(() => {}, 1000);
`,
    );
    fs.chmodSync(path.join(dir, 'bin', 'npm'), 0o755);
  });
  after(async () => {
    await database.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('interrupts npm, answers Update failed, releases the lock and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['--import', import.meta.resolve('tsx'), path.join(repo, 'src', 'dev.ts'), 'start'],
      {
        cwd: path.join(dir, 'site'),
        env: {
          ...process.env,
          PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
          DATABASE_URL: database.url,
          PORT: String(port),
          LOG_LEVEL: 'warn',
          // The core's release package: without one the trigger installs nothing (issue 36 #1).
          FOLIO_RELEASE_PACKAGE: 'folio-release-test',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}/api/v1`;
    const post = (url: string, body: Record<string, unknown>) =>
      fetch(`${base}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    try {
      const deadline = Date.now() + 30_000;
      let health: Response | undefined;
      while (Date.now() < deadline && !health?.ok) {
        health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        if (!health?.ok) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const token = /api_token: (\S+)/.exec(output)?.[1];
      assert.ok(token, `no token printed:\n${output}`);

      // The core, installed from its release package (FOLIO_RELEASE_PACKAGE above).
      const update = post('/update', { api_token: token, package: 'folio', version: '1.0.0' });
      const pidFile = path.join(dir, 'npm.pid');
      while (!fs.existsSync(pidFile)) {
        assert.ok(Date.now() < deadline + 20_000, `npm never started:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const npmPid = Number(fs.readFileSync(pidFile, 'utf8'));
      const progress = await post('/update/progress', { api_token: token, itemId: 'core' });
      assert.deepEqual(await progress.json(), {
        status: 'success',
        message: 'Successfully fetched updating progress',
        progress: 1,
      });

      child.kill('SIGTERM');
      const answer = await update;
      assert.equal(answer.status, 500);
      assert.deepEqual(await answer.json(), {
        status: 'fail',
        message: 'Update failed: npm install was interrupted: the server is stopping',
      });
      assert.equal(await exited, 0, output);
      assert.equal(alive(npmPid), false, 'npm was stopped');
    } finally {
      child.kill('SIGKILL');
    }

    // Another node finds the lock free at once.
    const services = createServices(testConfig(database.url), {
      pgSchema: database.pgSchema,
      warn: () => undefined,
    });
    try {
      assert.equal(await services.updates.progress('core'), 0);
      const row = await services.database.db
        .selectFrom('update_state')
        .selectAll()
        .where('item', '=', 'core')
        .executeTakeFirstOrThrow();
      assert.equal(row.lock_owner, null);
    } finally {
      await services.close();
    }
  });
});
