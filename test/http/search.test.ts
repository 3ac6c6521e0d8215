// Full-text search through the index (issue 40 #2), on both databases: Chinese, Japanese and Korean
// terms, ranked public results with escaped highlights, the index following updates, translations and
// deletes in the writes' transactions, and its rebuild (`folio search:reindex`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { clearSearchIndex } from '../../src/db/search-index.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { dialectOf, highlightExcerpt, planTerms } from '../../src/domain/posts/search.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

interface ListBody {
  data: { data: Array<{ id: number; title: string }> };
}

describe('full-text search (issue 40 #2)', () => {
  let ctx: TestContext;
  let user: TestUser;
  const ids: Record<string, number> = {};

  const v1 = async (path: string, body: Record<string, unknown>) =>
    ctx.request({ method: 'POST', url: `/api/v1/posts${path}`, payload: { api_token: user.token, ...body } });
  const found = async (keywords: string) =>
    (await v1('', { keywords, page_size: 100 })).json<ListBody>().data.data.map((post) => post.id);
  const page = async (keyword: string) =>
    (
      await ctx.request({
        method: 'GET',
        url: `/post/search/${encodeURIComponent(keyword)}`,
        headers: { host: 'search.test' },
      })
    ).body;
  /** Documents the index holds for a post (0 or 1). */
  const documents = async (id: number) => {
    const { db } = ctx.services.database;
    const key = dialectOf(db) === 'postgres' ? sql.raw('post_id') : sql.raw('rowid');
    const rows = await sql<{ n: number }>`select count(*) as n from post_search where ${key} = ${id}`.execute(
      db,
    );
    return Number(rows.rows[0]?.n ?? 0);
  };

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    const { services } = ctx;
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await services.settings.set('supported_locales', 'en,fr,zh-TW,ja');
    await websiteWrites(services).create({ siteName: 'Search', domain: 'search.test' });
    user = await ctx.createUser({ admin: true });
    const create = async (key: string, fields: Record<string, unknown>, minute: number) => {
      const response = await v1('/store', {
        published_at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
        ...fields,
      });
      assert.equal(response.statusCode, 200, response.body);
      ids[key] = response.json<{ data: { id: number } }>().data.id;
    };
    await create('beijing', { title: '北京的秋天', content: '<p>我爱北京天安门，秋天很美。</p>' }, 1);
    await create('tokyo', { title: '東京タワーの夜景', content: '<p>東京の夜はきれいです。</p>' }, 2);
    await create('seoul', { title: '서울 여행', content: '<p>서울에서 맛있는 음식을 먹었다.</p>' }, 3);
    await create(
      'taipei',
      {
        title: { en: 'Taipei notes', 'zh-TW': '台北筆記' },
        content: { en: '<p>Night markets.</p>', 'zh-TW': '<p>夜市很好吃。</p>' },
      },
      4,
    );
    // Ranking: the older post is about apples (title and text); the newer mentions one in passing.
    await create(
      'apples',
      { title: 'Apple harvest', content: '<p>Apple trees, apple pie and apple cider.</p>' },
      5,
    );
    await create(
      'passing',
      { title: 'A walk in town', content: '<p>Long walk; I ate an apple on the way.</p>' },
      6,
    );
    await create(
      'markup',
      {
        title: 'Escaping',
        content: '<p>Beware of &lt;script&gt;alert(1)&lt;/script&gt; in the zebrafish tank.</p>',
      },
      7,
    );
  });
  after(() => ctx.close());

  it('finds Chinese, Japanese and Korean words of two characters and more, in every locale', async () => {
    assert.deepEqual(await found('北京'), [ids.beijing]);
    assert.deepEqual(await found('天安门'), [ids.beijing]);
    assert.deepEqual(await found('秋天'), [ids.beijing]);
    assert.deepEqual(await found('東京'), [ids.tokyo]);
    assert.deepEqual(await found('夜景'), [ids.tokyo]);
    assert.deepEqual(await found('서울'), [ids.seoul]);
    assert.deepEqual(await found('음식'), [ids.seoul]);
    // A translation's text (zh-TW) finds the post; the bigram of a word boundary that is not in the
    // text does not.
    assert.deepEqual(await found('夜市'), [ids.taipei]);
    assert.deepEqual(await found('台北'), [ids.taipei]);
    assert.deepEqual(await found('北台'), []);
    assert.deepEqual(await found('北京, 서울'), [ids.seoul, ids.beijing]);
    // The public search and API v2 through the same index.
    assert.match(await page('台北'), /Taipei notes/);
    const v2 = await ctx.request({
      method: 'GET',
      url: `/api/v2/posts?q=${encodeURIComponent('東京')}`,
      headers: { authorization: `Bearer ${user.token}` },
    });
    assert.equal(v2.statusCode, 200, v2.body);
    const listed = v2.json<{ data: Array<{ id: number; highlight: string | null }> }>().data;
    assert.deepEqual(
      listed.map((post) => post.id),
      [ids.tokyo],
    );
    assert.equal(listed[0]!.highlight, '<mark>東京</mark>タワーの夜景');
  });

  it('two-character CJK and longer terms are index lookups; shorter ones read the texts', () => {
    const dialect = dialectOf(ctx.services.database.db);
    const kinds = planTerms(dialect, ['北京', '天安门', 'apple', 'ab']).map((term) => [term.kind, term.slow]);
    assert.deepEqual(kinds, [
      ['cjk2', false],
      ['text', false],
      ['text', false],
      [dialect === 'postgres' ? 'text' : 'scan', true],
    ]);
  });

  it('ranks public results: the post about the word before a newer one mentioning it', async () => {
    assert.deepEqual(await found('apple'), [ids.passing, ids.apples]); // API v1 keeps its order (R-P2)
    const html = await page('apple');
    const harvest = html.indexOf('Apple harvest');
    const walk = html.indexOf('A walk in town');
    assert.ok(harvest > 0 && walk > 0, 'both are found');
    assert.ok(harvest < walk, 'the better match comes first');
    // Out of search engines, and described (issue 36 #3).
    assert.match(html, /<meta name="robots" content="noindex/);
    assert.match(html, /<meta name="description" content="Posts on Search that mention “apple”\.">/);
  });

  it('API v2 lists by relevance with sort=relevance (q needed), newest first otherwise; numbered pages only', async () => {
    const list = (query: string) =>
      ctx.request({
        method: 'GET',
        url: `/api/v2/posts?${query}`,
        headers: { authorization: `Bearer ${user.token}` },
      });
    const idsOf = (response: Awaited<ReturnType<typeof list>>) =>
      response.json<{ data: Array<{ id: number }> }>().data.map((post) => post.id);
    const newest = await list('q=apple');
    assert.equal(newest.statusCode, 200, newest.body);
    assert.deepEqual(idsOf(newest), [ids.passing, ids.apples], 'the default order: newest first');
    const ranked = await list('q=apple&sort=relevance');
    assert.equal(ranked.statusCode, 200, ranked.body);
    assert.deepEqual(idsOf(ranked), [ids.apples, ids.passing], 'the post about apples first');
    assert.equal(ranked.json<{ meta: { next_cursor?: string | null } }>().meta.next_cursor ?? null, null);
    // Ties of relevance broken by the fields after it; pages by number.
    const second = await list('q=apple&sort=relevance,created_at&per_page=1&page=2');
    assert.deepEqual(idsOf(second), [ids.passing]);
    const alone = await list('sort=relevance');
    assert.equal(alone.statusCode, 422, alone.body);
    assert.deepEqual(alone.json<{ errors: Record<string, string[]> }>().errors, {
      sort: ['The sort relevance needs a search (q).'],
    });
  });

  it('shows the text around the match, highlighted and escaped', async () => {
    const html = await page('zebrafish');
    assert.match(html, /<mark>zebrafish<\/mark> tank/);
    assert.match(html, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
    assert.doesNotMatch(html, /<script>alert/);
    const v2 = await ctx.request({
      method: 'GET',
      url: '/api/v2/posts?q=zebrafish&fields=id,highlight',
      headers: { authorization: `Bearer ${user.token}` },
    });
    assert.deepEqual(v2.json<{ data: unknown[] }>().data, [
      {
        id: ids.markup,
        highlight: 'Beware of &#60;script&#62;alert(1)&#60;/script&#62; in the <mark>zebrafish</mark> tank.',
      },
    ]);
    // A term with markup in it is escaped too, inside and outside the <mark>.
    assert.equal(
      highlightExcerpt(['a <b>bold</b> & "quoted" move'], ['<b>bold']),
      'a <mark>&#60;b&#62;bold</mark>&#60;/b&#62; &#38; &#34;quoted&#34; move',
    );
    assert.equal(highlightExcerpt(['nothing here'], ['zebra']), null);
    const long = `${'word '.repeat(100)}needle ${'more '.repeat(100)}`;
    const cut = highlightExcerpt([long], ['needle'], 100)!;
    assert.ok(cut.startsWith('…') && cut.endsWith('…') && cut.includes('<mark>needle</mark>'), cut);
    assert.ok(cut.length < 140, cut);
  });

  it('the index follows an update, a translation and a delete, in the write itself', async () => {
    const response = await v1('/store', { title: 'Kumquat jam', content: '<p>Sweet kumquats.</p>' });
    const id = response.json<{ data: { id: number } }>().data.id;
    assert.deepEqual(await found('kumquat'), [id]);
    assert.equal(await documents(id), 1);

    const updated = await v1(`/update/${id}`, {
      title: { en: 'Persimmon jam', fr: 'Confiture de kakis' },
      content: '<p>Ripe persimmons.</p>',
    });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.deepEqual(await found('kumquat'), []);
    assert.deepEqual(await found('persimmon'), [id]);
    assert.deepEqual(await found('kakis'), [id]);

    // A translation written apart (the translations service) is followed too.
    await ctx.services.translations.save(ctx.services.database.db, 'post', id, 'content', {
      ja: '<p>柿のジャム</p>',
    });
    assert.deepEqual(await found('ジャム'), [id]);

    assert.equal((await v1(`/delete/${id}`, {})).statusCode, 200);
    assert.deepEqual(await found('persimmon'), []);
    assert.equal(await documents(id), 0, 'the deleted post left the index');
  });

  it('search:reindex rebuilds the index, with progress', async () => {
    const { db } = ctx.services.database;
    await clearSearchIndex(db as never, dialectOf(db));
    // The searches use the index: emptied, it finds nothing.
    assert.deepEqual(await found('北京'), []);
    const progress: Array<[number, number]> = [];
    const result = await ctx.services.searchIndex.rebuild(({ done, total }) => progress.push([done, total]));
    assert.equal(result.done, Object.keys(ids).length);
    assert.deepEqual(progress[0], [0, result.total]);
    assert.deepEqual(progress.at(-1), [result.total, result.total]);
    assert.deepEqual(await found('北京'), [ids.beijing]);
    assert.deepEqual(await found('apple'), [ids.passing, ids.apples]);
    assert.equal(await documents(ids.apples!), 1);
  });
});
