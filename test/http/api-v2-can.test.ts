// API v2's `can` (issue 34 #19): posts (list and detail), pages and menus say what the caller may do to
// each of them, from the policy; the post list's answer cache never hands one caller's `can` to another.
// And issue 34 #20: the role of a new registration is one of the registration roles (422 otherwise).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postListSchema, postOneSchema } from '../../src/api/v2/schemas.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

interface Can {
  update: boolean;
  publish?: boolean;
  delete: boolean;
}

describe('API v2 can (issue 34 #19)', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  let admin: TestUser;
  let editor: TestUser;
  let author: TestUser;
  let contributor: TestUser;
  let mine: number;
  let theirs: number;
  let shared: number;

  before(async () => {
    ctx = await createTestContext();
    const { services } = ctx;
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await ctx.enableApi();
    site = await websiteWrites(services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(services).create({ siteName: 'Other', domain: 'other.test' });
    admin = await ctx.createUser({ admin: true });
    editor = await ctx.createUser();
    author = await ctx.createUser();
    contributor = await ctx.createUser();
    await services.memberships.grant(editor.id, site, 'editor');
    await services.memberships.grant(author.id, site, 'author');
    await services.memberships.grant(contributor.id, site, 'contributor');
    mine = (
      await services.posts.create(
        { title: 'Author’s', content: 'x', status: 'published', websiteIds: [site] },
        { userId: author.id, isAdmin: false },
      )
    ).id;
    theirs = (
      await services.posts.create(
        { title: 'Editor’s', content: 'x', status: 'published', websiteIds: [site] },
        { userId: editor.id, isAdmin: false },
      )
    ).id;
    // On two websites: the editor of one only may not change it.
    shared = (
      await services.posts.create(
        { title: 'Shared', content: 'x', status: 'published', websiteIds: [site, other] },
        { userId: admin.id, isAdmin: true },
      )
    ).id;
  });
  after(() => ctx.close());

  const get = (url: string, as: TestUser) =>
    ctx.request({
      method: 'GET',
      url: `/api/v2${url}`,
      headers: { host: 'site.test', authorization: `Bearer ${as.token}` },
    });
  const listCans = async (as: TestUser, url = '/posts?filter[status]=any&per_page=50') => {
    const response = await get(url, as);
    assert.equal(response.statusCode, 200, response.body);
    const body = postListSchema.parse(response.json());
    return new Map(body.data.map((post) => [post.id!, post.can as Can]));
  };

  it('issue 34 #19: the post list says per post what each caller may do, never another caller’s', async () => {
    // The same URL, asked in turn by callers of different rights: each gets their own answers.
    for (let round = 0; round < 2; round++) {
      const asAuthor = await listCans(author);
      assert.deepEqual(asAuthor.get(mine), { update: true, publish: true, delete: true });
      assert.deepEqual(asAuthor.get(theirs), { update: false, publish: false, delete: false });
      const asEditor = await listCans(editor);
      assert.deepEqual(asEditor.get(mine), { update: true, publish: true, delete: true });
      assert.deepEqual(asEditor.get(shared), { update: false, publish: false, delete: false });
      const asContributor = await listCans(contributor);
      assert.deepEqual(asContributor.get(theirs), { update: false, publish: false, delete: false });
      const asAdmin = await listCans(admin);
      assert.deepEqual(asAdmin.get(shared), { update: true, publish: true, delete: true });
    }
    // The same user, and the same cached page, through a read-only key: nothing may be changed. (The
    // page of the list is cached per viewer; the abilities are not the viewer's alone.)
    for (const user of [author, admin]) {
      const { secret } = await ctx.services.apiKeys.create(user.id, { name: 'ro', readOnly: true });
      const url = '/posts?filter[status]=any&per_page=50';
      assert.equal((await listCans(user, url)).get(mine)?.update, true);
      const readOnly = await listCans({ ...user, token: secret }, url);
      assert.deepEqual(readOnly.get(mine), { update: false, publish: false, delete: false });
      assert.equal((await listCans(user, url)).get(mine)?.update, true);
    }
    // `?fields=` without `can` leaves it out.
    const bare = (await get('/posts?filter[status]=any&fields=id,title', author)).json<{
      data: Array<Record<string, unknown>>;
    }>();
    assert.ok(bare.data.every((post) => !('can' in post)));
  });

  it('issue 34 #19: one post says what its caller may do, and the answer follows the caller', async () => {
    for (const [as, expected] of [
      [author, { update: true, publish: true, delete: true }],
      [contributor, { update: false, publish: false, delete: false }],
      [author, { update: true, publish: true, delete: true }],
    ] as const) {
      const response = await get(`/posts/${mine}`, as);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(postOneSchema.parse(response.json()).data.can, expected);
    }
  });

  it('issue 34 #19: pages and menus say whether the caller may change and delete them', async () => {
    const { services } = ctx;
    const here = await services.pages.create({
      title: 'Here',
      slug: 'here',
      status: 'published',
      websiteIds: [site],
    });
    const everywhere = await services.pages.create({
      title: 'All',
      slug: 'all',
      status: 'published',
      websiteIds: [],
    });
    const pagesOf = async (as: TestUser) => {
      const response = await get('/pages', as);
      assert.equal(response.statusCode, 200, response.body);
      return new Map(
        response.json<{ data: Array<{ id: number; can: Can }> }>().data.map((page) => [page.id, page.can]),
      );
    };
    const asEditor = await pagesOf(editor);
    assert.deepEqual(asEditor.get(here.id), { update: true, delete: true });
    assert.deepEqual(asEditor.get(everywhere.id), { update: false, delete: false });
    assert.deepEqual((await pagesOf(author)).get(here.id), { update: false, delete: false });
    const one = await get(`/pages/${here.id}`, editor);
    assert.deepEqual(one.json<{ data: { can: Can } }>().data.can, { update: true, delete: true });

    const created = await ctx.request({
      method: 'POST',
      url: `/api/v2/websites/${site}/menus`,
      headers: { host: 'site.test', authorization: `Bearer ${admin.token}` },
      payload: { handle: 'footer', name: 'Footer' },
    });
    assert.equal(created.statusCode, 201, created.body);
    const menuId = created.json<{ data: { id: number } }>().data.id;
    const menus = (as: TestUser) =>
      get(`/websites/${site}/menus`, as).then(
        (response) => response.json<{ data: Array<{ id: number; can: Can }> }>().data,
      );
    assert.deepEqual((await menus(admin)).find((menu) => menu.id === menuId)?.can, {
      update: true,
      delete: true,
    });
    assert.deepEqual((await menus(editor)).find((menu) => menu.id === menuId)?.can, {
      update: false,
      delete: false,
    });
    const menu = await get(`/menus/${menuId}`, editor);
    assert.deepEqual(menu.json<{ data: { can: Can } }>().data.can, { update: false, delete: false });
  });

  it('issue 34 #20: the role of a new registration is reader, contributor or author (422 otherwise); defaults are said', async () => {
    const patch = (value: string) =>
      ctx.request({
        method: 'PATCH',
        url: '/api/v2/settings',
        headers: { host: 'site.test', authorization: `Bearer ${admin.token}` },
        payload: { registration_role: value },
      });
    const refused = await patch('superuser');
    assert.equal(refused.statusCode, 422, refused.body);
    assert.match(
      refused.json<{ errors: Record<string, string[]> }>().errors.registration_role?.[0] ?? '',
      /reader, contributor, author/,
    );
    assert.notEqual(await ctx.services.settings.get('registration_role'), 'superuser');
    // What each unset setting is in effect, for the panel to show.
    const read = await ctx.request({
      method: 'GET',
      url: '/api/v2/settings',
      headers: { host: 'site.test', authorization: `Bearer ${admin.token}` },
    });
    const defaults = read.json<{ meta: { defaults: Record<string, string> } }>().meta.defaults;
    assert.equal(defaults.registration_role, 'reader');
    assert.equal(defaults.session_lifetime, String(7 * 24 * 60));
    const saved = await patch(' Contributor ');
    assert.equal(saved.statusCode, 200, saved.body);
    assert.equal(saved.json<{ data: Record<string, string> }>().data.registration_role, 'contributor');
  });
});
