// Tags API (spec 4.2, 2.4, sections 7 and 8; R-Tg1..R-Tg4, R-A2..R-A7, R-V1, R-V2) through the app.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createTestContext, usingPostgres } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const DISABLED = { status: 403, message: 'API access is disabled' };
const INVALID_TOKEN = { status: 'fail', message: 'Invalid token' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface TagBody {
  id: number;
  name: string;
  slug: string;
  type: string;
  parent_id: number | null;
  description: string | null;
  icon: string | null;
  sort: number;
  created_at: string;
  updated_at: string;
}

const invalid = (errors: Record<string, string[]>) => ({
  code: 422,
  status: 'fail',
  message: 'Validation failed',
  data: { errors },
  extra: [],
});

describe('tags API', () => {
  let ctx: TestContext;
  let user: TestUser;

  before(async () => {
    ctx = await createTestContext();
    // An administrator: these tests are about the store rules; who may change which tag is
    // test/http/ownership.test.ts.
    user = await ctx.createUser({ admin: true });
  });
  after(() => ctx.close());
  beforeEach(async () => {
    const { db } = ctx.services.database;
    await db.deleteFrom('settings').execute();
    await ctx.enableApi();
    await db.deleteFrom('translations').execute();
    await db.deleteFrom('website_bindings').execute();
    await db.updateTable('tags').set({ parent_id: null }).execute();
    await db.deleteFrom('tags').execute();
  });

  const post = (url: string, payload: Record<string, unknown>, token: string | null = user.token) =>
    ctx.request({
      method: 'POST',
      url: `/api/v1${url}`,
      payload: token === null ? payload : { api_token: token, ...payload },
    });
  const store = (payload: Record<string, unknown>) => post('/tags/store', payload);
  const storeOk = async (payload: Record<string, unknown>) => {
    const response = await store(payload);
    assert.equal(response.statusCode, 200, response.body);
    const body: { data: TagBody } = response.json();
    return body.data;
  };

  describe('store (spec 4.2 rules, R-Tg4)', () => {
    it('rule 2: creates a tag and answers {status, message, data} only, with the full tag', async () => {
      const response = await store({
        name: 'Travel',
        description: 'Trips',
        icon: 'fa-plane',
        sort: 5,
      });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(Object.keys(body), ['status', 'message', 'data']);
      const id = body.data.id;
      assert.equal(Number.isInteger(id), true);
      assert.equal(body.status, 'success');
      assert.equal(body.message, `tag #${id} created`);
      assert.deepEqual(Object.keys(body.data), [
        'id',
        'name',
        'slug',
        'type',
        'parent_id',
        'description',
        'icon',
        'sort',
        'created_at',
        'updated_at',
      ]);
      assert.deepEqual(
        { ...body.data, created_at: 'x', updated_at: 'x' },
        {
          id,
          name: 'Travel',
          slug: 'travel',
          type: 'post_category',
          parent_id: null,
          description: 'Trips',
          icon: 'fa-plane',
          sort: 5,
          created_at: 'x',
          updated_at: 'x',
        },
      );
      assert.match(body.data.created_at, ISO);
      assert.match(body.data.updated_at, ISO);
    });

    it('R-Tg2: sort defaults to 0, type to post_category, description and icon to null', async () => {
      const tag = await storeOk({ name: 'Plain' });
      assert.equal(tag.sort, 0);
      assert.equal(tag.type, 'post_category');
      assert.equal(tag.description, null);
      assert.equal(tag.icon, null);
    });

    it('rule 3: a duplicate (same name and type) is skipped and the existing tag returned unchanged', async () => {
      const first = await storeOk({ name: 'News', type: 'post_tag', description: 'old' });
      const response = await store({ name: 'News', type: 'post_tag', description: 'new', sort: 9 });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        status: 'success',
        message: 'Skipped. Duplicated tag found',
        data: first,
      });
      const count = await ctx.services.database.db.selectFrom('tags').select('id').execute();
      assert.equal(count.length, 1);
    });

    it('rule 3: update_when_duplicated false (in any R-G5 form) also skips', async () => {
      await storeOk({ name: 'News', type: 'post_tag' });
      for (const value of [false, 0, '0', 'false', 'off', 'no']) {
        const body = (await store({ name: 'News', type: 'post_tag', update_when_duplicated: value })).json();
        assert.equal(body.message, 'Skipped. Duplicated tag found', String(value));
      }
    });

    it('rule 4: update_when_duplicated true updates the sent fields of the existing tag', async () => {
      const first = await storeOk({ name: 'News', type: 'post_tag', description: 'old', icon: 'i', sort: 1 });
      const response = await store({
        name: 'News',
        type: 'post_tag',
        description: 'new',
        sort: 7,
        update_when_duplicated: 'yes',
      });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(Object.keys(body), ['status', 'message', 'data']);
      assert.equal(body.message, 'Existing tag updated');
      assert.deepEqual(
        { ...body.data, updated_at: 'x' },
        { ...first, description: 'new', sort: 7, icon: 'i', updated_at: 'x' },
      );
    });

    it('rule 1: the same name with another type is a new tag; duplicates are exact (case matters)', async () => {
      const a = await storeOk({ name: 'Apple', type: 'post_tag' });
      const b = await storeOk({ name: 'Apple', type: 'product_category' });
      const c = await storeOk({ name: 'apple', type: 'post_tag' });
      assert.notEqual(a.id, b.id);
      assert.notEqual(a.id, c.id);
      assert.equal(b.slug, 'apple');
      assert.equal(c.slug, 'apple-2', 'a slug taken within the type gets -2');
      const d = await storeOk({ name: 'APPLE', type: 'post_tag' });
      assert.equal(d.slug, 'apple-3');
    });

    it('slugs: generated from the name (transliterated), or from a given slug, unique within the type', async () => {
      assert.equal((await storeOk({ name: 'Hello World Again' })).slug, 'hello-world-again');
      assert.equal((await storeOk({ name: '你好世界' })).slug, 'ni-hao-shi-jie');
      assert.equal((await storeOk({ name: 'Other', slug: 'My Slug' })).slug, 'my-slug');
      assert.equal((await storeOk({ name: 'Other two', slug: 'my-slug' })).slug, 'my-slug-2');
      assert.match((await storeOk({ name: '🙂' })).slug, /^[a-z0-9]{8}$/);
    });

    it('a duplicate update with a new slug keeps it unique, ignoring the tag itself', async () => {
      const a = await storeOk({ name: 'A', slug: 'same' });
      await storeOk({ name: 'B', slug: 'taken' });
      const again = await store({ name: 'A', slug: 'same', update_when_duplicated: true });
      assert.equal(again.json().data.slug, 'same');
      const moved = await store({ name: 'A', slug: 'taken', update_when_duplicated: true });
      assert.equal(moved.json().data.slug, 'taken-2');
      assert.equal(moved.json().data.id, a.id);
    });

    it('rule 6: parent_id must exist (422), and be of the same type (R-Tg4)', async () => {
      const parent = await storeOk({ name: 'Parent', type: 'post_category' });
      const child = await storeOk({ name: 'Child', parent_id: parent.id });
      assert.equal(child.parent_id, parent.id);
      const missing = await store({ name: 'Orphan', parent_id: 999999 });
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json(), invalid({ parent_id: ['The selected parent id is invalid.'] }));
      const otherType = await store({ name: 'Cross', type: 'post_tag', parent_id: parent.id });
      assert.equal(otherType.statusCode, 422);
      assert.deepEqual(otherType.json(), invalid({ parent_id: ['The selected parent id is invalid.'] }));
      const rows = await ctx.services.database.db.selectFrom('tags').select('name').execute();
      assert.deepEqual(rows.map((row) => row.name).sort(), ['Child', 'Parent']);
    });

    it('R-Tg4: an update never makes a cycle (itself, or a descendant as parent)', async () => {
      const a = await storeOk({ name: 'A' });
      const b = await storeOk({ name: 'B', parent_id: a.id });
      const c = await storeOk({ name: 'C', parent_id: b.id });
      for (const parent of [a.id, c.id]) {
        const response = await store({ name: 'A', parent_id: parent, update_when_duplicated: true });
        assert.equal(response.statusCode, 422);
        assert.deepEqual(response.json(), invalid({ parent_id: ['The selected parent id is invalid.'] }));
      }
      const self = await store({ name: 'C', parent_id: c.id, update_when_duplicated: true });
      assert.equal(self.statusCode, 422);
      // A legal move still works.
      const moved = await store({ name: 'C', parent_id: a.id, update_when_duplicated: true });
      assert.equal(moved.json().data.parent_id, a.id);
      assert.equal((await ctx.services.tags.findById(a.id))?.parentId, null);
    });

    it('rule 5: website_id as integer, array or comma string; invalid and unknown ids are ignored', async () => {
      const w1 = await websiteWrites(ctx.services).create({
        siteName: 'One',
        domain: `one-${Date.now()}.test`,
      });
      const w2 = await websiteWrites(ctx.services).create({
        siteName: 'Two',
        domain: `two-${Date.now()}.test`,
      });
      const cases: [unknown, number[]][] = [
        [w1, [w1]],
        [String(w2), [w2]],
        [
          [w1, String(w2), 'x', 999999, -3, 99999999999],
          [w1, w2],
        ],
        [`${w2}, ${w1},abc,999999`, [w1, w2]],
        ['abc', []],
        [[], []],
        [{ a: 1 }, []],
      ];
      let n = 0;
      for (const [websiteId, expected] of cases) {
        const tag = await storeOk({ name: `Bound ${n++}`, website_id: websiteId });
        const bound = (await ctx.services.bindings.websitesOf('tag', [tag.id])).get(tag.id) ?? [];
        assert.deepEqual(bound, expected, JSON.stringify(websiteId));
      }
    });

    it('R-Tg4: website bindings apply on a duplicate update too', async () => {
      const w1 = await websiteWrites(ctx.services).create({
        siteName: 'Three',
        domain: `three-${Date.now()}.test`,
      });
      const tag = await storeOk({ name: 'Shared' });
      await store({ name: 'Shared', website_id: w1 }); // skipped: bindings untouched
      assert.equal((await ctx.services.bindings.websitesOf('tag', [tag.id])).get(tag.id), undefined);
      await store({ name: 'Shared', website_id: w1, update_when_duplicated: true });
      assert.deepEqual((await ctx.services.bindings.websitesOf('tag', [tag.id])).get(tag.id), [w1]);
    });

    it('a locale map as name: the default locale is the name, every entry a translation', async () => {
      const tag = await storeOk({ name: { 'zh-tw': '旅遊', en: 'Travel' }, type: 'post_tag' });
      assert.equal(tag.name, 'Travel');
      const names = (await ctx.services.translations.forModels('tag', [tag.id])).get(tag.id);
      assert.deepEqual(names, { name: { en: 'Travel', zh_TW: '旅遊' } });
      const duplicate = await store({ name: { en: 'Travel' }, type: 'post_tag' });
      assert.equal(duplicate.json().message, 'Skipped. Duplicated tag found');
    });

    it('section 7: validation errors, each in the standard 422 body', async () => {
      const cases: [Record<string, unknown>, Record<string, string[]>][] = [
        [{}, { name: ['The name field is required.'] }],
        [{ name: '   ' }, { name: ['The name field is required.'] }],
        [{ name: 12 }, { name: ['The name must be a string.'] }],
        [{ name: ['a'] }, { name: ['The name must be a string.'] }],
        [{ name: 'x'.repeat(256) }, { name: ['The name may not be greater than 255 characters.'] }],
        [{ name: 'ok', type: 't'.repeat(51) }, { type: ['The type may not be greater than 50 characters.'] }],
        [{ name: 'ok', type: 5 }, { type: ['The type must be a string.'] }],
        [{ name: 'ok', parent_id: 'abc' }, { parent_id: ['The parent id must be an integer.'] }],
        [{ name: 'ok', sort: 'high' }, { sort: ['The sort must be an integer.'] }],
        [{ name: 'ok', sort: 2147483648 }, { sort: ['The sort may not be greater than 2147483647.'] }],
        [{ name: 'ok', sort: '-2147483649' }, { sort: ['The sort must be at least -2147483648.'] }],
        [{ name: { 'not a locale!': 'x' } }, { name: ['The selected name is invalid.'] }],
        [{ name: { en: 5 } }, { name: ['The name must be a string.'] }],
        [{ name: { en: ' ', fr: '' } }, { name: ['The name field is required.'] }],
        [{ name: { en: 'y'.repeat(256) } }, { name: ['The name may not be greater than 255 characters.'] }],
        [{ name: 'ok', parent_id: 99999999999 }, { parent_id: ['The selected parent id is invalid.'] }],
        [
          { name: 'ok', update_when_duplicated: 'maybe' },
          { update_when_duplicated: ['The update when duplicated field must be true or false.'] },
        ],
        [
          { type: 'y'.repeat(60), sort: 1.5 },
          {
            name: ['The name field is required.'],
            type: ['The type may not be greater than 50 characters.'],
            sort: ['The sort must be an integer.'],
          },
        ],
      ];
      for (const [payload, errors] of cases) {
        const response = await store(payload);
        assert.equal(response.statusCode, 422, JSON.stringify(payload));
        assert.deepEqual(response.json(), invalid(errors), JSON.stringify(payload));
      }
      const rows = await ctx.services.database.db.selectFrom('tags').select('id').execute();
      assert.equal(rows.length, 0);
    });

    it('section 8: a name of exactly 255 characters and a type of exactly 50 are accepted', async () => {
      const tag = await storeOk({ name: 'n'.repeat(255), type: 't'.repeat(50) });
      assert.equal(tag.name.length, 255);
      assert.equal(tag.type, 't'.repeat(50));
    });

    it('concurrency: identical parallel store requests create exactly one tag', async () => {
      for (const round of [1, 2, 3]) {
        const payload = { name: `Parallel ${round}`, type: 'post_tag' };
        const responses = await Promise.all(Array.from({ length: 6 }, () => store(payload)));
        const bodies = responses.map((response) => {
          assert.equal(response.statusCode, 200, response.body);
          const body: { message: string; data: { id: number } } = response.json();
          return body;
        });
        const created = bodies.filter((body) => /^tag #\d+ created$/.test(body.message));
        const skipped = bodies.filter((body) => body.message === 'Skipped. Duplicated tag found');
        assert.equal(created.length, 1, `round ${round} on ${usingPostgres ? 'PostgreSQL' : 'SQLite'}`);
        assert.equal(skipped.length, 5);
        assert.equal(new Set(bodies.map((body) => body.data.id)).size, 1);
        const rows = await ctx.services.database.db
          .selectFrom('tags')
          .select('id')
          .where('name', '=', payload.name)
          .execute();
        assert.equal(rows.length, 1);
      }
    });

    it('concurrency: parallel updates of a duplicate with update_when_duplicated never create a second tag', async () => {
      const payload = { name: 'Racing', type: 'post_tag', update_when_duplicated: true, sort: 3 };
      const responses = await Promise.all(Array.from({ length: 5 }, () => store(payload)));
      const bodies: { message: string }[] = responses.map((r) => r.json<{ message: string }>());
      assert.equal(bodies.filter((body) => /created$/.test(body.message)).length, 1);
      assert.equal(bodies.filter((body) => body.message === 'Existing tag updated').length, 4);
      const rows = await ctx.services.database.db
        .selectFrom('tags')
        .select('id')
        .where('name', '=', 'Racing')
        .execute();
      assert.equal(rows.length, 1);
    });

    it('R-A4: store always needs a user, even in mode none; an unknown token is 401', async () => {
      await ctx.services.settings.set('svc_api_tag_store_should_auth', 'none');
      const anonymous = await post('/tags/store', { name: 'Anon' }, null);
      assert.equal(anonymous.statusCode, 401);
      assert.deepEqual(anonymous.json(), INVALID_TOKEN);
      const wrong = await post('/tags/store', { name: 'Anon' }, 'folio_nope');
      assert.equal(wrong.statusCode, 401);
      assert.deepEqual(wrong.json(), INVALID_TOKEN);
    });

    it('R-A3: in basic mode store accepts Basic credentials', async () => {
      await ctx.services.settings.set('svc_api_tag_store_should_auth', 'basic');
      const basic = Buffer.from(`${user.email}:${user.password}`).toString('base64');
      const response = await ctx.request({
        method: 'POST',
        url: '/api/v1/tags/store',
        headers: { authorization: `Basic ${basic}` },
        payload: { name: 'Via basic' },
      });
      assert.equal(response.statusCode, 200);
      assert.match(response.json().message, /^tag #\d+ created$/);
    });

    it('R-A2: store is off when svc_api_tag_store is off, on again with the legacy enable_api_tag_store', async () => {
      await ctx.services.settings.set('svc_api_tag_store', '0');
      const off = await store({ name: 'Switch' });
      assert.equal(off.statusCode, 403);
      assert.equal(off.body, JSON.stringify(DISABLED));
      await ctx.services.settings.set('enable_api_tag_store', 'on');
      assert.equal((await store({ name: 'Switch' })).statusCode, 200);
      await ctx.services.settings.set('enable_api_access', 'off');
      assert.equal((await store({ name: 'Switch 2' })).statusCode, 403);
    });

    it('R-A7: the switch is checked before the token, the token before validation', async () => {
      await ctx.services.settings.set('svc_api_tag_store', 'off');
      const disabled = await post('/tags/store', {}, null);
      assert.deepEqual([disabled.statusCode, disabled.json()], [403, DISABLED]);
      await ctx.services.settings.set('svc_api_tag_store', 'on');
      const noToken = await post('/tags/store', {}, null);
      assert.deepEqual([noToken.statusCode, noToken.json()], [401, INVALID_TOKEN]);
    });

    it('store answers only POST (405 in the envelope otherwise)', async () => {
      const response = await ctx.request({ method: 'GET', url: '/api/v1/tags/store' });
      assert.equal(response.statusCode, 405);
      assert.deepEqual(response.json(), {
        code: 405,
        status: 'fail',
        message: 'Method not allowed',
        data: [],
        extra: [],
      });
    });
  });

  describe('list (R-Tg1)', () => {
    const list = (payload: Record<string, unknown>) => post('/tags', payload);

    it('a tree of depth 4, sorted by sort desc then id asc at every level, names translated at every depth', async () => {
      const { db } = ctx.services.database;
      const make = async (name: string, sort: number, parent?: number) =>
        (
          await storeOk({
            name: { en: name, fr: `${name} (fr)` },
            type: 'post_category',
            sort,
            parent_id: parent,
          })
        ).id;
      // Inserted in an order that differs from the expected one.
      const rootLow = await make('Root low', 1);
      const rootHigh = await make('Root high', 10);
      const rootTie = await make('Root tie', 1); // same sort as rootLow, larger id: after it
      const a2 = await make('A2', 2, rootHigh);
      const a1 = await make('A1', 5, rootHigh);
      const a1b = await make('A1 b', 0, a1);
      const a1a = await make('A1 a', 3, a1);
      const deep2 = await make('Deep 2', 1, a1a);
      const deep1 = await make('Deep 1', 8, a1a);
      const deep3 = await make('Deep 3', 1, a1a); // tie with deep2: by id
      // Only French for one leaf misses: it falls back to the base name.
      await db.deleteFrom('translations').where('model_id', '=', deep3).where('locale', '=', 'fr').execute();
      await storeOk({ name: 'Other type', type: 'post_tag' });

      const response = await list({ type: 'post_category', locale: 'FR' });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(Object.keys(body), ['code', 'status', 'data', 'extra']);
      assert.equal(body.code, 200);
      assert.equal(body.status, 'success');
      assert.deepEqual(body.extra, []);

      type Node = { id: number; name: string; children: Node[] };
      const shape = (nodes: Node[]): unknown =>
        nodes.map((node) => [node.id, node.name, shape(node.children)]);
      assert.deepEqual(shape(body.data), [
        [
          rootHigh,
          'Root high (fr)',
          [
            [
              a1,
              'A1 (fr)',
              [
                [
                  a1a,
                  'A1 a (fr)',
                  [
                    [deep1, 'Deep 1 (fr)', []],
                    [deep2, 'Deep 2 (fr)', []],
                    [deep3, 'Deep 3', []],
                  ],
                ],
                [a1b, 'A1 b (fr)', []],
              ],
            ],
            [a2, 'A2 (fr)', []],
          ],
        ],
        [rootLow, 'Root low (fr)', []],
        [rootTie, 'Root tie (fr)', []],
      ]);

      const leaf = body.data[0].children[0].children[0].children[0];
      assert.deepEqual(Object.keys(leaf), [
        'id',
        'name',
        'slug',
        'type',
        'parent_id',
        'description',
        'icon',
        'sort',
        'created_at',
        'updated_at',
        'children',
      ]);
      assert.equal(leaf.parent_id, a1a);
      assert.equal(leaf.sort, 8);
      assert.equal(leaf.slug, 'deep-1');
    });

    it('the locale defaults to the setting default_locale, else en; an unknown locale gives base names', async () => {
      await storeOk({ name: { en: 'Music', de: 'Musik' }, type: 'post_tag' });
      const names = async (payload: Record<string, unknown>) =>
        (await list({ type: 'post_tag', ...payload }))
          .json<{ data: { name: string }[] }>()
          .data.map((tag) => tag.name);
      assert.deepEqual(await names({}), ['Music']);
      assert.deepEqual(await names({ locale: 'xx' }), ['Music']);
      assert.deepEqual(await names({ locale: 'de' }), ['Musik']);
      await ctx.services.settings.set('default_locale', 'de');
      assert.deepEqual(await names({}), ['Musik']);
      assert.deepEqual(await names({ locale: 'en' }), ['Music']);
    });

    it('an empty type list is an empty array; the type is required', async () => {
      const empty = await list({ type: 'nothing_here' });
      assert.deepEqual(empty.json(), { code: 200, status: 'success', data: [], extra: [] });
      const missing = await list({});
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json(), invalid({ type: ['The type field is required.'] }));
      const wrong = await list({ type: ['a'] });
      assert.deepEqual(wrong.json(), invalid({ type: ['The type must be a string.'] }));
    });

    it('R-A2/R-A3: svc_api_tag_index switches it; mode none makes it public', async () => {
      await storeOk({ name: 'Public', type: 'post_tag' });
      const anonymous = await post('/tags', { type: 'post_tag' }, null);
      assert.deepEqual([anonymous.statusCode, anonymous.json()], [401, INVALID_TOKEN]);
      await ctx.services.settings.set('svc_api_tag_index_should_auth', 'none');
      const open = await post('/tags', { type: 'post_tag' }, null);
      assert.equal(open.statusCode, 200);
      assert.equal(open.json().data[0].name, 'Public');
      await ctx.services.settings.set('svc_api_tag_index', 'false');
      const off = await post('/tags', { type: 'post_tag' }, null);
      assert.deepEqual([off.statusCode, off.json()], [403, DISABLED]);
    });

    it('the tree is answered from the cache until a tag of its type changes, per type and locale', async () => {
      await ctx.services.settings.set('svc_api_tag_index_should_auth', 'none');
      const tags = ctx.services.tags;
      const built: string[] = [];
      const tree = tags.tree.bind(tags);
      tags.tree = async (type, locale) => {
        built.push(`${type}/${locale}`);
        return tree(type, locale);
      };
      try {
        const names = async (type: string, locale = 'en') =>
          (await post('/tags', { type, locale }, null))
            .json<{ data: { name: string }[] }>()
            .data.map((t) => t.name);
        const first = await storeOk({ name: { en: 'Jazz', fr: 'Jazz (fr)' }, type: 'genre_cache' });
        assert.deepEqual(await names('genre_cache'), ['Jazz']);
        assert.deepEqual(await names('genre_cache'), ['Jazz']);
        assert.deepEqual(await names('genre_cache', 'fr'), ['Jazz (fr)']);
        assert.deepEqual(built, ['genre_cache/en', 'genre_cache/fr']);
        // A new tag of the type, then an update of a duplicate: each shows at once.
        await storeOk({ name: 'Blues', type: 'genre_cache', sort: 5 });
        assert.deepEqual(await names('genre_cache'), ['Blues', 'Jazz']);
        await storeOk({ name: 'Jazz', type: 'genre_cache', sort: 9, update_when_duplicated: true });
        assert.deepEqual(await names('genre_cache'), ['Jazz', 'Blues']);
        assert.deepEqual(await names('genre_cache', 'fr'), ['Jazz (fr)', 'Blues']);
        // A change to another type leaves this one cached.
        const before = built.length;
        await storeOk({ name: 'Other', type: 'other_cache' });
        assert.deepEqual(await names('genre_cache'), ['Jazz', 'Blues']);
        assert.equal(built.length, before);
        assert.equal(first.type, 'genre_cache');
      } finally {
        tags.tree = tree;
      }
    });

    it('the list is POST only', async () => {
      assert.equal((await ctx.request({ method: 'GET', url: '/api/v1/tags' })).statusCode, 405);
    });
  });

  describe('exist (R-Tg3)', () => {
    const exist = (payload: Record<string, unknown>, token: string | null = user.token) =>
      post('/tags/exist', payload, token);

    it('answers the given ids that exist, ascending, without duplicates', async () => {
      const a = await storeOk({ name: 'E1' });
      const b = await storeOk({ name: 'E2' });
      const response = await exist({ tagIds: [b.id, 999999, a.id, String(b.id)] });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        code: 200,
        status: 'success',
        message: 'Successfully fetched data',
        data: { ids: [a.id, b.id] },
        extra: [],
      });
      const none = await exist({ tagIds: [424242, 99999999999, -1, 0] });
      assert.deepEqual(none.json().data, { ids: [] });
    });

    it('validation: tagIds is a required array of integers', async () => {
      const cases: [Record<string, unknown>, Record<string, string[]>][] = [
        [{}, { tagIds: ['The tagIds field is required.'] }],
        [{ tagIds: [] }, { tagIds: ['The tagIds field is required.'] }],
        [{ tagIds: 5 }, { tagIds: ['The tagIds must be an array.'] }],
        [{ tagIds: '1,2' }, { tagIds: ['The tagIds must be an array.'] }],
        [
          { tagIds: [1, 'x', 2.5] },
          {
            'tagIds.1': ['The tagIds.1 must be an integer.'],
            'tagIds.2': ['The tagIds.2 must be an integer.'],
          },
        ],
      ];
      for (const [payload, errors] of cases) {
        const response = await exist(payload);
        assert.equal(response.statusCode, 422, JSON.stringify(payload));
        assert.deepEqual(response.json(), invalid(errors), JSON.stringify(payload));
      }
    });

    it('R-A2/R-A3: svc_api_tag_exist switches it; the token is needed unless the mode is none', async () => {
      const anonymous = await exist({ tagIds: [1] }, null);
      assert.deepEqual([anonymous.statusCode, anonymous.json()], [401, INVALID_TOKEN]);
      await ctx.services.settings.set('svc_api_tag_exist_should_auth', 'none');
      assert.equal((await exist({ tagIds: [1] }, null)).statusCode, 200);
      await ctx.services.settings.delete('svc_api_tag_exist');
      const off = await exist({ tagIds: [1] });
      assert.deepEqual([off.statusCode, off.json()], [403, DISABLED]);
    });
  });
});

describe('tags API: server errors', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
  });
  after(() => ctx.close());

  it('section 7: a 500 of the tag store is {status: 500, message}; the list and exist keep the envelope', async () => {
    const user = await ctx.createUser();
    // The table disappears under the running app: every tag query now fails in the database.
    await ctx.services.database.db.schema.alterTable('tags').renameTo('tags_gone').execute();
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/tags/store',
      payload: { api_token: user.token, name: 'Boom' },
    });
    assert.equal(response.statusCode, 500);
    const body = response.json();
    assert.deepEqual(Object.keys(body), ['status', 'message']);
    assert.equal(body.status, 500);
    assert.equal(
      body.message,
      `Server Error: internal error, request ${String(response.headers['x-request-id'])}`,
    );
    assert.doesNotMatch(response.body, /tags|select|insert|sqlite|relation/i);

    const list = await ctx.request({
      method: 'POST',
      url: '/api/v1/tags',
      payload: { api_token: user.token, type: 'post_tag' },
    });
    assert.equal(list.statusCode, 500);
    assert.deepEqual(list.json(), {
      code: 500,
      status: 'fail',
      message: `Server Error: internal error, request ${String(list.headers['x-request-id'])}`,
      data: [],
      extra: [],
    });
  });
});
