// TRUST_PROXY: X-Forwarded-For gives the client address only when it comes from a trusted proxy,
// so rate limits count the real client behind a proxy and cannot be dodged by a forged header.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Config } from '../../src/config.js';
import { createTestContext } from '../support/harness.js';

async function clientAddress(trustProxy: Config['trustProxy'], remoteAddress: string): Promise<string> {
  const ctx = await createTestContext({
    config: { trustProxy },
    extend: (app) => {
      app.get('/test/ip', async (request) => ({ ip: request.ip }));
    },
  });
  try {
    const response = await ctx.request({
      method: 'GET',
      url: '/test/ip',
      remoteAddress,
      headers: { 'x-forwarded-for': '198.51.100.7' },
    });
    return response.json<{ ip: string }>().ip;
  } finally {
    await ctx.close();
  }
}

describe('client address behind a proxy (TRUST_PROXY)', () => {
  it('by default X-Forwarded-For is ignored: the connection is the client', async () => {
    assert.equal(await clientAddress(false, '203.0.113.5'), '203.0.113.5');
  });

  it('from a trusted proxy address or range, the forwarded client counts', async () => {
    assert.equal(await clientAddress(['10.0.0.0/8'], '10.1.2.3'), '198.51.100.7');
    assert.equal(await clientAddress(1, '10.1.2.3'), '198.51.100.7');
  });

  it('from an address outside the trusted ranges, the header is not believed', async () => {
    assert.equal(await clientAddress(['10.0.0.0/8'], '203.0.113.5'), '203.0.113.5');
  });
});
