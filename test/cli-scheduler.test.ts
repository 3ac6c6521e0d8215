// `folio serve` publishes due scheduled posts by itself (issue 3 item 6), in a real process.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { migrate } from '../src/db/database.js';
import { createServices } from '../src/services.js';
import type { Services } from '../src/services.js';
import { createTestDatabase, testConfig } from './support/harness.js';
import { freePort } from './support/net.js';
import type { TestDatabase } from './support/harness.js';
import { insertPost } from './support/seed.js';

describe('folio serve: scheduled publishing', () => {
  let database: TestDatabase;
  let services: Services;
  let mediaDir: string;

  before(async () => {
    database = await createTestDatabase();
    mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-media-'));
    services = createServices(testConfig(database.url, { mediaDir }), {
      pgSchema: database.pgSchema,
      warn: () => undefined,
    });
    await migrate(services.database);
  });
  after(async () => {
    await services.close();
    await database.drop();
    fs.rmSync(mediaDir, { recursive: true, force: true });
  });

  it('a due scheduled post becomes published with no API call; a future one stays scheduled', async () => {
    const { db } = services.database;
    const due = await insertPost(db, { title: 'Due now', status: 'scheduled' });
    const future = await insertPost(db, { title: 'Next year', status: 'scheduled' });
    await db
      .updateTable('posts')
      .set({ published_at: new Date(Date.now() + 365 * 86_400_000).toISOString() })
      .where('id', '=', future)
      .execute();
    const statusOf = async (id: number) =>
      (await db.selectFrom('posts').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;

    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev.ts', 'serve'], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        MEDIA_DIR: mediaDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let running = true;
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => {
        running = false;
        resolve(code);
      }),
    );
    try {
      const deadline = Date.now() + 30_000;
      while (running && Date.now() < deadline && (await statusOf(due)) !== 'published') {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(await statusOf(due), 'published', output);
      assert.equal(await statusOf(future), 'scheduled');
      child.kill('SIGTERM');
      assert.equal(await exited, 0, output);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
