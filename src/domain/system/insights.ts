// What the dashboard shows about a website and the installation (issue 25 #1): views and outbound
// clicks per day and the most viewed posts (from the counted events of `clicks`, by the website they
// happened on), and, for administrators, the installation's health: the database and the cache
// answering and how fast, the free disk where data lives, the running version and whether an update
// is available. Reads only: nothing is announced.
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Cache } from '../../cache/cache.js';
import type { Db, Dialect } from '../../db/database.js';
import type { Clock } from '../clock.js';
import { ForbiddenError, NotFoundError } from '../errors.js';
import type { Actor, Policy } from '../policy.js';
import { parse } from '../schema-fields.js';
import type { UpdateService } from './updates.js';

export const MAX_STATS_DAYS = 90;
export const TOP_POSTS = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

export const statsInput = z
  .object({ days: z.coerce.number().int().min(1).max(MAX_STATS_DAYS).optional() })
  .strict();

export interface DayCount {
  /** The day in UTC, `YYYY-MM-DD`. */
  date: string;
  views: number;
  clicks: number;
}

export interface SiteStats {
  websiteId: number;
  days: DayCount[];
  totals: { views: number; clicks: number };
  topPosts: { id: number; title: string; slug: string; views: number }[];
}

export interface Health {
  database: { ok: boolean; dialect: Dialect; latencyMs: number | null };
  cache: { ok: boolean; kind: 'redis' | 'memory'; latencyMs: number | null };
  disk: { label: 'database' | 'media'; path: string; freeBytes: number; totalBytes: number }[];
  version: string;
  latestVersion: string | null;
  /** Null: not known (updates disabled, or the registry did not answer). */
  updateAvailable: boolean | null;
}

export interface InsightsDeps {
  db: Db;
  dialect: Dialect;
  clock: Clock;
  cache: Cache;
  cacheKind: 'redis' | 'memory';
  policy: Policy;
  updates: UpdateService;
  /** Where the data lives: the SQLite file (null on PostgreSQL or in memory) and the media folder. */
  databaseFile: string | null;
  /** The local media directory; null when media are in an S3-compatible bucket (no disk of ours). */
  mediaDir: string | null;
}

export class Insights {
  constructor(private readonly deps: InsightsDeps) {}

  /** Views and clicks per day over the last `days` days (today included), and the top posts. */
  async stats(actor: Actor, websiteId: number, raw: unknown): Promise<SiteStats> {
    const input = parse(statsInput, raw);
    const { db, policy } = this.deps;
    if (!(await policy.can(actor, 'website.see', { websiteId })))
      throw new NotFoundError('Website not found');
    if (!(await policy.can(actor, 'stats.read', { websiteId }))) throw new ForbiddenError();
    const count = input.days ?? 30;
    const today = Date.parse(new Date(this.deps.clock.now()).toISOString().slice(0, 10));
    const first = today - (count - 1) * DAY_MS;
    const since = new Date(first).toISOString();
    const day =
      this.deps.dialect === 'postgres'
        ? sql<string>`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`
        : sql<string>`substr(created_at, 1, 10)`;
    const [perDay, top] = await Promise.all([
      db
        .selectFrom('clicks')
        .select([day.as('day'), 'kind', (eb) => eb.fn.countAll<number | string>().as('total')])
        .where('website_id', '=', websiteId)
        .where('created_at', '>=', since)
        .where('kind', 'in', ['view', 'click'])
        .groupBy([day, 'kind'])
        .execute(),
      db
        .selectFrom('clicks')
        .innerJoin('posts', 'posts.id', 'clicks.model_id')
        .select([
          'posts.id',
          'posts.title',
          'posts.slug',
          (eb) => eb.fn.countAll<number | string>().as('views'),
        ])
        .where('clicks.website_id', '=', websiteId)
        .where('clicks.created_at', '>=', since)
        .where('clicks.kind', '=', 'view')
        .where('clicks.model_type', '=', 'post')
        .where('posts.deleted_at', 'is', null)
        .groupBy(['posts.id', 'posts.title', 'posts.slug'])
        .orderBy('views', 'desc')
        .orderBy('posts.id', 'desc')
        .limit(TOP_POSTS)
        .execute(),
    ]);
    const days: DayCount[] = Array.from({ length: count }, (_, index) => ({
      date: new Date(first + index * DAY_MS).toISOString().slice(0, 10),
      views: 0,
      clicks: 0,
    }));
    const byDate = new Map(days.map((entry) => [entry.date, entry]));
    for (const row of perDay) {
      const entry = byDate.get(row.day);
      if (!entry) continue;
      if (row.kind === 'view') entry.views = Number(row.total);
      else entry.clicks = Number(row.total);
    }
    return {
      websiteId,
      days,
      totals: {
        views: days.reduce((sum, entry) => sum + entry.views, 0),
        clicks: days.reduce((sum, entry) => sum + entry.clicks, 0),
      },
      topPosts: top.map((row) => ({
        id: row.id,
        title: row.title,
        slug: row.slug,
        views: Number(row.views),
      })),
    };
  }

  /** The installation's health (administrators). */
  async health(actor: Actor): Promise<Health> {
    if (!(await this.deps.policy.can(actor, 'health.read', {}))) throw new ForbiddenError();
    const [database, cache, disk, version] = await Promise.all([
      this.probeDatabase(),
      this.probeCache(),
      this.disks(),
      this.deps.updates.availability(),
    ]);
    return { database, cache, disk, ...version };
  }

  private async probeDatabase(): Promise<Health['database']> {
    const started = performance.now();
    try {
      await sql`select 1`.execute(this.deps.db);
      return { ok: true, dialect: this.deps.dialect, latencyMs: elapsed(started) };
    } catch {
      return { ok: false, dialect: this.deps.dialect, latencyMs: null };
    }
  }

  /** A value written and read back (the Redis cache answers undefined when Redis is away). */
  private async probeCache(): Promise<Health['cache']> {
    const key = `health:probe:${process.pid}`;
    const value = `${Date.now()}`;
    const started = performance.now();
    try {
      await this.deps.cache.set(key, value, { ttlSeconds: 30 });
      const ok = (await this.deps.cache.get<string>(key)) === value;
      return { ok, kind: this.deps.cacheKind, latencyMs: ok ? elapsed(started) : null };
    } catch {
      return { ok: false, kind: this.deps.cacheKind, latencyMs: null };
    }
  }

  private async disks(): Promise<Health['disk']> {
    const places: { label: 'database' | 'media'; path: string }[] = [
      ...(this.deps.databaseFile ? [{ label: 'database' as const, path: this.deps.databaseFile }] : []),
      ...(this.deps.mediaDir ? [{ label: 'media' as const, path: this.deps.mediaDir }] : []),
    ];
    const found: Health['disk'] = [];
    for (const place of places) {
      const stats = await statfsNearest(place.path);
      if (stats) {
        found.push({
          ...place,
          freeBytes: stats.bavail * stats.bsize,
          totalBytes: stats.blocks * stats.bsize,
        });
      }
    }
    return found;
  }
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 100) / 100;
}

/** The file system holding a path, or its nearest existing parent (the media folder may not exist yet). */
async function statfsNearest(
  target: string,
): Promise<{ bavail: number; bsize: number; blocks: number } | null> {
  let current = path.resolve(target);
  for (;;) {
    try {
      return await fs.statfs(current);
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return null;
      current = parent;
    }
  }
}
