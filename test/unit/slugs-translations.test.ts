import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { slugify as transliterate } from 'transliteration';
import { randomSlug, slugify, uniqueSlug, SLUG_PATTERN } from '../../src/domain/text/slugs.js';
import { normalizeLocale, splitTranslatable, translate } from '../../src/domain/translations.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { insertPost } from '../support/seed.js';

describe('slugs (R-P5)', () => {
  it('are lower-case words joined by hyphens, transliterated from any script', () => {
    assert.equal(slugify('  Hello, World!  '), 'hello-world');
    assert.equal(slugify('你好世界'), 'ni-hao-shi-jie');
    assert.equal(slugify('Привет мир'), 'privet-mir');
    assert.equal(slugify('Café déjà vu'), 'cafe-deja-vu');
    assert.equal(slugify('a -- b __ c'), 'a-b-c');
    assert.equal(slugify('🎉🎉'), '');
    assert.ok(slugify('x'.repeat(500)).length <= 190);
  });

  it('ASCII skips the transliteration library and makes the slug the library would (issue 42)', () => {
    const library = (text: string) =>
      transliterate(text, { lowercase: true, separator: '-', trim: true })
        .replace(/[^a-z0-9-]+/g, '-')
        .replace(/-{2,}/g, '-')
        .replace(/^-|-$/g, '')
        .slice(0, 190)
        .replace(/-$/, '');
    const texts = [
      "Don't Stop: 10 Tips_for.Better~Tests!",
      '  --Leading and trailing--  ',
      'Tabs\tand\nnew lines\r\n',
      'C++ & C# (2026) @home #1 100%',
      'UPPER lower MiXeD 123',
      '\u0000control\u0007chars\u007f',
    ];
    // And random ASCII, every printable character and some control ones.
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let i = 0; i < 500; i += 1)
      texts.push(String.fromCharCode(...Array.from({ length: 1 + (next() % 40) }, () => next() % 128)));
    for (const text of texts) assert.equal(slugify(text), library(text), JSON.stringify(text));
  });

  it('a random slug is 8 lower-case letters and digits', () => {
    assert.match(randomSlug(), /^[a-z0-9]{8}$/);
    assert.match(randomSlug(), SLUG_PATTERN);
  });

  it('unique slugs count up from -2, and never come out empty', async () => {
    const used = new Set(['news', 'news-2', 'news-3']);
    const taken = async (candidates: string[]) => new Set(candidates.filter((c) => used.has(c)));
    assert.equal(await uniqueSlug('news', taken), 'news-4');
    assert.equal(await uniqueSlug('fresh', taken), 'fresh');
    assert.match(await uniqueSlug('', taken), /^[a-z0-9]{8}$/);
    for (let i = 4; i <= 25; i++) used.add(`news-${i}`);
    assert.equal(await uniqueSlug('news', taken), 'news-26');
  });
});

describe('translations (R-T1..R-T3)', () => {
  it('R-T1: locale keys are normalized', () => {
    assert.equal(normalizeLocale('zh-tw'), 'zh_TW');
    assert.equal(normalizeLocale('zh-TW'), 'zh_TW');
    assert.equal(normalizeLocale('EN'), 'en');
    assert.equal(normalizeLocale(' zh-Hant-TW '), 'zh_Hant_TW');
  });

  it('R-T2: the base value is the default locale, else the first non-blank value', () => {
    assert.deepEqual(splitTranslatable('plain'), { base: 'plain', translations: {} });
    assert.deepEqual(splitTranslatable({ 'zh-TW': '你好', en: 'Hello' }), {
      base: 'Hello',
      translations: { zh_TW: '你好', en: 'Hello' },
    });
    assert.deepEqual(splitTranslatable({ fr: ' ', de: 'Hallo', 'zh-tw': '你好' }), {
      base: 'Hallo',
      translations: { fr: ' ', de: 'Hallo', zh_TW: '你好' },
    });
    assert.equal(splitTranslatable({ en: 'Hi', fr: 'Salut' }, 'fr').base, 'Salut');
  });

  it('R-T3: reading falls back to the base value', () => {
    const map = { title: { fr: 'Bonjour', de: '' } };
    assert.equal(translate('Hello', map, 'title', 'fr'), 'Bonjour');
    assert.equal(translate('Hello', map, 'title', 'de'), 'Hello');
    assert.equal(translate('Hello', map, 'title', 'ja'), 'Hello');
    assert.equal(translate('Hello', undefined, 'title', 'fr'), 'Hello');
  });

  describe('stored', () => {
    let ctx: TestContext;
    before(async () => (ctx = await createTestContext()));
    after(() => ctx.close());

    it('saves, overwrites and removes translations, and reads many models at once', async () => {
      const { translations, database } = ctx.services;
      await translations.save(database.db, 'post', 1, 'title', { fr: 'Bonjour', de: 'Hallo' });
      await translations.save(database.db, 'post', 2, 'title', { fr: 'Salut' });
      await translations.save(database.db, 'post', 1, 'title', { fr: 'Bonjour !', de: '' });
      const maps = await translations.forModels('post', [1, 2, 3]);
      assert.deepEqual(maps.get(1), { title: { fr: 'Bonjour !' } });
      assert.deepEqual(maps.get(2), { title: { fr: 'Salut' } });
      assert.equal(maps.get(3), undefined);
    });
  });
});

describe('website bindings', () => {
  let ctx: TestContext;
  before(async () => (ctx = await createTestContext()));
  after(() => ctx.close());

  it('replaces bindings, ignores duplicates, and finds existing websites', async () => {
    const { bindings, websites, database } = ctx.services;
    const one = await websites.create({ siteName: 'One', domain: 'one.test' });
    const two = await websites.create({ siteName: 'Two', domain: 'two.test' });
    assert.deepEqual(await bindings.existing([two, 999, one, two]), [two, one]);
    await bindings.sync(database.db, 'post', 10, [one, two, one]);
    assert.deepEqual((await bindings.websitesOf('post', [10])).get(10), [one, two]);
    await bindings.sync(database.db, 'post', 10, [two]);
    assert.deepEqual((await bindings.websitesOf('post', [10])).get(10), [two]);
  });

  it('a post shows on the websites it is bound to, and a global post on every website', async () => {
    const { bindings, websites, database, posts } = ctx.services;
    const a = await websites.create({ siteName: 'A', domain: 'a.test' });
    const b = await websites.create({ siteName: 'B', domain: 'b.test' });
    const onA = await insertPost(database.db, { title: 'Only on A' });
    const global = await insertPost(database.db, { title: 'Everywhere' });
    await bindings.sync(database.db, 'post', onA, [a]);
    const titles = async (websiteId: number | null) =>
      (await posts.list({ page: 1, pageSize: 50, sort: 'id', direction: 'asc', websiteId })).items
        .filter((post) => post.id === onA || post.id === global)
        .map((post) => post.title);
    assert.deepEqual(await titles(a), ['Only on A', 'Everywhere']);
    assert.deepEqual(await titles(b), ['Everywhere']);
    assert.deepEqual(await titles(null), ['Only on A', 'Everywhere']);
  });
});
