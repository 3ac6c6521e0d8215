// Seeds a realistic Folio data set straight into a database, before any server starts: batch inserts
// through Kysely in transactions, with explicit ids so that relations need no read-back. Users, tokens
// and websites go through the domain services (a handful of rows); posts and their relations do not.
//
// The data set, for N posts:
// - 3 websites (site1.test with alias www.site1.test, site2.test, site3.test), site names translated;
//   site2 has the full-page cache on, the others off.
// - 6 authors and an admin (whose token the soak uses for writes).
// - 16 categories (4 roots with 3 children each) and 80 tags, names translated to French.
// - N posts of 1–3 KB of HTML: 2 in 5 global (on every website), 1 in 5 on each website; 1 in 50 a
//   draft, 1 in 50 scheduled; one category and three tags each; a French translation of title, excerpt
//   and content for 1 in 4; three approved comments for 1 in 10.
// - 6 pages and a menu of 8 items (two nested) on every website.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { ENDPOINT_SWITCHES, GLOBAL_SWITCH } from '../src/domain/system/api-switches.js';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/database.js';
import { compactPostCounts } from '../src/domain/posts/counts.js';
import { INSTALLED_SETTING } from '../src/domain/system/settings.js';
import { createServices } from '../src/services.js';

export interface SeedWebsite {
  id: number;
  domain: string;
  pageCache: boolean;
}

export interface SeedInfo {
  posts: number;
  websites: SeedWebsite[];
  /** A published global post (it shows on every website) from the middle of the data set. */
  sampleSlug: string;
  /** Its id. */
  sampleId: number;
  /** Published global posts spread over the data set, for traffic that does not hit one row only. */
  slugs: string[];
  /** The admin's API token. */
  token: string;
  seconds: number;
}

/**
 * site1: full-page cache off, data cache on (the defaults); site2: both on; site3: both off, so that
 * every request reads every query and renders every template.
 */
export const BENCH_HOSTS = {
  uncached: 'site1.test',
  cached: 'site2.test',
  nothingCached: 'site3.test',
} as const;

/** Endpoints measured without authentication (`<switch>_should_auth` = none): no token overhead. */
const PUBLIC_ENDPOINTS = ['svc_api_posts_index', 'svc_api_posts_show', 'svc_api_tag_index'];

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et ' +
  'dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea ' +
  'commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur ' +
  'excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum'
).split(' ');

/** A small deterministic generator: the same data set on every run. */
function generator(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

const random = generator(20_261_123);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const sentence = (words: number) => {
  const text = Array.from({ length: words }, () => pick(WORDS)).join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
};
const paragraph = () =>
  `<p>${Array.from({ length: 3 + Math.floor(random() * 4) }, () => sentence(8 + Math.floor(random() * 10))).join(' ')}</p>`;

// Posts are built from a pool of paragraphs: realistic text without generating 100,000 of them.
const PARAGRAPHS = Array.from({ length: 240 }, paragraph);
const HEADINGS = Array.from({ length: 40 }, () => `<h2>${sentence(4)}</h2>`);

function postContent(n: number): string {
  const count = 3 + (n % 5);
  const parts: string[] = [];
  for (let k = 0; k < count; k++) {
    if (k === 2) parts.push(HEADINGS[(n + k) % HEADINGS.length] as string);
    parts.push(PARAGRAPHS[(n * 7 + k * 13) % PARAGRAPHS.length] as string);
  }
  if (n % 6 === 0) {
    parts.splice(1, 0, `<p><img src="https://images.example.org/${n}.jpg" alt="Illustration ${n}"></p>`);
  }
  return parts.join('\n');
}

const TITLE_WORDS = WORDS.filter((word) => word.length > 3);
function postTitle(n: number): string {
  const a = TITLE_WORDS[n % TITLE_WORDS.length] as string;
  const b = TITLE_WORDS[(n * 7 + 3) % TITLE_WORDS.length] as string;
  const c = TITLE_WORDS[(n * 13 + 5) % TITLE_WORDS.length] as string;
  return `${a.charAt(0).toUpperCase()}${a.slice(1)} ${b} ${c} ${n}`;
}

const postSlug = (n: number) => postTitle(n).toLowerCase().replace(/\s+/g, '-');
/** 0, 1: global; 2, 3, 4: bound to website 1, 2, 3. */
const placement = (n: number) => n % 5;
const statusOf = (n: number) => (n % 50 === 7 ? 'draft' : n % 50 === 13 ? 'scheduled' : 'published');
const isGlobalPublished = (n: number) => placement(n) < 2 && statusOf(n) === 'published';

/** Runs `insert` for `rows` in chunks that stay under both dialects' limit of bound parameters. */
async function insertChunked<T>(rows: T[], chunk: number, insert: (part: T[]) => Promise<unknown>) {
  for (let start = 0; start < rows.length; start += chunk) await insert(rows.slice(start, start + chunk));
}

/** Recreates the PostgreSQL database named in `url` (it must not be a database anybody else uses). */
export async function recreatePostgresDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[a-z_][a-z0-9_]*$/.test(name) || ['postgres', 'template0', 'template1', 'test'].includes(name)) {
    throw new Error(`refusing to recreate the PostgreSQL database "${name}": give the bench one of its own`);
  }
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

export async function dropPostgresDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** Seeds a fresh (empty) database; migrates it first. */
export async function seed(
  databaseUrl: string,
  posts: number,
  options: { finalAnalyze?: boolean } = {},
): Promise<SeedInfo> {
  const started = performance.now();
  const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-bench-seed-'));
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', MEDIA_DIR: mediaDir });
  const services = createServices(config, { warn: () => undefined });
  try {
    await migrate(services.database);
    const { db } = services.database;
    const postgres = services.database.dialect === 'postgres';
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const stamp = iso(now);

    // Settings: the API on, the measured read endpoints public, two locales, installed.
    const settings: Record<string, string> = {
      [GLOBAL_SWITCH]: '1',
      [INSTALLED_SETTING]: stamp,
      default_locale: 'en',
      supported_locales: 'en,fr',
      page_cache_ttl: '600',
      // Load from one token is the point here: API v2's per-key limit must not answer 429s.
      api_v2_rate_limit: '1000000000',
    };
    for (const key of ENDPOINT_SWITCHES) {
      settings[key] = '1';
      if (key.startsWith('svc_api_')) settings[`${key}_should_auth`] = 'simple';
    }
    for (const key of PUBLIC_ENDPOINTS) settings[`${key}_should_auth`] = 'none';
    await services.settings.setMany(settings);

    const admin = await services.users.create({
      name: 'Bench Admin',
      email: 'admin@bench.test',
      password: randomBytes(12).toString('base64url'),
      isAdmin: true,
    });
    const token = await services.users.issueToken(admin.id);
    const authorIds: number[] = [];
    for (let k = 1; k <= 6; k++) {
      const row = await db
        .insertInto('users')
        .values({
          name: `Author ${k}`,
          email: `author${k}@bench.test`,
          username: `author${k}`,
          password_hash: '!', // never logs in
          is_admin: false,
          is_active: true,
          created_at: stamp,
          updated_at: stamp,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      authorIds.push(row.id);
    }

    const websites: SeedWebsite[] = [];
    for (const [k, domain] of ['site1.test', 'site2.test', 'site3.test'].entries()) {
      const id = await services.websites.create({
        siteName: { en: `Bench site ${k + 1}`, fr: `Site de test ${k + 1}` },
        domain,
        userId: admin.id,
      });
      websites.push({ id, domain, pageCache: domain === BENCH_HOSTS.cached });
    }
    await services.websites.addDomain(websites[0]!.id, 'www.site1.test');
    for (const website of websites) {
      await db
        .updateTable('websites')
        .set({
          site_slogan: sentence(6),
          site_seo_description: sentence(14),
          site_seo_keywords: 'folio, benchmark, cms',
          enabled_page_cache: website.pageCache,
          enabled_data_cache: website.domain !== BENCH_HOSTS.nothingCached,
        })
        .where('id', '=', website.id)
        .execute();
    }

    // Tags: 4 root categories with 3 children each, and 80 tags; ids 1..96.
    const categoryIds: number[] = [];
    const tagIds: number[] = [];
    await db.transaction().execute(async (trx) => {
      const tagRows = [];
      const translationRows = [];
      let tagId = 0;
      for (let root = 0; root < 4; root++) {
        const rootId = ++tagId;
        tagRows.push(tagRow(rootId, `Category ${root + 1}`, 'post_category', null, 40 - root, stamp));
        translationRows.push(translationRow('tag', rootId, 'name', `Catégorie ${root + 1}`));
        for (let child = 0; child < 3; child++) {
          const id = ++tagId;
          const name = `Category ${root + 1}.${child + 1}`;
          tagRows.push(tagRow(id, name, 'post_category', rootId, 10 - child, stamp));
          categoryIds.push(id);
          translationRows.push(translationRow('tag', id, 'name', `Catégorie ${root + 1}.${child + 1}`));
        }
      }
      for (let k = 0; k < 80; k++) {
        const id = ++tagId;
        tagRows.push(tagRow(id, `Topic ${k + 1}`, 'post_tag', null, 0, stamp));
        translationRows.push(translationRow('tag', id, 'name', `Sujet ${k + 1}`));
        tagIds.push(id);
      }
      await trx.insertInto('tags').values(tagRows).execute();

      // Pages and menus.
      const pageSlugs = ['about', 'contact', 'privacy', 'team', 'faq', 'press'];
      await trx
        .insertInto('pages')
        .values(
          pageSlugs.map((slug, k) => ({
            id: k + 1,
            author_id: admin.id,
            title: `${slug.charAt(0).toUpperCase()}${slug.slice(1)}`,
            slug,
            content: PARAGRAPHS.slice(k * 3, k * 3 + 3).join('\n'),
            type: 'plain',
            status: 'published',
            created_at: stamp,
            updated_at: stamp,
          })),
        )
        .execute();
      let menuId = 0;
      for (const website of websites) {
        // Every website's menu is its `header` menu (the one the default theme shows).
        const header = await trx
          .insertInto('menus')
          .values({
            website_id: website.id,
            handle: 'header',
            name: 'Header',
            created_at: stamp,
            updated_at: stamp,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const item = (
          position: number,
          name: string,
          type: 'page' | 'link',
          target: { pageId?: number; url: string; parentId?: number; blank?: boolean },
        ) => ({
          id: ++menuId,
          website_id: website.id,
          menu_id: header.id,
          parent_id: target.parentId ?? null,
          position,
          name,
          type,
          page_id: target.pageId ?? null,
          url: target.url,
          target: target.blank ? '_blank' : '_self',
          icon: null,
          created_at: stamp,
          updated_at: stamp,
        });
        const home = item(1, 'Home', 'link', { url: '/' });
        const blog = item(2, 'Blog', 'link', { url: '/blog' });
        const about = item(3, 'About', 'page', { pageId: 1, url: '/page/about' });
        const company = item(4, 'Company', 'link', { url: '#' });
        const contact = item(5, 'Contact', 'page', { pageId: 2, url: '/page/contact' });
        const source = item(6, 'Source', 'link', { url: 'https://example.org/folio', blank: true });
        const team = item(1, 'Team', 'page', { pageId: 4, url: '/page/team', parentId: company.id });
        const press = item(2, 'Press', 'page', { pageId: 6, url: '/page/press', parentId: company.id });
        await trx.insertInto('menu_items').values([home, blog, about, company, contact, source]).execute();
        await trx.insertInto('menu_items').values([team, press]).execute();
      }
      await trx.insertInto('translations').values(translationRows).execute();
    });

    // Posts, oldest first (id n + 1 for post n), and everything that hangs off them.
    const step = 37 * 60_000;
    for (let start = 0; start < posts; start += 2000) {
      const end = Math.min(posts, start + 2000);
      await db.transaction().execute(async (trx) => {
        const postRows = [];
        const taggables = [];
        const translations = [];
        const bindings = [];
        const comments = [];
        for (let n = start; n < end; n++) {
          const id = n + 1;
          const created = now - (posts - n) * step;
          const status = statusOf(n);
          const title = postTitle(n);
          postRows.push({
            id,
            type: 'post',
            author_id: authorIds[n % authorIds.length] as number,
            title,
            slug: postSlug(n),
            excerpt: sentence(18),
            content: postContent(n),
            keywords: `${pick(WORDS)}, ${pick(WORDS)}`,
            thumbnail: n % 3 === 0 ? `https://images.example.org/thumbs/${n}.jpg` : null,
            status,
            published_at: status === 'scheduled' ? iso(now + 86_400_000 * (1 + (n % 30))) : iso(created),
            meta_title: n % 4 === 0 ? title : null,
            meta_description: n % 4 === 0 ? sentence(12) : null,
            meta_keywords: null,
            created_at: iso(created),
            updated_at: iso(created),
          });
          const tagsOfPost = new Set([
            categoryIds[(n * 7) % categoryIds.length] as number,
            tagIds[(n * 3) % tagIds.length] as number,
            tagIds[(n * 7 + 1) % tagIds.length] as number,
            tagIds[(n * 11 + 2) % tagIds.length] as number,
          ]);
          for (const tagId of tagsOfPost) {
            taggables.push({ tag_id: tagId, taggable_type: 'post', taggable_id: id });
          }
          if (n % 4 === 0) {
            translations.push(translationRow('post', id, 'title', `${title} (fr)`));
            translations.push(translationRow('post', id, 'excerpt', sentence(18)));
            translations.push(translationRow('post', id, 'content', postContent(n + 1)));
          }
          const where = placement(n);
          if (where >= 2)
            bindings.push({ website_id: websites[where - 2]!.id, model_type: 'post', model_id: id });
          if (n % 10 === 0) {
            for (let k = 0; k < 3; k++) {
              comments.push({
                post_id: id,
                user_id: null,
                parent_id: null,
                author_name: `Reader ${(n + k) % 97}`,
                author_email: `reader${(n + k) % 97}@example.org`,
                content: sentence(20),
                status: 'approved',
                likes: k,
                reports: 0,
                ip_hash: null,
                user_agent: null,
                created_at: iso(created + (k + 1) * 3_600_000),
                updated_at: iso(created + (k + 1) * 3_600_000),
              });
            }
          }
        }
        await insertChunked(postRows, 500, (part) => trx.insertInto('posts').values(part).execute());
        await insertChunked(taggables, 2000, (part) => trx.insertInto('taggables').values(part).execute());
        await insertChunked(translations, 1000, (part) =>
          trx.insertInto('translations').values(part).execute(),
        );
        await insertChunked(bindings, 2000, (part) =>
          trx.insertInto('website_bindings').values(part).execute(),
        );
        await insertChunked(comments, 1000, (part) => trx.insertInto('comments').values(part).execute());
      });
      // PostgreSQL: statistics as the tables grow (batches 1, 2, 4, 8…). The post counters' triggers
      // keep their plans for the session, planned when the tables were empty (scans) until an ANALYZE
      // invalidates them: without this, every trigger call scans the posts seeded so far.
      const batch = start / 2000 + 1;
      if (postgres && (batch & (batch - 1)) === 0) await sql`analyze`.execute(db);
    }

    if (postgres) {
      // Explicit ids leave the identity sequences behind; move them past the rows.
      for (const table of ['posts', 'tags', 'pages', 'menu_items']) {
        const max = sql`coalesce((select max(id) from ${sql.table(table)}), 1)`;
        await sql`select setval(pg_get_serial_sequence(${table}, 'id'), ${max})`.execute(db);
      }
    }
    // The post counters' delta rows of the bulk insert folded, as the server's scheduler does at start.
    await compactPostCounts(db);
    // Fresh statistics, as a database that has lived a while would have (left out to measure what
    // Folio does without them: bench/under-writes.ts --no-final-analyze).
    if (options.finalAnalyze !== false) await sql`analyze`.execute(db);

    const slugs: string[] = [];
    const stride = Math.max(1, Math.floor(posts / 64));
    for (let n = 0; n < posts && slugs.length < 64; n += stride) {
      for (let m = n; m < Math.min(posts, n + stride); m++) {
        if (isGlobalPublished(m)) {
          slugs.push(postSlug(m));
          break;
        }
      }
    }
    let middle = Math.floor(posts / 2);
    while (middle < posts - 1 && !(isGlobalPublished(middle) && middle % 4 === 0)) middle++;
    return {
      posts,
      websites,
      sampleSlug: postSlug(middle),
      sampleId: middle + 1, // ids are explicit: post n has id n + 1
      slugs,
      token,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await services.close();
    fs.rmSync(mediaDir, { recursive: true, force: true });
  }
}

function tagRow(
  id: number,
  name: string,
  type: string,
  parentId: number | null,
  sort: number,
  stamp: string,
) {
  return {
    id,
    name,
    slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
    type,
    parent_id: parentId,
    description: `${name}: ${sentence(8)}`,
    icon: null,
    sort,
    created_at: stamp,
    updated_at: stamp,
  };
}

function translationRow(modelType: string, modelId: number, field: string, value: string) {
  return { model_type: modelType, model_id: modelId, field, locale: 'fr', value };
}
