// Fault test (issue 21, "fault tests to keep"): `kill -9` of a serving process under concurrent
// writes loses no acknowledged write and corrupts nothing. A real `folio start` serves from a
// database of this test's own (a SQLite file on the SQLite pass, a private PostgreSQL cluster on the
// PostgreSQL pass), ten writers create posts, the process is killed mid-stream, started again, and
// every post that was answered 200 must be there, whole; SQLite's integrity check must pass.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { jsonOf, request, startFolio } from '../support/folio-process.js';
import { freePort } from '../support/net.js';
import { privatePostgresAvailable, startPrivatePostgres } from '../support/private-postgres.js';
import type { PrivatePostgres } from '../support/private-postgres.js';
import { skipUnless } from '../support/requirements.js';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const skip = onPostgres
  ? skipUnless(privatePostgresAvailable, 'initdb and pg_ctl (PostgreSQL server binaries) are needed')
  : false;

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

    const serve = (port: number) =>
      startFolio(port, { DATABASE_URL: databaseUrl, MEDIA_DIR: path.join(dir, 'media') });

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
          const answer = await request(port, '/api/v1/posts/store', {
            json: { api_token: token, title, content },
          });
          const data = jsonOf<{ data?: { id?: number } }>(answer)?.data;
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
          const shown = await request(port, `/api/v1/posts/${id}`, { json: { api_token: token } });
          assert.equal(shown.status, 200, `post ${id} (${title}) is gone`);
          const data = jsonOf<{ data: { title: string; content: string } }>(shown)!.data;
          assert.equal(data.title, title);
          assert.equal(data.content, content);
        }
      } finally {
        second.child.kill('SIGTERM');
      }
    });
  },
);
