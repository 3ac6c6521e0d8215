import { randomBytes } from 'node:crypto';
import { RedisCache } from '../../src/cache/redis-cache.js';

/**
 * Two cache nodes on one Redis under a prefix of their own (what two Folio processes share), closed
 * when `run` ends, whether it passes or fails.
 */
export async function withTwoRedisNodes(
  url: string,
  run: (nodeA: RedisCache, nodeB: RedisCache) => Promise<void>,
): Promise<void> {
  const prefix = `folio-test:${randomBytes(6).toString('hex')}:`;
  const nodeA = new RedisCache({ url, prefix, warn: () => undefined });
  const nodeB = new RedisCache({ url, prefix, warn: () => undefined });
  try {
    await run(nodeA, nodeB);
  } finally {
    await nodeA.close();
    await nodeB.close();
  }
}
