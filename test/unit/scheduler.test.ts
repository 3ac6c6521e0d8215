// Scheduled publishing (issue 3 item 6): a due `scheduled` post becomes `published` without an API
// call, exactly once even when several nodes run the job at the same moment.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PostScheduler } from '../../src/domain/posts/scheduler.js';
import { PostsService } from '../../src/domain/posts/index.js';
import { createTestContext, manualClock } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

describe('scheduled publishing', () => {
  let ctx: TestContext;
  const clock = manualClock(new Date('2026-03-01T12:00:00.000Z'));

  before(async () => {
    ctx = await createTestContext({ clock });
    await ctx.enableApi();
  });
  after(() => ctx.close());

  const schedule = async (title: string, publishedAt: string) => {
    const user = await ctx.createUser({ admin: true }); // global posts: administrators only
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts/store',
      payload: { api_token: user.token, title, content: 'x', status: 'scheduled', published_at: publishedAt },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: { id: number } }>().data.id;
  };
  const statusOf = async (id: number) =>
    (
      await ctx.services.database.db
        .selectFrom('posts')
        .select(['status', 'updated_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;

  it('publishes a scheduled post when its time comes, and only then', async () => {
    const id = await schedule('Later', '2026-03-01T12:10:00Z');
    const scheduler = new PostScheduler(ctx.services.posts);
    assert.deepEqual(await scheduler.tick(), []);
    assert.equal(await statusOf(id), 'scheduled');
    clock.advance(9 * 60_000);
    assert.deepEqual(await scheduler.tick(), []);
    clock.advance(60_000);
    assert.deepEqual(await scheduler.tick(), [id]);
    assert.equal(await statusOf(id), 'published');
    assert.deepEqual(await scheduler.tick(), [], 'never twice');
  });

  it('exactly once when several nodes run the job at the same moment', async () => {
    const ids = [
      await schedule('Race 1', '2026-03-01T13:00:00Z'),
      await schedule('Race 2', '2026-03-01T13:00:00Z'),
      await schedule('Race 3', '2026-03-01T13:30:00Z'),
    ];
    clock.advance(60 * 60_000); // 13:10
    // Four "nodes": separate services over the same database would behave the same; here four
    // schedulers, each with its own PostsService, race on the one database.
    const nodes = Array.from({ length: 4 }, () => {
      const posts = new PostsService(ctx.services.database.db, clock, {
        translations: ctx.services.translations,
        bindings: ctx.services.bindings,
        settings: ctx.services.settings,
        media: ctx.services.media,
        fetcher: ctx.services.fetcher,
        cache: ctx.services.cache,
        appUrl: ctx.services.config.appUrl,
      });
      return new PostScheduler(posts);
    });
    const published = (await Promise.all(nodes.map((node) => node.tick()))).flat();
    assert.deepEqual(
      published.sort((a, b) => a - b),
      ids.slice(0, 2),
    );
    assert.equal(await statusOf(ids[2]!), 'scheduled');
  });

  it('the list shows the post once published; deleted scheduled posts stay unpublished', async () => {
    const user = await ctx.createUser({ admin: true });
    const id = await schedule('Zebra listed', '2026-03-01T15:00:00Z');
    const gone = await schedule('Zebra deleted', '2026-03-01T15:00:00Z');
    await ctx.request({
      method: 'POST',
      url: `/api/v1/posts/delete/${gone}`,
      payload: { api_token: user.token },
    });
    const titles = async () =>
      (
        await ctx.request({
          method: 'POST',
          url: '/api/v1/posts',
          payload: { api_token: user.token, keywords: 'zebra' },
        })
      )
        .json<{ data: { data: Array<{ title: string }> } }>()
        .data.data.map((post) => post.title);
    assert.deepEqual(await titles(), []);
    clock.advance(3 * 60 * 60_000);
    const run = await new PostScheduler(ctx.services.posts).tick();
    assert.ok(
      run.includes(id) && !run.includes(gone),
      'published the due post (and Race 3), not the deleted one',
    );
    assert.deepEqual(await titles(), ['Zebra listed']);
  });

  it('start() runs at once and on a timer that does not keep the process alive; stop() ends it', async (t) => {
    const id = await schedule('Timer', '2026-03-01T18:00:00Z');
    clock.advance(24 * 60 * 60_000);
    // The interval runs on Node's mock timers (moved by hand, no real waiting); each run's database
    // work is real, and the test waits for it through the runs it records.
    t.mock.timers.enable({ apis: ['setInterval'] });
    const mockedSetInterval = globalThis.setInterval;
    let unrefed = 0;
    t.mock.method(globalThis, 'setInterval', ((...args: Parameters<typeof setInterval>) => {
      const handle = mockedSetInterval(...args);
      const unref = handle.unref.bind(handle);
      handle.unref = () => {
        unrefed++;
        return unref();
      };
      return handle;
    }) as typeof setInterval);
    const runs: Array<Promise<unknown>> = [];
    let runStarted: (() => void) | undefined;
    const posts = {
      publishDue: () => ctx.services.posts.publishDue(),
      compactCounts: () => {
        const done = ctx.services.posts.compactCounts();
        runs.push(done);
        runStarted?.();
        return done;
      },
    } as unknown as PostsService;
    const published: number[][] = [];
    const scheduler = new PostScheduler(posts, {
      intervalMs: 20,
      onPublished: (ids) => published.push(ids),
    });
    // A run ends with compactCounts(); then its promise settles (a turn of the event loop later).
    // The wait is on the run itself (a loaded database can take many event-loop turns to answer),
    // with a real timeout of 10 s as the failure bound (setTimeout is not mocked).
    const runEnded = async (count: number) => {
      const giveUpAt = Date.now() + 10_000;
      while (runs.length < count && Date.now() < giveUpAt)
        await new Promise<void>((resolve) => {
          runStarted = resolve;
          setTimeout(resolve, 100);
        });
      assert.equal(runs.length, count, `run ${count} took place`);
      await runs[count - 1];
      await new Promise((resolve) => setImmediate(resolve));
    };
    scheduler.start();
    await runEnded(1);
    assert.deepEqual(published, [[id]], 'the first run, at once, published the due post');
    assert.equal(unrefed, 1, 'the timer does not keep the process alive');
    t.mock.timers.tick(19);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(runs.length, 1, 'no run before the interval');
    t.mock.timers.tick(1);
    await runEnded(2);
    t.mock.timers.tick(20);
    await runEnded(3);
    assert.equal(published.length, 1, 'one run published, later runs found nothing');
    await scheduler.stop();
    t.mock.timers.tick(200);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(runs.length, 3, 'no run after stop()');
    assert.equal(await statusOf(id), 'published');
    const left = await ctx.services.database.db
      .selectFrom('posts')
      .select('id')
      .where('status', '=', 'scheduled')
      .where('deleted_at', 'is', null)
      .execute();
    assert.deepEqual(left, []);
  });
});
