// `folio webhook:list` and `folio webhook:test ID` (issue 38): the operator lists every webhook without
// its secret, with why one was disabled, and sends a test event (exit 1 when the receiver fails).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { folio } from './support/cli.js';
import { INSTALLATION_OPERATOR } from '../src/domain/policy.js';
import { WEBHOOK_ALLOWED_HOSTS_SETTING } from '../src/domain/webhooks/index.js';
import { createServices } from '../src/services.js';
import { createTestDatabase, testConfig } from './support/harness.js';
import type { TestDatabase } from './support/harness.js';
import { websiteWrites } from './support/website-writes.js';

describe('folio webhook:list and webhook:test', () => {
  let database: TestDatabase;
  let env: Record<string, string>;
  let status = 200;
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(status).end('seen');
    });
  });
  before(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent' };
    assert.equal((await folio(['migrate'], env)).code, 0);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await database.drop();
  });

  it('lists webhooks without secrets and sends a test event', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
    const services = createServices(testConfig(database.url), { pgSchema: database.pgSchema });
    let id: number;
    let secret: string;
    try {
      const site = await websiteWrites(services).create({ siteName: 'Cli', domain: 'cli.test' });
      ({ id, secret } = await services.webhooks.create(INSTALLATION_OPERATOR, site, {
        url,
        events: ['post.published'],
      }));
      await services.webhooks.create(INSTALLATION_OPERATOR, null, { url, events: ['user.registered'] });
      await services.settings.set(WEBHOOK_ALLOWED_HOSTS_SETTING, '127.0.0.1');
    } finally {
      await services.close();
    }
    const listed = await folio(['webhook:list'], env);
    assert.equal(listed.code, 0, listed.err);
    const lines = listed.out.split('\n').map((line) => JSON.parse(line) as { id: number; url: string });
    assert.equal(lines.length, 2);
    assert.equal(lines[0]!.id, id);
    assert.equal(listed.out.includes(secret), false, 'never the secret');
    assert.equal((await folio(['webhook:list', '--website', 'cli.test'], env)).out.split('\n').length, 1);

    const tested = await folio(['webhook:test', String(id)], env);
    assert.equal(tested.code, 0, tested.err);
    assert.equal(JSON.parse(tested.out).statusCode, 200);
    assert.equal(JSON.parse(bodies[0]!).event, 'webhook.test');
    status = 500;
    const failing = await folio(['webhook:test', String(id)], env);
    assert.equal(failing.code, 1);
    assert.match(failing.err, /HTTP 500/);
    assert.equal((await folio(['webhook:test', 'abc'], env)).code, 2);
    assert.equal((await folio(['webhook:test', '999999'], env)).code, 1);
  });
});
