// API v2's media library (issue 23 #1, issue 24 #4) through the real app, on SQLite and PostgreSQL:
// uploads checked by content (a real PNG made with sharp, a non-image 415, past the size limit 413),
// WebP and size variants, list with search, type filter, sort and pagination, alt text and caption
// (per locale) with If-Match, where an item is used (thumbnail, content, logo), delete refused while
// used unless forced, the roles (a matrix, like roles-matrix.test.ts), and 404 problems for unknown
// ids and other websites' items. Every answer is checked against its documented schema.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { z } from 'zod';
import { mediaSchema, mediaUsageSchema } from '../../src/api/v2/media.js';
import { problemSchema } from '../../src/api/v2/schemas.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
  type?: string;
}

/** A multipart/form-data body built by hand, as a browser sends it. */
function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----folio${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = part.filename
      ? `form-data; name="${part.name}"; filename="${part.filename}"`
      : `form-data; name="${part.name}"`;
    const type = part.filename ? `\r\nContent-Type: ${part.type ?? 'application/octet-stream'}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`));
    chunks.push(typeof part.value === 'string' ? Buffer.from(part.value) : part.value);
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

const png = (width: number, height: number, color = { r: 200, g: 30, b: 30 }) =>
  sharp({ create: { width, height, channels: 3, background: color } })
    .png()
    .toBuffer();

/** Random pixels: a PNG that does not compress (a few KB per 40x40). */
const noisyPng = (side: number) =>
  sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png()
    .toBuffer();

const variantSchema = z.object({
  name: z.string(),
  url: z.string(),
  mime_type: z.string(),
  width: z.int().nullable(),
  height: z.int().nullable(),
  size: z.int(),
});
const usageSchema = z.object({
  posts: z.array(
    z.object({
      id: z.int(),
      title: z.string(),
      type: z.string(),
      status: z.string(),
      as: z.array(z.enum(['thumbnail', 'content'])),
    }),
  ),
  pages: z.array(z.object({ id: z.int(), title: z.string(), status: z.string(), as: z.array(z.string()) })),
  websites: z.array(
    z.object({ id: z.int(), name: z.string(), as: z.array(z.enum(['logo', 'favicon', 'cover'])) }),
  ),
  elsewhere: z.int(),
});
const itemSchema = z
  .object({
    id: z.int(),
    file_name: z.string(),
    url: z.string(),
    mime_type: z.string(),
    type: z.enum(['image', 'video', 'audio', 'document']),
    size: z.int(),
    width: z.int().nullable(),
    height: z.int().nullable(),
    alt: z.string().nullable(),
    caption: z.string().nullable(),
    translations: z.record(z.string(), z.record(z.string(), z.string())).optional(),
    variants: z.array(variantSchema),
    user_id: z.int().nullable(),
    website_ids: z.array(z.int()),
    created_at: z.string(),
    updated_at: z.string(),
    usage: usageSchema.optional(),
  })
  .strict();
const listSchema = z.object({
  data: z.array(
    itemSchema.partial().refine((item) => mediaSchema.safeParse(item).success, 'not the documented shape'),
  ),
  meta: z.object({
    pagination: z.object({ page: z.int(), per_page: z.int(), total: z.int(), total_pages: z.int() }),
  }),
});
type Item = z.infer<typeof itemSchema>;

/** An item as the tests read it (strict), which must match the documented schema as well. */
const checked = (item: unknown, strict: z.ZodType = itemSchema) => {
  assert.ok(
    mediaSchema.safeParse(item).success,
    `not the documented shape: ${JSON.stringify(item).slice(0, 300)}`,
  );
  const parsed = strict.safeParse(item);
  assert.ok(parsed.success, `answer does not match its schema: ${JSON.stringify(item).slice(0, 300)}`);
  return parsed.data as Item;
};

describe('API v2: media library', () => {
  let ctx: TestContext;
  let site: number;
  let other: number;
  let admin: TestUser;
  let editor: TestUser;
  let contributor: TestUser;
  let secondContributor: TestUser;
  let reader: TestUser;
  let red: Buffer;

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    other = await websiteWrites(ctx.services).create({ siteName: 'Other', domain: 'other.test' });
    admin = await ctx.createUser({ admin: true });
    editor = await ctx.createUser();
    contributor = await ctx.createUser();
    secondContributor = await ctx.createUser();
    reader = await ctx.createUser();
    await ctx.services.memberships.grant(editor.id, site, 'editor');
    await ctx.services.memberships.grant(contributor.id, site, 'contributor');
    await ctx.services.memberships.grant(secondContributor.id, site, 'contributor');
    await ctx.services.memberships.grant(reader.id, site, 'reader');
    red = await png(400, 300);
  });
  after(() => ctx.close());

  type Call = {
    method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
    as?: TestUser;
    body?: unknown;
    headers?: Record<string, string>;
    host?: string;
  };
  const call = (
    url: string,
    { method = 'GET', as = admin, body, headers = {}, host = 'site.test' }: Call = {},
  ) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host, authorization: `Bearer ${as.token}`, ...headers },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  const upload = (
    files: Part[],
    options: { as?: TestUser; host?: string; headers?: Record<string, string> } = {},
  ) => {
    const body = multipart(files);
    return ctx.request({
      method: 'POST',
      url: '/api/v2/media',
      headers: {
        host: options.host ?? 'site.test',
        authorization: `Bearer ${(options.as ?? admin).token}`,
        ...body.headers,
        ...options.headers,
      },
      payload: body.payload,
    });
  };
  const file = (value: Buffer, filename: string, type = 'image/png'): Part => ({
    name: 'files',
    value,
    filename,
    type,
  });
  const uploaded = async (response: LightMyRequestResponse): Promise<Item[]> => {
    assert.equal(response.statusCode, 201, response.body);
    const body = z.object({ data: z.array(z.unknown()) }).parse(response.json());
    return body.data.map((item) => checked(item));
  };
  const uploadOne = async (image: Buffer, name: string, as: TestUser = admin) =>
    (await uploaded(await upload([file(image, name)], { as })))[0]!;
  const one = (response: LightMyRequestResponse): Item => {
    assert.equal(response.statusCode, 200, response.body);
    return checked(z.object({ data: z.unknown() }).parse(response.json()).data);
  };
  const problem = (response: LightMyRequestResponse, status: number) => {
    assert.equal(response.statusCode, status, response.body);
    assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
    const parsed = problemSchema.safeParse(response.json());
    assert.ok(parsed.success, response.body);
    assert.equal(parsed.data.status, status);
    return parsed.data;
  };

  it('upload: a real PNG is stored as sent, with a WebP copy and smaller WebP sizes, served at their URLs', async () => {
    const response = await upload([file(red, 'red square.png')]);
    const [item] = await uploaded(response);
    assert.ok(item);
    assert.equal(response.headers.location, `/api/v2/media/${item.id}`);
    assert.equal(item.file_name, 'red square.png');
    assert.equal(item.mime_type, 'image/png');
    assert.equal(item.type, 'image');
    assert.deepEqual([item.width, item.height, item.size], [400, 300, red.length]);
    assert.deepEqual(item.website_ids, [site]);
    assert.equal(item.user_id, admin.id);
    assert.deepEqual(
      item.variants.map((variant) => [variant.name, variant.mime_type, variant.width, variant.height]),
      [
        ['webp', 'image/webp', 400, 300],
        ['w320', 'image/webp', 320, 240],
      ],
      'a WebP copy, and the sizes smaller than the image (320; not 768 or 1536)',
    );
    for (const url of [item.url, ...item.variants.map((variant) => variant.url)]) {
      // Site-relative addresses (issue 36 #5): served on whatever host the site answers on.
      assert.match(url, /^\/media\/library\//);
      const served = await ctx.request({
        method: 'GET',
        url,
        headers: { host: 'site.test' },
      });
      assert.equal(served.statusCode, 200, url);
    }
    const webp = await ctx.request({
      method: 'GET',
      url: item.variants[1]!.url,
      headers: { host: 'site.test' },
    });
    assert.equal((await sharp(webp.rawPayload).metadata()).format, 'webp');
  });

  it('upload: several files at once, answered in their order; the same file again is the same item', async () => {
    const blue = await png(50, 40, { r: 0, g: 0, b: 255 });
    const green = await png(60, 30, { r: 0, g: 255, b: 0 });
    const items = await uploaded(await upload([file(blue, 'blue.png'), file(green, 'green.png')]));
    assert.deepEqual(
      items.map((item) => [item.file_name, item.width]),
      [
        ['blue.png', 50],
        ['green.png', 60],
      ],
    );
    assert.deepEqual(
      items[0]!.variants.map((variant) => variant.name),
      ['webp'],
      'no smaller sizes of a small image',
    );
    const again = await uploadOne(blue, 'blue-again.png');
    assert.equal(again.id, items[0]!.id);
  });

  it('upload: a file that is not an image is a 415 problem naming it, whatever its claimed type', async () => {
    const refused = problem(await upload([file(Buffer.from('<svg onload="alert(1)"/>'), 'x.png')]), 415);
    assert.match(refused.detail ?? '', /x\.png/);
    assert.ok(refused.errors?.files);
    // One bad file among good ones refuses the whole upload: nothing is stored.
    const before = (await call('/media?per_page=100')).json().meta.pagination.total as number;
    const mixed = await upload([
      file(await png(9, 9), 'fine.png'),
      file(Buffer.from('just text'), 'notes.txt', 'text/plain'),
    ]);
    assert.ok(problem(mixed, 415).errors?.['files.1']);
    assert.equal((await call('/media?per_page=100')).json().meta.pagination.total, before);
    problem(await upload([{ name: 'files', value: 'not a file' }]), 422);
    problem(await upload([{ name: 'alt', value: 'no file at all' }]), 422);
    const tiny = await png(3, 3);
    const eleven = Array.from({ length: 11 }, (_, index) => file(tiny, `${index}.png`));
    problem(await upload(eleven), 413);
  });

  it('upload: a file past the size limit (post_thumbnail_max_kb) is a 413 problem', async () => {
    await ctx.services.settings.set('post_thumbnail_max_kb', '1');
    try {
      const big = await noisyPng(64);
      assert.ok(big.length > 1024);
      const refused = problem(await upload([file(big, 'big.png')]), 413);
      assert.match(refused.detail ?? '', /1 kilobytes/);
    } finally {
      await ctx.services.settings.set('post_thumbnail_max_kb', '5120');
    }
  });

  it('upload: an Idempotency-Key answers a retry with the first result', async () => {
    const image = await png(11, 11, { r: 1, g: 2, b: 3 });
    const headers = { 'idempotency-key': `media-${randomBytes(4).toString('hex')}` };
    const first = await uploaded(await upload([file(image, 'once.png')], { headers }));
    const retry = await upload([file(image, 'once.png')], { headers });
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(
      (await uploaded(retry)).map((item) => item.id),
      first.map((item) => item.id),
    );
  });

  it('list: search in names, alt texts and captions, filter by type, sort, pagination with Link', async () => {
    const cat = await uploadOne(await png(21, 21, { r: 9, g: 9, b: 9 }), 'Cat-photo.png');
    const dog = await uploadOne(await png(22, 22, { r: 8, g: 8, b: 8 }), 'dog.png');
    await call(`/media/${dog.id}`, { method: 'PATCH', body: { caption: 'A very good CAT friend' } });
    const found = listSchema.parse((await call('/media?q=cat&sort=file_name')).json());
    assert.deepEqual(
      found.data.map((item) => item.id),
      [cat.id, dog.id],
      'by file name and by caption, case-insensitive, sorted by file name',
    );
    const percent = listSchema.parse((await call('/media?q=50%25')).json());
    assert.equal(percent.data.length, 0, '% is taken literally');
    const images = listSchema.parse((await call('/media?filter[type]=image&per_page=100')).json());
    assert.ok(images.data.length >= 2);
    assert.equal(listSchema.parse((await call('/media?filter[type]=video')).json()).data.length, 0);

    const page = await call('/media?per_page=2&page=2&sort=-size&fields=id,size');
    const body = listSchema.parse(page.json());
    assert.equal(body.meta.pagination.page, 2);
    assert.equal(body.meta.pagination.per_page, 2);
    assert.ok(body.meta.pagination.total >= 5);
    assert.deepEqual(Object.keys(body.data[0]!).sort(), ['id', 'size']);
    assert.ok(body.data[0]!.size! >= body.data[1]!.size!);
    assert.match(String(page.headers.link), /rel="prev"/);
    assert.match(String(page.headers.link), /page=1.*rel="first"/);
    problem(await call('/media?sort=password'), 422);
    problem(await call('/media?filter[type]=executable'), 422);
    problem(await call('/media?include=everything'), 422);
  });

  it('alt text and caption: a string or per locale; If-Match with a stale ETag is a 412', async () => {
    const item = await uploadOne(await png(23, 23, { r: 7, g: 7, b: 7 }), 'texts.png');
    const read = await call(`/media/${item.id}`);
    const etag = String(read.headers.etag);
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
    assert.equal((await call(`/media/${item.id}`, { headers: { 'if-none-match': etag } })).statusCode, 304);

    const changed = await call(`/media/${item.id}`, {
      method: 'PATCH',
      body: { alt: { en: 'A grey square', fr: 'Un carré gris' }, caption: 'Grey' },
      headers: { 'if-match': etag },
    });
    const saved = one(changed);
    assert.equal(saved.alt, 'A grey square');
    assert.equal(saved.caption, 'Grey');
    assert.deepEqual(saved.translations?.alt, { en: 'A grey square', fr: 'Un carré gris' });
    assert.notEqual(String(changed.headers.etag), etag);
    const french = one(await call(`/media/${item.id}?locale=fr`));
    assert.equal(french.alt, 'Un carré gris');
    assert.equal(french.caption, 'Grey', 'no French caption: the base text');
    assert.equal(french.translations, undefined);

    const stale = problem(
      await call(`/media/${item.id}`, {
        method: 'PATCH',
        body: { alt: 'Mine' },
        headers: { 'if-match': etag },
      }),
      412,
    );
    assert.match(stale.detail ?? '', /changed/);
    assert.equal(one(await call(`/media/${item.id}`)).alt, 'A grey square', 'nothing was written');
    const cleared = one(await call(`/media/${item.id}`, { method: 'PATCH', body: { caption: null } }));
    assert.equal(cleared.caption, null);
    const invalid = problem(
      await call(`/media/${item.id}`, { method: 'PATCH', body: { alt: 'x'.repeat(1001), url: 'x' } }),
      422,
    );
    assert.ok(invalid.errors);
  });

  it('usage: a post using it as thumbnail and in its content, a page, and the website logo and cover', async () => {
    const item = await uploadOne(await png(24, 24, { r: 6, g: 6, b: 6 }), 'used.png');
    const unused = await uploadOne(await png(25, 25, { r: 5, g: 5, b: 5 }), 'unused.png');
    const post = await call('/posts', {
      method: 'POST',
      body: {
        title: 'With a picture',
        content: `<p><img src="${item.variants[0]!.url}" alt="x"></p>`,
        thumbnail_url: item.url,
        status: 'published',
      },
    });
    assert.equal(post.statusCode, 201, post.body);
    const postId = post.json().data.id as number;
    const inContent = await call('/posts', {
      method: 'POST',
      body: {
        title: 'Relative',
        content: `<p><img src="${item.url}"></p>`,
        status: 'draft',
      },
    });
    assert.equal(inContent.statusCode, 201, inContent.body);
    const page = await call('/pages', {
      method: 'POST',
      body: { title: 'About', content: `<img src="${item.url}">`, status: 'published' },
    });
    assert.equal(page.statusCode, 201, page.body);
    await ctx.services.database.db
      .updateTable('websites')
      .set({ site_logo: item.url, site_cover: item.url })
      .where('id', '=', site)
      .execute();
    // On another website: counted, not shown.
    await ctx.services.database.db
      .updateTable('websites')
      .set({ site_favicon: item.url })
      .where('id', '=', other)
      .execute();

    const usageAnswer = (await call(`/media/${item.id}/usage`)).json().data;
    assert.ok(mediaUsageSchema.safeParse(usageAnswer).success);
    const usage = usageSchema.parse(usageAnswer);
    assert.deepEqual(
      usage.posts.map((use) => [use.id, use.as]),
      [
        [postId, ['thumbnail', 'content']],
        [inContent.json().data.id, ['content']],
      ],
    );
    assert.deepEqual(
      usage.pages.map((use) => use.id),
      [page.json().data.id],
    );
    assert.deepEqual(usage.websites, [{ id: site, name: 'Site', as: ['logo', 'cover'] }]);
    assert.equal(usage.elsewhere, 1);
    const included = one(await call(`/media/${item.id}?include=usage`));
    assert.deepEqual(included.usage, usage);
    const listed = listSchema.parse((await call('/media?include=usage&q=used.png')).json());
    assert.deepEqual(listed.data.find((listedItem) => listedItem.id === item.id)?.usage, usage);
    assert.deepEqual(listed.data.find((listedItem) => listedItem.id === unused.id)?.usage?.posts, []);
    const none = usageSchema.parse((await call(`/media/${unused.id}/usage`)).json().data);
    assert.deepEqual(none, { posts: [], pages: [], websites: [], elsewhere: 0 });
    // Texts are searched in steps over id ranges: steps of one id or two find the same uses.
    const library = ctx.services.mediaLibrary;
    const [found] = await library.findMany([item.id]);
    const whole = (await library.usage([found!], site)).get(item.id);
    for (const chunkIds of [1, 2]) {
      assert.deepEqual((await library.usage([found!], site, { chunkIds })).get(item.id), whole);
    }
    assert.equal(whole?.postIds.length, 2);
  });

  it('usage: a translation of a post’s content that shows it counts; a deleted post does not', async () => {
    const item = await uploadOne(await png(31, 31, { r: 31, g: 0, b: 0 }), 'translated.png');
    const translated = await call('/posts', {
      method: 'POST',
      body: {
        title: 'Bilingual',
        content: { en: '<p>No picture</p>', fr: `<p><img src="${item.url}"></p>` },
        status: 'draft',
      },
    });
    assert.equal(translated.statusCode, 201, translated.body);
    const gone = await call('/posts', {
      method: 'POST',
      body: { title: 'Deleted', content: `<img src="${item.url}">`, status: 'draft' },
    });
    assert.equal((await call(`/posts/${gone.json().data.id}`, { method: 'DELETE' })).statusCode, 204);
    const usage = usageSchema.parse((await call(`/media/${item.id}/usage`)).json().data);
    assert.deepEqual(
      usage.posts.map((use) => [use.id, use.as]),
      [[translated.json().data.id, ['content']]],
    );
    // In steps of one id: the translation's post is still found in its own range.
    const [found] = await ctx.services.mediaLibrary.findMany([item.id]);
    const stepped = (await ctx.services.mediaLibrary.usage([found!], site, { chunkIds: 1 })).get(item.id);
    assert.deepEqual(stepped?.postIds, [translated.json().data.id]);
  });

  it('delete: 409 naming the uses while used; ?force=true deletes it and its files', async () => {
    const item = await uploadOne(await png(500, 20, { r: 4, g: 4, b: 4 }), 'doomed.png');
    const post = await call('/posts', {
      method: 'POST',
      body: { title: 'Doomed picture', content: '<p>x</p>', thumbnail_url: item.url, status: 'published' },
    });
    assert.equal(post.statusCode, 201, post.body);
    const conflict = problem(await call(`/media/${item.id}`, { method: 'DELETE' }), 409);
    assert.match(conflict.detail ?? '', /1 post\b/);
    assert.equal((await call(`/media/${item.id}`)).statusCode, 200, 'still there');

    const paths = [item.url, ...item.variants.map((variant) => variant.url)];
    assert.equal(paths.length, 3);
    const deleted = await call(`/media/${item.id}?force=true`, { method: 'DELETE' });
    assert.equal(deleted.statusCode, 204, deleted.body);
    problem(await call(`/media/${item.id}`), 404);
    for (const path of paths) {
      assert.equal(
        (await ctx.request({ method: 'GET', url: path, headers: { host: 'site.test' } })).statusCode,
        404,
        path,
      );
    }
    const unused = await uploadOne(await png(26, 26, { r: 3, g: 3, b: 3 }), 'unused-too.png');
    assert.equal((await call(`/media/${unused.id}`, { method: 'DELETE' })).statusCode, 204);
    const audit = await ctx.services.audit.list({ resourceType: 'media', resourceId: String(item.id) });
    assert.deepEqual(audit.map((entry) => entry.action).sort(), ['media.delete', 'media.upload']);
  });

  it('roles: contributors upload and change their own items; editors any; readers nothing', async () => {
    const own = await uploadOne(await png(27, 27, { r: 2, g: 2, b: 2 }), 'contrib.png', contributor);
    assert.equal(own.user_id, contributor.id);
    const others = await uploadOne(await png(28, 28, { r: 1, g: 1, b: 1 }), 'second.png', secondContributor);

    // A contributor cannot change or delete someone else's item.
    problem(await call(`/media/${others.id}`, { method: 'DELETE', as: contributor }), 403);
    problem(await call(`/media/${others.id}`, { method: 'PATCH', as: contributor, body: { alt: 'x' } }), 403);
    assert.equal(
      one(await call(`/media/${own.id}`, { method: 'PATCH', as: contributor, body: { alt: 'Mine' } })).alt,
      'Mine',
    );
    // They browse the library (everyone's items of their website).
    assert.ok(listSchema.parse((await call('/media', { as: contributor })).json()).data.length > 0);
    // An editor changes and deletes anyone's.
    assert.equal(
      one(await call(`/media/${others.id}`, { method: 'PATCH', as: editor, body: { alt: 'Edited' } })).alt,
      'Edited',
    );
    assert.equal((await call(`/media/${others.id}`, { method: 'DELETE', as: editor })).statusCode, 204);
    assert.equal((await call(`/media/${own.id}`, { method: 'DELETE', as: contributor })).statusCode, 204);
    // A reader neither browses nor uploads; nobody does on a website where they hold no role.
    problem(await call('/media', { as: reader }), 403);
    problem(await upload([file(red, 'r.png')], { as: reader }), 403);
    problem(await upload([file(red, 'r.png')], { as: contributor, host: 'other.test' }), 403);
  });

  it('an unknown id, or another website\u2019s item, is a 404 problem', async () => {
    const notFound = problem(await call('/media/999999'), 404);
    assert.equal(notFound.title, 'Not found');
    problem(await call('/media/999999', { method: 'PATCH', body: { alt: 'x' } }), 404);
    problem(await call('/media/999999', { method: 'DELETE' }), 404);
    problem(await call('/media/not-a-number'), 422);
    const elsewhere = await uploadOne(await png(29, 29, { r: 0, g: 1, b: 0 }), 'elsewhere.png');
    problem(await call(`/media/${elsewhere.id}`, { host: 'other.test' }), 404);
    problem(await call(`/media/${elsewhere.id}/usage`, { host: 'other.test' }), 404);
    assert.equal(
      (await call(`/media/${elsewhere.id}?website=${site}`, { host: 'other.test' })).statusCode,
      200,
    );
  });

  it('a multipart body is refused on routes that take no files (415)', async () => {
    const body = multipart([{ name: 'alt', value: 'x' }]);
    const response = await ctx.request({
      method: 'PATCH',
      url: '/api/v2/media/1',
      headers: { host: 'site.test', authorization: `Bearer ${admin.token}`, ...body.headers },
      payload: body.payload,
    });
    assert.equal(response.statusCode, 415);
  });
});

/** What each role may do with the media library of its website (issue 23's roles). */
const MEDIA_MATRIX = {
  administrator: { browse: true, upload: true, changeOther: true, deleteOther: true },
  site_admin: { browse: true, upload: true, changeOther: true, deleteOther: true },
  editor: { browse: true, upload: true, changeOther: true, deleteOther: true },
  author: { browse: true, upload: true, changeOther: false, deleteOther: false },
  contributor: { browse: true, upload: true, changeOther: false, deleteOther: false },
  reader: { browse: false, upload: false, changeOther: false, deleteOther: false },
  none: { browse: false, upload: false, changeOther: false, deleteOther: false },
} as const;

describe('permission matrix of the media library', () => {
  let ctx: TestContext;
  let site: number;
  let owner: TestUser;
  const users = new Map<string, TestUser>();

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    site = await websiteWrites(ctx.services).create({ siteName: 'Matrix', domain: 'matrix.test' });
    owner = await ctx.createUser();
    await ctx.services.memberships.grant(owner.id, site, 'contributor');
    for (const role of Object.keys(MEDIA_MATRIX)) {
      const user = await ctx.createUser({ admin: role === 'administrator' });
      if (role !== 'administrator' && role !== 'none') {
        await ctx.services.memberships.grant(user.id, site, role);
      }
      users.set(role, user);
    }
  });
  after(() => ctx.close());

  const request = (
    user: TestUser,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    extra: object = {},
  ) =>
    ctx.request({
      method,
      url: `/api/v2${url}`,
      headers: { host: 'matrix.test', authorization: `Bearer ${user.token}` },
      ...extra,
    });
  const image = (seed: number) =>
    sharp({ create: { width: 5, height: 5, channels: 3, background: { r: seed, g: 0, b: 0 } } })
      .png()
      .toBuffer();
  const send = async (user: TestUser, seed: number) => {
    const body = multipart([
      { name: 'files', value: await image(seed), filename: `${seed}.png`, type: 'image/png' },
    ]);
    return ctx.request({
      method: 'POST',
      url: '/api/v2/media',
      headers: { host: 'matrix.test', authorization: `Bearer ${user.token}`, ...body.headers },
      payload: body.payload,
    });
  };

  let seed = 10;
  for (const [role, expected] of Object.entries(MEDIA_MATRIX)) {
    it(`${role}: browse ${expected.browse}, upload ${expected.upload}, change ${expected.changeOther} and delete ${expected.deleteOther} another user's item`, async () => {
      const user = users.get(role)!;
      const target = (await send(owner, (seed += 1))).json().data[0].id as number;
      const outcome = (status: number) => {
        assert.ok(status < 300 || status === 403, `unexpected ${status}`);
        return status < 300;
      };
      assert.equal(outcome((await request(user, 'GET', '/media')).statusCode), expected.browse);
      assert.equal(outcome((await send(user, (seed += 1))).statusCode), expected.upload);
      assert.equal(
        outcome((await request(user, 'PATCH', `/media/${target}`, { payload: { alt: 'x' } })).statusCode),
        expected.changeOther,
      );
      assert.equal(
        outcome((await request(user, 'DELETE', `/media/${target}`)).statusCode),
        expected.deleteOther,
      );
    });
  }
});
