// Issue 40 #3: two `folio start` processes behind a round-robin load balancer, sharing one PostgreSQL
// database, one Redis and one S3-compatible server (s3rver), each with a media folder of its own so
// nothing is shared through a disk. What one node does, the other sees at once: an upload, an edit on
// a cached page, a session and its CSRF token, the login attempts counted against an account, and a
// webhook message delivered once although both nodes work the job queue.
//
// It runs in the PostgreSQL pass (the nodes need a database server to share): a database of its own
// on that server, dropped at the end, and a private Redis on a port of its own.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import sharp from 'sharp';
import { startFolio } from './support/folio-process.js';
import type { FolioProcess } from './support/folio-process.js';
import { freePort } from './support/net.js';
import { startPrivateRedis, stopPrivateRedis } from './support/private-redis.js';
import { redisServerInstalled, skipUnless } from './support/requirements.js';
import { startLocalS3 } from './support/s3.js';
import type { LocalS3 } from './support/s3.js';

const postgresUrl = process.env.TEST_DATABASE_URL;
const skip = postgresUrl
  ? skipUnless(redisServerInstalled, 'redis-server is not installed')
  : 'two nodes share a PostgreSQL database: the PostgreSQL pass runs this test';

/** One HTTP exchange, with the answer read whole (no keep-alive: each request picks its node anew). */
interface Exchange {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

function send(
  port: number,
  requestPath: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        path: requestPath,
        method: options.method ?? 'GET',
        headers: { host: `localhost:${port}`, ...options.headers },
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            text: body.toString(),
          });
        });
      },
    );
    request.on('error', reject);
    request.setTimeout(30_000, () => request.destroy(new Error('timeout')));
    request.end(options.body);
  });
}

/** The cookies a response sets, as a Cookie header's `name=value` pairs. */
const cookiesOf = (answer: Exchange): string[] =>
  ([] as string[]).concat(answer.headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0]!);

describe('two nodes behind a load balancer (PostgreSQL + Redis + S3)', { skip, timeout: 300_000 }, () => {
  let admin: pg.Client;
  let database: string;
  let redis: ChildProcess;
  let s3: LocalS3;
  let dir: string;
  const nodes: FolioProcess[] = [];
  const ports: number[] = [];
  let balancer: http.Server;
  let balancerPort: number;
  /** Which node (0 or 1) answered each request that went through the balancer, in order. */
  const servedBy: number[] = [];
  let token: string;
  let email: string;
  let password: string;
  let receiver: http.Server;
  let receiverUrl: string;
  const deliveries: Array<{ id: string; body: string }> = [];

  /** A request to one node, as the website's host (`localhost` with that node's port). */
  const to = (node: 0 | 1, requestPath: string, options: Parameters<typeof send>[2] = {}) =>
    send(ports[node]!, requestPath, options);
  const api = (node: 0 | 1, method: string, requestPath: string, json?: unknown) =>
    to(node, `/api/v2${requestPath}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-nodes-'));
    database = `folio_nodes_${randomBytes(4).toString('hex')}`;
    admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const databaseUrl = new URL(postgresUrl!);
    databaseUrl.pathname = `/${database}`;
    const redisPort = await freePort();
    redis = await startPrivateRedis(redisPort);
    s3 = await startLocalS3();
    receiver = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        deliveries.push({ id: String(request.headers['webhook-id']), body });
        response.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    ports.push(await freePort(), await freePort());
    const environment = (node: number) => ({
      DATABASE_URL: databaseUrl.toString(),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      STORAGE_URL: s3.storageUrl('nodes'),
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      MEDIA_DIR: path.join(dir, `media-${node}`),
    });
    // The first node migrates and installs; the second starts on the database it made (migrations
    // run once, as README's "Running several nodes" says).
    nodes.push(await startFolio(ports[0]!, environment(0)));
    nodes.push(await startFolio(ports[1]!, environment(1)));
    for (const node of nodes) assert.equal(node.child.exitCode, null, node.output());
    token = nodes[0]!.token!;
    assert.ok(token, nodes[0]!.output());
    email = /admin:\s+(\S+)/.exec(nodes[0]!.output())![1]!;
    password = /password:\s+(\S+)/.exec(nodes[0]!.output())![1]!;

    // The load balancer: round robin, each request to the next node, the Host kept.
    let next = 0;
    balancer = http.createServer((request, response) => {
      const node = next++ % 2;
      servedBy.push(node);
      const upstream = http.request(
        {
          host: '127.0.0.1',
          port: ports[node],
          path: request.url,
          method: request.method,
          headers: request.headers,
          agent: false,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.destroy());
      request.pipe(upstream);
    });
    await new Promise<void>((resolve) => balancer.listen(0, '127.0.0.1', resolve));
    balancerPort = (balancer.address() as AddressInfo).port;
  });

  after(async () => {
    await Promise.all(
      nodes.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
      }),
    );
    balancer?.close();
    receiver?.close();
    await s3?.close().catch(() => undefined);
    if (redis) await stopPrivateRedis(redis);
    if (admin) {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('an image uploaded on one node is served by the other (the media live in S3)', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2a6' } })
      .png()
      .toBuffer();
    const boundary = `----folio${randomBytes(8).toString('hex')}`;
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="leaf.png"\r\n` +
          'Content-Type: image/png\r\n\r\n',
      ),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const uploaded = await to(0, '/api/v2/media', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body,
    });
    assert.equal(uploaded.status, 201, uploaded.text);
    const item = (JSON.parse(uploaded.text) as { data: Array<{ id: number; url: string }> }).data[0]!;
    // Stored and answered by its site-relative address (issue 36 #5): any node, any host serves it.
    const file = item.url;
    assert.match(file, /^\/media\/library\//);
    const served = await to(1, file);
    assert.equal(served.status, 200, `node 2 serves ${file}`);
    assert.deepEqual(served.body, png, 'the same bytes');
    // The other node's library lists it, and neither node wrote it to its own disk.
    const listed = await api(1, 'GET', '/media');
    assert.ok(
      (JSON.parse(listed.text) as { data: Array<{ id: number }> }).data.some((m) => m.id === item.id),
    );
    for (const node of [0, 1]) {
      const local = path.join(dir, `media-${node}`);
      const files = fs.existsSync(local) ? fs.readdirSync(local, { recursive: true }) : [];
      assert.ok(!files.some((name) => String(name).endsWith('.png')), `node ${node + 1} kept no copy`);
    }
  });

  it('an edit on one node is fresh at once on the pages the other has cached', async () => {
    const created = await api(0, 'POST', '/posts', {
      title: 'Harbour lights',
      content: '<p>The lamps are lit at dusk.</p>',
      status: 'published',
    });
    assert.equal(created.status, 201, created.text);
    const post = (JSON.parse(created.text) as { data: { id: number; slug: string } }).data;
    // Node 2 renders the page and keeps it (the second read is a cache hit).
    for (let i = 0; i < 2; i++) {
      const page = await to(1, `/post/${post.slug}`);
      assert.equal(page.status, 200);
      assert.match(page.text, /Harbour lights/);
    }
    const home = await to(1, '/');
    assert.match(home.text, /Harbour lights/);
    const edited = await api(0, 'PATCH', `/posts/${post.id}`, { title: 'Harbour lights at night' });
    assert.equal(edited.status, 200, edited.text);
    // At once: no wait, no expiry.
    const fresh = await to(1, `/post/${post.slug}`);
    assert.match(fresh.text, /Harbour lights at night/);
    assert.match((await to(1, '/')).text, /Harbour lights at night/);
  });

  it('a session made through one node works on the other, with its CSRF token', async () => {
    // Through the balancer, as a browser would: the form from one node, the login to the other.
    const form = await send(balancerPort, '/user/login');
    assert.equal(form.status, 200);
    const csrf = /name="_token" value="([^"]+)"/.exec(form.text)?.[1];
    assert.ok(csrf, 'the login form carries a CSRF token');
    const origin = `http://localhost:${balancerPort}`;
    const login = await send(balancerPort, '/user/login/ajax', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        cookie: cookiesOf(form).join('; '),
        origin,
      },
      body: JSON.stringify({ email, password, _token: csrf }),
    });
    assert.equal(login.status, 200, login.text);
    assert.notEqual(servedBy.at(-1), servedBy.at(-2), 'the form and the login went to different nodes');
    const session = [...cookiesOf(form), ...cookiesOf(login)].join('; ');
    for (const node of [0, 1] as const) {
      const me = await to(node, '/api/v2/me', { headers: { cookie: session } });
      assert.equal(me.status, 200, `node ${node + 1} knows the session: ${me.text}`);
      assert.equal((JSON.parse(me.text) as { data: { email: string } }).data.email, email);
    }
  });

  it('login attempts against an account are counted across the nodes', async () => {
    const target = 'nobody-here@example.test';
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const node = (attempt % 2) as 0 | 1;
      const form = await to(node, '/user/login');
      const csrf = /name="_token" value="([^"]+)"/.exec(form.text)![1]!;
      const answer = await to(node, '/user/login/ajax', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie: cookiesOf(form).join('; '),
          origin: `http://localhost:${ports[node]}`,
        },
        body: JSON.stringify({ email: target, password: 'wrong password', _token: csrf }),
      });
      statuses.push(answer.status);
    }
    // Five tries per account (three on one node, two on the other), then refused on either node.
    assert.deepEqual(statuses, [422, 422, 422, 422, 422, 429]);
  });

  it('a webhook message is delivered once although both nodes work the job queue', async () => {
    const allowed = await api(0, 'PATCH', '/settings', { webhook_allowed_hosts: '127.0.0.1' });
    assert.equal(allowed.status, 200, allowed.text);
    const hook = await api(1, 'POST', '/webhooks', { url: receiverUrl, events: ['post.published'] });
    assert.equal(hook.status, 201, hook.text);
    for (const title of ['Tide one', 'Tide two', 'Tide three']) {
      const node = title === 'Tide two' ? 1 : 0;
      const created = await api(node, 'POST', '/posts', {
        title,
        content: `<p>${title}</p>`,
        status: 'published',
      });
      assert.equal(created.status, 201, created.text);
    }
    for (let waited = 0; deliveries.length < 3 && waited < 30_000; waited += 100) await sleep(100);
    // Both nodes poll every second: a duplicate would have come by now.
    await sleep(3000);
    const titles = deliveries.map((delivery) => /"title":"([^"]+)"/.exec(delivery.body)?.[1]).sort();
    assert.deepEqual(titles, ['Tide one', 'Tide three', 'Tide two']);
    assert.equal(new Set(deliveries.map((delivery) => delivery.id)).size, 3, 'one message id each');
  });
  it('each node is ready while its database, Redis and storage answer, and says which one does not', async () => {
    for (const node of [0, 1] as const) {
      const ready = await to(node, '/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.deepEqual(JSON.parse(ready.text), { status: 'ok', database: 'ok', redis: 'ok', storage: 'ok' });
    }
    await stopPrivateRedis(redis);
    const noRedis = await to(0, '/readyz');
    assert.equal(noRedis.status, 503);
    assert.deepEqual(JSON.parse(noRedis.text), {
      status: 'fail',
      database: 'ok',
      redis: 'unavailable',
      storage: 'ok',
    });
    assert.equal((await to(1, '/healthz')).status, 200, 'alive all the same (liveness is not readiness)');
    await s3.close();
    const noStorage = JSON.parse((await to(1, '/readyz')).text) as Record<string, string>;
    assert.equal(noStorage.storage, 'unavailable');
  });
});
