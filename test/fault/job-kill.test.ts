// Fault test (issue 38, jobs #2): a webhook delivery claimed by a node that is killed with `kill -9`
// mid-delivery is not lost. A real `folio start` claims the job and sends the message to a receiver
// that does not answer; the process is killed; started again, it takes the job over once the dead
// node's lease lapses (JOB_LEASE_SECONDS) and delivers the same message (the same `webhook-id`, so a
// receiver can tell a retry), which is then logged as delivered, once.
//
// Its own database: a SQLite file on the SQLite pass, a fresh database on the PostgreSQL pass's server
// (the server itself is not stopped: only Folio is killed).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { jsonOf, request, startFolio } from '../support/folio-process.js';
import type { Answer, FolioProcess } from '../support/folio-process.js';
import { freePort } from '../support/net.js';

const postgresUrl = process.env.TEST_DATABASE_URL;

describe(
  `a node killed mid-delivery (fault test, ${postgresUrl ? 'PostgreSQL' : 'SQLite'})`,
  { timeout: 180_000 },
  () => {
    let dir: string;
    let databaseUrl: string;
    let admin: pg.Client | undefined;
    let database: string | undefined;
    let receiver: http.Server;
    let receiverUrl: string;
    /** `hang`: take the message and never answer (the node waits); `answer`: 200. */
    let mode: 'hang' | 'answer' = 'hang';
    const received: Array<{ id: string; answered: boolean }> = [];
    const held: Socket[] = [];
    let node: FolioProcess | undefined;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-job-kill-'));
      if (postgresUrl) {
        database = `folio_jobkill_${randomBytes(4).toString('hex')}`;
        admin = new pg.Client({ connectionString: postgresUrl });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${database}`);
        const url = new URL(postgresUrl);
        url.pathname = `/${database}`;
        databaseUrl = url.toString();
      } else {
        databaseUrl = `sqlite://${path.join(dir, 'folio.db')}`;
      }
      receiver = http.createServer((req, res) => {
        const id = String(req.headers['webhook-id']);
        req.resume();
        if (mode === 'hang') {
          received.push({ id, answered: false });
          held.push(req.socket);
          return;
        }
        req.on('end', () => {
          received.push({ id, answered: true });
          res.writeHead(200).end('ok');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    });
    after(async () => {
      if (node && node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
      for (const socket of held) socket.destroy();
      receiver?.close();
      if (admin && database) {
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await admin.end();
      }
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const serve = (port: number) =>
      startFolio(port, {
        DATABASE_URL: databaseUrl,
        MEDIA_DIR: path.join(dir, 'media'),
        JOB_LEASE_SECONDS: '3',
      });
    const until = async (condition: () => boolean, what: string, ms = 30_000) => {
      for (let waited = 0; !condition(); waited += 100) {
        if (waited > ms) assert.fail(`${what} did not happen in ${ms / 1000} s`);
        await sleep(100);
      }
    };

    it('takes the job over after its lease and delivers the message, logged once', async () => {
      const port = await freePort();
      node = await serve(port);
      const token = node.token;
      assert.ok(token, node.output());
      const api = (method: string, url: string, json?: unknown): Promise<Answer> =>
        new Promise((resolve) => {
          const req = http.request(
            {
              host: '127.0.0.1',
              port,
              path: `/api/v2${url}`,
              method,
              headers: {
                host: `localhost:${port}`,
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
              },
              agent: false,
            },
            (res) => {
              let body = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => (body += chunk));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
            },
          );
          req.on('error', (error) => resolve({ status: 0, body: error.message, headers: {} }));
          req.end(json === undefined ? undefined : JSON.stringify(json));
        });

      assert.equal((await api('PATCH', '/settings', { webhook_allowed_hosts: '127.0.0.1' })).status, 200);
      const hook = await api('POST', '/webhooks', { url: receiverUrl, events: ['post.published'] });
      assert.equal(hook.status, 201, hook.body);
      const hookId = jsonOf<{ data: { id: number } }>(hook)!.data.id;
      const post = await api('POST', '/posts', {
        title: 'Killed mid-delivery',
        content: '<p>Still told.</p>',
        status: 'published',
      });
      assert.equal(post.status, 201, post.body);

      // The node claimed the job and is waiting for the receiver's answer: kill it there.
      await until(() => received.length === 1, 'the first delivery attempt');
      const exited = new Promise((resolve) => node!.child.once('exit', resolve));
      node.child.kill('SIGKILL');
      await exited;
      for (const socket of held) socket.destroy();

      // Started again (JOB_LEASE_SECONDS=3): the dead node's job is taken over once its lease lapses.
      mode = 'answer';
      node = await serve(port);
      assert.equal((await request(port, '/healthz')).status, 200, node.output());
      await until(() => received.length === 2, 'the delivery after the restart');
      // Nothing more comes: the job is done.
      await sleep(4000);
      assert.equal(received.length, 2, JSON.stringify(received));
      assert.equal(received[1]!.id, received[0]!.id, 'the same message (webhook-id), tried again');
      assert.equal(received[1]!.answered, true);
      const log = await api('GET', `/webhooks/${hookId}/deliveries`);
      assert.equal(log.status, 200, log.body);
      const entries = jsonOf<{ data: Array<{ status_code: number | null; message_id?: string }> }>(log)!.data;
      assert.equal(
        entries.filter((entry) => entry.status_code === 200).length,
        1,
        `delivered once: ${log.body}`,
      );
      const jobs = await api('GET', '/jobs');
      assert.equal(jobs.status, 200, jobs.body);
      const states = jsonOf<{ data: Array<{ status: string }> }>(jobs)!.data.map((job) => job.status);
      assert.ok(!states.includes('running') && !states.includes('queued'), `jobs: ${jobs.body}`);
    });
  },
);
