// What a test needs from the machine (a Redis server, Debian's Chromium, xmllint): on a contributor's machine a
// missing one skips the tests that need it, with the reason; in CI (FOLIO_TEST_REQUIRE_ALL=1, set by
// .ci/run) it fails them instead, so CI always runs everything.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';

export const requireAll = process.env.FOLIO_TEST_REQUIRE_ALL === '1';

/** The `skip` option of a test that needs something: false when it is there. */
export function skipUnless(available: boolean, reason: string): string | false {
  if (available) return false;
  if (requireAll) throw new Error(`${reason}, and FOLIO_TEST_REQUIRE_ALL=1 requires it`);
  return reason;
}

/** The Redis server the cache tests use (TEST_REDIS_URL, else the local default). */
export const cacheTestRedisUrl = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/**
 * Whether a Redis server answers at `url`. A server that is not there refuses the connection at once;
 * the timeout is only for one that never answers, and is generous: the fast lane's files are imported
 * several to a process (scripts/test.mjs), so while one file awaits this at its top level the others'
 * modules are being loaded on the same thread, and a 1 s timer fired before the connection's answer
 * was read (a cache test file failed so, Redis up).
 */
export async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 10_000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Whether the redis-server binary is there (tests that start and stop a private Redis). */
export const redisServerInstalled = spawnSync('redis-server', ['--version']).status === 0;

/** Debian's xmllint (package libxml2-utils): the XML checks of feeds and sitemaps. */
export const XMLLINT_PATH = '/usr/bin/xmllint';
export const xmllintInstalled = fs.existsSync(XMLLINT_PATH);

/**
 * Runs an xmllint check as a subtest of `t`: where xmllint is missing it is skipped with the reason
 * (the test's other assertions still run); under FOLIO_TEST_REQUIRE_ALL=1 the missing xmllint fails
 * the test instead.
 */
export async function withXmllint(t: TestContext, name: string, check: () => void): Promise<void> {
  const skip = skipUnless(
    xmllintInstalled,
    'xmllint is not installed (Debian: apt-get install libxml2-utils)',
  );
  await t.test(`${name} (xmllint)`, { skip }, check);
}
