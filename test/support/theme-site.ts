// A website with one of every public page type of the default theme, as a writer would fill it: a
// slogan, a category and a tag, posts with an uploaded cover and with text worth reading, a page, an
// approved comment. The html-validate and Lighthouse tests read the same pages.
import sharp from 'sharp';
import { REGISTRATION_SETTING } from '../../src/domain/people/accounts.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import type { TestContext } from './harness.js';
import { websiteWrites } from './website-writes.js';
import { postWrites } from './post-writes.js';

export interface ThemeSite {
  websiteId: number;
  adminEmail: string;
  password: string;
  /** Paths of every public page type (GET). */
  paths: {
    home: string;
    blog: string;
    post: string;
    tag: string;
    category: string;
    page: string;
    search: string;
    login: string;
    register: string;
    notFound: string;
  };
  postId: number;
}

const PARAGRAPHS = [
  'Cats sleep for twelve to sixteen hours a day, and most of it is light sleep: an ear keeps turning towards every sound in the house.',
  'Hunting takes a lot of energy. A cat that spends an hour stalking a toy mouse has done the work of a small hunt, and rests accordingly.',
  'Older cats sleep even more. If yours naps through the afternoon, it is keeping a rhythm older than the house it lives in.',
];

/** A photograph-like cover: a gradient (compresses like a photo, not like a flat colour). */
export async function coverImage(
  width: number,
  height: number,
  colours: readonly [string, string, string] = ['#2f6d5a', '#d9b26a', '#7a3b2e'],
): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${colours[0]}"/><stop offset="0.55" stop-color="${colours[1]}"/><stop offset="1" stop-color="${colours[2]}"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width * 0.7}" cy="${height * 0.35}" r="${height * 0.18}" fill="#f4e9d0" opacity="0.85"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 82 }).toBuffer();
}

export async function seedThemeSite(ctx: TestContext, domain: string): Promise<ThemeSite> {
  const { services } = ctx;
  await services.settings.set(INSTALLED_SETTING, new Date().toISOString());
  await services.settings.set(REGISTRATION_SETTING, '1');
  const websiteId = await websiteWrites(services).create({ siteName: 'Field Notes', domain });
  await websiteWrites(services).update(websiteId, {
    site_slogan: 'Short essays on cats, code and quiet mornings',
  });
  const adminEmail = `ada@${domain}`;
  const password = 'correct horse battery';
  const admin = await services.users.create({
    name: 'Ada Lovelace',
    email: adminEmail,
    password,
    isAdmin: true,
    username: 'ada',
  });
  const actor = { userId: admin.id, isAdmin: true };
  // The home's cover (issue 36 #2), an image of the website's media library.
  const [cover] = await services.mediaOps.upload(
    { ...actor, websiteId },
    {
      files: {
        filename: 'dawn.jpg',
        data: await coverImage(2400, 1000, ['#1d3557', '#e9a96b', '#457b9d']),
        truncated: false,
      },
    },
  );
  await websiteWrites(services).update(websiteId, { site_cover: cover!.url });
  const tag = async (name: string, type: string) =>
    (await services.tagOps.ensure({ name, type, updateWhenDuplicated: false, defaultLocale: 'en' })).tag;
  const cats = await tag('Cats', 'post_tag');
  const notes = await tag('Notes', 'post_category');
  const now = Date.now();
  const content = PARAGRAPHS.map((text) => `<p>${text}</p>`).join('<h2>Why it matters</h2>');
  const first = await postWrites(services).create(
    {
      title: 'Why cats sleep all day',
      slug: 'why-cats-sleep',
      content,
      excerpt: 'A short look at feline naps, and what they tell us about the animals we live with.',
      tags: [cats.id],
      categories: [notes.id],
      websiteIds: [websiteId],
      thumbnailUpload: await coverImage(1600, 1000),
      publishedAt: new Date(now - 60_000).toISOString(),
    },
    actor,
  );
  await postWrites(services).create(
    {
      title: 'Writing tests that fail',
      slug: 'tests-that-fail',
      content:
        '<p>A test that cannot fail tells you nothing. Break the code on purpose and watch it go red.</p>',
      excerpt: 'A test earns its place by failing when the code is wrong.',
      tags: [cats.id],
      categories: [notes.id],
      websiteIds: [websiteId],
      thumbnailUpload: await coverImage(1200, 800),
      publishedAt: new Date(now - 120_000).toISOString(),
    },
    actor,
  );
  await postWrites(services).create(
    {
      title: 'A quiet morning routine',
      slug: 'quiet-mornings',
      content: '<p>Coffee, a window, and ten minutes before the first message arrives.</p>',
      categories: [notes.id],
      websiteIds: [websiteId],
      publishedAt: new Date(now - 180_000).toISOString(),
    },
    actor,
  );
  await services.pages.create({
    title: 'About',
    slug: 'about',
    content: '<p>Field Notes is written by Ada, who lives with two cats and too many notebooks.</p>',
    websiteIds: [websiteId],
  });
  return {
    websiteId,
    adminEmail,
    password,
    postId: first.id,
    paths: {
      home: '/',
      blog: '/blog',
      post: '/post/why-cats-sleep',
      tag: `/post/tag/${cats.slug}`,
      category: `/post/category/${notes.slug}`,
      page: '/page/about',
      search: '/post/search/cats',
      login: '/user/login',
      register: '/user/register',
      notFound: '/no-such-page',
    },
  };
}
