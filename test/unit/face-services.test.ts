// What a face receives (issue 35 #1): operations and queries, never a store, the cache or the database.
// The compiler is the guard: each `@ts-expect-error` below fails `npm run typecheck` the day
// FaceServices offers that part again. The tests check that what it does offer works on real services.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLATION_OPERATOR } from '../../src/domain/policy.js';
import { faceServices } from '../../src/services.js';
import type { FaceServices } from '../../src/services.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

/** Never called: it only has to compile (or, on the marked lines, not to). */
function unreachableFromAFace(faces: FaceServices): unknown[] {
  return [
    // @ts-expect-error the database is the composition root's
    faces.database,
    // @ts-expect-error the cache is flushed by announced changes, never by a face
    faces.cache,
    // @ts-expect-error the posts store: faces call postOps
    faces.posts,
    // @ts-expect-error the websites store: faces read websiteLookup, write through websiteOps
    faces.websites,
    // @ts-expect-error the users store
    faces.users,
    // @ts-expect-error the memberships store: faces call memberOps
    faces.memberships,
    // @ts-expect-error the tags store
    faces.tags,
    // @ts-expect-error the menus store
    faces.menus,
    // @ts-expect-error the pages store
    faces.pages,
    // @ts-expect-error the operation runner
    faces.runner,
    // @ts-expect-error the job queue
    faces.jobs,
    // @ts-expect-error the audit log's writer: operations record their own rows
    faces.audit,
    // @ts-expect-error settings are read by a face, written by systemOps
    faces.settings.set,
    // @ts-expect-error the versioned cache as a face sees it has no flush
    faces.cachedPages.flush,
  ];
}

describe('FaceServices: what a face receives', () => {
  let ctx: TestContext;
  before(async () => (ctx = await createTestContext()));
  after(() => ctx.close());

  it('offers the operations and queries of the same services, live', async () => {
    assert.equal(typeof unreachableFromAFace, 'function');
    const faces = faceServices(ctx.services);
    const site = await websiteWrites(ctx.services).create({ siteName: 'Face', domain: 'face.example' });
    assert.equal((await faces.websiteLookup.resolveHost('face.example'))?.id, site);
    assert.equal(await faces.websiteLookup.findIdByDomain('face.example'), site);
    // The operations are the services' own objects, not copies.
    assert.equal(faces.postOps, ctx.services.postOps);
    const post = await faces.postOps.create(INSTALLATION_OPERATOR, {
      title: 'Through the face',
      content: '<p>x</p>',
      website_id: [site],
    });
    assert.equal((await ctx.services.posts.findDetail(post.id))?.id, post.id);
    assert.ok(faces.mediaUrl('2026/11/a.jpg').endsWith('/media/2026/11/a.jpg'));
  });

  it('authenticates a token and a password through one door', async () => {
    const faces = faceServices(ctx.services);
    const user = await ctx.createUser({ email: 'door@example.com', password: 'correct horse battery' });
    const token = await ctx.services.users.issueToken(user.id);
    assert.equal((await faces.authentication.credential(token))?.user.id, user.id);
    assert.equal(await faces.authentication.credential('not-a-token'), null);
    assert.equal(
      (await faces.authentication.password('door@example.com', 'correct horse battery'))?.id,
      user.id,
    );
    assert.equal(await faces.authentication.password('door@example.com', 'wrong'), null);
  });
});
