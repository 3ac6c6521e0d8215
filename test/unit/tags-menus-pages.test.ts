// Domain services of tags, menus and pages: the races and failures the HTTP tests cannot force.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { websiteIdList } from '../../src/domain/tags/input.js';
import { fieldSizes } from '../../src/api/v1/menus.js';
import type { Db } from '../../src/db/database.js';
import { ForbiddenError, InputError } from '../../src/domain/errors.js';
import { localizedPath, parseLocaleList } from '../../src/domain/locales.js';
import type { LocaleSettings } from '../../src/domain/locales.js';
import { resolveParents } from '../../src/domain/menus/store.js';
import type { MenuItemInput } from '../../src/domain/menus/store.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const ONE_LOCALE: LocaleSettings = { defaultLocale: 'en', supported: ['en'], localized: false };

const item = (overrides: Partial<MenuItemInput>): MenuItemInput => ({
  order: 0,
  name: 'Item',
  type: 'link',
  pageId: null,
  url: '/',
  target: '_self',
  icon: null,
  parentPageId: null,
  ...overrides,
});

describe('menu nesting (R-M2)', () => {
  it('a parent is the first page item of the request with that page_id, never the item itself', () => {
    const items = [
      item({ type: 'page', pageId: 5 }),
      item({ type: 'page', pageId: 5, parentPageId: 5 }),
      item({ parentPageId: 5 }),
      item({ type: 'page', pageId: 7, parentPageId: 5 }),
    ];
    assert.deepEqual(resolveParents(items), { parents: [null, 0, 0, 0], errors: [] });
    const selfOnly = resolveParents([item({ type: 'page', pageId: 5, parentPageId: 5 })]);
    assert.deepEqual(
      selfOnly.errors.map((error) => [error.field, error.message]),
      [['menu_items.0.parent_id', 'The selected menu items.0.parent id is invalid.']],
    );
  });

  it('a link item is never a parent; circles are errors on every item in them', () => {
    const linkParent = resolveParents([item({ pageId: 3 }), item({ parentPageId: 3 })]);
    assert.deepEqual(
      linkParent.errors.map((error) => error.field),
      ['menu_items.1.parent_id'],
    );
    const circle = resolveParents([
      item({ type: 'page', pageId: 1, parentPageId: 2 }),
      item({ type: 'page', pageId: 2, parentPageId: 1 }),
      item({ type: 'page', pageId: 3 }),
    ]);
    assert.deepEqual(
      circle.errors.map((error) => error.field),
      ['menu_items.0.parent_id', 'menu_items.1.parent_id'],
    );
  });
});

describe('locales (R-F3)', () => {
  it('supported_locales is a comma list or a JSON array, normalized, invalid entries skipped', () => {
    assert.deepEqual(parseLocaleList('en, zh-tw ,FR,en,???'), ['en', 'zh_TW', 'fr']);
    assert.deepEqual(parseLocaleList('["de","pt-br",3]'), ['de', 'pt_BR']);
    assert.deepEqual(parseLocaleList('[broken'), []);
    assert.deepEqual(parseLocaleList(undefined), []);
  });

  it('a path gets a prefix only for a supported non-default locale when localization is on', () => {
    const on: LocaleSettings = { defaultLocale: 'en', supported: ['en', 'fr'], localized: true };
    assert.equal(localizedPath('/page/a', 'fr', on), '/fr/page/a');
    assert.equal(localizedPath('/page/a', 'en', on), '/page/a');
    assert.equal(localizedPath('/page/a', 'de', on), '/page/a');
    assert.equal(localizedPath('/page/a', 'fr', ONE_LOCALE), '/page/a');
  });
});

describe('input helpers', () => {
  it('website_id normalization keeps positive integers only, once each', () => {
    assert.equal(websiteIdList(undefined), undefined);
    assert.equal(websiteIdList(''), undefined);
    assert.deepEqual(websiteIdList(3), [3]);
    assert.deepEqual(websiteIdList('3, 4,x, 3'), [3, 4]);
    assert.deepEqual(websiteIdList([1, '2', 2.5, -1, 0, null, '7a']), [1, 2]);
    assert.deepEqual(websiteIdList({ id: 1 }), []);
  });

  it('the menu store log keeps field names and sizes only, never a value or the token (issue 21 #12)', () => {
    assert.deepEqual(fieldSizes({ api_token: 's3cret', name: 'x', nested: { secret: 'abc' } }), {
      name: 3,
      nested: 16,
    });
    assert.equal(fieldSizes(null), null);
  });
});

describe('tags, menus and pages services', () => {
  let ctx: TestContext;
  let db: Db;
  before(async () => {
    ctx = await createTestContext();
    db = ctx.services.database.db;
  });
  after(() => ctx.close());
  beforeEach(async () => {
    await db.deleteFrom('menu_items').execute();
    await db.deleteFrom('translations').execute();
    await db.deleteFrom('website_bindings').execute();
    await db.updateTable('tags').set({ parent_id: null }).execute();
    await db.deleteFrom('tags').execute();
  });

  const baseInput = { type: 'post_tag', updateWhenDuplicated: false, defaultLocale: 'en' };

  it("issue 35 #3: a tag write needs an actor (the policy cannot be skipped by leaving it out); the domain's own writes say so (ensure)", async () => {
    const tags = ctx.services.tagOps;
    await assert.rejects(
      // @ts-expect-error store takes an actor: a write without one is ensure's
      tags.store(undefined, { name: 'Unchecked', type: 'post_tag' }),
      ForbiddenError,
    );
    const nobody = await ctx.createUser();
    await assert.rejects(
      tags.store(
        { userId: nobody.id, isAdmin: false, websiteId: null },
        { name: 'Unchecked', type: 'post_tag' },
      ),
      ForbiddenError,
    );
    assert.equal(await ctx.services.tags.findDuplicate('Unchecked', 'post_tag'), null, 'nothing stored');
    assert.equal((await tags.ensure({ ...baseInput, name: 'Own write' })).outcome, 'created');
  });

  it('tag store: a unique violation from a concurrent create is answered as the duplicate', async () => {
    const { tags } = ctx.services;
    const first = await ctx.services.tagOps.ensure({ ...baseInput, name: 'Raced' });
    assert.equal(first.outcome, 'created');
    // The first look for a duplicate misses it, as a request that looked just before the other
    // one committed would: the insert then hits the unique constraint and the store looks again.
    const original = tags.findDuplicate.bind(tags);
    let calls = 0;
    tags.findDuplicate = async (name, type, database) =>
      ++calls === 1 ? null : original(name, type, database);
    try {
      const second = await ctx.services.tagOps.ensure({ ...baseInput, name: 'Raced', sort: 4 });
      assert.equal(second.outcome, 'skipped');
      assert.deepEqual(second.tag, first.tag);
      calls = 0;
      const third = await ctx.services.tagOps.ensure({
        ...baseInput,
        name: 'Raced',
        sort: 4,
        updateWhenDuplicated: true,
      });
      assert.equal(third.outcome, 'updated');
      assert.equal(third.tag.sort, 4);
      assert.equal(calls, 2);
    } finally {
      tags.findDuplicate = original;
    }
    const rows = await db.selectFrom('tags').select('id').execute();
    assert.equal(rows.length, 1);
  });

  it('tag store: a unique violation that never resolves is retried five times, then raised', async () => {
    const { tags } = ctx.services;
    const original = tags.findDuplicate.bind(tags);
    let calls = 0;
    tags.findDuplicate = async () => {
      calls++;
      return null;
    };
    try {
      // A duplicate that is never seen: every attempt hits the constraint, and the store gives up.
      assert.equal((await ctx.services.tagOps.ensure({ ...baseInput, name: 'Stuck' })).outcome, 'created');
      const first = calls;
      assert.equal(first, 1, 'the first create succeeds');
      await assert.rejects(
        ctx.services.tagOps.ensure({ ...baseInput, name: 'Stuck' }),
        (error: Error & { code?: string }) =>
          ['23505', 'SQLITE_CONSTRAINT_UNIQUE'].includes(String(error.code)),
      );
      assert.equal(calls - first, 5, 'five attempts, then the error');
    } finally {
      tags.findDuplicate = original;
    }
  });

  it('tag tree: a tag whose parent is of another type is a root of its own type', async () => {
    const { tags } = ctx.services;
    const parent = await ctx.services.tagOps.ensure({
      ...baseInput,
      name: 'Category',
      type: 'post_category',
    });
    const child = await ctx.services.tagOps.ensure({ ...baseInput, name: 'Tag' });
    await db.updateTable('tags').set({ parent_id: parent.tag.id }).where('id', '=', child.tag.id).execute();
    const tree = await tags.tree('post_tag', 'en');
    assert.deepEqual(
      tree.map((node) => [node.id, node.children]),
      [[child.tag.id, []]],
    );
  });

  it('menu sync: a failure in the middle of the transaction rolls back the delete and the inserts', async () => {
    const { menus, pages } = ctx.services;
    const site = await websiteWrites(ctx.services).create({
      siteName: 'Tx',
      domain: `tx-${Date.now()}.test`,
    });
    const page = await pages.create({ title: 'Page for tx' });
    const old = [
      item({ order: 1, name: 'Old 1' }),
      item({ order: 2, name: 'Old 2', type: 'page', pageId: page.id, url: null }),
    ];
    assert.deepEqual(await menus.sync(site, old, { locales: ONE_LOCALE }), {
      websiteId: site,
      itemsCreated: 2,
      itemsDeleted: 0,
    });
    const before = await db.selectFrom('menu_items').selectAll().orderBy('id').execute();

    // Inside the transaction, after the delete: the old items are gone there; then the third item
    // names a page that does not exist (as if it was deleted since the request was checked).
    const original = pages.summaries.bind(pages);
    let seenInside = -1;
    pages.summaries = async (ids, trx) => {
      const rows = await (trx ?? db)
        .selectFrom('menu_items')
        .select('id')
        .where('website_id', '=', site)
        .execute();
      seenInside = rows.length;
      return original(ids, trx);
    };
    try {
      await assert.rejects(
        menus.sync(
          site,
          [
            item({ order: 1, name: 'New 1' }),
            item({ order: 2, name: 'New 2', type: 'page', pageId: page.id }),
            item({ order: 3, name: 'New 3', type: 'page', pageId: 987654 }),
          ],
          { locales: ONE_LOCALE },
        ),
        (error) =>
          error instanceof InputError &&
          error.field === 'menu_items.2.page_id' &&
          error.message === 'The selected menu items.2.page id is invalid.',
      );
    } finally {
      pages.summaries = original;
    }
    assert.equal(seenInside, 0, 'the delete ran inside the transaction');
    assert.deepEqual(await db.selectFrom('menu_items').selectAll().orderBy('id').execute(), before);
  });

  it('menu sync refuses unresolvable parents before touching anything', async () => {
    const site = await websiteWrites(ctx.services).create({ siteName: 'P', domain: `p-${Date.now()}.test` });
    await ctx.services.menus.sync(site, [item({ name: 'Keep' })], { locales: ONE_LOCALE });
    await assert.rejects(
      ctx.services.menus.sync(site, [item({ parentPageId: 4 })], { locales: ONE_LOCALE }),
      InputError,
    );
    const rows = await db.selectFrom('menu_items').select('name').where('website_id', '=', site).execute();
    assert.deepEqual(rows, [{ name: 'Keep' }]);
  });

  it('pages: translations, unique slugs, website visibility, publication and soft delete', async () => {
    const { pages } = ctx.services;
    const site = await websiteWrites(ctx.services).create({
      siteName: 'Pg',
      domain: `pg-${Date.now()}.test`,
    });
    const elsewhere = await websiteWrites(ctx.services).create({
      siteName: 'Pg2',
      domain: `pg2-${Date.now()}.test`,
    });
    const page = await pages.create({
      title: { en: 'Privacy', 'fr-fr': 'Confidentialité' },
      content: { en: '<p>Hi</p>', fr_FR: '<p>Salut</p>' },
      websiteIds: [site],
    });
    assert.equal(page.title, 'Privacy');
    assert.equal(page.slug, 'privacy');
    assert.deepEqual(page.websiteIds, [site]);
    assert.deepEqual(page.translations, {
      content: { en: '<p>Hi</p>', fr_FR: '<p>Salut</p>' },
      title: { en: 'Privacy', fr_FR: 'Confidentialité' },
    });
    const twin = await pages.create({ title: 'Privacy' });
    assert.equal(twin.slug, 'privacy-2');

    const french = await pages.findBySlug('privacy', { websiteId: site, locale: 'fr-FR' });
    assert.equal(french?.title, 'Confidentialité');
    assert.equal(french?.content, '<p>Salut</p>');
    assert.equal((await pages.findBySlug('privacy', { websiteId: site, locale: 'de' }))?.title, 'Privacy');
    assert.equal(await pages.findBySlug('privacy', { websiteId: elsewhere }), null);
    assert.equal((await pages.findBySlug('privacy-2', { websiteId: elsewhere }))?.id, twin.id, 'global page');

    const draft = await pages.create({ title: 'Draft page', status: 'draft' });
    assert.equal(await pages.findById(draft.id, { publishedOnly: true }), null);
    assert.equal((await pages.findById(draft.id))?.status, 'draft');

    assert.equal(await pages.delete(page.id), true);
    assert.equal(await pages.delete(page.id), false);
    assert.equal(await pages.findById(page.id), null);
    assert.deepEqual(await pages.existingIds([page.id, twin.id, 0]), [twin.id]);
    assert.equal((await pages.create({ title: 'Privacy' })).slug, 'privacy', 'a deleted page frees its slug');
    await assert.rejects(pages.create({ title: '  ' }), InputError);
  });
});
