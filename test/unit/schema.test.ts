// The migrations: they run once even when several processes start together, and the constraints
// that later features rely on hold in the database itself.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createTestContext, createTestDatabase } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';
import { websiteWrites } from '../support/website-writes.js';

const run = promisify(execFile);

describe('migrations', () => {
  it('two processes migrating one empty database at once apply each migration exactly once', async () => {
    const database = await createTestDatabase();
    try {
      const env = { ...process.env, DATABASE_URL: database.url };
      const outputs = await Promise.all(
        [1, 2].map(() => run(process.execPath, ['--import', 'tsx', 'src/dev.ts', 'migrate'], { env })),
      );
      const applied = outputs.filter((output) => output.stdout.includes('Applied: 0001_core'));
      assert.equal(applied.length, 1, outputs.map((output) => output.stdout + output.stderr).join('\n'));
    } finally {
      await database.drop();
    }
  });
});

describe('schema constraints', () => {
  let ctx: TestContext;
  const now = new Date().toISOString();
  before(async () => (ctx = await createTestContext()));
  after(() => ctx.close());

  it('a domain belongs to one website, and a website has one primary domain', async () => {
    const { db } = ctx.services.database;
    const first = await websiteWrites(ctx.services).create({ siteName: 'One', domain: 'one.test' });
    const second = await websiteWrites(ctx.services).create({ siteName: 'Two', domain: 'two.test' });
    await assert.rejects(
      db
        .insertInto('domains')
        .values({
          website_id: second,
          domain: 'one.test',
          is_primary: false,
          created_at: now,
          updated_at: now,
        })
        .execute(),
    );
    await assert.rejects(
      db
        .insertInto('domains')
        .values({ website_id: first, domain: 'uno.test', is_primary: true, created_at: now, updated_at: now })
        .execute(),
    );
    await db
      .insertInto('domains')
      .values({ website_id: first, domain: 'uno.test', is_primary: false, created_at: now, updated_at: now })
      .execute();
  });

  it('a post slug is unique among live posts and free again after a soft delete', async () => {
    const { db } = ctx.services.database;
    const id = await insertPost(db, { title: 'Hello', slug: 'hello' });
    await assert.rejects(insertPost(db, { title: 'Hello again', slug: 'hello' }));
    await db.updateTable('posts').set({ deleted_at: now }).where('id', '=', id).execute();
    await insertPost(db, { title: 'Hello again', slug: 'hello' });
    // Another post-like type may use the same slug.
    await insertPost(db, { title: 'Hello link', slug: 'hello', type: 'link' });
  });

  it('a tag is unique by name and type', async () => {
    const { db } = ctx.services.database;
    const tag = (name: string, slug: string, type: string) =>
      db.insertInto('tags').values({ name, slug, type, created_at: now, updated_at: now }).execute();
    await tag('News', 'news', 'post_tag');
    await tag('News', 'news', 'post_category');
    await assert.rejects(tag('News', 'news-2', 'post_tag'));
  });

  it('foreign keys are enforced, and deleting a user keeps their posts', async () => {
    const { db } = ctx.services.database;
    await assert.rejects(
      db.insertInto('taggables').values({ tag_id: 999_999, taggable_type: 'post', taggable_id: 1 }).execute(),
    );
    const user = await ctx.createUser();
    const postId = await insertPost(db, { title: 'Orphan to be', authorId: user.id });
    await db.deleteFrom('users').where('id', '=', user.id).execute();
    const post = await db
      .selectFrom('posts')
      .select('author_id')
      .where('id', '=', postId)
      .executeTakeFirstOrThrow();
    assert.equal(post.author_id, null);
    const tokens = await db.selectFrom('api_tokens').select('id').where('user_id', '=', user.id).execute();
    assert.deepEqual(tokens, []);
  });
});
