// The guarded image download of localize_images: address policy (IPv4, IPv6, IPv4 inside IPv6), the
// check after DNS and on every redirect, scheme, content type, size cap and timeout.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SafeFetcher, isPublicAddress } from '../../src/domain/safe-fetch.js';

describe('isPublicAddress', () => {
  const refused = [
    '127.0.0.1',
    '127.255.0.9',
    '0.0.0.0',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    '64:ff9b::10.0.0.1',
    '2002:c0a8:0101::1',
    '2001:db8::1',
    // Issue 21 #12: what the home-made list let through.
    '::ffff:0:7f00:1',
    'fec0::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    '2001:10::1',
    '::ffff:0.0.0.0',
    'not an ip',
    '1.2.3',
  ];
  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ];

  for (const address of refused) {
    it(`refuses ${address}`, () => assert.equal(isPublicAddress(address), false));
  }
  for (const address of allowed) {
    it(`allows ${address}`, () => assert.equal(isPublicAddress(address), true));
  }
});

describe('SafeFetcher', () => {
  let server: http.Server;
  let origin: string;
  let port: number;
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

  before(async () => {
    server = http.createServer((request, response) => {
      switch (request.url) {
        case '/image':
          response.writeHead(200, { 'content-type': 'image/png' }).end(png);
          return;
        case '/big':
          response.writeHead(200, { 'content-type': 'image/png' });
          response.end(Buffer.alloc(4096));
          return;
        case '/big-chunked':
          response.writeHead(200, { 'content-type': 'image/png', 'transfer-encoding': 'chunked' });
          for (let i = 0; i < 8; i++) response.write(Buffer.alloc(1024));
          response.end();
          return;
        case '/text':
          response.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
          return;
        case '/slow':
          response.writeHead(200, { 'content-type': 'image/png' });
          response.write(png.subarray(0, 4)); // and never finishes
          return;
        case '/redirect-other-loopback':
          response.writeHead(302, { location: `http://127.0.0.2:${port}/image` }).end();
          return;
        case '/redirect-file':
          response.writeHead(302, { location: 'file:///etc/passwd' }).end();
          return;
        case '/loop':
          response.writeHead(302, { location: '/loop' }).end();
          return;
        default:
          response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    origin = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const onlyLoopback = (address: string) => address === '127.0.0.1';
  const refusal = async (fetcher: SafeFetcher, url: string) => {
    try {
      await fetcher.fetchImage(url);
    } catch (error) {
      return (error as Error).message;
    } finally {
      await fetcher.close();
    }
    return 'no error';
  };

  it('refuses 127.0.0.1 by default, before connecting', async () => {
    assert.equal(await refusal(new SafeFetcher(), `${origin}/image`), 'refused address 127.0.0.1');
    assert.equal(await refusal(new SafeFetcher(), `http://[::1]:${port}/image`), 'refused address ::1');
    assert.equal(
      await refusal(new SafeFetcher(), `http://[::ffff:127.0.0.1]:${port}/image`),
      'refused address ::ffff:7f00:1',
    );
  });

  it('checks the address a name resolves to, at connect time', async () => {
    const seen: string[] = [];
    const fetcher = new SafeFetcher({ allowAddress: (address) => (seen.push(address), false) });
    assert.match(
      await refusal(fetcher, `http://localhost:${port}/image`),
      /^refused address \S+ for localhost$/,
    );
    assert.ok(
      seen.some((address) => address === '127.0.0.1' || address === '::1'),
      seen.join(),
    );
  });

  it('downloads an image from an allowed address', async () => {
    const fetcher = new SafeFetcher({ allowAddress: onlyLoopback });
    try {
      const image = await fetcher.fetchImage(`${origin}/image`);
      assert.deepEqual(image, { body: png, contentType: 'image/png', finalUrl: `${origin}/image` });
    } finally {
      await fetcher.close();
    }
  });

  it('checks every redirect hop, and refuses other schemes and loops', async () => {
    const allowed = { allowAddress: onlyLoopback };
    assert.equal(
      await refusal(new SafeFetcher(allowed), `${origin}/redirect-other-loopback`),
      'refused address 127.0.0.2',
    );
    assert.equal(
      await refusal(new SafeFetcher(allowed), `${origin}/redirect-file`),
      'scheme file: is not allowed',
    );
    assert.equal(await refusal(new SafeFetcher(allowed), `${origin}/loop`), 'too many redirects');
    assert.equal(
      await refusal(new SafeFetcher(allowed), 'ftp://127.0.0.1/image'),
      'scheme ftp: is not allowed',
    );
    assert.equal(await refusal(new SafeFetcher(allowed), 'not a url'), 'not a valid URL');
  });

  it('accepts image content types only, and a 200 only', async () => {
    const allowed = { allowAddress: onlyLoopback };
    assert.equal(
      await refusal(new SafeFetcher(allowed), `${origin}/text`),
      'content type text/plain is not an image',
    );
    assert.equal(await refusal(new SafeFetcher(allowed), `${origin}/missing`), 'HTTP 404');
  });

  it('caps the size, by the declared length and while streaming', async () => {
    const small = { allowAddress: onlyLoopback, maxBytes: 1000 };
    assert.equal(await refusal(new SafeFetcher(small), `${origin}/big`), 'image larger than 1000 bytes');
    assert.equal(
      await refusal(new SafeFetcher(small), `${origin}/big-chunked`),
      'image larger than 1000 bytes',
    );
  });

  it('gives up after the timeout', async () => {
    const started = Date.now();
    const message = await refusal(
      new SafeFetcher({ allowAddress: onlyLoopback, timeoutMs: 300 }),
      `${origin}/slow`,
    );
    assert.match(message, /^download failed: /);
    assert.ok(Date.now() - started < 5000);
  });
});
