// Per-request state kept on the request (issue 42): each slot is a property every request of the app
// is made with, empty; set and read within the request; never seen by another request.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { declareRequestSlots, requestSlot } from '../../src/http/request-slots.js';

describe('request slots', () => {
  it('hold one request’s value, empty on every new request, on a declared property', async () => {
    const slot = requestSlot<{ n: number }>('slotsTestValue');
    const app = Fastify();
    declareRequestSlots(app);
    assert.ok(app.hasRequestDecorator('folioSlotsTestValue'), 'declared on the app’s requests');
    let count = 0;
    app.get('/', async (request) => {
      const before = slot.get(request);
      slot.set(request, { n: ++count });
      const during = slot.get(request)?.n;
      slot.delete(request);
      return { before: before ?? null, during, after: slot.get(request) ?? null };
    });
    for (const n of [1, 2]) {
      const answer = (await app.inject({ url: '/' })).json();
      assert.deepEqual(answer, { before: null, during: n, after: null });
    }
    await app.close();
  });

  it('work on a request of an app that did not declare them', async () => {
    const slot = requestSlot<string>('slotsTestUndeclared');
    const app = Fastify();
    app.get('/', async (request) => {
      slot.set(request, 'kept');
      return { value: slot.get(request) };
    });
    assert.deepEqual((await app.inject({ url: '/' })).json(), { value: 'kept' });
    await app.close();
  });

  it('refuse a name given twice (two modules would share one request’s state)', () => {
    requestSlot('slotsTestTwice');
    assert.throws(() => requestSlot('slotsTestTwice'), /declared twice/);
  });
});
