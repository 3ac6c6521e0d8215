// ScopedStorage (src/lib/scoped-storage.ts): an AsyncLocalStorage whose hooks are off while no scope is
// open (issue 42: on Node.js 20 they made every promise of every request dearer after the first write).
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { ScopedStorage } from '../../src/lib/scoped-storage.js';

describe('ScopedStorage', () => {
  it('gives a scope its store through every await, and none outside', async () => {
    const storage = new ScopedStorage<{ name: string }>();
    assert.equal(storage.getStore(), undefined);
    const seen = await storage.run({ name: 'a' }, async () => {
      await tick();
      const inner = await Promise.all([1, 2].map(async () => (await tick(), storage.getStore()?.name)));
      return [storage.getStore()?.name, ...inner];
    });
    assert.deepEqual(seen, ['a', 'a', 'a']);
    assert.equal(storage.getStore(), undefined);
  });

  it('keeps overlapping scopes apart, and one ending leaves the other its store', async () => {
    const storage = new ScopedStorage<string>();
    let releaseSecond!: () => void;
    const secondMayEnd = new Promise<void>((resolve) => (releaseSecond = resolve));
    const second = storage.run('second', async () => {
      await secondMayEnd;
      await tick();
      return storage.getStore();
    });
    assert.equal(await storage.run('first', async () => (await tick(), storage.getStore())), 'first');
    releaseSecond();
    assert.equal(await second, 'second');
  });

  it('turns its AsyncLocalStorage off once the last scope ends, and on again for the next', async (t) => {
    const storage = new ScopedStorage<string>();
    // Node.js 20's AsyncLocalStorage says whether it is enabled (its hooks on) in a field of its own.
    const enabled = () => (storage as unknown as { storage: { enabled?: boolean } }).storage.enabled;
    if (enabled() === undefined)
      return t.skip('this Node.js keeps no `enabled` field (no async hooks to turn off)');
    assert.equal(enabled(), false);
    let inside: boolean | undefined;
    const outer = storage.run('outer', async () => {
      await storage.run('inner', async () => tick());
      inside = enabled(); // the inner scope ended, the outer one is still open
      await tick();
    });
    await outer;
    assert.equal(inside, true);
    assert.equal(enabled(), false);
    await storage.run('again', async () => assert.equal(enabled(), true));
    assert.equal(enabled(), false);
  });

  it('a continuation that outlives its scope finds no store once no scope is open', async () => {
    const storage = new ScopedStorage<string>();
    let later!: Promise<string | undefined>;
    await storage.run('short', async () => {
      later = (async () => {
        await tick();
        await tick();
        return storage.getStore();
      })();
    });
    assert.equal(await later, undefined);
  });
});
