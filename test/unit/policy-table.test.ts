// The policy as one table (issue 35 #2): every action of `PolicyActions` asked for every kind of caller,
// on website one (where the callers hold their roles) and on website two (where they hold none), and
// compared with the matrix written below. A change of any rule changes a row here, on purpose.
//
// The callers are made as the faces make them: from a real credential (a token or an API key) through
// `actorOfCredential`, so a disabled user's token and a content key are what a request would carry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { actorOfCredential, INSTALLATION_OPERATOR, POLICY_ACTIONS } from '../../src/domain/policy.js';
import type { Actor, PolicyAction, PolicyActions } from '../../src/domain/policy.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

/** The columns of the matrix, in order. */
const CALLERS = [
  'administrator',
  'site admin',
  'editor',
  'author',
  'contributor',
  'reader',
  'no role',
  'content key',
  'read-only key',
  'key of website two',
  'disabled user',
  'the operator (CLI)',
] as const;
type Caller = (typeof CALLERS)[number];

interface Fixture {
  /** The website the case is about, and the other one. */
  site: number;
  other: number;
  /** The caller's own user id (null: none). */
  self: number | null;
  /** Another writer on both websites: the author of "other's" posts and media. */
  writer: number;
}

interface Case<A extends PolicyAction = PolicyAction> {
  name: string;
  action: A;
  facts: (f: Fixture) => PolicyActions[A];
}

const post = (authorId: number | null, status: string, websiteIds: number[]) => ({
  authorId,
  status,
  publishedAt: null,
  websiteIds,
});
const ask = <A extends PolicyAction>(
  name: string,
  action: A,
  facts: (f: Fixture) => PolicyActions[A],
): Case => ({ name, action, facts });

/** The questions about one website (asked about website one, then website two). */
const SITE_CASES: Case[] = [
  ask("read another's draft", 'post.read', (f) => ({ post: post(f.writer, 'draft', [f.site]) })),
  ask('read a published post', 'post.read', (f) => ({ post: post(f.writer, 'published', [f.site]) })),
  ask('create a post', 'post.create', (f) => ({ websiteIds: [f.site] })),
  ask('update their own draft', 'post.update', (f) => ({ post: post(f.self, 'draft', [f.site]) })),
  ask("update another's draft", 'post.update', (f) => ({ post: post(f.writer, 'draft', [f.site]) })),
  ask("update another's published post", 'post.update', (f) => ({
    post: post(f.writer, 'published', [f.site]),
  })),
  ask('move their own draft to the other website', 'post.update', (f) => ({
    post: post(f.self, 'draft', [f.site]),
    websiteIds: [f.other],
  })),
  ask("delete another's draft", 'post.delete', (f) => ({ post: post(f.writer, 'draft', [f.site]) })),
  ask('publish a new post', 'post.publish', (f) => ({ post: null, websiteIds: [f.site] })),
  ask("review another's pending post", 'post.review', (f) => ({ post: post(f.writer, 'pending', [f.site]) })),
  ask('name another as author of their post', 'post.name_author', (f) => ({
    authorId: f.writer,
    post: post(f.self, 'draft', [f.site]),
  })),
  ask('create a tag', 'tag.create', (f) => ({ websiteIds: [f.site] })),
  ask('rename a tag', 'tag.update', (f) => ({ websiteIds: [f.site], current: [f.site] })),
  ask('browse the media library', 'media.read', (f) => ({ websiteId: f.site })),
  ask('upload media', 'media.upload', (f) => ({ websiteId: f.site })),
  ask('change their own media', 'media.update', (f) => ({
    websiteId: f.site,
    item: { userId: f.self, websiteIds: [f.site] },
  })),
  ask("delete another's media", 'media.delete', (f) => ({
    websiteId: f.site,
    item: { userId: f.writer, websiteIds: [f.site] },
  })),
  ask('write pages and links', 'content.write', (f) => ({ websiteIds: [f.site] })),
  ask('manage menus', 'menu.manage', (f) => ({ websiteId: f.site })),
  ask('see the website', 'website.see', (f) => ({ websiteId: f.site })),
  ask('manage the website', 'website.manage', (f) => ({ websiteId: f.site })),
  ask("change the website's settings", 'website.settings', (f) => ({ websiteId: f.site })),
  ask("edit the website's content", 'website.edit', (f) => ({ websiteId: f.site })),
  ask('moderate comments', 'comment.moderate', (f) => ({ websiteId: f.site })),
  ask('manage members', 'member.manage', (f) => ({ websiteId: f.site })),
  ask('make a member an editor', 'member.grant', (f) => ({
    websiteId: f.site,
    role: 'editor',
    current: null,
  })),
  ask('make a member a site admin', 'member.grant', (f) => ({
    websiteId: f.site,
    role: 'site_admin',
    current: 'editor',
  })),
  ask("read the website's audit log", 'audit.read', (f) => ({ websiteId: f.site })),
  ask("read the website's statistics", 'stats.read', (f) => ({ websiteId: f.site })),
  ask("manage the website's webhooks", 'webhook.manage', (f) => ({ websiteId: f.site })),
  ask('export the website', 'website.export', (f) => ({ websiteId: f.site })),
];

/** The questions about the whole installation (asked once). */
const INSTALLATION_CASES: Case[] = [
  ask('create an all-sites post', 'post.create', () => ({ websiteIds: [] })),
  ask('create an all-sites tag', 'tag.create', () => ({ websiteIds: [] })),
  ask('write all-sites pages', 'content.write', () => ({ websiteIds: [] })),
  ask('see every website', 'website.see_all', () => ({})),
  ask("see every website of their key's scope", 'website.see_key_scope', () => ({})),
  ask("manage websites' code", 'website.code', () => ({})),
  ask('read accounts', 'account.read', () => ({})),
  ask('read their own account', 'account.read', (f) => ({ userId: f.self ?? -1 })),
  ask('manage accounts', 'account.manage', () => ({})),
  ask('issue themselves a new token', 'account.token', (f) => ({ userId: f.self ?? -1 })),
  ask('issue another a new token', 'account.token', (f) => ({ userId: f.writer })),
  ask('manage their own API keys', 'key.manage', (f) => ({ userId: f.self ?? -1 })),
  ask("manage another's API keys", 'key.manage', (f) => ({ userId: f.writer })),
  ask('read the installation', 'installation.read', () => ({})),
  ask("call API v1's administrators' endpoints", 'installation.administer', () => ({})),
  ask("moderate every website's comments", 'comment.moderate_all', () => ({})),
  ask('manage the installation', 'installation.manage', () => ({})),
  ask('operate the installation (the CLI)', 'installation.operate', () => ({})),
  ask('manage jobs', 'job.manage', () => ({})),
  ask("manage the installation's webhooks", 'webhook.manage', () => ({ websiteId: null })),
  ask('export the installation', 'website.export', () => ({ websiteId: null })),
  ask('read health', 'health.read', () => ({})),
  ask('be someone (not a visitor)', 'caller.identified', () => ({})),
  ask('keep their HTML as written', 'content.unfiltered_html', () => ({})),
  ask("read the installation's audit log", 'audit.read', () => ({})),
];

// Columns: administrator, site admin, editor, author, contributor, reader, no role, content key,
// read-only key, key of website two, disabled user, the operator at the command line. Y: allowed, -: refused.
// - A disabled user's token is refused, which leaves a caller without a user: R-P8 lets such a caller
//   (an endpoint in \`none\` mode; the face refuses it otherwise) create a post where the request puts
//   it (none here: an all-sites post), and "publish" for them is the create's question alone.
// - Publishing is refused only to contributors and readers of a website the post is on: whether the
//   caller may write the post at all is the create or update question.
// - A content key acts as a visitor, and is read-only.
// - Tokens and API keys are changed with a token or a session, never with a key; administrators do
//   not issue other users' credentials through the API: only the operator at the command line does.
const EXPECTED_ON_SITE_ONE = `
read another's draft                          | Y Y Y - - - - - Y - - Y
read a published post                         | Y Y Y Y Y Y Y Y Y Y Y Y
create a post                                 | Y Y Y Y Y - - - - - - Y
update their own draft                        | Y Y Y Y Y - - - - - - Y
update another's draft                        | Y Y Y - - - - - - - - Y
update another's published post               | Y Y Y - - - - - - - - Y
move their own draft to the other website     | Y - - - - - - - - - - Y
delete another's draft                        | Y Y Y - - - - - - - - Y
publish a new post                            | Y Y Y Y - - Y - - - Y Y
review another's pending post                 | Y Y Y - - - - - - - - Y
name another as author of their post          | Y - - - - - - - Y - - Y
create a tag                                  | Y Y Y Y - - - - - - - Y
rename a tag                                  | Y Y Y - - - - - - - - Y
browse the media library                      | Y Y Y Y Y - - - Y - - Y
upload media                                  | Y Y Y Y Y - - - - - - Y
change their own media                        | Y Y Y Y Y - - - - - - Y
delete another's media                        | Y Y Y - - - - - - - - Y
write pages and links                         | Y Y Y - - - - - - - - Y
manage menus                                  | Y Y - - - - - - - - - Y
see the website                               | Y Y Y Y Y Y - - Y - - Y
manage the website                            | Y Y - - - - - - Y - - Y
change the website's settings                 | Y Y - - - - - - - - - Y
edit the website's content                    | Y Y Y - - - - - Y - - Y
moderate comments                             | Y Y Y - - - - - Y - - Y
manage members                                | Y Y - - - - - - Y - - Y
make a member an editor                       | Y Y - - - - - - Y - - Y
make a member a site admin                    | Y - - - - - - - Y - - Y
read the website's audit log                  | Y Y - - - - - - Y - - Y
read the website's statistics                 | Y Y Y Y Y - - - Y - - Y
manage the website's webhooks                 | Y Y - - - - - - - - - Y
export the website                            | Y Y - - - - - - - - - Y
`;

const EXPECTED_ON_SITE_TWO = `
read another's draft                          | Y - - - - - - - Y Y - Y
read a published post                         | Y Y Y Y Y Y Y Y Y Y Y Y
create a post                                 | Y - - - - - - - - Y - Y
update their own draft                        | Y - - - - - - - - Y - Y
update another's draft                        | Y - - - - - - - - Y - Y
update another's published post               | Y - - - - - - - - Y - Y
move their own draft to the other website     | Y - - - - - - - - - - Y
delete another's draft                        | Y - - - - - - - - Y - Y
publish a new post                            | Y Y Y Y Y Y Y - - Y Y Y
review another's pending post                 | Y - - - - - - - - Y - Y
name another as author of their post          | Y - - - - - - - Y Y - Y
create a tag                                  | Y - - - - - - - - Y - Y
rename a tag                                  | Y - - - - - - - - Y - Y
browse the media library                      | Y - - - - - - - Y Y - Y
upload media                                  | Y - - - - - - - - Y - Y
change their own media                        | Y - - - - - - - - Y - Y
delete another's media                        | Y - - - - - - - - Y - Y
write pages and links                         | Y - - - - - - - - Y - Y
manage menus                                  | Y - - - - - - - - Y - Y
see the website                               | Y - - - - - - - Y Y - Y
manage the website                            | Y - - - - - - - Y Y - Y
change the website's settings                 | Y - - - - - - - - Y - Y
edit the website's content                    | Y - - - - - - - Y Y - Y
moderate comments                             | Y - - - - - - - Y Y - Y
manage members                                | Y - - - - - - - Y Y - Y
make a member an editor                       | Y - - - - - - - Y Y - Y
make a member a site admin                    | Y - - - - - - - Y Y - Y
read the website's audit log                  | Y - - - - - - - Y Y - Y
read the website's statistics                 | Y - - - - - - - Y Y - Y
manage the website's webhooks                 | Y - - - - - - - - Y - Y
export the website                            | Y - - - - - - - - Y - Y
`;

const EXPECTED_ON_THE_INSTALLATION = `
create an all-sites post                      | Y - - - - - - - - - Y Y
create an all-sites tag                       | Y - - - - - - - - - - Y
write all-sites pages                         | Y - - - - - - - - - - Y
see every website                             | Y - - - - - - - Y - - Y
see every website of their key's scope        | Y - - - - - - - Y Y - Y
manage websites' code                         | Y - - - - - - - Y - - Y
read accounts                                 | Y - - - - - - - Y - - Y
read their own account                        | Y Y Y Y Y Y Y - Y Y - Y
manage accounts                               | Y - - - - - - - - - - Y
issue themselves a new token                  | Y Y Y Y Y Y Y - - - - Y
issue another a new token                     | - - - - - - - - - - - Y
manage their own API keys                     | Y Y Y Y Y Y Y - - - - Y
manage another's API keys                     | - - - - - - - - - - - Y
read the installation                         | Y - - - - - - - Y - - Y
call API v1's administrators' endpoints       | Y - - - - - - - Y - - Y
moderate every website's comments             | Y - - - - - - - - - - Y
manage the installation                       | Y - - - - - - - - - - Y
operate the installation (the CLI)            | - - - - - - - - - - - Y
manage jobs                                   | Y - - - - - - - Y - - Y
manage the installation's webhooks            | Y - - - - - - - - - - Y
export the installation                       | Y - - - - - - - - - - Y
read health                                   | Y - - - - - - - Y - - Y
be someone (not a visitor)                    | Y Y Y Y Y Y Y - Y Y - Y
keep their HTML as written                    | Y - - - - - - - Y Y - Y
read the installation's audit log             | Y - - - - - - - Y - - Y
`;

describe('the policy as one table: every action for every caller (issue 35 #2)', () => {
  let ctx: TestContext;
  let site1: number;
  let site2: number;
  let writer: number;
  const actors = new Map<Caller, Actor>();

  before(async () => {
    ctx = await createTestContext();
    const { services } = ctx;
    site1 = await websiteWrites(services).create({ siteName: 'One', domain: 'one.test' });
    site2 = await websiteWrites(services).create({ siteName: 'Two', domain: 'two.test' });
    writer = (await ctx.createUser()).id;
    await services.memberships.grant(writer, site1, 'author');
    await services.memberships.grant(writer, site2, 'author');

    const admin = await ctx.createUser({ admin: true });
    const byToken = async (token: string) => {
      const user = await services.users.authenticateToken(token);
      return actorOfCredential({ user, key: null }, null, { surface: 'api-v2' });
    };
    const byKey = async (secret: string) => {
      const found = await services.apiKeys.authenticate(secret);
      return actorOfCredential({ user: found?.user ?? null, key: found?.key ?? null }, null, {
        surface: 'api-v2',
      });
    };
    actors.set('administrator', await byToken(admin.token));
    for (const [caller, role] of [
      ['site admin', 'site_admin'],
      ['editor', 'editor'],
      ['author', 'author'],
      ['contributor', 'contributor'],
      ['reader', 'reader'],
    ] as const) {
      const user = await ctx.createUser();
      await services.memberships.grant(user.id, site1, role);
      actors.set(caller, await byToken(user.token));
    }
    actors.set('no role', await byToken((await ctx.createUser()).token));
    const key = (input: Parameters<typeof services.apiKeys.create>[1]) =>
      services.apiKeys.create(admin.id, input).then((created) => byKey(created.secret));
    // Keys of an administrator: the most a key could carry.
    actors.set('content key', await key({ name: 'content', contentOnly: true, websiteIds: [site1] }));
    actors.set('read-only key', await key({ name: 'read-only', readOnly: true }));
    actors.set('key of website two', await key({ name: 'two', websiteIds: [site2] }));
    const disabled = await ctx.createUser();
    await services.memberships.grant(disabled.id, site1, 'editor');
    await services.users.setActive(disabled.id, false);
    actors.set('disabled user', await byToken(disabled.token));
    actors.set('the operator (CLI)', INSTALLATION_OPERATOR);
  });
  after(() => ctx.close());

  const matrix = async (cases: Case[], site: () => number, other: () => number): Promise<string> => {
    const lines: string[] = [];
    for (const entry of cases) {
      const answers: string[] = [];
      for (const caller of CALLERS) {
        const actor = actors.get(caller)!;
        const facts = entry.facts({ site: site(), other: other(), self: actor.userId, writer });
        answers.push((await ctx.services.policy.can(actor, entry.action, facts)) ? 'Y' : '-');
      }
      lines.push(`${entry.name.padEnd(45)} | ${answers.join(' ')}`);
    }
    return lines.join('\n');
  };
  const table = (text: string) => text.trim();

  it('on website one, where the callers hold their roles', async () => {
    assert.equal(
      await matrix(
        SITE_CASES,
        () => site1,
        () => site2,
      ),
      table(EXPECTED_ON_SITE_ONE),
    );
  });

  it('on website two, where they hold none: only administrators and a key of website two reach it', async () => {
    assert.equal(
      await matrix(
        SITE_CASES,
        () => site2,
        () => site1,
      ),
      table(EXPECTED_ON_SITE_TWO),
    );
  });

  it('on the installation', async () => {
    assert.equal(
      await matrix(
        INSTALLATION_CASES,
        () => site1,
        () => site2,
      ),
      table(EXPECTED_ON_THE_INSTALLATION),
    );
  });

  it('the matrix asks every action the policy knows', () => {
    const asked = new Set([...SITE_CASES, ...INSTALLATION_CASES].map((entry) => entry.action));
    assert.deepEqual(
      POLICY_ACTIONS.filter((action) => !asked.has(action)),
      [],
      'an action without a row in the matrix',
    );
  });
});
