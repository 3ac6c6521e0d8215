// Thumbnails (multipart upload or thumbnail_url) and localize_images through the whole stack
// (spec 4.1 create request, rule 3, R-P9), against a local HTTP server this test starts.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { createTestContext } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';

type Body = { code: number; message: string; data: Record<string, unknown> & { errors?: unknown } };

interface Part {
  name: string;
  value: string | Buffer;
  filename?: string;
  type?: string;
}

/** A multipart/form-data body built by hand, as a browser would send it. */
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

const png = (width = 4, height = 3) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } })
    .png()
    .toBuffer();

describe('post thumbnails and localized images', () => {
  let ctx: TestContext;
  let user: TestUser;
  let server: http.Server;
  let origin: string;
  let image: Buffer;
  const hits: string[] = [];

  before(async () => {
    ctx = await createTestContext();
    await ctx.enableApi();
    // An administrator: these tests are about answers, not permissions (a non-admin writes only on
    // websites they may write to, never global posts: test/http/ownership.test.ts).
    user = await ctx.createUser({ admin: true });
    image = await png(8, 6);
    // The fixture server: an image, a redirect to it, text, and a redirect to a refused address.
    server = http.createServer((request, response) => {
      hits.push(request.url ?? '');
      switch (request.url) {
        case '/photo.png':
          response.writeHead(200, { 'content-type': 'image/png' }).end(image);
          return;
        case '/hop':
          response.writeHead(302, { location: '/photo.png' }).end();
          return;
        case '/fake.png':
          response.writeHead(200, { 'content-type': 'text/html' }).end('<html>not an image</html>');
          return;
        case '/lying.png':
          response.writeHead(200, { 'content-type': 'image/png' }).end('GIF89a but really text');
          return;
        case '/to-private':
          response.writeHead(301, { location: 'http://10.0.0.1/photo.png' }).end();
          return;
        default:
          response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await ctx.close();
  });

  const upload = async (parts: Part[], url = '/api/v1/posts/store') => {
    const { payload, headers } = multipart(parts);
    const response = await ctx.request({ method: 'POST', url, payload, headers });
    return { status: response.statusCode, body: response.json<Body>() };
  };
  const store = async (payload: Record<string, unknown>) => {
    const response = await ctx.request({
      method: 'POST',
      url: '/api/v1/posts/store',
      payload: { api_token: user.token, ...payload },
    });
    return { status: response.statusCode, body: response.json<Body>() };
  };
  /** The bytes the app serves for a media URL. */
  const served = async (url: string) => {
    const response = await ctx.request({ method: 'GET', url: new URL(url).pathname });
    return { status: response.statusCode, type: response.headers['content-type'], body: response.rawPayload };
  };

  it('spec 4.1: a multipart create with a real image stores it and answers its URL', async () => {
    const { status, body } = await upload([
      { name: 'api_token', value: user.token },
      { name: 'title[en]', value: 'With a picture' },
      { name: 'content', value: '<p>See above</p>' },
      { name: 'title[zh-TW]', value: '有圖' },
      { name: 'thumbnail', value: image, filename: 'photo.jpg', type: 'image/jpeg' },
    ]);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(body.data.title, 'With a picture');
    assert.deepEqual(body.data.translations, { title: { en: 'With a picture', zh_TW: '有圖' } });
    const thumbnail = String(body.data.thumbnail);
    assert.match(thumbnail, /^http:\/\/folio\.test\/media\/posts\/\d{4}\/\d{2}\/[0-9a-f]{32}\.png$/);
    const file = await served(thumbnail);
    assert.equal(file.status, 200);
    assert.equal(file.type, 'image/png');
    assert.deepEqual(file.body, image);
    const row = await ctx.services.database.db
      .selectFrom('media')
      .selectAll()
      // Stored by its site-relative address (issue 36 #5); API v1 answers it absolute on APP_URL.
      .where('url', '=', new URL(thumbnail).pathname)
      .executeTakeFirstOrThrow();
    assert.deepEqual(
      [row.mime_type, row.size, row.width, row.height, row.user_id],
      ['image/png', image.length, 8, 6, user.id],
    );
  });

  it('multipart text fields feed the same validation and arrays (tags[]) as JSON', async () => {
    const { status, body } = await upload([
      { name: 'api_token', value: user.token },
      { name: 'title', value: '' },
      { name: 'tags[]', value: '12345' },
      { name: 'tags[]', value: 'x' },
    ]);
    assert.equal(status, 422);
    assert.deepEqual(body.data, {
      errors: {
        title: ['The title field is required.'],
        content: ['The content field is required.'],
        'tags.1': ['The tags.1 must be an integer.'],
      },
    });
  });

  it('a NUL in a multipart text field is the 422 with the field, as in JSON (the input guard sees the parts)', async () => {
    const { status, body } = await upload([
      { name: 'api_token', value: user.token },
      { name: 'title', value: 'x\u0000y' },
      { name: 'content', value: '<p>Body</p>' },
    ]);
    assert.equal(status, 422);
    assert.deepEqual(body.data, { errors: { title: ['The title must not contain a NUL character.'] } });
  });

  it('an empty file input (no file chosen) is no thumbnail; large text fields arrive whole', async () => {
    const content = `<p>${'x'.repeat(1_200_000)}</p>`;
    const { status, body } = await upload([
      { name: 'api_token', value: user.token },
      { name: 'title', value: 'No file chosen' },
      { name: 'content', value: content },
      { name: 'thumbnail', value: Buffer.alloc(0), filename: '', type: 'application/octet-stream' },
    ]);
    assert.equal(status, 200, JSON.stringify(body).slice(0, 300));
    assert.equal(body.data.thumbnail, null);
    assert.equal(String(body.data.content).length, content.length);
  });

  it('R-A6: a multipart request without a valid token is 401', async () => {
    const { status, body } = await upload([
      { name: 'title', value: 'No token' },
      { name: 'thumbnail', value: image, filename: 'a.png', type: 'image/png' },
    ]);
    assert.equal(status, 401);
    assert.deepEqual(body, { status: 'fail', message: 'Invalid token' });
  });

  it('issue 21 #3: multipart goes only to routes that take files (415 elsewhere, in each face)', async () => {
    const parts = [
      { name: 'api_token', value: user.token },
      { name: 'thumbnail', value: image, filename: 'a.png', type: 'image/png' },
    ];
    const list = await upload(parts, '/api/v1/posts');
    assert.equal(list.status, 415);
    assert.deepEqual([list.body.code, list.body.message], [415, 'Unsupported media type']);
    const { payload, headers } = multipart(parts);
    const comment = await ctx.request({ method: 'POST', url: '/comments/store', payload, headers });
    assert.equal(comment.statusCode, 415);
  });

  it('issue 21 #3: a multipart body over the body limit is 413 before anything reads it or asks who sent it', async () => {
    const { payload, headers } = multipart([
      { name: 'title', value: 'Huge' },
      {
        name: 'thumbnail',
        value: Buffer.alloc(ctx.services.config.bodyLimit + 1024),
        filename: 'a.png',
        type: 'image/png',
      },
    ]);
    const response = await ctx.request({ method: 'POST', url: '/api/v1/posts/store', payload, headers });
    assert.equal(response.statusCode, 413);
    assert.deepEqual(
      { code: response.json().code, status: response.json().status, message: response.json().message },
      { code: 413, status: 'fail', message: 'Request body too large' },
    );
  });

  it('a file that is not an image is a 422, whatever its name and type say', async () => {
    const { status, body } = await upload([
      { name: 'api_token', value: user.token },
      { name: 'title', value: 'Bad picture' },
      { name: 'content', value: 'x' },
      {
        name: 'thumbnail',
        value: Buffer.from('<svg onload="alert(1)"></svg>'),
        filename: 'a.png',
        type: 'image/png',
      },
    ]);
    assert.equal(status, 422);
    assert.deepEqual(body.data, { errors: { thumbnail: ['The thumbnail must be an image.'] } });
    // And a thumbnail that is not a file at all.
    const json = await store({ title: 'T', content: 'x', thumbnail: 'http://example.com/a.png' });
    assert.deepEqual(json.body.data, { errors: { thumbnail: ['The thumbnail must be an image.'] } });
  });

  it('issue 21 #5: a decompression bomb (a tiny PNG declaring 16000 x 16000) is refused from its header', async () => {
    // Signature, an IHDR chunk declaring the size (8-bit RGB), an empty IDAT, IEND: 57 bytes.
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(zlib.crc32(body));
      return Buffer.concat([length, body, crc]);
    };
    const header = Buffer.alloc(13);
    header.writeUInt32BE(16_000, 0);
    header.writeUInt32BE(16_000, 4);
    header.set([8, 2, 0, 0, 0], 8);
    const bomb = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk('IHDR', header),
      chunk('IDAT', zlib.deflateSync(Buffer.alloc(0))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    await ctx.services.settings.set('convert_thumbnail_to_webp', 'true');
    try {
      const { status, body } = await upload([
        { name: 'api_token', value: user.token },
        { name: 'title', value: 'Bomb' },
        { name: 'content', value: 'x' },
        { name: 'thumbnail', value: bomb, filename: 'bomb.png', type: 'image/png' },
      ]);
      assert.equal(status, 422);
      assert.deepEqual(body.data, { errors: { thumbnail: ['The thumbnail has invalid image dimensions.'] } });
    } finally {
      await ctx.services.settings.delete('convert_thumbnail_to_webp');
    }
  });

  it('issue 34 #8: an animated GIF or WebP whose frames each pass but together exceed 40 megapixels is refused (regression guard: refused since issue 21 #5)', async () => {
    // Two frames of 4000 x 5001 (20 megapixels each, 40,008,000 together), made here: small on disk.
    const frame = (background: string) =>
      sharp({ create: { width: 4000, height: 5001, channels: 3, background } })
        .png({ compressionLevel: 1 })
        .toBuffer();
    const frames = await Promise.all([frame('#804020'), frame('#204080')]);
    const joined = () => sharp(frames, { join: { animated: true }, limitInputPixels: false });
    const gif = await joined().gif({ effort: 1 }).toBuffer();
    const webp = await joined().webp({ quality: 1, effort: 0 }).toBuffer();
    assert.ok(gif.length < 100_000 && webp.length < 400_000, `${gif.length} / ${webp.length} bytes`);
    assert.equal((await sharp(gif).metadata()).pages, 2);
    await ctx.services.settings.set('convert_thumbnail_to_webp', 'true');
    try {
      for (const [name, bytes, type] of [
        ['bomb.gif', gif, 'image/gif'],
        ['bomb.webp', webp, 'image/webp'],
      ] as const) {
        const { status, body } = await upload([
          { name: 'api_token', value: user.token },
          { name: 'title', value: 'Animated bomb' },
          { name: 'content', value: 'x' },
          { name: 'thumbnail', value: bytes, filename: name, type },
        ]);
        assert.equal(status, 422, name);
        assert.deepEqual(
          body.data,
          { errors: { thumbnail: ['The thumbnail has invalid image dimensions.'] } },
          name,
        );
      }
    } finally {
      await ctx.services.settings.delete('convert_thumbnail_to_webp');
    }
  });

  it('an image over the post_thumbnail_max_kb limit is a 422 naming the limit', async () => {
    await ctx.services.settings.set('post_thumbnail_max_kb', '1');
    try {
      const big = await sharp({
        create: { width: 64, height: 64, channels: 3, background: { r: 1, g: 2, b: 3 } },
      })
        .raw()
        .toBuffer()
        .then((raw) =>
          sharp(randomBytes(raw.length), { raw: { width: 64, height: 64, channels: 3 } })
            .png()
            .toBuffer(),
        );
      assert.ok(big.length > 1024);
      const { status, body } = await upload([
        { name: 'api_token', value: user.token },
        { name: 'title', value: 'Too big' },
        { name: 'content', value: 'x' },
        { name: 'thumbnail', value: big, filename: 'big.png', type: 'image/png' },
      ]);
      assert.equal(status, 422);
      assert.deepEqual(body.data, {
        errors: { thumbnail: ['The thumbnail may not be greater than 1 kilobytes.'] },
      });
    } finally {
      await ctx.services.settings.delete('post_thumbnail_max_kb');
    }
  });

  it('rule 3: convert_thumbnail_to_webp stores uploads as WebP', async () => {
    await ctx.services.settings.set('convert_thumbnail_to_webp', '1');
    try {
      const { body } = await upload([
        { name: 'api_token', value: user.token },
        { name: 'title', value: 'Webp' },
        { name: 'content', value: 'x' },
        { name: 'thumbnail', value: await png(5, 5), filename: 'p.png', type: 'image/png' },
      ]);
      const thumbnail = String(body.data.thumbnail);
      assert.match(thumbnail, /\.webp$/);
      const file = await served(thumbnail);
      assert.equal(file.type, 'image/webp');
      assert.equal((await sharp(file.body).metadata()).format, 'webp');
    } finally {
      await ctx.services.settings.delete('convert_thumbnail_to_webp');
    }
  });

  it('R-P9: thumbnail_url is kept as an external thumbnail; an upload wins over it', async () => {
    const external = await store({
      title: 'External',
      content: 'x',
      thumbnail_url: 'https://cdn.example.com/a.jpg',
    });
    assert.equal(external.body.data.thumbnail, 'https://cdn.example.com/a.jpg');
    const both = await upload([
      { name: 'api_token', value: user.token },
      { name: 'title', value: 'Both' },
      { name: 'content', value: 'x' },
      { name: 'thumbnail_url', value: 'https://cdn.example.com/b.jpg' },
      { name: 'thumbnail', value: image, filename: 'p.png', type: 'image/png' },
    ]);
    assert.match(String(both.body.data.thumbnail), /^http:\/\/folio\.test\/media\//);
    // Update replaces the thumbnail through multipart too.
    const updated = await upload(
      [
        { name: 'api_token', value: user.token },
        { name: 'thumbnail_url', value: 'https://cdn.example.com/c.jpg' },
      ],
      `/api/v1/posts/update/${external.body.data.id as number}`,
    );
    assert.equal(updated.status, 200);
    const shown = await ctx.request({
      method: 'GET',
      url: `/api/v1/posts/${external.body.data.id as number}?api_token=${encodeURIComponent(user.token)}`,
    });
    assert.equal(shown.json<Body>().data.thumbnail, 'https://cdn.example.com/c.jpg');
  });

  it('rule 3: by default a loopback image is refused, left as it was, and the post is saved', async () => {
    hits.length = 0;
    const content = `<p>Hi</p><img src="${origin}/photo.png" alt="a">`;
    const { status, body } = await store({ title: 'Refused', content, localize_images: true });
    assert.equal(status, 200);
    assert.equal(body.data.content, content);
    assert.deepEqual(hits, [], 'the fixture server was never contacted');
  });

  it('rule 3: allowed addresses are downloaded into the media library and the content rewritten', async () => {
    ctx.services.fetcher.setAddressPolicy((address) => address === '127.0.0.1');
    await ctx.services.settings.set('convert_thumbnail_to_webp', 'on');
    try {
      const content = [
        '<p>Gallery</p>',
        `<img src="${origin}/photo.png" alt="direct" srcset="${origin}/photo.png 2x">`,
        `<img src="${origin}/hop" alt="redirected">`,
        `<img src="${origin}/fake.png" alt="html">`,
        `<img src="${origin}/lying.png" alt="lies">`,
        `<img src="${origin}/missing.png" alt="404">`,
        `<img src="${origin}/to-private" alt="private">`,
        '<img src="/media/local.png" alt="local">',
        '<img src="data:image/png;base64,AAAA" alt="inline">',
      ].join('');
      const { status, body } = await store({ title: 'Localized', content, localize_images: 'true' });
      assert.equal(status, 200);
      const html = String(body.data.content);
      const srcs = [...html.matchAll(/<img [^>]*src="([^"]*)"/g)].map((match) => match[1]);
      assert.equal(srcs.length, 8);
      assert.match(srcs[0]!, /^http:\/\/folio\.test\/media\/posts\/\d{4}\/\d{2}\/[0-9a-f]{32}\.webp$/);
      assert.equal(srcs[1], srcs[0], 'the redirect led to the same image, stored once');
      assert.deepEqual(srcs.slice(2), [
        `${origin}/fake.png`,
        `${origin}/lying.png`,
        `${origin}/missing.png`,
        `${origin}/to-private`,
        // Folio's own file, kept; API v1 answers its address absolute on APP_URL (issue 36 #5).
        'http://folio.test/media/local.png',
        'data:image/png;base64,AAAA',
      ]);
      assert.ok(!html.includes('srcset'), 'srcset of a localized image is dropped');
      const file = await served(srcs[0]!);
      assert.equal(file.status, 200);
      assert.equal((await sharp(file.body).metadata()).format, 'webp');
      const row = await ctx.services.database.db
        .selectFrom('media')
        .select(['source_url', 'mime_type'])
        .where('url', '=', new URL(srcs[0]!).pathname)
        .executeTakeFirstOrThrow();
      assert.equal(row.mime_type, 'image/webp');
      assert.ok([`${origin}/photo.png`, `${origin}/hop`].includes(row.source_url ?? ''));
    } finally {
      await ctx.services.settings.delete('convert_thumbnail_to_webp');
    }
  });

  it('rule 3: with webp off the source extension is kept; the setting localize_post_image is the default', async () => {
    await ctx.services.settings.set('localize_post_image', '1');
    try {
      const { body } = await store({ title: 'Default on', content: `<img src="${origin}/photo.png">` });
      assert.match(
        String(body.data.content),
        /<img src="http:\/\/folio\.test\/media\/posts\/\d{4}\/\d{2}\/[0-9a-f]{32}\.png">/,
      );
      const off = await store({
        title: 'Asked off',
        content: `<img src="${origin}/photo.png">`,
        localize_images: false,
      });
      assert.equal(off.body.data.content, `<img src="${origin}/photo.png">`);
    } finally {
      await ctx.services.settings.delete('localize_post_image');
    }
  });
});
