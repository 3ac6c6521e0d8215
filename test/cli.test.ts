// The `folio` command line, run in-process (main) and, for `start`, as a real process.
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { folio } from './support/cli.js';
import { createServices } from '../src/services.js';
import { createTestDatabase, testConfig } from './support/harness.js';
import { insertPost } from './support/seed.js';
import { freePort } from './support/net.js';
import type { TestDatabase } from './support/harness.js';
import { websiteWrites } from './support/website-writes.js';

describe('folio CLI', () => {
  let database: TestDatabase;
  let env: Record<string, string>;

  before(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
  });
  after(() => database.drop());

  it('migrate brings the schema up to date and can run again', async () => {
    assert.equal((await folio(['migrate'], env)).code, 0);
    const again = await folio(['migrate'], env);
    assert.equal(again.code, 0);
    assert.match(again.out, /^Database is up to date/);
    assert.ok(!again.out.includes('Applied'));
  });

  it('user:create prints the id and the token as JSON', async () => {
    const result = await folio(
      ['user:create', '--email', 'cli@example.test', '--name', 'Cli', '--password', 'long enough', '--admin'],
      env,
    );
    assert.equal(result.code, 0, result.err);
    const printed = JSON.parse(result.out) as { id: number; api_token: string };
    assert.deepEqual(Object.keys(printed), ['id', 'api_token']);
    assert.equal(typeof printed.id, 'number');
    assert.match(printed.api_token, /^folio_/);
  });

  it('user:create refuses missing options, a taken email and a short password', async () => {
    const missing = await folio(['user:create', '--email', 'x@example.test'], env);
    assert.equal(missing.code, 2);
    assert.equal(missing.err, 'folio: --name is required');
    const taken = await folio(
      ['user:create', '--email', 'CLI@example.test', '--name', 'Again', '--password', 'long enough'],
      env,
    );
    assert.equal(taken.code, 1);
    assert.equal(taken.err, 'folio: The email has already been taken.');
    const short = await folio(
      ['user:create', '--email', 'new@example.test', '--name', 'New', '--password', 'short'],
      env,
    );
    assert.equal(short.code, 1);
    assert.match(short.err, /password must be at least 8 characters/);
  });

  it('user:token issues a new token; user:disable and user:enable switch the user', async () => {
    const secondAdmin = await folio(
      [
        'user:create',
        '--email',
        'second-admin@example.test',
        '--name',
        'Second',
        '--password',
        'long enough',
        '--admin',
      ],
      env,
    );
    assert.equal(secondAdmin.code, 0, secondAdmin.err);
    const first = await folio(['user:token', '--email', 'cli@example.test'], env);
    const second = await folio(['user:token', '--email', 'cli@example.test'], env);
    assert.equal(first.code, 0, first.err);
    assert.notEqual(JSON.parse(first.out).api_token, JSON.parse(second.out).api_token);
    assert.equal(
      (await folio(['user:disable', '--email', 'cli@example.test'], env)).out,
      'User cli@example.test is disabled.',
    );
    assert.equal(
      (await folio(['user:enable', '--email', 'cli@example.test'], env)).out,
      'User cli@example.test is enabled.',
    );
    // Issue 20: the last active administrator cannot be disabled (nobody could run the installation).
    assert.equal((await folio(['user:disable', '--email', 'cli@example.test'], env)).code, 0);
    const last = await folio(['user:disable', '--email', 'second-admin@example.test'], env);
    assert.equal(last.code, 1);
    assert.equal(last.err, 'folio: The last active administrator cannot be disabled.');
    assert.equal((await folio(['user:enable', '--email', 'cli@example.test'], env)).code, 0);
    const unknown = await folio(['user:token', '--email', 'nobody@example.test'], env);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.err, 'folio: no user with email nobody@example.test');
  });

  it('user:role gives, replaces and removes a role on a website by id or domain; user:roles lists them', async () => {
    const services = createServices(testConfig(database.url), { pgSchema: database.pgSchema });
    let websiteId: number;
    try {
      websiteId = await websiteWrites(services).create({ siteName: 'Roles', domain: 'roles.test' });
    } finally {
      await services.close();
    }
    const byDomain = await folio(
      ['user:role', '--email', 'cli@example.test', '--website', 'roles.test', '--role', 'editor'],
      env,
    );
    assert.deepEqual(
      [byDomain.code, byDomain.out],
      [0, `cli@example.test is editor on website #${websiteId}.`],
    );
    const byId = await folio(
      ['user:role', '--email', 'cli@example.test', '--website', String(websiteId), '--role', 'author'],
      env,
    );
    assert.equal(byId.code, 0, byId.err);
    const roles = JSON.parse((await folio(['user:roles', '--email', 'cli@example.test'], env)).out);
    assert.deepEqual(roles.roles, [{ website_id: websiteId, role: 'author' }]);
    assert.equal(roles.administrator, true);

    const badRole = await folio(
      ['user:role', '--email', 'cli@example.test', '--website', 'roles.test', '--role', 'owner'],
      env,
    );
    assert.equal(badRole.code, 1);
    assert.match(
      badRole.err,
      /^folio: (role: )?The selected role is invalid\. Roles: site_admin, editor, author/,
    );
    const badSite = await folio(
      ['user:role', '--email', 'cli@example.test', '--website', 'nowhere.test', '--role', 'editor'],
      env,
    );
    assert.deepEqual([badSite.code, badSite.err], [2, 'folio: no website nowhere.test']);
    const removed = await folio(
      ['user:role', '--email', 'cli@example.test', '--website', 'roles.test', '--role', 'none'],
      env,
    );
    assert.equal(removed.out, `cli@example.test no longer has a role on website #${websiteId}.`);
    assert.deepEqual(
      JSON.parse((await folio(['user:roles', '--email', 'cli@example.test'], env)).out).roles,
      [],
    );
  });

  it('comment:list shows held comments; comment:approve, comment:spam and comment:delete moderate them', async () => {
    const services = createServices(testConfig(database.url), { pgSchema: database.pgSchema });
    const ids: number[] = [];
    try {
      const postId = await insertPost(services.database.db, { title: 'Moderated' });
      for (const text of ['one', 'two']) {
        const now = new Date().toISOString();
        const row = await services.database.db
          .insertInto('comments')
          .values({ post_id: postId, content: text, status: 'pending', created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        ids.push(row.id);
      }
    } finally {
      await services.close();
    }
    const held = await folio(['comment:list', '--status', 'pending'], env);
    assert.deepEqual(
      held.out.split('\n').map((line) => JSON.parse(line).id),
      [ids[1], ids[0]],
    );
    assert.deepEqual(await folio(['comment:approve', String(ids[0])], env), {
      code: 0,
      out: `Approved: ${ids[0]}`,
      err: '',
    });
    const spam = await folio(['comment:spam', String(ids[1]), '999999'], env);
    assert.deepEqual(spam, { code: 1, out: `Marked as spam: ${ids[1]}`, err: 'folio: no comment 999999' });
    assert.equal((await folio(['comment:list', '--status', 'pending'], env)).out, '');
    assert.equal(
      (await folio(['comment:delete', String(ids[0]), String(ids[1])], env)).out,
      `Deleted: ${ids[0]}, ${ids[1]}`,
    );
    assert.equal((await folio(['comment:delete'], env)).code, 2);
    assert.equal((await folio(['comment:list', '--status', 'held'], env)).code, 2);
  });

  it('search:reindex rebuilds the search index and shows its progress', async () => {
    const services = createServices(testConfig(database.url), { pgSchema: database.pgSchema });
    let live: number;
    try {
      await insertPost(services.database.db, { title: 'Reindexed walnut' });
      live = await services.database.db
        .selectFrom('posts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('type', '=', 'post')
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow()
        .then((row) => Number(row.n));
    } finally {
      await services.close();
    }
    const result = await folio(['search:reindex'], env);
    assert.equal(result.code, 0, result.err);
    assert.match(result.out, new RegExp(`^Search index rebuilt: ${live} posts in \\d+\\.\\d s\\.$`));
    // Not a terminal: a line per tenth, the last one complete.
    assert.match(result.err, /^\s*0% 0\/\d+/);
    assert.match(result.err, new RegExp(`100% ${live}/${live}$`));
  });

  it('setting:set and setting:get', async () => {
    const set = await folio(['setting:set', 'svc_api_posts_index', 'on'], env);
    assert.equal(set.code, 0, set.err);
    const got = await folio(['setting:get', 'svc_api_posts_index'], env);
    assert.deepEqual([got.code, got.out], [0, 'on']);
    const unset = await folio(['setting:get', 'never_set'], env);
    assert.deepEqual([unset.code, unset.err], [1, 'folio: setting never_set is not set']);
    assert.equal((await folio(['setting:set', 'only_key'], env)).code, 2);
  });

  it('a bad environment or an unknown command stops with one clear line', async () => {
    const badPort = await folio(['migrate'], { ...env, PORT: 'eighty' });
    assert.deepEqual(
      [badPort.code, badPort.err],
      [1, 'folio: Invalid PORT: "eighty" is not a port number (1-65535)'],
    );
    const unknown = await folio(['frobnicate'], env);
    assert.deepEqual(
      [unknown.code, unknown.err],
      [2, 'folio: unknown command "frobnicate" (try: folio help)'],
    );
    const help = await folio(['help'], env);
    assert.match(help.out, /user:create --email E --name N --password P \[--admin\]/);
  });
});

describe('folio start (a real process)', () => {
  let database: TestDatabase;
  before(async () => (database = await createTestDatabase()));
  after(() => database.drop());

  it('installs on first start, prints a working admin token, serves, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev.ts', 'start'], {
      env: { ...process.env, DATABASE_URL: database.url, PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

    try {
      // Wait for the token line and a listening server (at most 30 s).
      const deadline = Date.now() + 30_000;
      let token: string | undefined;
      let health: Response | undefined;
      while (Date.now() < deadline && !health?.ok) {
        token ??= /api_token: (\S+)/.exec(output)?.[1];
        health = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        if (!health?.ok) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      token ??= /api_token: (\S+)/.exec(output)?.[1];
      assert.ok(token, `no token printed:\n${output}`);
      assert.match(output, /admin:\s+admin@localhost/);

      const response = await fetch(`http://127.0.0.1:${port}/api/v1/posts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_token: token }),
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { message: string; data: { data: Array<{ title: string }> } };
      assert.equal(body.message, 'Successfully fetched posts');
      // The first start adds a small sample (issue 7): three posts, newest first.
      assert.deepEqual(
        body.data.data.map((post) => post.title),
        ['Welcome to Folio', 'Themes, layouts and partials', 'Writing posts through the API'],
      );
      // The public site of the `localhost` website shows them (fetch cannot set Host: node:http can).
      const home = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/', headers: { host: `localhost:${port}` } }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          })
          .on('error', reject);
      });
      assert.equal(home.status, 200);
      assert.match(home.body, /Welcome to Folio/);
      // The URL the start prints, and the address it listens on, open the site too (issue 22, dead end 1).
      assert.match(
        output,
        new RegExp(
          `Site: http://localhost:${port}/ +Admin: http://localhost:${port}/admin +API: http://localhost:${port}/api/v2/docs`,
        ),
      );
      const byAddress = await fetch(`http://127.0.0.1:${port}/`);
      assert.equal(byAddress.status, 200);
      assert.match(await byAddress.text(), /Welcome to Folio/);

      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    } finally {
      child.kill('SIGKILL');
    }

    const installed = await folio(['setting:get', 'installed_at'], { DATABASE_URL: database.url });
    assert.equal(installed.code, 0);
    assert.match(installed.out, /^\d{4}-\d{2}-\d{2}T/);
  });
});
