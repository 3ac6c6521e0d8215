// Issue 36 #2: the default theme a publisher launches with. The home page's cover comes from the
// website's settings (`site_cover`, an image of the media library chosen in the panel, written through
// API v2): shown with every stored size, the site's name and slogan on it, on that website only, at once
// on a cached home. API v1's website JSON (R-W1) neither shows nor writes it. The theme's fonts are
// served by Folio (no font CDN), versioned and cached a year.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('the home cover and the theme fonts (issue 36 #2)', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  let admin: TestUser;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Harbour', domain: 'harbour.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Inland', domain: 'inland.test' });
    await websiteWrites(ctx.services).update(site, {
      site_slogan: 'Boats & <tides>',
      enabled_page_cache: true,
    });
    admin = await ctx.createUser({ admin: true });
  });
  after(() => ctx.close());

  const get = (host: string, url = '/') => ctx.request({ method: 'GET', url, headers: { host } });
  const v2 = (method: 'GET' | 'PATCH' | 'POST', url: string, payload?: Record<string, unknown>) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host: 'harbour.test', authorization: `Bearer ${admin.token}` },
      ...(payload ? { payload } : {}),
    });
  /** An image uploaded to the media library through API v2 (stored with its smaller sizes). */
  const upload = async (image: Buffer, name: string): Promise<string> => {
    const boundary = 'folio-home-cover-test';
    const payload = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\n` +
          'Content-Type: image/jpeg\r\n\r\n',
      ),
      image,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v2/media',
      headers: {
        host: 'harbour.test',
        authorization: `Bearer ${admin.token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      payload,
    });
    assert.equal(response.statusCode, 201, response.body);
    return response.json<{ data: Array<{ url: string }> }>().data[0]!.url;
  };
  const hero = (body: string) => /<section class="hero[^"]*">[\s\S]*?<\/section>/.exec(body)?.[0] ?? '';

  it('without a cover the heading is for screen readers and no cover image is shown', async () => {
    const section = hero((await get('harbour.test')).body);
    assert.match(section, /^<section class="hero">/);
    assert.match(section, /<h1 class="visually-hidden">Harbour<\/h1>/);
    assert.doesNotMatch(section, /<img/);
  });

  it('a library image set through API v2 covers the home at once, with its sizes, name and slogan', async () => {
    const cached = await get('harbour.test');
    assert.equal(cached.statusCode, 200);
    const photo = await sharp({
      create: { width: 2000, height: 900, channels: 3, background: { r: 20, g: 90, b: 140 } },
    })
      .jpeg()
      .toBuffer();
    const url = await upload(photo, 'harbour.jpg');
    const patched = await v2('PATCH', `/websites/${site}`, { site_cover: url });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json<{ data: { fields: Record<string, unknown> } }>().data.fields.site_cover, url);

    // The page cache kept the home: the website's change flushes it.
    const section = hero((await get('harbour.test')).body);
    assert.match(section, /^<section class="hero has-cover">/);
    const img = /<img [^>]*>/.exec(section)?.[0] ?? '';
    assert.match(img, /class="hero-image"/);
    assert.match(img, /width="2000" height="900"/);
    assert.match(img, /fetchpriority="high"/);
    assert.doesNotMatch(img, /loading=/);
    const srcset = /srcset="([^"]*)"/.exec(img)?.[1] ?? '';
    const widths = srcset.split(', ').map((candidate) => Number(/ (\d+)w$/.exec(candidate)?.[1]));
    assert.deepEqual(widths, [320, 768, 1536, 2000]);
    for (const candidate of srcset.split(', ')) {
      const [path = '', width = ''] = candidate.split(' ');
      const file = await get('harbour.test', path);
      assert.equal(file.statusCode, 200, path);
      assert.equal(`${(await sharp(file.rawPayload).metadata()).width}w`, width);
    }
    assert.match(section, /<h1>Harbour<\/h1>/);
    assert.match(section, /<p class="lead">Boats &amp; &lt;tides&gt;<\/p>/);
    // The library says where the image is used.
    const media = await v2('GET', `/media?q=harbour.jpg&include=usage`);
    const item = media
      .json<{ data: Array<{ url: string; usage: { websites: unknown[] } }> }>()
      .data.find((entry) => entry.url === url);
    assert.deepEqual(item?.usage.websites, [{ id: site, name: 'Harbour', as: ['cover'] }]);
  });

  it('another website keeps its own home; an external address is shown as it is', async () => {
    assert.doesNotMatch(hero((await get('inland.test')).body), /<img/);
    await websiteWrites(ctx.services).update(other, { site_cover: 'https://images.example/fields.jpg' });
    const section = hero((await get('inland.test')).body);
    assert.match(
      section,
      /<img class="hero-image" src="https:\/\/images.example\/fields.jpg" alt="" fetchpriority="high">/,
    );
    assert.match(hero((await get('harbour.test')).body), /class="hero-image" src="\/media\//);
  });

  it('a post featured under a cover is not the first image fetched', async () => {
    const thumbnail = await sharp({
      create: { width: 900, height: 600, channels: 3, background: { r: 160, g: 60, b: 20 } },
    })
      .jpeg()
      .toBuffer();
    await ctx.services.postOps.create(
      { userId: admin.id, isAdmin: true, websiteId: null },
      {
        title: 'Low tide',
        content: '<p>Out.</p>',
        status: 'published',
        website_id: [site],
        thumbnail: { filename: 'low-tide.jpg', data: thumbnail, truncated: false },
      },
    );
    const body = (await get('harbour.test')).body;
    const featured = /<article class="featured-post[\s\S]*?<\/article>/.exec(body)?.[0] ?? '';
    assert.match(featured, /Low tide/);
    assert.match(featured, /<img [^>]*loading="lazy"/);
    assert.equal(body.match(/fetchpriority="high"/g)?.length, 1, 'one image is fetched first: the cover');
  });

  it('API v1 neither shows nor writes the cover (R-W1)', async () => {
    await ctx.enableApi();
    const call = (url: string, body: Record<string, unknown>) =>
      ctx.request({
        method: 'POST',
        url: `/api/v1/websites${url}`,
        payload: { api_token: admin.token, ...body },
      });
    const shown = await call(`/${site}`, {});
    assert.equal(shown.statusCode, 200, shown.body);
    assert.equal('site_cover' in shown.json<{ data: Record<string, unknown> }>().data, false);
    const before = (await ctx.services.websites.find(site))!.fields.site_cover;
    const updated = await call(`/update/${site}`, { site_cover: 'https://evil.example/x.jpg', remark: 'v1' });
    assert.equal(updated.statusCode, 200, updated.body);
    assert.equal('site_cover' in updated.json<{ data: Record<string, unknown> }>().data, false);
    assert.equal((await ctx.services.websites.find(site))!.fields.site_cover, before);
  });

  it('the fonts are the theme’s own: preloaded, versioned, served as WOFF2 and cached a year', async () => {
    const body = (await get('harbour.test', '/blog')).body;
    const head = /<head>[\s\S]*<\/head>/.exec(body)?.[0] ?? '';
    const preloads = [
      ...head.matchAll(/<link rel="preload" href="([^"]+)" as="font" type="font\/woff2" crossorigin>/g),
    ].map((match) => match[1]!);
    assert.equal(preloads.length, 2);
    // The stylesheet declares them; each URL names its file's current version (else it would be
    // revalidated, not cached): a font replaced without its version in style.css fails here.
    const cssUrl = /<link rel="stylesheet" href="([^"]+)">/.exec(head)?.[1] ?? '';
    const css = (await get('harbour.test', cssUrl)).body;
    const faces = [...css.matchAll(/@font-face \{([^}]*)\}/g)].map((match) => match[1]!);
    assert.equal(faces.length, 4);
    const fontUrls = new Set<string>();
    for (const face of faces) {
      assert.match(face, /font-display: optional;/);
      assert.match(face, /unicode-range:\s+U\+/);
      const relative = /src: url\('([^']+)'\) format\('woff2'\)/.exec(face)?.[1] ?? '';
      fontUrls.add(new URL(relative, `http://harbour.test${cssUrl}`).pathname + `?${relative.split('?')[1]}`);
    }
    for (const href of preloads) assert.ok(fontUrls.has(href), `${href} is the URL style.css asks for`);
    for (const url of fontUrls) {
      assert.match(url, /^\/themes\/default\/assets\/fonts\/[a-z0-9-]+\.woff2\?v=[0-9a-f]{16}$/);
      const font = await get('harbour.test', url);
      assert.equal(font.statusCode, 200, url);
      assert.equal(font.headers['content-type'], 'font/woff2');
      assert.equal(font.headers['cache-control'], 'public, max-age=31536000, immutable', url);
      assert.equal(font.rawPayload.subarray(0, 4).toString('latin1'), 'wOF2');
    }
    // No font (or anything else) from another host.
    assert.doesNotMatch(body + css, /fonts\.googleapis|fonts\.gstatic|https?:\/\/[^"')]*\.woff2/);
    assert.match(css, /--font-text: Inter, system-ui/);
    assert.match(css, /--font-heading: 'Source Serif 4', ui-serif/);
  });
});
