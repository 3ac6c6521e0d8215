// Test harness: a fresh, migrated database per test file, on SQLite (default) or on the PostgreSQL
// named by TEST_DATABASE_URL, isolated in a schema of its own; and the real app built over it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig, parseDatabaseUrl } from '../../src/config.js';
import type { Config } from '../../src/config.js';
import { migrate } from '../../src/db/database.js';
import type { Clock } from '../../src/domain/clock.js';
import { UpdateStepError } from '../../src/domain/system/updates.js';
import type { PackageManager } from '../../src/domain/system/updates.js';
import { ENDPOINT_SWITCHES, GLOBAL_SWITCH } from '../../src/domain/system/api-switches.js';
import { createServices } from '../../src/services.js';
import type { Services } from '../../src/services.js';

export const usingPostgres = (process.env.TEST_DATABASE_URL ?? '').startsWith('postgres');

/** A database of its own for one test file: its URL (for the CLI and other processes) and clean-up. */
export interface TestDatabase {
  url: string;
  /** For createServices: the PostgreSQL schema, if any. */
  pgSchema?: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  if (base && usingPostgres) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    // pg_trgm (the search index, migration 0040) once in `public`: created by a test's migration it
    // would live in that test's schema, and dropping the schema (CASCADE) would take the extension and
    // every other running test's trigram index with it.
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public').catch((error: Error) => {
      if (!/already exists|duplicate key/.test(error.message)) throw error;
    });
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    const url = new URL(base);
    url.searchParams.set('options', `-c search_path=${schema}`);
    return {
      url: url.toString(),
      pgSchema: schema,
      async drop() {
        const client = new pg.Client({ connectionString: base });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-test-'));
  return {
    url: `sqlite:${path.join(dir, 'folio.sqlite')}`,
    drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** The Redis server of the PostgreSQL run (production's pair); the SQLite run uses the memory cache. */
export const testRedisUrl = process.env.TEST_REDIS_URL || undefined;

export function testConfig(databaseUrl: string, overrides: Partial<Config> = {}): Config {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'silent',
    APP_URL: 'http://folio.test',
    REDIS_URL: testRedisUrl,
  });
  return { ...config, database: parseDatabaseUrl(databaseUrl), ...overrides };
}

export interface TestContext {
  app: FastifyInstance;
  services: Services;
  database: TestDatabase;
  /** Sends a request through the real app; `json()` of the answer is typed loosely on purpose. */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** A new user with a token; admin when asked. */
  createUser(options?: { admin?: boolean; email?: string; password?: string }): Promise<TestUser>;
  /** Turns the API and every endpoint switch on, as a first start does. */
  enableApi(): Promise<void>;
  close(): Promise<void>;
}

export interface TestUser {
  id: number;
  email: string;
  password: string;
  token: string;
}

export interface ContextOptions {
  config?: Partial<Config>;
  clock?: Clock;
  /** Adds routes to the app before it is ready (tests of the error handling). */
  extend?: (app: FastifyInstance, services: Services) => void | Promise<void>;
  /** What updates install with; by default none, so that no test ever runs npm in the checkout. */
  packageManager?: PackageManager;
}

let userCounter = 0;

const noPackageManager: PackageManager = {
  install: () => Promise.reject(new UpdateStepError('no package manager in this test')),
  publishAssets: () => Promise.reject(new UpdateStepError('no package manager in this test')),
  installedVersion: () => Promise.reject(new UpdateStepError('no package manager in this test')),
};

export async function createTestContext(options: ContextOptions = {}): Promise<TestContext> {
  const database = await createTestDatabase();
  // Media go to a directory of this test file, removed on close. It is one level down: what Folio
  // keeps beside the media directory (backups, import uploads, export archives) stays this test's too.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-media-'));
  const mediaDir = path.join(root, 'media');
  fs.mkdirSync(mediaDir);
  const config = testConfig(database.url, { mediaDir, ...options.config });
  const services = createServices(config, {
    pgSchema: database.pgSchema,
    clock: options.clock,
    cachePrefix: `folio-test:${randomBytes(6).toString('hex')}:`,
    // The suite runs test files in parallel beside PostgreSQL, Redis and Chromium: a cache command
    // slowed past 1 s would count as Redis being away and make cached-read tests flaky.
    cacheCommandTimeoutMs: 5000,
    warn: () => undefined,
    packageManager: options.packageManager ?? noPackageManager,
  });
  await migrate(services.database);
  const app = await buildApp(services, { logger: false });
  await options.extend?.(app, services);
  await app.ready();

  return {
    app,
    services,
    database,
    request: (injectOptions) => app.inject(injectOptions),
    async createUser({ admin = false, email, password = 'correct horse battery' } = {}) {
      userCounter += 1;
      const address = email ?? `user${userCounter}-${randomBytes(3).toString('hex')}@example.test`;
      const user = await services.users.create({
        name: `User ${userCounter}`,
        email: address,
        password,
        isAdmin: admin,
      });
      return { id: user.id, email: address, password, token: await services.users.issueToken(user.id) };
    },
    async enableApi() {
      const switches: Record<string, string> = { [GLOBAL_SWITCH]: '1' };
      for (const key of ENDPOINT_SWITCHES) switches[key] = '1';
      await services.settings.setMany(switches);
    },
    async close() {
      await app.close();
      await services.close();
      await database.drop();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** An `extend` that names each answer's route in `x-test-route-name` (tests of the R-F1 names). */
export function exposeRouteNames(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-test-route-name', request.routeOptions.config.name ?? '');
  });
}

/** A clock that tests move by hand. */
export function manualClock(
  start = new Date('2026-01-01T00:00:00.000Z'),
): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}
