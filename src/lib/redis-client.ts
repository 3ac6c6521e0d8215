// A Redis client, with ioredis loaded on the first call: a node without REDIS_URL (the embedded SQLite
// default, one process) never loads it, and keeps the ~7 MB its modules take (issue 42, memory).
import { createRequire } from 'node:module';
import type * as IORedis from 'ioredis';
import type { Redis, RedisOptions } from 'ioredis';

const require = createRequire(import.meta.url);

export function newRedis(url: string, options: RedisOptions): Redis {
  const ioredis = require('ioredis') as typeof IORedis;
  return new ioredis.Redis(url, options);
}
