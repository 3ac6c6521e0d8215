// The README's signature check (issue 38) works as written: its TypeScript block, taken from the
// README, accepts a delivery Folio signs and refuses a changed body, another secret and an old one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, mock } from 'node:test';
import { tsImport } from 'tsx/esm/api';
import { newWebhookSecret, webhookHeaders } from '../../src/jobs/standard-webhooks.js';

type Verify = (secret: string, headers: Record<string, string>, body: string) => unknown;

async function readmeVerifier(): Promise<Verify> {
  const readme = fs.readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## Webhooks\n'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'the README has a TypeScript block under Webhooks');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-readme-'));
  const file = path.join(dir, 'verify.ts');
  fs.writeFileSync(file, block);
  // tsx's API, whether or not this test itself was loaded through tsx.
  const module = (await tsImport(file, import.meta.url)) as { verifyFolioWebhook: Verify };
  return module.verifyFolioWebhook;
}

describe('README: checking a webhook signature', () => {
  it('accepts what Folio signs, refuses a changed body, another secret and an old delivery', async () => {
    const verify = await readmeVerifier();
    const secret = newWebhookSecret();
    const body = '{"event":"post.published","resource":{"id":1}}';
    const headers = webhookHeaders(secret, 'msg_1_2', new Date(), body);
    assert.deepEqual(verify(secret, headers, body), { event: 'post.published', resource: { id: 1 } });
    assert.throws(() => verify(secret, headers, body.replace('1}', '2}')), /bad signature/);
    assert.throws(() => verify(newWebhookSecret(), headers, body), /bad signature/);
    const old = webhookHeaders(secret, 'msg_1_2', new Date(Date.now() - 3_600_000), body);
    assert.throws(() => verify(secret, old, body), /too old/);
    // The specification's test vector, at its own time.
    const vector = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    const vectorSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    assert.throws(() => verify(vectorSecret, vector, '{"test": 2432232314}'), /too old/);
    mock.method(Date, 'now', () => 1614265330_000);
    try {
      assert.deepEqual(verify(vectorSecret, vector, '{"test": 2432232314}'), { test: 2432232314 });
      assert.throws(() => verify(vectorSecret, vector, '{"test": 2432232315}'), /bad signature/);
    } finally {
      mock.restoreAll();
    }
  });
});
