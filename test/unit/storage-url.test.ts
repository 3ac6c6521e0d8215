// STORAGE_URL and MEDIA_BASE_URL (issue 40 #1): which driver, which bucket, prefix and options, the
// errors an operator sees, where file URLs point (Folio, a CDN, the bucket's public URL); and the
// Range header as the media route reads it.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { parseRange } from '../../src/http/media-files.js';
import { createStore, parseStorageUrl, StorageUrlError } from '../../src/storage/config.js';

const noEnv = {};

describe('STORAGE_URL', () => {
  it('is the local disk at MEDIA_DIR when unset, or a directory named by local: or file:', () => {
    assert.deepEqual(parseStorageUrl(undefined, './data/media', noEnv), {
      driver: 'local',
      dir: path.resolve('data/media'),
    });
    assert.deepEqual(parseStorageUrl('local:/srv/media', 'x', noEnv), { driver: 'local', dir: '/srv/media' });
    assert.deepEqual(parseStorageUrl('file:///srv/my%20media', 'x', noEnv), {
      driver: 'local',
      dir: '/srv/my media',
    });
    assert.deepEqual(parseStorageUrl('file:./m', 'x', noEnv), { driver: 'local', dir: path.resolve('m') });
  });

  it('reads a bucket, a prefix and the options of an S3 URL', () => {
    assert.deepEqual(
      parseStorageUrl(
        's3://my-bucket/sites/folio/?region=eu-west-3&endpoint=http://127.0.0.1:9000&force_path_style=1&public=1',
        'x',
        noEnv,
      ),
      {
        driver: 's3',
        bucket: 'my-bucket',
        prefix: 'sites/folio/',
        region: 'eu-west-3',
        endpoint: 'http://127.0.0.1:9000',
        forcePathStyle: true,
        publicBucket: true,
      },
    );
    assert.deepEqual(parseStorageUrl('s3://media.example.com', 'x', { AWS_REGION: 'ap-south-1' }), {
      driver: 's3',
      bucket: 'media.example.com',
      prefix: '',
      region: 'ap-south-1',
      endpoint: null,
      forcePathStyle: false,
      publicBucket: false,
    });
    const fromEnv = parseStorageUrl('s3://bucket', 'x', { AWS_ENDPOINT_URL_S3: 'https://r2.example' });
    assert.equal(fromEnv.driver === 's3' && fromEnv.endpoint, 'https://r2.example');
    assert.equal(fromEnv.driver === 's3' && fromEnv.region, 'us-east-1');
  });

  it('refuses what it cannot use, with a message that names it', () => {
    const refused = (url: string, message: RegExp) =>
      assert.throws(
        () => parseStorageUrl(url, 'x', noEnv),
        (error: unknown) => {
          assert.ok(error instanceof StorageUrlError);
          assert.match(error.message, message);
          return true;
        },
      );
    refused('gs://bucket', /must start with s3:\/\/, local: or file:/);
    refused('s3://B', /"B" is not a bucket name/);
    refused('s3://bucket/a/x%2F..%2Fb', /the prefix "a\/x\/..\/b" may not contain \. or \.\. segments/);
    refused(
      's3://bucket?colour=red',
      /unknown option "colour" \(known: region, endpoint, force_path_style, public\)/,
    );
    refused('s3://bucket?force_path_style=yes', /force_path_style must be 1 or 0, got "yes"/);
    refused('s3://bucket?endpoint=ftp://x', /endpoint "ftp:\/\/x" must be an http:\/\/ or https:\/\/ URL/);
    refused('s3://key:secret@bucket', /credentials do not belong in the URL/);
  });

  it('is checked when the configuration loads, and MEDIA_BASE_URL with it', () => {
    assert.throws(
      () => loadConfig({ STORAGE_URL: 's3://bucket?nope=1' }),
      (error: unknown) =>
        error instanceof ConfigError && /^Invalid STORAGE_URL: unknown option "nope"/.test(error.message),
    );
    assert.throws(() => loadConfig({ MEDIA_BASE_URL: 'cdn.example' }), /Invalid MEDIA_BASE_URL/);
    const config = loadConfig({ STORAGE_URL: 's3://bucket/p', MEDIA_BASE_URL: 'https://cdn.example/m/' });
    assert.equal(config.storage?.driver, 's3');
    assert.equal(config.mediaBaseUrl, 'https://cdn.example/m');
    assert.equal(loadConfig({}).storage, null);
  });
});

describe('file URLs', () => {
  const urls = { mediaBaseUrl: null };
  const s3 = (url: string) => parseStorageUrl(url, 'x', noEnv);

  it('are served through Folio by default, on either driver, by a site-relative address (issue 36 #5)', async () => {
    const local = createStore({ driver: 'local', dir: '/tmp/x' }, urls);
    assert.equal(local.url('library/2026/11/a b.png'), '/media/library/2026/11/a%20b.png');
    assert.equal(local.servedByApp, true);
    const bucket = createStore(s3('s3://bucket/p'), urls);
    assert.equal(bucket.url('library/x.png'), '/media/library/x.png');
    assert.equal(bucket.servedByApp, true);
    await bucket.close();
  });

  it('point at a CDN when MEDIA_BASE_URL is set, or at the public bucket with public=1', async () => {
    const cdn = { ...urls, mediaBaseUrl: 'https://cdn.example/folio' };
    assert.equal(
      createStore({ driver: 'local', dir: '/tmp/x' }, cdn).url('a.png'),
      'https://cdn.example/folio/a.png',
    );
    const behindCdn = createStore(s3('s3://bucket/p?public=1'), cdn);
    assert.equal(behindCdn.url('a.png'), 'https://cdn.example/folio/a.png', 'the CDN comes first');
    assert.equal(behindCdn.servedByApp, false);
    assert.equal(
      createStore(s3('s3://bucket/p/q?public=1&region=eu-west-1'), urls).url('a.png'),
      'https://bucket.s3.eu-west-1.amazonaws.com/p/q/a.png',
    );
    assert.equal(
      createStore(s3('s3://bucket/p?public=1&endpoint=http://127.0.0.1:9000&force_path_style=1'), urls).url(
        'a.png',
      ),
      'http://127.0.0.1:9000/bucket/p/a.png',
    );
    assert.equal(
      createStore(s3('s3://bucket?public=1&endpoint=https://s3.example.net'), urls).url('a.png'),
      'https://bucket.s3.example.net/a.png',
    );
  });
});

describe('Range header', () => {
  it('gives one range within the file, the whole file, or unsatisfiable', () => {
    assert.deepEqual(parseRange('bytes=0-99', 1000), { start: 0, end: 99 });
    assert.deepEqual(parseRange('bytes=900-', 1000), { start: 900, end: 999 });
    assert.deepEqual(parseRange('bytes=900-5000', 1000), { start: 900, end: 999 });
    assert.deepEqual(parseRange('bytes=-100', 1000), { start: 900, end: 999 });
    assert.deepEqual(parseRange('bytes=-5000', 1000), { start: 0, end: 999 });
    assert.equal(parseRange('bytes=1000-', 1000), 'unsatisfiable');
    assert.equal(parseRange('bytes=-0', 1000), 'unsatisfiable');
    assert.equal(parseRange(undefined, 1000), null);
    assert.equal(parseRange('bytes=0-1,5-6', 1000), null, 'several ranges: the whole file');
    assert.equal(parseRange('items=0-1', 1000), null);
    assert.equal(parseRange('bytes=9-3', 1000), null);
    assert.equal(parseRange('bytes=-', 1000), null);
  });
});
