// The sample content of a fresh installation teaches what works (issue 34 #21): the post "Writing
// posts through the API" shows a curl command that, run as written (only the token and the port put
// in), creates a post; and the sample points at the admin panel, not at the API alone.
import { faceServices } from '../../src/services.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { load } from 'cheerio';
import { installIfNeeded } from '../../src/setup/install.js';
import { listen, servedContext } from '../support/browser.js';
import type { TestContext } from '../support/harness.js';

const run = promisify(execFile);

describe('sample content', () => {
  let ctx: TestContext;
  let port: number;
  let token: string;

  before(async () => {
    ({ ctx, port } = await servedContext());
    const installation = await installIfNeeded(faceServices(ctx.services));
    assert.ok(installation);
    token = installation.apiToken;
    await listen(ctx, port);
  });
  after(() => ctx.close());

  const sample = async (title: string) => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts',
      payload: { api_token: token, keywords: title },
    });
    const posts = response.json().data.data as Array<{ title: string; slug: string }>;
    const post = posts.find((candidate) => candidate.title === title);
    assert.ok(post, `the sample post ${title}`);
    const shown = await ctx.request({
      method: 'GET',
      url: `/post/${post.slug}`,
      headers: { host: 'localhost' },
    });
    assert.equal(shown.statusCode, 200);
    return load(shown.body)('main').first();
  };

  it('issue 34 #21: "Writing posts through the API" shows a curl that creates a post, and the admin panel', async () => {
    const main = await sample('Writing posts through the API');
    const command = main.find('pre code').text();
    assert.match(command, /\/api\/v1\/posts\/store\b/);
    assert.ok(main.find('a[href="/admin"]').length > 0, 'a link to the admin panel');

    const line = command
      .replace(/\\\n/g, ' ')
      .replaceAll('localhost:3000', `localhost:${port}`)
      .replaceAll('"…"', JSON.stringify(token));
    const { stdout } = await run('bash', ['-c', line], { timeout: 10_000 });
    const created = JSON.parse(stdout) as { code: number; data: { title: string; content: string } };
    assert.equal(created.code, 200, stdout);
    assert.equal(created.data.title, 'Hello');
    assert.match(created.data.content, /<p>My first post<\/p>/);
  });

  it('issue 34 #21: the sample says to change it in the admin panel, not through the API only', async () => {
    const main = await sample('Welcome to Folio');
    const text = main.text().replace(/\s+/g, ' ');
    assert.match(text, /admin panel/);
    assert.ok(main.find('a[href="/admin"]').length > 0);
    assert.doesNotMatch(text, /change it, or delete it, through the API/);
  });
});
