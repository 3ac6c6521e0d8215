// The README's and the getting-started guide's curl examples work as written (issue 22 #4, issue 23,
// issue 36 #6): every `curl` line of the README's "Run it", docs/getting-started.md's "First ten
// minutes" and docs/api-v2.md's example runs against a live server, with only the token and the port
// put in.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { listen, servedContext } from '../support/browser.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const run = promisify(execFile);

/** The shell blocks of a document, or of its section `## title` (up to the next `## `). */
function shellBlocks(file: string, title?: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  let section = text;
  if (title !== undefined) {
    const start = text.indexOf(`## ${title}\n`);
    assert.ok(start >= 0, `${file} has a section ${title}`);
    const end = text.indexOf('\n## ', start + 4);
    section = text.slice(start, end === -1 ? undefined : end);
  }
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe('README examples', () => {
  let ctx: TestContext;
  let port: number;
  let admin: TestUser;

  before(async () => {
    ({ ctx, port } = await servedContext());
    await ctx.enableApi();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    const website = await websiteWrites(ctx.services).create({ siteName: 'Mine', domain: 'localhost' });
    admin = await ctx.createUser({ admin: true });
    await ctx.services.posts.create(
      { title: 'Welcome', content: '<p>x</p>', status: 'published', websiteIds: [website] },
      { userId: admin.id, isAdmin: true },
    );
    await listen(ctx, port);
  });
  after(() => ctx.close());

  /** Runs a block's commands one by one; answers what each printed. */
  async function runBlock(block: string): Promise<string[]> {
    const script = block
      .replace(/\\\n/g, ' ')
      .replaceAll('localhost:3000', `localhost:${port}`)
      .replaceAll('folio_…', admin.token)
      .split('\n')
      .filter((line) => line.trim() !== '');
    const outputs: string[] = [];
    let prelude = '';
    for (const line of script) {
      if (!line.trimStart().startsWith('curl')) {
        prelude += `${line}\n`;
        continue;
      }
      const { stdout } = await run('bash', ['-c', `${prelude}${line}`], { timeout: 10_000 });
      outputs.push(stdout);
    }
    return outputs;
  }

  it('Run it: the API v1 list and store examples', async () => {
    const [block] = shellBlocks('README.md', 'Run it').filter((text) => text.includes('curl'));
    const [list, store] = await runBlock(block!);
    assert.equal(JSON.parse(list!).status, 'success');
    const created = JSON.parse(store!);
    assert.equal(created.code, 200, store);
    assert.equal(created.data.title, 'Hello');
  });

  it('First ten minutes: pending comments, renaming the website, the audit log', async () => {
    const [block] = shellBlocks('docs/getting-started.md', 'First ten minutes');
    const [comments, renamed, audit] = await runBlock(block!);
    assert.deepEqual(JSON.parse(comments!).data, []);
    assert.equal(JSON.parse(renamed!).data.fields.site_name, 'My notebook');
    const entries = JSON.parse(audit!).data as Array<{ action: string }>;
    assert.equal(entries[0]?.action, 'website.update');
  });

  it('API v2: me, list, create (idempotent), and a stale PATCH answered 412', async () => {
    const [block] = shellBlocks('docs/api-v2.md');
    const [me, list, create, patch] = await runBlock(block!);
    assert.equal(JSON.parse(me!).data.id, admin.id);
    const page = JSON.parse(list!);
    assert.ok(page.data.length >= 1);
    assert.deepEqual(Object.keys(page.data[0]), ['id', 'title', 'status']);
    assert.equal(JSON.parse(create!).data.title, 'From API v2');
    assert.match(patch!, /^HTTP\/1\.1 412/);
    assert.match(patch!, /application\/problem\+json/);
  });
});
