// Fault test (issue 21, "fault tests to keep"): `kill -9` of a serving process under concurrent
// writes loses no acknowledged write and corrupts nothing. A real `folio start` serves from a
// database of this test's own (a SQLite file on the SQLite pass, a private PostgreSQL cluster on the
// PostgreSQL pass), ten writers create posts, the process is killed mid-stream, started again, and
// every post that was answered 200 must be there, whole; SQLite's integrity check must pass.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { freePort } from '../support/net.js';
import { privatePostgresAvailable, startPrivatePostgres } from '../support/private-postgres.js';
import type { PrivatePostgres } from '../support/private-postgres.js';
import { skipUnless } from '../support/requirements.js';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const skip = onPostgres
  ? skipUnless(privatePostgresAvailable, 'initdb and pg_ctl (PostgreSQL server binaries) are needed')
  : false;

function post(port: number, path: string, body: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { host: `localhost:${port}`, 'content-type': 'application/json' },
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            // a cut answer
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', () => resolve({ status: 0, json: null }));
      },
    );
    req.on('error', () => resolve({ status: 0, json: null }));
    req.end(JSON.stringify(body));
  });
}

describe(
  `kill -9 under concurrent writes (fault test, ${onPostgres ? 'PostgreSQL' : 'SQLite'})`,
  { skip, timeout: 240_000 },
  () => {
    let dir: string;
    let pg: PrivatePostgres | undefined;
    let databaseUrl: string;
    let sqliteFile: string | undefined;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-crash-'));
      if (onPostgres) {
        pg = await startPrivatePostgres();
        databaseUrl = pg.url;
      } else {
        sqliteFile = path.join(dir, 'folio.db');
        databaseUrl = `sqlite://${sqliteFile}`;
      }
    });
    after(() => {
      pg?.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    /** Starts `folio start` and resolves once it serves, with its token (printed on the first start). */
    async function serve(port: number) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev.ts', 'start'], {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          REDIS_URL: '',
          PORT: String(port),
          LOG_LEVEL: 'warn',
          MEDIA_DIR: path.join(dir, 'media'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const health = await new Promise<number>((resolve) => {
          http
            .get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            })
            .on('error', () => resolve(0));
        });
        if (health === 200) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return { child, output: () => output, token: /api_token: (\S+)/.exec(output)?.[1] };
    }

    it('every acknowledged create is there, whole, after a kill -9 and a restart', async () => {
      const port = await freePort();
      const first = await serve(port);
      const token = first.token;
      assert.ok(token, `no token printed:\n${first.output()}`);

      const acknowledged: Array<{ id: number; title: string; content: string }> = [];
      let running = true;
      let sequence = 0;
      const writers = Array.from({ length: 10 }, async () => {
        while (running) {
          const n = ++sequence;
          const title = `Crash test ${n}`;
          const content = `<p>${'body '.repeat(50)}${n}</p>`;
          const answer = await post(port, '/api/v1/posts/store', { api_token: token, title, content });
          const data = (answer.json as { data?: { id?: number } } | null)?.data;
          if (answer.status === 200 && typeof data?.id === 'number')
            acknowledged.push({ id: data.id, title, content });
          if (answer.status === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const exited = new Promise((resolve) => first.child.once('exit', resolve));
      first.child.kill('SIGKILL');
      await exited;
      running = false;
      await Promise.all(writers);
      assert.ok(acknowledged.length > 10, `only ${acknowledged.length} writes were acknowledged`);

      if (sqliteFile) {
        const db = new Database(sqliteFile, { readonly: false });
        try {
          assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        } finally {
          db.close();
        }
      }

      const second = await serve(port);
      try {
        for (const { id, title, content } of acknowledged) {
          const shown = await post(port, `/api/v1/posts/${id}`, { api_token: token });
          assert.equal(shown.status, 200, `post ${id} (${title}) is gone`);
          const data = (shown.json as { data: { title: string; content: string } }).data;
          assert.equal(data.title, title);
          assert.equal(data.content, content);
        }
      } finally {
        second.child.kill('SIGTERM');
      }
    });
  },
);
