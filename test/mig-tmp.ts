import { createTestContext } from './support/harness.js';
for (let i = 0; i < 4; i++) {
  const t = performance.now();
  const ctx = await createTestContext();
  const t2 = performance.now();
  await ctx.close();
  console.log(`context ${(t2 - t).toFixed(0)} ms, close ${(performance.now() - t2).toFixed(0)} ms`);
}
