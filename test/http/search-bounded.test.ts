// Bounded searches (issue 40 #2, the cost of a common word): the public search and API v2's `q` read at
// most searchBounds.candidates matches, newest first, and rank those; past the cap the total is a
// lower bound, said so in words on the site and by `meta.pagination.total_exact: false` in API v2.
// Rare terms stay exact, and API v1's `keywords` counts every match as before. A page the visible
// candidates cannot fill (another website's posts took the cap) is read among every match, exactly.
// The cap is lowered to 5 here so that a handful of posts reach it, and pages hold 3 posts; on
// PostgreSQL the first window of ids read is the cap's width, so most searches here widen it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { POSTS_PER_PAGE_SETTING } from '../../src/frontend/routes/listing.js';
import { sql } from 'kysely';
import { RECENT_SEARCH_SPAN, recentSearchIndex } from '../../src/db/search-index.js';
import {
  DENSE_SHARE,
  FIRST_WINDOW,
  SEARCH_CANDIDATES,
  SEARCH_RECENT_QUEUE,
  dialectOf,
  searchBounds,
} from '../../src/domain/posts/search.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

const CAP = 5;
/** Posts per page of the site and of API v2's requests below: fewer than the cap. */
const PAGE = 3;

interface V2List {
  data: Array<{ id: number }>;
  meta: { pagination: { total: number; total_pages: number; total_exact?: boolean } };
}

describe('bounded search (issue 40 #2)', () => {
  let ctx: TestContext;
  let user: TestUser;
  /** Post ids in creation order (ids grow: the newest is the last). */
  const zebras: number[] = [];
  const beijing: number[] = [];
  const ids: Record<string, number> = {};
  const okapis: number[] = [];

  const v1 = async (path: string, body: Record<string, unknown>) =>
    ctx.request({ method: 'POST', url: `/api/v1/posts${path}`, payload: { api_token: user.token, ...body } });
  const v2 = async (query: string) => {
    const response = await ctx.request({
      method: 'GET',
      url: `/api/v2/posts?${query}`,
      headers: { authorization: `Bearer ${user.token}` },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<V2List>();
  };
  const page = async (keyword: string, host = 'bounded.test') => {
    const response = await ctx.request({
      method: 'GET',
      url: `/post/search/${encodeURIComponent(keyword)}`,
      headers: { host },
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.body;
  };

  /** A published post (API v1), one minute after the one before. */
  let minute = 0;
  const create = async (fields: Record<string, unknown>) => {
    minute += 1;
    const response = await v1('/store', {
      published_at: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString(),
      ...fields,
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json<{ data: { id: number } }>().data.id;
  };

  before(async () => {
    searchBounds.candidates = CAP;
    searchBounds.firstWindow = 1;
    ctx = await createTestContext();
    await ctx.enableApi();
    const { services } = ctx;
    await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await services.settings.set(POSTS_PER_PAGE_SETTING, String(PAGE));
    ids.bounded = await websiteWrites(services).create({ siteName: 'Bounded', domain: 'bounded.test' });
    ids.other = await websiteWrites(services).create({ siteName: 'Other', domain: 'other.test' });
    user = await ctx.createUser({ admin: true });
    // 8 posts mention "zebra" (more than the cap): the oldest has it in its title, as does the third
    // newest; the others in passing.
    zebras.push(await create({ title: 'Zebra zebra zebra', content: '<p>All about the zebra.</p>' }));
    for (let n = 0; n < 7; n++) {
      const about = n === 4;
      zebras.push(
        await create({
          title: about ? 'Zebra stripes' : `Walk ${n}`,
          content: about ? '<p>The zebra and its zebra stripes.</p>' : `<p>We saw a zebra on walk ${n}.</p>`,
        }),
      );
    }
    ids.about = zebras[5]!;
    // Two posts with a rare word.
    ids.quokka1 = await create({ title: 'Quokka', content: '<p>A quokka smiles.</p>' });
    ids.quokka2 = await create({ title: 'Island', content: '<p>Another quokka.</p>' });
    // 7 posts with a two-character Chinese word, one with another.
    for (let n = 0; n < 7; n++)
      beijing.push(await create({ title: `北京第${n}天`, content: '<p>我爱北京。</p>' }));
    ids.taipei = await create({ title: '台北', content: '<p>夜市很好吃。</p>' });
    // "okapi": two posts on this website, then more than the cap of newer ones on another website.
    for (let n = 0; n < 2; n++)
      okapis.push(
        await create({ title: `Okapi ${n}`, content: '<p>An okapi.</p>', website_id: ids.bounded }),
      );
    for (let n = 0; n < CAP + 1; n++)
      await create({ title: `Elsewhere ${n}`, content: '<p>An okapi.</p>', website_id: ids.other });
  });
  after(async () => {
    searchBounds.candidates = SEARCH_CANDIDATES;
    searchBounds.firstWindow = FIRST_WINDOW;
    await ctx.close();
  });

  it('issue 40: the cap is a named constant of 1,000', () => {
    assert.equal(SEARCH_CANDIDATES, 1000);
  });

  it('issue 40: API v2 q past the cap flags its total as a lower bound; the page is the best-ranked candidates', async () => {
    const listed = await v2(`q=zebra&per_page=${PAGE}`);
    assert.equal(listed.meta.pagination.total, CAP);
    assert.equal(listed.meta.pagination.total_exact, false);
    // Newest first among the newest CAP matches.
    assert.deepEqual(
      listed.data.map((post) => post.id),
      zebras.slice(-PAGE).reverse(),
    );
    // By relevance: the post about zebras among the candidates first, the older one (better still,
    // but not among the newest CAP matches) left out.
    const ranked = await v2(`q=zebra&sort=relevance&per_page=${CAP}`);
    assert.equal(ranked.data[0]!.id, ids.about);
    assert.equal(ranked.data.length, CAP);
    assert.ok(!ranked.data.some((post) => post.id === zebras[0]));
    assert.equal(ranked.meta.pagination.total_exact, false);
  });

  it('issue 40: API v2 q counts the candidates it shows on every page, past the last one too', async () => {
    // The page's read carries the count; a page past the end has no row to carry it: counted apart.
    // (Past the cap, a page the candidates cannot fill is read among every match: see below.)
    const counted = ({ meta: { pagination } }: V2List) => ({
      total: pagination.total,
      total_pages: pagination.total_pages,
      total_exact: pagination.total_exact,
    });
    const second = await v2('q=zebra&per_page=2&page=2');
    assert.deepEqual(
      second.data.map((post) => post.id),
      zebras.slice(-4, -2).reverse(),
    );
    assert.deepEqual(counted(second), { total: CAP, total_pages: 3, total_exact: false });
    const exact = await v2('q=quokka&per_page=1&page=2');
    assert.deepEqual(
      exact.data.map((post) => post.id),
      [ids.quokka1],
    );
    assert.deepEqual(counted(exact), { total: 2, total_pages: 2, total_exact: true });
    const past = await v2('q=quokka&per_page=1&page=9');
    assert.deepEqual(past.data, []);
    assert.deepEqual(counted(past), { total: 2, total_pages: 2, total_exact: true });
  });

  it('issue 40: rare terms and Chinese two-character terms under the cap stay exact', async () => {
    const rare = await v2('q=quokka');
    assert.equal(rare.meta.pagination.total, 2);
    assert.equal(rare.meta.pagination.total_exact, true);
    assert.deepEqual(
      rare.data.map((post) => post.id),
      [ids.quokka2, ids.quokka1],
    );
    const taipei = await v2(`q=${encodeURIComponent('台北')}`);
    assert.deepEqual(
      taipei.data.map((post) => post.id),
      [ids.taipei],
    );
    assert.equal(taipei.meta.pagination.total_exact, true);
    const none = await v2('q=zquxv');
    assert.equal(none.meta.pagination.total, 0);
    assert.equal(none.meta.pagination.total_exact, true);
    // A list without q says nothing of it.
    const plain = await v2('per_page=1');
    assert.equal(plain.meta.pagination.total_exact, undefined);
  });

  it('issue 40: a Chinese two-character term past the cap is bounded too', async () => {
    const listed = await v2(`q=${encodeURIComponent('北京')}&per_page=${CAP}`);
    assert.equal(listed.meta.pagination.total, CAP);
    assert.equal(listed.meta.pagination.total_exact, false);
    assert.deepEqual(
      listed.data.map((post) => post.id),
      beijing.slice(-CAP).reverse(),
    );
  });

  it('issue 40: the public search says "at least" past the cap, the exact count otherwise', async () => {
    const common = await page('zebra');
    assert.match(common, /At least 5 posts match\./);
    // The best-ranked candidate first; the oldest (not a candidate) absent.
    assert.ok(common.includes('Zebra stripes'));
    assert.ok(!common.includes('Zebra zebra zebra'));
    assert.ok(common.indexOf('Zebra stripes') < common.indexOf('Walk 6'));
    const chinese = await page('北京');
    assert.match(chinese, /At least 5 posts match\./);
    const rare = await page('quokka');
    assert.match(rare, /2 posts match\./);
    assert.doesNotMatch(rare, /At least/);
    // Every term must match: "zebra stripes" has one post among the candidates.
    assert.match(await page('zebra stripes'), /1 post matches\./);
  });

  it('issue 40: a page the visible candidates cannot fill is read among every match, exactly', async () => {
    // API v2: the second page of zebras runs past the CAP candidates; the default page of 20 too.
    const second = await v2(`q=zebra&per_page=${PAGE}&page=2`);
    assert.equal(second.meta.pagination.total, zebras.length);
    assert.equal(second.meta.pagination.total_exact, true);
    assert.deepEqual(
      second.data.map((post) => post.id),
      zebras.slice(0, -PAGE).reverse().slice(0, PAGE),
    );
    const whole = await v2('q=zebra');
    assert.deepEqual(
      whole.data.map((post) => post.id),
      [...zebras].reverse(),
    );
    // The newest "okapi" matches are all the other website's: this website's two are still found.
    const here = await v2(`q=okapi&filter[website]=${ids.bounded}&per_page=${PAGE}`);
    assert.deepEqual(
      here.data.map((post) => post.id),
      [...okapis].reverse(),
    );
    assert.equal(here.meta.pagination.total_exact, true);
    const site = await page('okapi');
    assert.match(site, /2 posts match\./);
    assert.ok(site.includes('Okapi 0') && site.includes('Okapi 1') && !site.includes('Elsewhere'));
    assert.match(await page('okapi', 'other.test'), /At least 5 posts match\./);
  });

  it('issue 40: API v1 keywords keeps its exact total and every match, past the cap', async () => {
    const response = await v1('', { keywords: 'zebra', page_size: 100 });
    assert.equal(response.statusCode, 200, response.body);
    type V1List = { data: { pagination: Record<string, unknown>; data: Array<{ id: number }> } };
    const body = response.json<V1List>().data;
    assert.equal(body.pagination.total, zebras.length);
    assert.equal(body.pagination.last_page, 1);
    assert.deepEqual(
      body.data.map((post) => post.id),
      [...zebras].reverse(),
    );
    assert.ok(!('total_exact' in body.pagination));
    const chinese = await v1('', { keywords: '北京', page_size: 100 });
    assert.equal(chinese.json<V1List>().data.pagination.total, beijing.length);
  });

  it('issue 40: past the cap, a title that has the terms ranks first, in English and in Chinese, then the newest', async () => {
    // Per language: a post with the word in its title (too old to be a candidate), another (the
    // oldest candidate), then CAP - 1 newer posts with the word in their text only.
    for (const word of ['heron', '上海']) {
      const tooOld = await create({ title: `A ${word} long ago`, content: '<p>Birds.</p>' });
      const titled = await create({ title: `The ${word} at dawn`, content: '<p>Birds.</p>' });
      const textOnly: number[] = [];
      for (let n = 0; n < CAP - 1; n++)
        textOnly.push(await create({ title: `Note ${n}`, content: `<p>Saw a ${word} today.</p>` }));
      const listed = await v2(`q=${encodeURIComponent(word)}&sort=relevance&per_page=${PAGE}`);
      assert.equal(listed.meta.pagination.total_exact, false, word);
      // The title match first, though the oldest candidate; then the newest text-only matches.
      assert.deepEqual(
        listed.data.map((post) => post.id),
        [titled, textOnly[CAP - 2]!, textOnly[CAP - 3]!],
        word,
      );
      assert.ok(!listed.data.some((post) => post.id === tooOld));
      const site = await page(word);
      assert.ok(site.includes(`The ${word} at dawn`) && !site.includes(`A ${word} long ago`), word);
      assert.ok(site.indexOf(`The ${word} at dawn`) < site.indexOf(`Note ${CAP - 2}`), word);
    }
  });

  it('issue 40: a title edited to have the terms ranks first at once; on PostgreSQL, a document written before the search table kept titles ranks as well, and a reindex writes its title', async () => {
    const older = await create({ title: 'Wetlands', content: '<p>An egret waded.</p>' });
    const newer: number[] = [];
    for (let n = 0; n < CAP; n++)
      newer.push(await create({ title: `Pond ${n}`, content: '<p>An egret.</p>' }));
    const ranked = async () =>
      (await v2(`q=egret&sort=relevance&per_page=${PAGE}`)).data.map((post) => post.id);
    /** The public search lists the post with the word in its title before the newest text match. */
    const siteShowsTitledFirst = async () => {
      const site = await page('egret');
      return site.indexOf('The Egret of the pond') < site.indexOf(`Pond ${CAP - 1}`);
    };
    // No title has the word: the newest first.
    assert.deepEqual(await ranked(), [newer[CAP - 1], newer[CAP - 2], newer[CAP - 3]]);
    const edited = newer[0]!;
    const response = await v1(`/update/${edited}`, { title: 'The Egret of the pond' });
    assert.equal(response.statusCode, 200, response.body);
    const expected = [edited, newer[CAP - 1], newer[CAP - 2]];
    assert.deepEqual(await ranked(), expected);
    assert.ok(await siteShowsTitledFirst());
    assert.ok(!(await ranked()).includes(older));
    const db = ctx.services.database.db;
    if (dialectOf(db) !== 'postgres') return;
    // Documents as migration 0058 found them: no title. The posts' titles rank them meanwhile.
    await sql`update post_search set title = null`.execute(db);
    assert.deepEqual(await ranked(), expected);
    assert.ok(await siteShowsTitledFirst());
    await ctx.services.searchIndex.rebuild();
    const titles = await sql<{
      title: string | null;
    }>`select title from post_search where post_id = ${edited}`.execute(db);
    assert.equal(titles.rows[0]?.title?.trim(), 'the egret of the pond');
    const missing = await sql<{
      n: number;
    }>`select count(*)::int as n from post_search where title is null`.execute(db);
    assert.equal(missing.rows[0]?.n, 0);
    assert.deepEqual(await ranked(), expected);
  });

  it('issue 40: matches far apart and far back: the newest CAP of them, however many posts lie between', async () => {
    // CAP + 1 posts with "ibex", each followed by 6 without, then 20 newer posts without: the newest
    // window of ids holds none, and the next ones a few at a time.
    const ibexes: number[] = [];
    for (let n = 0; n <= CAP; n++) {
      ibexes.push(await create({ title: `Mountain ${n}`, content: '<p>An ibex climbs.</p>' }));
      for (let k = 0; k < 6; k++) await create({ title: `Valley ${n}.${k}`, content: '<p>Grass.</p>' });
    }
    for (let k = 0; k < 20; k++) await create({ title: `Plain ${k}`, content: '<p>Grass.</p>' });
    // On PostgreSQL the first window is read by bitmaps, or walked along the primary key when the
    // matches are expected to be dense (every time with a share of 0).
    for (const denseShare of [1, 0]) {
      searchBounds.denseShare = denseShare;
      try {
        const listed = await v2(`q=ibex&per_page=${CAP}`);
        assert.equal(listed.meta.pagination.total, CAP);
        assert.equal(listed.meta.pagination.total_exact, false);
        assert.deepEqual(
          listed.data.map((post) => post.id),
          ibexes.slice(-CAP).reverse(),
        );
        assert.match(await page('ibex'), /At least 5 posts match\./);
      } finally {
        searchBounds.denseShare = DENSE_SHARE;
      }
    }
    // One fewer than the cap far back: every one, exactly.
    const rare: number[] = [];
    for (const n of [0, 2, 4, 5]) rare.push(ibexes[n]!);
    for (const id of rare) {
      const response = await v1(`/update/${id}`, { content: '<p>An ibex and a chamois.</p>' });
      assert.equal(response.statusCode, 200, response.body);
    }
    const chamois = await v2(`q=chamois&per_page=${CAP}`);
    assert.equal(chamois.meta.pagination.total_exact, true);
    assert.deepEqual(
      chamois.data.map((post) => post.id),
      [...rare].reverse(),
    );
  });

  it('issue 40: PostgreSQL keeps GIN indexes of the newest posts, which the windows read, and moves them on as posts come', async (t) => {
    const db = ctx.services.database.db;
    const span = 12;
    recentSearchIndex.span = span;
    try {
      if (dialectOf(db) !== 'postgres') {
        // SQLite's FTS5 reads its newest rows first: nothing to keep.
        assert.deepEqual(await ctx.services.searchIndex.maintainRecent(), {
          threshold: null,
          built: [],
          dropped: [],
        });
        return t.skip('PostgreSQL only');
      }
      const before = await v2(`q=zebra&per_page=${CAP}`);
      const newest = async () =>
        Number(
          (await sql<{ max: number }>`select max(post_id) as max from post_search`.execute(db)).rows[0]!.max,
        );
      // The server asks for it hourly, from every node: one job an hour, run by one of them.
      await ctx.services.searchIndex.scheduleRecent();
      await ctx.services.searchIndex.scheduleRecent();
      const queued = await ctx.services.jobs.list({ status: 'queued' });
      assert.equal(queued.filter((job) => job.queue === SEARCH_RECENT_QUEUE).length, 1);
      await ctx.services.jobs.runDue();
      const ran = (await ctx.services.jobs.list()).filter((job) => job.queue === SEARCH_RECENT_QUEUE);
      assert.deepEqual(
        ran.map((job) => job.status),
        ['done'],
      );
      const threshold = (await newest()) - span;
      // Valid, over the posts above the threshold. (That the planner reads a window through them is
      // measured at a million posts, bench/search.ts: on a few posts the primary key alone wins.)
      const indexes = await sql<{ name: string; valid: boolean; predicate: string }>`
        select c.relname as name, i.indisvalid as valid, pg_get_expr(i.indpred, i.indrelid) as predicate
        from pg_index i join pg_class c on c.oid = i.indexrelid
        where c.relnamespace = current_schema()::regnamespace and c.relname like 'post_search_recent_%'
        order by c.relname`.execute(db);
      assert.deepEqual(indexes.rows, [
        { name: `post_search_recent_doc_${threshold}`, valid: true, predicate: `(post_id > ${threshold})` },
        { name: `post_search_recent_words_${threshold}`, valid: true, predicate: `(post_id > ${threshold})` },
      ]);
      // Same answers; nothing to do again until the posts outgrow them.
      assert.deepEqual(await v2(`q=zebra&per_page=${CAP}`), before);
      assert.deepEqual(await ctx.services.searchIndex.maintainRecent(), {
        threshold,
        built: [],
        dropped: [],
      });
      // More than twice the span past the threshold: new ones, the old ones dropped.
      for (let n = 0; n < span + 2; n++)
        await create({ title: `Later ${n}`, content: '<p>A zebra again.</p>' });
      const moved = await ctx.services.searchIndex.maintainRecent();
      const next = (await newest()) - span;
      assert.deepEqual(moved, {
        threshold: next,
        built: [`post_search_recent_words_${next}`, `post_search_recent_doc_${next}`],
        dropped: [`post_search_recent_doc_${threshold}`, `post_search_recent_words_${threshold}`],
      });
      const left = await sql<{ name: string }>`select indexname as name from pg_indexes
        where schemaname = current_schema() and indexname like 'post_search_recent_%' order by indexname`.execute(
        db,
      );
      assert.deepEqual(
        left.rows.map((row) => row.name),
        [`post_search_recent_doc_${next}`, `post_search_recent_words_${next}`],
      );
      const later = await v2(`q=zebra&per_page=${CAP}`);
      assert.equal(later.data[0]!.id, await newest());
    } finally {
      recentSearchIndex.span = RECENT_SEARCH_SPAN;
    }
  });
});
