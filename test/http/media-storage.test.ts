// Media storage drivers (issue 40 #1) through the real app, on SQLite and PostgreSQL: the local disk
// and an S3-compatible bucket (s3rver, a real server started here, behind a recording proxy; never a
// mock of the SDK). On each driver: an upload stores the original with its variants beside it, Folio
// serves a file whole, by ranges, with 304 and 416; deleting an item removes its files;
// `folio media:prune` lists orphans on a dry run and deletes them with --apply. Then `folio
// media:migrate` moves a library from the disk to the bucket and back, with progress, and the app on
// the new driver serves the same bytes; and a large file goes to S3 as a multipart upload.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { buildApp } from '../../src/app.js';
import { folio } from '../support/cli.js';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createServices } from '../../src/services.js';
import { parseStorageUrl } from '../../src/storage/config.js';
import type { StorageConfig } from '../../src/storage/config.js';
import { createStore } from '../../src/storage/config.js';
import { PART_SIZE } from '../../src/storage/s3.js';
import { createTestContext, testConfig } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { S3_CREDENTIALS, startLocalS3 } from '../support/s3.js';
import type { LocalS3 } from '../support/s3.js';
import { websiteWrites } from '../support/website-writes.js';

// The SDK's default credential chain reads these, as it would in production.
process.env.AWS_ACCESS_KEY_ID = S3_CREDENTIALS.accessKeyId;
process.env.AWS_SECRET_ACCESS_KEY = S3_CREDENTIALS.secretAccessKey;

const APP = 'http://folio.test';

/** A multipart/form-data body with one file, as a browser sends it. */
function multipart(data: Buffer, filename: string) {
  const boundary = `----folio${randomBytes(8).toString('hex')}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Random pixels: a PNG that does not compress, so that its bytes are worth ranging over. */
const noisyPng = (width: number, height: number) =>
  sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();

interface Item {
  id: number;
  url: string;
  size: number;
  variants: Array<{ name: string; url: string; width: number | null }>;
}

/** The stored path of a file served by the app (its address is site-relative, issue 36 #5). */
const pathOf = (url: string) => {
  assert.ok(url.startsWith('/media/'), url);
  return decodeURIComponent(url.slice('/media/'.length));
};

let s3: LocalS3;
before(async () => {
  s3 = await startLocalS3();
});
after(() => s3.close());

/** Whether a file is in the storage, looked at without the driver under test. */
async function storedBytes(storage: StorageConfig, file: string): Promise<Buffer | null> {
  if (storage.driver === 'local') {
    const full = path.join(storage.dir, file);
    return fs.existsSync(full) ? fs.readFileSync(full) : null;
  }
  try {
    const answer = await s3.client.send(
      new GetObjectCommand({ Bucket: s3.bucket, Key: `${storage.prefix}${file}` }),
    );
    return Buffer.from(await answer.Body!.transformToByteArray());
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
    throw error;
  }
}

/** Writes a file straight into the storage (an orphan no item names). */
async function writeStored(storage: StorageConfig, file: string, data: Buffer): Promise<void> {
  if (storage.driver === 'local') {
    fs.mkdirSync(path.dirname(path.join(storage.dir, file)), { recursive: true });
    fs.writeFileSync(path.join(storage.dir, file), data);
    return;
  }
  await s3.client.send(
    new PutObjectCommand({ Bucket: s3.bucket, Key: `${storage.prefix}${file}`, Body: data }),
  );
}

for (const driver of ['local', 's3'] as const) {
  describe(`media on the ${driver} driver`, () => {
    let ctx: TestContext;
    let admin: TestUser;
    let storage: StorageConfig;
    let env: Record<string, string>;
    let image: Buffer;
    let item: Item;

    before(async () => {
      const prefix = `t${randomBytes(4).toString('hex')}`;
      ctx = await createTestContext(
        driver === 's3' ? { config: { storage: parseStorageUrl(s3.storageUrl(prefix), '/unused') } } : {},
      );
      storage = ctx.services.config.storage ?? { driver: 'local', dir: ctx.services.config.mediaDir };
      await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
      await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
      admin = await ctx.createUser({ admin: true });
      env = {
        DATABASE_URL: ctx.database.url,
        MEDIA_DIR: ctx.services.config.mediaDir,
        APP_URL: APP,
        LOG_LEVEL: 'silent',
        ...(driver === 's3' ? { STORAGE_URL: s3.storageUrl(prefix) } : {}),
      };
      image = await noisyPng(900, 300);
    });
    after(() => ctx.close());

    const upload = async (data: Buffer): Promise<Item> => {
      const body = multipart(data, 'noise.png');
      const response = await ctx.request({
        method: 'POST',
        url: '/api/v2/media',
        headers: { host: 'site.test', authorization: `Bearer ${admin.token}`, ...body.headers },
        payload: body.payload,
      });
      assert.equal(response.statusCode, 201, response.body);
      return response.json<{ data: Item[] }>().data[0]!;
    };
    const get = (url: string, headers: Record<string, string> = {}) =>
      ctx.request({
        method: 'GET',
        url: new URL(url, APP).pathname,
        headers: { host: 'site.test', ...headers },
      });

    it('stores an upload with its variants beside the original', async () => {
      item = await upload(image);
      assert.equal(ctx.services.media.store.disk, driver);
      const original = pathOf(item.url);
      assert.match(original, /^library\/\d{4}\/\d{2}\/[0-9a-f]{32}\.png$/);
      assert.deepEqual(
        (await storedBytes(storage, original))?.equals(image),
        true,
        'the original as uploaded',
      );
      assert.deepEqual(
        item.variants.map((variant) => variant.name),
        ['webp', 'w320', 'w768'],
      );
      const stem = original.replace(/\.png$/, '');
      for (const variant of item.variants) {
        const stored = pathOf(variant.url);
        assert.equal(stored, `${stem}-${variant.name}.webp`, 'beside the original');
        const bytes = await storedBytes(storage, stored);
        assert.ok(bytes, `${stored} is stored`);
        assert.equal((await sharp(bytes).metadata()).width, variant.width);
      }
    });

    it('serves a file through Folio, whole, by ranges, 304 and 416', async () => {
      const whole = await get(item.url);
      assert.equal(whole.statusCode, 200);
      assert.equal(whole.headers['content-type'], 'image/png');
      assert.ok(whole.rawPayload.equals(image));
      assert.match(String(whole.headers['cache-control']), /immutable/);
      assert.equal(whole.headers['x-content-type-options'], 'nosniff');

      const part = await get(item.url, { range: 'bytes=100-1099' });
      assert.equal(part.statusCode, 206);
      assert.equal(part.headers['content-range'], `bytes 100-1099/${image.length}`);
      assert.ok(part.rawPayload.equals(image.subarray(100, 1100)));

      const tail = await get(item.url, { range: 'bytes=-50' });
      assert.equal(tail.statusCode, 206);
      assert.ok(tail.rawPayload.equals(image.subarray(image.length - 50)));

      const open = await get(item.url, { range: `bytes=${image.length - 10}-` });
      assert.equal(open.statusCode, 206);
      assert.ok(open.rawPayload.equals(image.subarray(image.length - 10)));

      const past = await get(item.url, { range: `bytes=${image.length}-` });
      assert.equal(past.statusCode, 416);
      assert.equal(past.headers['content-range'], `bytes */${image.length}`);

      const head = await ctx.request({
        method: 'HEAD',
        url: item.url,
        headers: { host: 'site.test' },
      });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers['content-type'], 'image/png');
      assert.equal(head.rawPayload.length, 0);

      const etag = String(whole.headers.etag);
      assert.equal((await get(item.url, { 'if-none-match': etag })).statusCode, 304);

      const variant = await get(item.variants[0]!.url);
      assert.equal(variant.statusCode, 200);
      assert.equal(variant.headers['content-type'], 'image/webp');

      assert.equal((await get(`${APP}/media/library/2000/01/${'0'.repeat(32)}.png`)).statusCode, 404);
      assert.equal((await get(`${APP}/media/library/..%2F..%2Fetc%2Fpasswd`)).statusCode, 404);
    });

    it('media:prune finds orphans, lists them on a dry run and deletes them with --apply', async () => {
      const orphans = ['library/2020/01/orphan.png', 'posts/2020/01/lost-w320.webp'];
      for (const file of orphans) await writeStored(storage, file, Buffer.from(`orphan ${file}`));

      const recent = await folio(['media:prune'], env);
      assert.equal(recent.code, 0, recent.err);
      assert.match(recent.out, /Dry run: 0 orphan files .*; 2 more younger than the age asked, kept/);

      const dry = await folio(['media:prune', '--older-than', '0'], env);
      assert.equal(dry.code, 0, dry.err);
      const listed = dry.out
        .split('\n')
        .filter((line) => line.includes('\t'))
        .map((line) => line.split('\t')[0]);
      assert.deepEqual(listed, orphans);
      assert.match(dry.out, /Dry run: 2 orphan files \(\d+ B\) of 6 in /);
      for (const file of orphans) assert.ok(await storedBytes(storage, file), `${file} is still there`);

      const applied = await folio(['media:prune', '--older-than', '0', '--apply'], env);
      assert.equal(applied.code, 0, applied.err);
      assert.match(applied.out, /Deleted 2 of 2 orphan files/);
      for (const file of orphans) assert.equal(await storedBytes(storage, file), null, `${file} is gone`);
      for (const url of [item.url, ...item.variants.map((variant) => variant.url)]) {
        assert.ok(await storedBytes(storage, pathOf(url)), `${url} is kept`);
      }
      const bad = await folio(['media:prune', '--older-than', 'soon'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.err, /--older-than must be a duration/);
    });

    it('deleting an item removes its original and variants', async () => {
      const response = await ctx.request({
        method: 'DELETE',
        url: `/api/v2/media/${item.id}`,
        headers: { host: 'site.test', authorization: `Bearer ${admin.token}` },
      });
      assert.equal(response.statusCode, 204, response.body);
      for (const url of [item.url, ...item.variants.map((variant) => variant.url)]) {
        assert.equal(await storedBytes(storage, pathOf(url)), null, `${url} is removed`);
        assert.equal((await get(url)).statusCode, 404);
      }
    });
  });
}

describe('folio media:migrate', () => {
  let ctx: TestContext;
  let admin: TestUser;
  const items: Item[] = [];
  const images: Buffer[] = [];
  let bucketUrl: string;
  let bucket: StorageConfig & { driver: 's3' };

  before(async () => {
    ctx = await createTestContext();
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
    await websiteWrites(ctx.services).create({ siteName: 'Site', domain: 'site.test' });
    admin = await ctx.createUser({ admin: true });
    bucketUrl = s3.storageUrl(`m${randomBytes(4).toString('hex')}`);
    bucket = parseStorageUrl(bucketUrl, '/unused') as StorageConfig & { driver: 's3' };
    for (const [width, height] of [
      [400, 200],
      [120, 80],
      [1000, 50],
    ] as const) {
      const data = await noisyPng(width, height);
      const body = multipart(data, 'image.png');
      const response = await ctx.request({
        method: 'POST',
        url: '/api/v2/media',
        headers: { host: 'site.test', authorization: `Bearer ${admin.token}`, ...body.headers },
        payload: body.payload,
      });
      assert.equal(response.statusCode, 201, response.body);
      items.push(response.json<{ data: Item[] }>().data[0]!);
      images.push(data);
    }
  });
  after(() => ctx.close());

  const files = () =>
    items.flatMap((item) => [item.url, ...item.variants.map((variant) => variant.url)]).map(pathOf);
  const disks = async () =>
    (await ctx.services.database.db.selectFrom('media').select('disk').orderBy('id').execute()).map(
      (row) => row.disk,
    );

  it('refuses a bad --to and the storage it already uses', async () => {
    const env = {
      DATABASE_URL: ctx.database.url,
      MEDIA_DIR: ctx.services.config.mediaDir,
      LOG_LEVEL: 'silent',
    };
    const missing = await folio(['media:migrate'], env);
    assert.equal(missing.code, 2);
    assert.equal(missing.err, 'folio: --to is required');
    const bad = await folio(['media:migrate', '--to', 'ftp://host/x'], env);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--to: "ftp:\/\/host\/x" must start with s3:\/\/, local: or file:/);
    const unknown = await folio(['media:migrate', '--to', 's3://bucket-name?colour=red'], env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown option "colour"/);
    const same = await folio(['media:migrate', '--to', `local:${ctx.services.config.mediaDir}`], env);
    assert.equal(same.code, 1);
    assert.match(same.err, /already stored at/);
  });

  it('moves the library from the local disk to the bucket and back, with progress', async () => {
    const mediaDir = ctx.services.config.mediaDir;
    const toBucket = await folio(['media:migrate', '--to', bucketUrl], {
      DATABASE_URL: ctx.database.url,
      MEDIA_DIR: mediaDir,
      APP_URL: APP,
      LOG_LEVEL: 'silent',
    });
    assert.equal(toBucket.code, 0, toBucket.err);
    const count = files().length;
    assert.ok(count >= 7, `${count} files`);
    assert.match(toBucket.out, new RegExp(`\\[100%\\] ${count}/${count} files`));
    assert.match(toBucket.out, /\[ {2}0%\]|\[ 10%\]|\[ 20%\]|\[ 30%\]/, 'progress along the way');
    assert.match(
      toBucket.out,
      new RegExp(`Copied ${count} files .*, 0 already there, 0 missing; 3 media items now on s3://`),
    );
    assert.deepEqual(await disks(), ['s3', 's3', 's3']);
    for (const file of files()) {
      assert.ok((await storedBytes(bucket, file))?.equals(fs.readFileSync(path.join(mediaDir, file))), file);
    }

    // The app on the bucket (an empty media directory: the bytes come from S3) serves the same files
    // at the same URLs.
    const emptyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-empty-'));
    const services = createServices(testConfig(ctx.database.url, { mediaDir: emptyDir, storage: bucket }), {
      pgSchema: ctx.database.pgSchema,
      cachePrefix: `folio-test:${randomBytes(6).toString('hex')}:`,
      warn: () => undefined,
    });
    const app = await buildApp(services, { logger: false });
    try {
      for (const [index, item] of items.entries()) {
        const answer = await app.inject({
          method: 'GET',
          url: item.url,
          headers: { host: 'site.test' },
        });
        assert.equal(answer.statusCode, 200);
        assert.ok(answer.rawPayload.equals(images[index]!));
        const ranged = await app.inject({
          method: 'GET',
          url: item.url,
          headers: { host: 'site.test', range: 'bytes=0-9' },
        });
        assert.equal(ranged.statusCode, 206);
        assert.ok(ranged.rawPayload.equals(images[index]!.subarray(0, 10)));
      }
    } finally {
      await app.close();
      await services.close();
    }
    assert.deepEqual(fs.readdirSync(emptyDir), [], 'nothing was read from or written to the disk');

    // And back to another directory, from the bucket.
    const back = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-back-'));
    try {
      const toDisk = await folio(['media:migrate', '--to', `local:${back}`], {
        DATABASE_URL: ctx.database.url,
        MEDIA_DIR: emptyDir,
        STORAGE_URL: bucketUrl,
        APP_URL: APP,
        LOG_LEVEL: 'silent',
      });
      assert.equal(toDisk.code, 0, toDisk.err);
      assert.match(toDisk.out, new RegExp(`Copied ${count} files`));
      assert.deepEqual(await disks(), ['local', 'local', 'local']);
      for (const file of files()) {
        assert.ok(
          fs.readFileSync(path.join(back, file)).equals(fs.readFileSync(path.join(mediaDir, file))),
          file,
        );
      }
      // Run again towards the bucket: the files are there already, nothing is sent twice.
      const again = await folio(['media:migrate', '--to', bucketUrl], {
        DATABASE_URL: ctx.database.url,
        STORAGE_URL: `local:${back}`,
        APP_URL: APP,
        LOG_LEVEL: 'silent',
      });
      assert.equal(again.code, 0, again.err);
      assert.match(again.out, new RegExp(`Copied 0 files \\(0 B\\), ${count} already there`));
    } finally {
      fs.rmSync(back, { recursive: true, force: true });
      fs.rmSync(emptyDir, { recursive: true, force: true });
    }
  });
});

describe('the S3 driver', () => {
  it('sends a large stream as a multipart upload and reads ranges of it back', async () => {
    const store = createStore(parseStorageUrl(s3.storageUrl('big'), '/unused'), { mediaBaseUrl: null });
    try {
      const data = randomBytes(PART_SIZE * 2 + 12345);
      s3.requests.length = 0;
      // A stream of unknown length, in small chunks, as a migration reads a file.
      const chunks = function* () {
        for (let offset = 0; offset < data.length; offset += 64 * 1024)
          yield data.subarray(offset, offset + 64 * 1024);
      };
      await store.put('video/2026/11/large.bin', Readable.from(chunks()), 'application/octet-stream');
      assert.ok(
        s3.requests.some((request) => /^POST \/.*\?uploads/.test(request)),
        `a multipart upload was started: ${s3.requests.join(', ')}`,
      );
      assert.equal(
        s3.requests.filter((request) => /^PUT .*partNumber=/.test(request)).length,
        3,
        'three parts',
      );
      const head = await s3.client.send(
        new HeadObjectCommand({ Bucket: s3.bucket, Key: 'big/video/2026/11/large.bin' }),
      );
      assert.equal(head.ContentLength, data.length);
      const stat = await store.stat('video/2026/11/large.bin');
      assert.equal(stat?.size, data.length);
      const range = await store.read('video/2026/11/large.bin', { start: PART_SIZE - 5, end: PART_SIZE + 4 });
      const bytes: Buffer[] = [];
      for await (const chunk of range!) bytes.push(chunk as Buffer);
      assert.ok(Buffer.concat(bytes).equals(data.subarray(PART_SIZE - 5, PART_SIZE + 5)));
      const listed = [];
      for await (const file of store.list()) listed.push(file.path);
      assert.deepEqual(listed, ['video/2026/11/large.bin']);
      await store.delete('video/2026/11/large.bin');
      assert.equal(await store.stat('video/2026/11/large.bin'), null);
      assert.equal(await store.read('video/2026/11/large.bin'), null);
      await assert.rejects(
        store.put('../escape.bin', Buffer.from('x'), 'text/plain'),
        /not a safe relative path/,
      );
    } finally {
      await store.close();
    }
  });
});
