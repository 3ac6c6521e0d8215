// Posts API throughput against a bare Fastify route in the same run: `npx tsx bench/posts.ts`.
// Seeds 2,000 posts (with tags) in a fresh SQLite database, serves the real app, and measures
// GET /api/v1/posts (a page of 15) and GET /api/v1/posts/{slug} with autocannon, each next to a bare
// Fastify route that returns a body of the same size. Prints requests/s and the ratio to the bare route.
// Environment: BENCH_POSTS (2000), BENCH_SECONDS (3 per route), BENCH_CONNECTIONS (10).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { ENDPOINT_SWITCHES, GLOBAL_SWITCH } from '../src/api/v1/guard.js';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/database.js';
import { createServices } from '../src/services.js';

const POSTS = Number(process.env.BENCH_POSTS ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

async function listen(app: FastifyInstance): Promise<string> {
  return app.listen({ host: '127.0.0.1', port: 0 });
}

async function measure(url: string): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-'));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${path.join(dir, 'bench.sqlite')}`,
    MEDIA_DIR: path.join(dir, 'media'),
    LOG_LEVEL: 'silent',
    APP_URL: 'http://bench.test',
  });
  const services = createServices(config, { warn: () => undefined });
  await migrate(services.database);
  const switches: Record<string, string> = { [GLOBAL_SWITCH]: '1' };
  for (const key of ENDPOINT_SWITCHES) switches[key] = '1';
  await services.settings.setMany(switches);
  const user = await services.users.create({
    name: 'Bench',
    email: 'bench@example.test',
    password: 'bench-password',
  });
  const token = await services.users.issueToken(user.id);

  // Seed: POSTS posts, 10 tags, every post with two of them.
  const { db } = services.database;
  const started = Date.now();
  const now = Date.now();
  const tagIds: number[] = [];
  for (let i = 0; i < 10; i++) {
    const stamp = new Date(now).toISOString();
    const row = await db
      .insertInto('tags')
      .values({
        name: `Tag ${i}`,
        slug: `tag-${i}`,
        type: i % 2 ? 'post_tag' : 'post_category',
        created_at: stamp,
        updated_at: stamp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    tagIds.push(row.id);
  }
  const paragraph = '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>';
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < POSTS; start += 200) {
      const rows = Array.from({ length: Math.min(200, POSTS - start) }, (_, k) => {
        const n = start + k;
        const stamp = new Date(now - (POSTS - n) * 60_000).toISOString();
        return {
          title: `Benchmark post ${n}`,
          slug: `benchmark-post-${n}`,
          excerpt: `Excerpt of post ${n}`,
          content: paragraph.repeat(8),
          status: 'published',
          author_id: user.id,
          published_at: stamp,
          created_at: stamp,
          updated_at: stamp,
        };
      });
      const ids = await trx.insertInto('posts').values(rows).returning('id').execute();
      await trx
        .insertInto('taggables')
        .values(
          ids.flatMap(({ id }) => [
            { tag_id: tagIds[id % 10]!, taggable_type: 'post', taggable_id: id },
            { tag_id: tagIds[(id + 3) % 10]!, taggable_type: 'post', taggable_id: id },
          ]),
        )
        .execute();
    }
  });
  console.log(`seeded ${POSTS} posts in ${Date.now() - started} ms (SQLite, ${dir})`);

  const app = await buildApp(services, { logger: false });
  const base = await listen(app);
  const query = `api_token=${encodeURIComponent(token)}`;
  const routes = [
    { name: 'list (page of 15)', path: `/api/v1/posts?${query}` },
    { name: 'show', path: `/api/v1/posts/benchmark-post-${Math.floor(POSTS / 2)}?${query}` },
  ];

  // The bare route answers a stored body of the same size as each API answer.
  const bodies = new Map<string, string>();
  for (const route of routes) {
    const response = await fetch(`${base}${route.path}`);
    if (response.status !== 200) throw new Error(`${route.name}: HTTP ${response.status}`);
    bodies.set(route.name, await response.text());
  }
  const bare = Fastify({ logger: false });
  bare.get('/bare/:name', async (request, reply) => {
    const body = bodies.get(decodeURIComponent((request.params as { name: string }).name));
    return reply.type('application/json; charset=utf-8').send(body);
  });
  const bareBase = await listen(bare);

  console.log(`autocannon: ${CONNECTIONS} connections, ${SECONDS} s per route, node ${process.version}`);
  console.log('route                 bytes   folio req/s   bare req/s   ratio   folio p99 ms');
  for (const route of routes) {
    const folio = await measure(`${base}${route.path}`);
    const reference = await measure(`${bareBase}/bare/${encodeURIComponent(route.name)}`);
    const ratio = folio.rps / reference.rps;
    console.log(
      [
        route.name.padEnd(20),
        String(bodies.get(route.name)?.length ?? 0).padStart(7),
        folio.rps.toFixed(0).padStart(13),
        reference.rps.toFixed(0).padStart(12),
        `${(ratio * 100).toFixed(1)}%`.padStart(7),
        String(folio.p99).padStart(14),
      ].join(' '),
    );
    if (folio.errors || reference.errors)
      console.log(`  errors: folio ${folio.errors}, bare ${reference.errors}`);
  }

  await bare.close();
  await app.close();
  await services.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
