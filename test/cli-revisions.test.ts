// `folio post:revisions ID` (issue 37 #4): a post's revisions, newest first, as JSON lines, paged;
// a bad page or an unknown post is a clear error and a non-zero exit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { folio } from './support/cli.js';
import { INSTALLATION_OPERATOR } from '../src/domain/policy.js';
import { createServices } from '../src/services.js';
import { createTestDatabase, testConfig } from './support/harness.js';
import type { TestDatabase } from './support/harness.js';
import { websiteWrites } from './support/website-writes.js';

describe('folio post:revisions', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let postId: number;
  let siteId: number;
  before(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
    assert.equal((await folio(['migrate'], env)).code, 0);
    const services = createServices(testConfig(database.url), { pgSchema: database.pgSchema });
    try {
      const site = await websiteWrites(services).create({ siteName: 'Site', domain: 'site.test' });
      siteId = site;
      const post = await services.postOps.create(INSTALLATION_OPERATOR, {
        title: 'One',
        content: 'Body',
        website_id: site,
      });
      postId = post.id;
      for (const title of ['Two', 'Three']) {
        await services.postOps.update(INSTALLATION_OPERATOR, String(post.id), { title });
      }
    } finally {
      await services.close();
    }
  });
  after(() => database.drop());

  it('prints the revisions newest first, one JSON line each, with the surface', async () => {
    const all = await folio(['post:revisions', String(postId)], env);
    assert.equal(all.code, 0, all.err);
    const rows = all.out
      .split('\n')
      .map((line) => JSON.parse(line) as { post_id: number; action: string; surface: string });
    assert.deepEqual(
      rows.map((row) => row.action),
      ['post.update', 'post.update', 'post.create'],
    );
    assert.ok(rows.every((row) => row.post_id === postId));
    const paged = await folio(['post:revisions', String(postId), '--per-page', '2', '--page', '2'], env);
    assert.equal(paged.code, 0, paged.err);
    assert.equal(paged.out.split('\n').length, 1);
    assert.equal((JSON.parse(paged.out.split('\n')[0]!) as { action: string }).action, 'post.create');
    const first = await folio(['post:revisions', String(postId), '--per-page', '2'], env);
    assert.match(first.err, /next: --page 2/);
  });

  it("a save through the CLI keeps a revision too: post:approve, recorded as the command line's", async () => {
    const services = createServices(testConfig(database.url), { pgSchema: database.pgSchema });
    let pendingId: number;
    try {
      const draft = await services.postOps.create(INSTALLATION_OPERATOR, {
        title: 'Waiting',
        content: 'For review',
        website_id: siteId,
        status: 'draft',
      });
      pendingId = (await services.postOps.submit(INSTALLATION_OPERATOR, String(draft.id))).id;
    } finally {
      await services.close();
    }
    const approved = await folio(['post:approve', String(pendingId)], env);
    assert.equal(approved.code, 0, approved.err);
    const listed = await folio(['post:revisions', String(pendingId)], env);
    assert.equal(listed.code, 0, listed.err);
    const newest = JSON.parse(listed.out.split('\n')[0]!) as {
      action: string;
      surface: string;
      status: string;
    };
    assert.deepEqual([newest.action, newest.surface, newest.status], ['post.approve', 'cli', 'published']);
  });

  it('refuses a bad page, an unknown post and a missing id', async () => {
    const bad = await folio(['post:revisions', String(postId), '--page', 'zero'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /page/);
    const unknown = await folio(['post:revisions', '999999'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /Post not found/);
    const missing = await folio(['post:revisions'], env);
    assert.equal(missing.code, 2);
  });
});
