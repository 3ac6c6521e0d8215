// docs/api-v1.md works as written (issue 22 #3): on a fresh install (the first start's own install
// routine, so ids and sample content are what a new user has), every `curl` line of its shell blocks
// runs in order against a live server, with only the token and the port put in, and must answer 2xx
// with `status: success`. Every API v1 route must have an example. The update trigger runs over a
// stand-in package manager: the test never runs npm in the checkout. The README's quickstart runs first,
// as a new user's would (issue 36 #10): the document's examples must not clash with its post.
import { faceServices } from '../../src/services.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { PackageManager } from '../../src/domain/system/updates.js';
import { installIfNeeded } from '../../src/setup/install.js';
import { listen, servedContext } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';

const run = promisify(execFile);
const DOC = 'docs/api-v1.md';

/** Every API v1 route (method set, path pattern): each needs at least one example. */
const ROUTES = [
  '/posts',
  '/posts/store',
  '/posts/update/:slug',
  '/posts/delete/:slug',
  '/posts/:slug',
  '/tags',
  '/tags/exist',
  '/tags/store',
  '/menus',
  '/menus/store',
  '/menus/sync',
  '/menus/:id',
  '/websites',
  '/websites/store',
  '/websites/update/:id',
  '/websites/delete/:id',
  '/websites/add-domain',
  '/websites/remove-domain',
  '/websites/:id',
  '/pages',
  '/pages/store',
  '/pages/:id',
  '/update',
  '/update/progress',
];

/** The route a path answers on (static segments win, as in the router). */
function routeOf(pathname: string): string | undefined {
  const rest = pathname.replace(/^\/api\/v1/, '');
  if (ROUTES.includes(rest)) return rest;
  return ROUTES.find((route) => {
    const pattern = new RegExp(`^${route.replace(/:[a-z]+/g, '[^/]+')}$`);
    return route.includes(':') && pattern.test(rest);
  });
}

/** The curl commands of a document's shell blocks, continuation lines joined, in order. */
function curlCommands(file = DOC): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((match) =>
    match[1]!
      .replace(/\\\n/g, ' ')
      .split('\n')
      .filter((line) => line.trimStart().startsWith('curl')),
  );
}

const stubPackages: PackageManager = {
  install: async () => undefined,
  publishAssets: async () => 0,
  installedVersion: async () => '9.9.9',
};

describe('docs/api-v1.md examples', () => {
  let ctx: TestContext;
  let port: number;
  let token: string;
  let workDir: string;

  before(async () => {
    ({ ctx, port } = await servedContext({
      packageManager: stubPackages,
      config: { releasePackage: 'folio-release-test' },
    }));
    const installation = await installIfNeeded(faceServices(ctx.services));
    assert.ok(installation);
    token = installation.apiToken;
    // The picture the multipart example uploads, in the directory the commands run in.
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-docs-'));
    await sharp({ create: { width: 64, height: 48, channels: 3, background: '#3a6ea5' } })
      .jpeg()
      .toFile(path.join(workDir, 'photo.jpg'));
    await listen(ctx, port);
  });
  after(async () => {
    await ctx.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  it('is linked from the README', () => {
    assert.match(fs.readFileSync('README.md', 'utf8'), /\(docs\/api-v1\.md\)/);
  });

  it('has an example of every API v1 route', () => {
    const covered = new Set(
      curlCommands().flatMap((command) => {
        const url = /(?:^|\s|')localhost:3000(\/api\/v1\/[^\s'?]*)/.exec(command)?.[1];
        const route = url === undefined ? undefined : routeOf(url);
        return route ? [route] : [];
      }),
    );
    assert.deepEqual(
      ROUTES.filter((route) => !covered.has(route)),
      [],
    );
  });

  it('every curl example answers 2xx with status success, in the order written, after the README', async () => {
    const commands = curlCommands();
    assert.ok(commands.length >= 30, `${commands.length} examples`);
    // The quickstart's API v1 examples run here; the README's others (API v2 transfers on a deployed
    // site, with a key) are shapes, not runnable on this test's server.
    const quickstart = curlCommands('README.md').filter((command) =>
      command.includes('localhost:3000/api/v1'),
    );
    assert.equal(quickstart.length, 2, 'the README lists the posts and writes one');
    for (const written of [...quickstart, ...commands]) {
      const command = written.replaceAll('localhost:3000', `localhost:${port}`).replaceAll('folio_…', token);
      const { stdout } = await run('bash', ['-c', `${command} -w '\\n%{http_code}'`], {
        cwd: workDir,
        timeout: 15_000,
      });
      const at = stdout.lastIndexOf('\n');
      const status = Number(stdout.slice(at + 1));
      const body = stdout.slice(0, at);
      assert.ok(status >= 200 && status < 300, `${written}\n=> ${status} ${body}`);
      const parsed = JSON.parse(body) as { status?: unknown };
      assert.equal(parsed.status, 'success', `${written}\n=> ${body}`);
      if (process.env.SHOW_DOC_ANSWERS)
        console.log(`${written.slice(0, 110)}\n  => ${status} ${body.slice(0, 300)}`);
    }
  });

  it('left the install as the examples say', async () => {
    const posts = await ctx.services.database.db
      .selectFrom('posts')
      .select(['slug', 'title', 'status', 'thumbnail', 'deleted_at'])
      .execute();
    const example = posts.find((post) => post.slug === 'api-v1-example');
    assert.equal(example?.title, 'Written again', 'updated');
    assert.ok(example?.deleted_at, 'then deleted');
    const readmePost = posts.find((post) => post.slug === 'hello');
    assert.equal(readmePost?.title, 'Hello', 'the README quickstart post is left as it was');
    assert.equal(readmePost?.deleted_at, null);
    const later = await ctx.services.database.db
      .selectFrom('posts')
      .select('published_at')
      .where('slug', '=', 'later')
      .executeTakeFirstOrThrow();
    assert.match(new Date(later.published_at!).toISOString(), /^2099-01-01T09:00/);
    assert.ok(posts.find((post) => post.slug === 'with-a-picture')?.thumbnail, 'the upload is the thumbnail');
    assert.equal(await ctx.services.websites.find(2), null, 'the example website was deleted');
  });
});
