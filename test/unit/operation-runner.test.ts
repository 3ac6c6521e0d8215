// The operation runner (issue 35 #4): one transaction per operation that every store joins, the audit
// row and outbox rows in it, announcements only after commit, undo steps on rollback, a drain that
// tells what a stopped node left behind. Runs on SQLite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import type { ContentChange } from '../../src/domain/changes.js';
import { ForbiddenError, ValidationError } from '../../src/domain/errors.js';
import { OUTBOX_GRACE_MS } from '../../src/domain/run.js';
import type { DomainEvent } from '../../src/domain/run.js';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { createTestContext, usingPostgres } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';

describe('operation runner: one transaction, outbox, announcements after commit', () => {
  let ctx: TestContext;
  const told: ContentChange[] = [];
  const events: DomainEvent[] = [];
  before(async () => {
    ctx = await createTestContext();
    ctx.services.changes.subscribe(async (change) => void told.push(change));
    ctx.services.runner.onEvent(async (event) => void events.push(event));
  });
  after(() => ctx.close());

  const outboxRows = () =>
    ctx.services.database.db.selectFrom('outbox').select(['id', 'topic', 'claimed_at']).execute();
  const websiteNamed = (name: string) =>
    ctx.services.database.db
      .selectFrom('websites')
      .select('id')
      .where('site_name', '=', name)
      .executeTakeFirst();

  it('commits every store write of the operation together and announces after commit', async () => {
    const { runner, websites, changes, audit } = ctx.services;
    told.length = 0;
    events.length = 0;
    let toldInside = -1;
    const id = await runner.run(async () => {
      const created = await websites.create({ siteName: 'runner-one', domain: 'runner-one.test' });
      await changes.announce({ kind: 'website', id: created });
      await audit.record({
        userId: null,
        action: 'website.create',
        resourceType: 'website',
        resourceId: created,
        websiteId: created,
        surface: 'system',
      });
      toldInside = told.length;
      // In the transaction, the store's own reads see the write.
      assert.ok(await websiteNamed('runner-one'));
      return created;
    });
    assert.equal(toldInside, 0, 'nothing is told before commit');
    assert.ok(told.some((change) => change.kind === 'website' && change.id === id));
    assert.deepEqual(
      events.map((event) => [event.action, event.resourceId, event.websiteIds]),
      [['website.create', String(id), [id]]],
    );
    // Listeners told after the answer (webhooks) finish in the background; then every row is gone.
    await runner.settle();
    assert.deepEqual(await outboxRows(), [], 'told rows are deleted');
  });

  it('keeps an event\u2019s outbox row when a listener told after the answer fails, for the drain to tell again', async () => {
    const { runner, websites, audit } = ctx.services;
    let fail = true;
    const heard: number[] = [];
    runner.onEvent(
      async (event, outboxId) => {
        if (event.action !== 'website.later') return;
        if (fail) throw new Error('queue away');
        heard.push(outboxId);
      },
      { afterAnswer: true },
    );
    const before = (await outboxRows()).length;
    await runner.run(async () => {
      const created = await websites.create({ siteName: 'runner-later', domain: 'runner-later.test' });
      await audit.record({
        userId: null,
        action: 'website.later',
        resourceType: 'website',
        resourceId: created,
        websiteId: created,
        surface: 'system',
      });
    });
    await runner.settle();
    const left = await outboxRows();
    assert.equal(left.length, before + 1, 'the failed event waits in the outbox');
    fail = false;
    await ctx.services.database.db
      .updateTable('outbox')
      .set({ created_at: '2000-01-01T00:00:00.000Z' })
      .execute();
    await runner.drain();
    assert.equal(heard.length, 1);
    assert.deepEqual(await outboxRows(), []);
  });

  it('rolls back every write, records and announces nothing, and runs the undo steps', async () => {
    const { runner, websites, changes, audit } = ctx.services;
    told.length = 0;
    events.length = 0;
    let undone = false;
    await assert.rejects(
      runner.run(async (scope) => {
        scope.onRollback(() => {
          undone = true;
        });
        const created = await websites.create({ siteName: 'runner-two', domain: 'runner-two.test' });
        await changes.announce({ kind: 'website', id: created });
        await audit.record({
          userId: null,
          action: 'website.create',
          resourceType: 'website',
          resourceId: created,
          surface: 'system',
        });
        throw new ForbiddenError();
      }),
      ForbiddenError,
    );
    assert.equal(undone, true);
    assert.equal(await websiteNamed('runner-two'), undefined, 'the website is not kept');
    assert.deepEqual(told, []);
    assert.deepEqual(events, []);
    const audited = await audit.list({ action: 'website.create' });
    assert.equal(audited.filter((entry) => entry.resourceType === 'website').length, 1, 'only the first run');
    assert.deepEqual(await outboxRows(), []);
  });

  it('a store transaction inside an operation is a savepoint: its failure rolls back only itself', async () => {
    const { runner, websites, database } = ctx.services;
    const kept = await runner.run(async () => {
      const first = await websites.create({ siteName: 'runner-three', domain: 'runner-three.test' });
      // A unique violation inside a nested transaction (the same domain twice) is caught by the
      // caller; on PostgreSQL the operation's transaction must still be usable afterwards.
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          const at = new Date().toISOString();
          await trx
            .insertInto('domains')
            .values({
              website_id: first,
              domain: 'runner-three.test',
              is_primary: false,
              created_at: at,
              updated_at: at,
            })
            .execute();
        }),
      );
      await websites.create({ siteName: 'runner-four', domain: 'runner-four.test' });
      return first;
    });
    assert.ok(kept);
    assert.ok(await websiteNamed('runner-three'));
    assert.ok(await websiteNamed('runner-four'));
  });

  it('an operation inside another joins its transaction', async () => {
    const { runner, websites } = ctx.services;
    await assert.rejects(
      runner.run(async () => {
        await runner.run(() => websites.create({ siteName: 'runner-inner', domain: 'runner-inner.test' }));
        throw new Error('outer fails');
      }),
      /outer fails/,
    );
    assert.equal(await websiteNamed('runner-inner'), undefined);
  });

  it('queries of other requests wait for, and never join, an open operation', async () => {
    const { runner, websites } = ctx.services;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let created!: () => void;
    const written = new Promise<void>((resolve) => (created = resolve));
    const operation = runner.run(async () => {
      await websites.create({ siteName: 'runner-five', domain: 'runner-five.test' });
      created();
      await gate;
      throw new Error('rolled back');
    });
    await written;
    // Outside the operation's async context: on PostgreSQL another connection, which does not see
    // the uncommitted row; on SQLite it waits for the one connection the transaction holds.
    const outside = websiteNamed('runner-five');
    release();
    await assert.rejects(operation, /rolled back/);
    assert.equal(await outside, undefined);
  });

  it('parses input with the operation schema and asks the policy before writing', async () => {
    const { runner, websites } = ctx.services;
    const rename = runner.operation({
      input: z.object({ name: z.string().min(3) }).strict(),
      authorize: (actor) => {
        if (!actor.isAdmin) throw new ForbiddenError();
      },
      execute: (input) => websites.create({ siteName: input.name, domain: `${input.name}.test` }),
    });
    const visitor = { userId: null, isAdmin: false, websiteId: null };
    await assert.rejects(rename(visitor, { name: 'ab' }), ValidationError);
    await assert.rejects(rename(visitor, { name: 'runner-six' }), ForbiddenError);
    assert.equal(await websiteNamed('runner-six'), undefined);
    const id = await rename({ ...visitor, isAdmin: true }, { name: 'runner-six' });
    assert.ok(id > 0);
  });

  it('the drain tells rows a stopped node left behind, once, and leaves fresh rows to their node', async () => {
    const { runner, database, clock } = ctx.services;
    told.length = 0;
    events.length = 0;
    const old = new Date(clock.now().getTime() - OUTBOX_GRACE_MS - 1000).toISOString();
    const fresh = new Date(clock.now().getTime()).toISOString();
    const event: DomainEvent = {
      action: 'post.update',
      resourceType: 'post',
      resourceId: '7',
      websiteIds: [],
      userId: null,
      apiKeyId: null,
      surface: 'system',
      requestId: null,
      at: old,
    };
    await database.db
      .insertInto('outbox')
      .values([
        { created_at: old, topic: 'change', payload: JSON.stringify({ kind: 'post', ids: [7] }) },
        { created_at: old, topic: 'event', payload: JSON.stringify(event) },
        { created_at: fresh, topic: 'change', payload: JSON.stringify({ kind: 'post', ids: [8] }) },
      ])
      .execute();
    const [first, second] = await Promise.all([runner.drain(), runner.drain()]);
    assert.equal(first, 2);
    assert.equal(second, 2, 'a drain already running is shared, not run twice');
    assert.equal(await runner.drain(), 0);
    assert.deepEqual(told, [{ kind: 'post', ids: [7] }]);
    assert.deepEqual(events, [event]);
    const left = await outboxRows();
    assert.equal(left.length, 1, 'the fresh row is left to the node that wrote it');
    await database.db.deleteFrom('outbox').execute();
  });

  it('an audited write outside any operation is still an event', async () => {
    events.length = 0;
    await ctx.services.audit.record({
      userId: null,
      action: 'setting.set',
      resourceType: 'setting',
      resourceId: 'x',
      surface: 'cli',
    });
    assert.deepEqual(
      events.map((event) => [event.action, event.surface]),
      [['setting.set', 'cli']],
    );
    await ctx.services.runner.settle();
    assert.deepEqual(await outboxRows(), []);
  });
  it('a setting written in an operation: the operation reads it, a read outside until commit never keeps the old value', async () => {
    const { runner, settings } = ctx.services;
    await settings.set('runner.setting', 'old');
    let startOutside!: () => void;
    // Registered here, so the read runs outside the operation's transaction.
    const outsideRead = new Promise<void>((resolve) => (startOutside = resolve)).then(() =>
      settings.get('runner.setting'),
    );
    const inside = await runner.run(async () => {
      await settings.delete('runner.setting');
      startOutside();
      await new Promise((resolve) => setTimeout(resolve, 20));
      return settings.get('runner.setting');
    });
    assert.equal(inside, undefined, 'the operation sees its own delete');
    await outsideRead;
    assert.equal(await settings.get('runner.setting'), undefined, 'after commit everyone does');
    await assert.rejects(
      runner.run(async () => {
        await settings.set('runner.setting', 'undone');
        assert.equal(await settings.get('runner.setting'), 'undone');
        throw new Error('no');
      }),
    );
    assert.equal(await settings.get('runner.setting'), undefined, 'a rolled-back write is forgotten');
  });
  it(
    'SQLite: another process writing during an operation waits for it; the operation never fails as "database is locked"',
    {
      skip: usingPostgres && 'SQLite only',
    },
    async () => {
      const { runner, settings } = ctx.services;
      const file = ctx.database.url.replace(/^sqlite:/, '');
      let worker: Worker | null = null;
      await runner.run(async () => {
        await settings.get('anything'); // the operation reads first
        // Another process's write, on its own connection in another thread (it may wait, we go on).
        worker = new Worker(
          `const { parentPort, workerData } = require('node:worker_threads');
         const Database = require('better-sqlite3');
         const db = new Database(workerData.file);
         db.pragma('busy_timeout = 5000');
         try {
           db.prepare("insert into settings (key, value, updated_at) values ('other.process', '1', '2026-01-01T00:00:00.000Z')").run();
           parentPort.postMessage('written');
         } catch (error) {
           parentPort.postMessage(String(error.message));
         }`,
          { eval: true, workerData: { file } },
        );
        await new Promise((resolve) => setTimeout(resolve, 150));
        await settings.set('runner.after.other', '1'); // begun as a reader, this write would fail now
      });
      const [outcome] = (await once(worker!, 'message')) as [string];
      await worker!.terminate();
      assert.equal(outcome, 'written', 'the other process wrote once the operation had committed');
      const rows = await ctx.services.database.db
        .selectFrom('settings')
        .select('key')
        .where('key', 'in', ['other.process', 'runner.after.other'])
        .orderBy('key')
        .execute();
      assert.deepEqual(
        rows.map((row) => row.key),
        ['other.process', 'runner.after.other'],
      );
    },
  );
});
