// `folio job:list` and `folio job:retry` (issue 38): administrators see failed jobs with their error
// and put them back in the queue.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { folio } from './support/cli.js';
import { createServices } from '../src/services.js';
import { createTestDatabase, testConfig } from './support/harness.js';
import type { TestDatabase } from './support/harness.js';

describe('folio job:list and job:retry', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
    assert.equal((await folio(['migrate'], env)).code, 0);
  });
  after(() => database.drop());

  it('lists a failed job with its error and retries it', async () => {
    const services = createServices(testConfig(database.url), { pgSchema: database.pgSchema });
    let id: number;
    try {
      services.jobs.work('cli-test', async () => {
        throw new Error('target answered 500');
      });
      id = (await services.jobs.enqueue('cli-test', { hello: 1 }, { maxAttempts: 1 }))!;
      await services.jobs.runDue();
    } finally {
      await services.close();
    }
    const failed = await folio(['job:list', '--status', 'failed'], env);
    assert.equal(failed.code, 0, failed.err);
    const job = JSON.parse(failed.out) as { id: number; status: string; lastError: string };
    assert.equal(job.id, id);
    assert.equal(job.lastError, 'target answered 500');
    const retried = await folio(['job:retry', '--id', String(id)], env);
    assert.equal(retried.code, 0, retried.err);
    assert.equal((await folio(['job:list', '--status', 'failed'], env)).out, '');
    assert.equal(JSON.parse((await folio(['job:list', '--status', 'queued'], env)).out).id, id);
    const missing = await folio(['job:retry', '--id', '999999'], env);
    assert.notEqual(missing.code, 0);
    const bad = await folio(['job:list', '--status', 'nope'], env);
    assert.notEqual(bad.code, 0);
  });
});
