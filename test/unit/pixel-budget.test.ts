// Issue 34 #8: image work is bounded by its pixels as well as by its count, so two images of the
// largest size are never decoded at once (each holds a few hundred MB while it converts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { PixelBudget } from '../../src/lib/pixel-budget.js';
import { MAX_IMAGE_PIXELS, imageWork } from '../../src/domain/media/files.js';
import { createTestContext } from '../support/harness.js';

/** A job that runs until its gate is opened, recording when it started. */
function gated(log: string[], name: string) {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    open: () => open(),
    job: async () => {
      log.push(`start ${name}`);
      await gate;
      log.push(`end ${name}`);
      return name;
    },
  };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('issue 34 #8: image work by pixels', () => {
  it('issue 34 #8: two images of the largest size run one after the other; small ones run together', async () => {
    const budget = new PixelBudget(40, 2);
    const log: string[] = [];
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => gated(log, name));
    const first = budget.run(40, a!.job);
    const second = budget.run(40, b!.job);
    await settle();
    assert.deepEqual(log, ['start a']);
    assert.deepEqual(budget.load, { running: 1, waiting: 1, pixels: 40 });
    a!.open();
    assert.equal(await first, 'a');
    await settle();
    assert.deepEqual(log, ['start a', 'end a', 'start b']);
    b!.open();
    await second;
    // Two of half the size run together; a third waits for a job slot, in its turn.
    const smallOne = budget.run(20, c!.job);
    const smallTwo = budget.run(20, d!.job);
    const header = budget.run(0, async () => 'header');
    await settle();
    assert.deepEqual(budget.load, { running: 2, waiting: 1, pixels: 40 });
    c!.open();
    d!.open();
    assert.deepEqual(await Promise.all([smallOne, smallTwo, header]), ['c', 'd', 'header']);
    assert.deepEqual(budget.load, { running: 0, waiting: 0, pixels: 0 });
  });

  it('issue 34 #8: a big job is not starved by small ones behind it, and a failed job frees its pixels', async () => {
    const budget = new PixelBudget(40, 2);
    const log: string[] = [];
    const small = gated(log, 'small');
    const running = budget.run(10, small.job);
    const big = budget.run(40, async () => 'big');
    const later = budget.run(10, async () => 'later');
    await settle();
    // `later` would fit beside `small`, but `big` came first.
    assert.deepEqual(budget.load, { running: 1, waiting: 2, pixels: 10 });
    small.open();
    assert.deepEqual(await Promise.all([running, big, later]), ['small', 'big', 'later']);
    await assert.rejects(budget.run(40, () => Promise.reject(new Error('broken image'))));
    assert.equal(await budget.run(40, async () => 'after'), 'after');
  });

  it('issue 34 #8: the media service weighs each conversion by all the frames of the image', async () => {
    const frame = (background: string) =>
      sharp({ create: { width: 40, height: 30, channels: 3, background } })
        .png()
        .toBuffer();
    const gif = await sharp(await Promise.all([frame('#ff0000'), frame('#00ff00'), frame('#0000ff')]), {
      join: { animated: true },
    })
      .gif()
      .toBuffer();
    const weights: number[] = [];
    const run = imageWork.run.bind(imageWork);
    imageWork.run = (pixels, job) => {
      weights.push(pixels);
      return run(pixels, job);
    };
    const ctx = await createTestContext();
    try {
      assert.equal((await ctx.services.media.inspect(gif)).pixels, 40 * 30 * 3);
      const stored = await ctx.services.media.storeLibraryImage(gif);
      assert.equal(stored.variants.length, 1, 'a same-size WebP copy');
      // The header read weighs nothing; the conversion weighs the three frames.
      assert.deepEqual(weights, [0, 0, 40 * 30 * 3]);
    } finally {
      imageWork.run = run;
      await ctx.close();
    }
    assert.equal(imageWork.capacity, MAX_IMAGE_PIXELS);
  });
});
