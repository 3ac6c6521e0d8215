// The typed client of API v2 (issue 23 #5): its generated files are what the code generates now (a
// change of the API without `npm run client:generate` fails here), and its example runs against a
// live server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createFolioClient } from '../clients/typescript/index.js';
import { example } from '../clients/typescript/example.js';
import { generatedFiles } from '../scripts/openapi.js';
import { INSTALLED_SETTING } from '../src/domain/system/settings.js';
import { listen, servedContext } from './support/browser.js';
import type { TestContext } from './support/harness.js';
import { websiteWrites } from './support/website-writes.js';

describe('typed client (clients/typescript)', () => {
  let ctx: TestContext;
  let origin: string;
  let websiteId: number;

  before(async () => {
    let port: number;
    ({ ctx, port } = await servedContext());
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    websiteId = await websiteWrites(ctx.services).create({ siteName: 'Client', domain: 'localhost' });
    origin = `http://localhost:${(await listen(ctx, port)).port}`;
  });
  after(() => ctx.close());

  it('is up to date with the API (run npm run client:generate after changing it)', async () => {
    for (const [name, text] of Object.entries(await generatedFiles())) {
      const committed = fs.readFileSync(path.join('clients', 'typescript', name), 'utf8');
      assert.ok(committed === text, `clients/typescript/${name} is out of date: npm run client:generate`);
    }
  });

  it('runs its example against a live server', async () => {
    const writer = await ctx.createUser();
    await ctx.services.memberships.grant(writer.id, websiteId, 'author');
    const { secret } = await ctx.services.apiKeys.create(writer.id, { name: 'example' });
    const result = await example(createFolioClient(origin, secret));
    assert.equal(result.user, writer.email);
    assert.deepEqual(result.drafts, ['Written with the typed client']);
    assert.equal((await ctx.services.posts.findDetail(result.draftId))?.status, 'pending');
  });
});
