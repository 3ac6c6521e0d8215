// Graceful stop: a request in flight when the app starts closing finishes, and its keep-alive
// connection is closed after it (Connection: close), so close() does not wait on idle sockets.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { createTestContext } from '../support/harness.js';

describe('graceful stop', () => {
  it('a response in flight during close() carries Connection: close and close() completes', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const ctx = await createTestContext({
      extend: (app) => {
        app.get('/test/slow', async () => {
          arrived();
          await released;
          return { ok: true };
        });
      },
    });
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = ctx.app.server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true });
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/test/slow', agent }, resolve).on('error', reject);
    });
    await arrival;
    const closing = ctx.app.close();
    // Let close() reach the server (it stops listening) before the response goes out.
    while (ctx.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
    release();
    const answer = await response;
    answer.resume();
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.headers.connection, 'close');
    await closing; // resolves once the last connection is gone
    agent.destroy();
    await ctx.services.close();
    await ctx.database.drop();
  });
});
