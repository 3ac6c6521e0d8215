// Long reads off the event loop (SQLite): a keyword search reads every post's text, and on the
// server's connection it held every other request while it ran. Through `longReads` it runs in a
// worker thread with a read-only connection: same rows, committed data, timers keep firing meanwhile,
// writes refused, and the server's connection takes over when the thread is gone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Generated, Kysely } from 'kysely';
import SQLite from 'better-sqlite3';
import { openDatabase } from '../../src/db/database.js';
import { isDatabaseUnavailable } from '../../src/db/errors.js';
import { longReadsOffTheLoop } from '../../src/db/read-thread.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import { createTestDatabase, testConfig } from '../support/harness.js';
import type { TestDatabase } from '../support/harness.js';

/** A read that takes SQLite a few hundred milliseconds, whatever the data. */
const slowCount = sql<{ n: number }>`
  with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000000)
  select count(*) as n from c`;

interface Notes {
  notes: { id: Generated<number>; body: string; flag: number | boolean };
}

describe('SQLite long reads in a thread (DatabaseHandle.longReads)', () => {
  let dir: string;
  let handle: DatabaseHandle;
  /** The server's connection and the long reads, over this test's table. */
  const main = () => handle.db as unknown as Kysely<Notes>;
  const reads = () => handle.longReads as unknown as Kysely<Notes>;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-long-reads-'));
    handle = openDatabase({ dialect: 'sqlite', url: 'sqlite:reads', file: path.join(dir, 'reads.sqlite') });
    await sql`create table notes (id integer primary key, body text not null, flag integer not null)`.execute(
      handle.db,
    );
  });
  after(async () => {
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers the rows the server’s connection would, committed data included, booleans bound', async () => {
    assert.notEqual(handle.longReads, handle.db);
    await main().insertInto('notes').values({ body: 'first', flag: 1 }).execute();
    const read = () =>
      reads().selectFrom('notes').select(['id', 'body']).where('flag', '=', true).orderBy('id').execute();
    assert.deepEqual(await read(), [{ id: 1, body: 'first' }]);
    // Committed on the server's connection: the thread's next read sees it.
    await main().insertInto('notes').values({ body: 'second', flag: 1 }).execute();
    assert.deepEqual(await read(), [
      { id: 1, body: 'first' },
      { id: 2, body: 'second' },
    ]);
  });

  it('the event loop keeps turning while a long read runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    try {
      // On the server's connection the read holds the loop: no tick until it is over.
      const before = ticks;
      const onLoop = await slowCount.execute(handle.db);
      const ticksDuringLoopRead = ticks - before;
      // In the thread, the ticks go on while it reads.
      const started = ticks;
      const inThread = await slowCount.execute(handle.longReads);
      assert.equal(inThread.rows[0]?.n, 3_000_000);
      assert.deepEqual(inThread.rows, onLoop.rows);
      assert.equal(ticksDuringLoopRead, 0);
      assert.ok(ticks - started > 0, 'no timer fired while the thread read');
    } finally {
      clearInterval(timer);
    }
  });

  it('refuses writes and transactions, with the database unchanged', async () => {
    await assert.rejects(
      reads().insertInto('notes').values({ body: 'sneaky', flag: 0 }).execute(),
      /only reads|readonly/i,
    );
    await assert.rejects(
      handle.longReads.transaction().execute(async () => undefined),
      /no transaction/,
    );
    const rows = await main().selectFrom('notes').select('body').execute();
    assert.ok(!rows.some((row) => row.body === 'sneaky'));
  });

  it('a bad query is an error in the caller; the thread answers the next one', async () => {
    await assert.rejects(sql`select * from no_such_table`.execute(handle.longReads), /no such table/);
    assert.equal((await reads().selectFrom('notes').select('id').execute()).length, 2);
  });

  it('past its limit of waiting reads, one is refused at once as "unavailable" (a 503), the others answered', async () => {
    const sqlite = new SQLite(path.join(dir, 'reads.sqlite'));
    const reads = longReadsOffTheLoop(sqlite, path.join(dir, 'reads.sqlite'), { maxWaiting: 2 });
    try {
      const waiting = [slowCount.execute(reads), slowCount.execute(reads)];
      const refused = await slowCount.execute(reads).then(
        () => null,
        (error: unknown) => error,
      );
      assert.ok(refused instanceof Error && isDatabaseUnavailable(refused), String(refused));
      assert.match(refused.message, /2 long reads are waiting/);
      for (const answer of await Promise.all(waiting)) assert.equal(answer.rows[0]?.n, 3_000_000);
      // Answered: room again.
      assert.equal((await slowCount.execute(reads)).rows[0]?.n, 3_000_000);
    } finally {
      await reads.destroy();
      sqlite.close();
    }
  });

  it('an in-memory database reads on its own connection (a thread cannot share it)', async () => {
    const memory = openDatabase({ dialect: 'sqlite', url: 'sqlite::memory:', file: ':memory:' });
    try {
      assert.equal(memory.longReads, memory.db);
    } finally {
      await memory.close();
    }
  });
});

describe('long reads on the suite’s database (PostgreSQL: a pool of their own)', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  before(async () => {
    database = await createTestDatabase();
    const config = testConfig(database.url);
    handle = openDatabase(config.database, { pgSchema: database.pgSchema });
  });
  after(async () => {
    await handle.close();
    await database.drop();
  });

  it('slow long reads never hold the connections every other query needs', async () => {
    assert.notEqual(handle.longReads, handle.db);
    const slow =
      handle.dialect === 'postgres'
        ? sql<{ n: number }>`select pg_sleep(0.4), 1 as n`
        : sql<{ n: number }>`
            with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000000)
            select 1 as n from c where x = 2000000`;
    const finished: string[] = [];
    // PostgreSQL: more slow reads than the server's own pool holds (10): sharing it, they would take
    // every connection and the quick queries would wait for them.
    const reads = Array.from({ length: handle.dialect === 'postgres' ? 12 : 2 }, (_, index) =>
      slow.execute(handle.longReads).then(() => finished.push(`long ${index}`)),
    );
    const quick = await Promise.all(
      Array.from({ length: 10 }, () => sql<{ one: number }>`select 1 as one`.execute(handle.db)),
    );
    finished.push('quick');
    assert.deepEqual(
      quick.map((result) => result.rows[0]?.one),
      Array(10).fill(1),
    );
    await Promise.all(reads);
    assert.equal(finished[0], 'quick', `finished in this order: ${finished.join(', ')}`);
  });
});
