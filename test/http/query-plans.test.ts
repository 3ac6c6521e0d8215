// Issue 26 #3: the hot queries use an index on both databases, after the statistics are refreshed
// (analyzeDatabase, as at start and hourly): the token and key lookups, the slug check of a create,
// the post list and its count, and a post by slug. The real queries are captured as the app runs
// them and explained with their own values. On PostgreSQL sequential scans are discouraged for the
// explanation (`enable_seqscan = off`): a test table is small enough that a scan would be cheapest,
// and the question is whether an index can serve the query at all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { analyzeDatabase, migrate } from '../../src/db/database.js';
import { INSTALLATION_MODERATION_SETTING } from '../../src/domain/community/comment-rules.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createServices } from '../../src/services.js';
import type { Services } from '../../src/services.js';
import { createTestDatabase, testConfig } from '../support/harness.js';
import type { TestDatabase } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

interface Captured {
  sql: string;
  parameters: readonly unknown[];
}

describe('query plans of the hot queries (issue 26 #3)', () => {
  let database: TestDatabase;
  let services: Services;
  const captured: Captured[] = [];
  let token: string;
  let secret: string;
  let websiteId: number;

  before(async () => {
    database = await createTestDatabase();
    services = createServices(testConfig(database.url), {
      pgSchema: database.pgSchema,
      cachePrefix: `folio-plans-${Date.now()}:`,
      warn: () => undefined,
      onQuery: (text, parameters) => captured.push({ sql: text, parameters }),
    });
    await migrate(services.database);
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    websiteId = await websiteWrites(services).create({ siteName: 'Plans', domain: 'plans.test' });
    const user = await services.users.create({ name: 'P', email: 'p@example.test', password: 'long enough' });
    token = await services.users.issueToken(user.id);
    ({ secret } = await services.apiKeys.create(user.id, { name: 'plans' }));
    // Enough users, tokens and keys that the statistics describe a site with a team, not one row.
    const { db } = services.database;
    const now = new Date().toISOString();
    for (let n = 0; n < 300; n++) {
      const row = await db
        .insertInto('users')
        .values({
          name: `U${n}`,
          email: `u${n}@example.test`,
          username: null,
          password_hash: 'x',
          is_admin: false,
          is_active: true,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const hash = n.toString(16).padStart(64, '0');
      await db
        .insertInto('api_tokens')
        .values({ user_id: row.id, token_hash: hash, created_at: now, last_used_at: null })
        .execute();
      await db
        .insertInto('api_keys')
        .values({
          user_id: row.id,
          name: 'k',
          prefix: 'folio_key_x',
          key_hash: hash,
          read_only: false,
          expires_at: null,
          last_used_at: null,
          revoked_at: null,
          created_at: now,
        })
        .execute();
    }
    for (let n = 0; n < 60; n++) {
      await services.posts.create(
        {
          title: `Post ${n}`,
          content: 'x',
          status: n % 3 === 0 ? 'draft' : 'published',
          websiteIds: [websiteId],
        },
        { userId: user.id, isAdmin: true },
      );
    }
    await analyzeDatabase(services.database, { atStart: true });
  });
  after(async () => {
    await services.close();
    await database.drop();
  });

  /** The statements the work ran. */
  async function during(work: () => Promise<unknown>): Promise<Captured[]> {
    captured.length = 0;
    await work();
    return [...captured];
  }

  /** The plan of a captured statement, as text. */
  async function plan(query: Captured): Promise<string> {
    const { db, sqlite } = services.database;
    if (sqlite) {
      const rows = sqlite.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...(query.parameters as unknown[]));
      return (rows as Array<{ detail: string }>).map((row) => row.detail).join('\n');
    }
    return db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const result = await trx.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]),
      );
      return result.rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  /** Asserts the plan reads `table` through an index, never by scanning it whole. */
  async function usesIndex(query: Captured | undefined, table: string, what: string): Promise<void> {
    assert.ok(query, `${what}: the query was not run`);
    const text = await plan(query);
    if (services.database.sqlite) {
      assert.ok(
        !new RegExp(`\\bSCAN ${table}\\b(?! USING)`).test(text),
        `${what}: scans ${table} whole\n${query.sql}\n${text}`,
      );
      assert.match(text, new RegExp(`(SEARCH|SCAN) ${table}( AS \\w+)? USING`), `${what}\n${text}`);
    } else {
      assert.ok(
        !new RegExp(`Seq Scan on ${table}\\b`).test(text),
        `${what}: scans ${table}\n${query.sql}\n${text}`,
      );
      assert.match(text, /Index (Only )?Scan|Bitmap Index Scan/, `${what}\n${text}`);
    }
  }

  const find = (queries: Captured[], pattern: RegExp) => queries.find((query) => pattern.test(query.sql));

  it('PostgreSQL: no JIT compiling of short queries (a 0.1 ms count took 10-45 ms with it, issue 26)', async (t) => {
    if (services.database.dialect !== 'postgres') return t.skip('PostgreSQL only');
    // Several at once: every connection of the pool, not only the first, runs with jit off.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => sql<{ jit: string }>`SHOW jit`.execute(services.database.db)),
    );
    assert.deepEqual(
      answers.map((answer) => answer.rows[0]?.jit),
      ['off', 'off', 'off', 'off'],
    );
  });

  it('the token and key lookups', async () => {
    const tokenQueries = await during(() => services.users.authenticateToken(token));
    await usesIndex(find(tokenQueries, /"api_tokens"/), 'api_tokens', 'token lookup');
    const keyQueries = await during(() => services.apiKeys.authenticate(secret));
    await usesIndex(find(keyQueries, /"api_keys"/), 'api_keys', 'key lookup');
  });

  it('the slug check of a create, and a post by slug', async () => {
    const creating = await during(() =>
      services.posts.create(
        { title: 'Post 7', content: 'x', status: 'draft', websiteIds: [websiteId] },
        { userId: null, isAdmin: true },
      ),
    );
    const slugCheck = find(creating, /from "posts".*"slug" (=|in)/);
    if (!slugCheck) console.log(creating.map((query) => query.sql).join('\n'));
    await usesIndex(slugCheck, 'posts', 'slug check');
    const showing = await during(() => services.posts.findDetailByRef('post-7'));
    await usesIndex(find(showing, /"posts"\."slug" =/), 'posts', 'post by slug');
  });

  it('the post list of a website and its count', async () => {
    const listing = await during(() =>
      services.posts.list({
        page: 2,
        pageSize: 15,
        sort: 'created_at',
        direction: 'desc',
        websiteId,
        status: 'published',
      }),
    );
    // The total comes from the kept counters (issue 26 #1), read on their key index.
    assert.equal(find(listing, /count\(/i), undefined, 'no count(*) for a list the counters answer');
    await usesIndex(find(listing, /"post_counts"/), 'post_counts', 'list count from the counters');
    await usesIndex(find(listing, /order by/i), 'posts', 'list page');
  });

  it('the home page list and its total: counters, minus the posts not due yet (issue 26 #1)', async () => {
    const listing = await during(() =>
      services.publicPosts.list({ websiteId, locale: 'en', page: 1, pageSize: 10 }),
    );
    await usesIndex(find(listing, /"post_counts"/), 'post_counts', 'home total from the counters');
    const notDue = find(listing, /count\(/i);
    if (notDue) await usesIndex(notDue, 'posts', 'published posts not due yet');
    await usesIndex(find(listing, /order by "posts"/i), 'posts', 'home page list');
    // The page's translations and tags, by post id.
    await usesIndex(find(listing, /from "translations"/), 'translations', 'translations of the page');
    await usesIndex(find(listing, /from "taggables"/), 'taggables', 'tags of the page');
  });

  it('a commenter\u2019s earlier approved comment (moderation `first`), by user or by email in any case', async () => {
    await services.settings.set(INSTALLATION_MODERATION_SETTING, 'first');
    const post = await services.posts.create(
      { title: 'Commented', content: 'x', status: 'published', websiteIds: [websiteId] },
      { userId: null, isAdmin: true },
    );
    const comment = (email: string) =>
      services.comments.store({
        postId: post.id,
        content: 'Hello',
        name: 'Reader',
        email,
        user: null,
        websiteId,
        ipHash: 'x',
        userAgent: 'test',
      });
    const storing = await during(() => comment('Reader@Example.test'));
    await usesIndex(find(storing, /lower\("author_email"\)/), 'comments', 'first comment check by email');
    const user = await services.users.create({ name: 'C', email: 'c@example.test', password: 'long enough' });
    const bySignedIn = await during(() =>
      services.comments.store({
        postId: post.id,
        content: 'Hi',
        user: { id: user.id, name: 'C', email: 'c@example.test' },
        websiteId,
        ipHash: 'x',
        userAgent: 'test',
      }),
    );
    await usesIndex(
      find(bySignedIn, /lower\("author_email"\)/),
      'comments',
      'first comment check by user or email',
    );
  });

  it('a deep page (deferred join, read from the far end) and a page after a cursor (issue 26 #2)', async () => {
    const query = {
      page: 3,
      pageSize: 15,
      sort: 'created_at' as const,
      direction: 'desc' as const,
      websiteId,
      status: 'published' as const,
    };
    const deep = await during(() => services.posts.list(query));
    const deepPage = find(deep, /"page_ids"/);
    await usesIndex(deepPage, 'posts', 'deep page');
    const first = await services.posts.list({ ...query, page: 1 });
    const last = first.items[first.items.length - 1]!;
    const after = await during(() =>
      services.posts.list({ ...query, after: { value: last.createdAt, id: last.id } }),
    );
    await usesIndex(find(after, /"page_ids"/), 'posts', 'page after a cursor');
  });
});
