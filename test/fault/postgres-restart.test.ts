// Fault test (issue 21 #13): a PostgreSQL restart or stop under load costs a few failed requests,
// never the process. A real `folio start` serves from a private PostgreSQL cluster of this test's
// own (never the shared one) under concurrent API and page requests while the cluster is restarted
// (`pg_ctl restart -m fast`: every connection is cut with 57P01) and then stopped for a while. The
// process must live; while the database is away, answers are 503 with `Retry-After` (the envelope on
// the API, a page on the site); once it is back, the pool recovers by itself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request, startFolio } from '../support/folio-process.js';
import type { Answer, FolioProcess } from '../support/folio-process.js';
import { freePort } from '../support/net.js';
import { privatePostgresAvailable, startPrivatePostgres } from '../support/private-postgres.js';
import type { PrivatePostgres } from '../support/private-postgres.js';
import { skipUnless } from '../support/requirements.js';

// Once per run: on the PostgreSQL pass (the SQLite pass has no business with a PostgreSQL server).
const skip = !process.env.TEST_DATABASE_URL
  ? 'runs on the PostgreSQL pass only'
  : skipUnless(privatePostgresAvailable, 'initdb and pg_ctl (PostgreSQL server binaries) are needed');

describe('PostgreSQL restart and stop under load (fault test)', { skip, timeout: 180_000 }, () => {
  let pg: PrivatePostgres;
  let port: number;
  let folio: FolioProcess;
  let token = '';
  const output = () => folio.output();
  const child = () => folio.child;

  before(async () => {
    pg = await startPrivatePostgres();
    port = await freePort();
    folio = await startFolio(port, { DATABASE_URL: pg.url });
    token = folio.token ?? '';
    assert.ok(token, `the server did not start:\n${output()}`);
  });

  after(() => {
    folio?.child.kill('SIGKILL');
    pg?.destroy();
  });

  const listPosts = () => request(port, '/api/v1/posts', { json: { api_token: token } });

  let created = 0;
  const createPost = () =>
    request(port, '/api/v1/posts/store', {
      json: { api_token: token, title: `Under load ${++created}`, content: '<p>x</p>', status: 'published' },
    });

  /**
   * Concurrent writes (each a transaction: a client checked out between its queries), API reads and
   * pages until `stop()`; every answer's status is kept. Writes flush the caches, so reads reach the
   * database too.
   */
  function load(workers = 9) {
    const answers: Answer[] = [];
    let running = true;
    const loops = Array.from({ length: workers }, async (_, i) => {
      const next = [createPost, listPosts, () => request(port, '/')][i % 3]!;
      while (running) answers.push(await next());
    });
    return {
      answers,
      stop: async () => {
        running = false;
        await Promise.all(loops);
      },
    };
  }

  const alive = () => child().exitCode === null && child().signalCode === null;

  it('a restart under load: the process lives, failures are 503, and the pool recovers', async () => {
    const traffic = load();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    pg.restart();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await traffic.stop();
    assert.ok(alive(), `the server died:\n${output()}`);
    const statuses = new Map<number, number>();
    for (const answer of traffic.answers) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    const unexpected = traffic.answers.filter((answer) => answer.status !== 200 && answer.status !== 503);
    assert.deepEqual(unexpected.slice(0, 3), [], `statuses: ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(200) ?? 0) > 20, `statuses: ${JSON.stringify([...statuses])}`);
    assert.equal((await listPosts()).status, 200);
    assert.equal((await request(port, '/')).status, 200);
  });

  it('a stop: 503 with Retry-After in each face’s shape while it is down; back to 200 once it returns', async () => {
    pg.stop();
    try {
      const api = await listPosts();
      assert.equal(api.status, 503, api.body);
      assert.ok(Number(api.headers['retry-after']) > 0);
      const body = JSON.parse(api.body) as { code: number; status: string; message: string };
      assert.deepEqual([body.code, body.status], [503, 'fail']);
      assert.match(body.message, /database is not answering/);
      const page = await request(port, '/');
      assert.equal(page.status, 503);
      assert.match(page.body, /Temporarily unavailable/);
      assert.equal((await request(port, '/healthz')).status, 503);
      assert.ok(alive(), `the server died:\n${output()}`);
    } finally {
      pg.start();
    }
    let recovered = 0;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && recovered !== 200) {
      recovered = (await listPosts()).status;
      if (recovered !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(recovered, 200);
    assert.equal((await request(port, '/')).status, 200);
    assert.ok(alive());
  });
});
