// The `can` object of API v2's posts (domain/resource-abilities.ts) answers, for every post of a page,
// what the policy answers when asked about that post alone: whatever it remembers between posts of one
// kind (issue 42: it asks once per kind, and every other writer's post is one kind) must not change an
// answer. Every role against posts of every author, status and website set.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Policy } from '../../src/domain/policy.js';
import type { Actor, PostFacts } from '../../src/domain/policy.js';
import { ResourceAbilities } from '../../src/domain/resource-abilities.js';
import type { Membership, SiteRole } from '../../src/domain/people/memberships.js';
import { SITE_ROLES } from '../../src/domain/people/memberships.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const ME = 7;

function depsFor(role: SiteRole | null, anyAccountWrites = false, accessible: number[] = []) {
  const memberships: Membership[] = role ? [{ websiteId: 1, role }] : [];
  return {
    clock: { now: () => new Date(NOW) },
    memberships: { rolesOf: async (userId: number) => (userId === ME ? memberships : []) },
    // The websites they own or are bound to (an author's there without a role).
    websites: { accessibleIds: async () => accessible },
    settings: {
      get: async (key: string) => (key === 'any_account_writes' && anyAccountWrites ? '1' : undefined),
    },
  };
}

const posts: Array<PostFacts & { author: { id: number } | null }> = [];
for (const authorId of [ME, 11, 12, null]) {
  for (const status of ['draft', 'pending', 'published', 'scheduled']) {
    for (const publishedAt of [null, '2026-11-27T00:00:00Z', '2026-12-30T00:00:00Z']) {
      for (const websiteIds of [[1], [1, 2], [2], []]) {
        posts.push({
          authorId,
          author: authorId === null ? null : { id: authorId },
          status,
          publishedAt,
          websiteIds,
        });
      }
    }
  }
}

describe('resource abilities of posts', () => {
  const actors: Array<[string, SiteRole | null, Actor, boolean, number[]?]> = [];
  for (const role of [...SITE_ROLES, null]) {
    actors.push([`${role ?? 'no role'}`, role, { userId: ME, isAdmin: false, websiteId: 1 }, false]);
    actors.push([
      `${role ?? 'no role'}, read-only key`,
      role,
      { userId: ME, isAdmin: false, websiteId: 1, key: { readOnly: true, websiteIds: [] } },
      false,
    ]);
  }
  actors.push(['no role, any_account_writes on', null, { userId: ME, isAdmin: false, websiteId: 1 }, true]);
  actors.push([
    'no role, bound to website 2',
    null,
    { userId: ME, isAdmin: false, websiteId: 1 },
    false,
    [2],
  ]);
  actors.push(['administrator', null, { userId: ME, isAdmin: true, websiteId: 1 }, false]);
  actors.push([
    'administrator, key for website 2',
    null,
    { userId: ME, isAdmin: true, websiteId: 1, key: { readOnly: false, websiteIds: [2] } },
    false,
  ]);

  for (const [name, role, actor, anyAccountWrites, accessible] of actors) {
    it(`answer the policy's answer for each post: ${name}`, async () => {
      const deps = depsFor(role, anyAccountWrites, accessible);
      const answers = await new ResourceAbilities(deps).ofPosts(actor, posts);
      const policy = new Policy(deps);
      for (const [index, post] of posts.entries()) {
        const facts = { post };
        const update = await policy.can(actor, 'post.update', facts);
        const expected = {
          update,
          publish: update && (await policy.can(actor, 'post.publish', facts)),
          delete: await policy.can(actor, 'post.delete', facts),
        };
        assert.deepEqual(answers[index], expected, `post ${JSON.stringify(post)}`);
      }
    });
  }
});
