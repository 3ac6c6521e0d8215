// Large bodies encoded once (issue 42, memory): PageCache.onSend answers a large text with the bytes
// it made the last time it saw that text, with their ETag when the website's page cache is on, and
// leaves small ones (and anything but a 200 GET) as they were. Encoding a 1 MB sitemap file for every
// request was what peaked the PostgreSQL bench's RSS (bench/RESULTS.md, issue 42).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setFrontendState } from '../../src/frontend/context.js';
import type { FrontendState } from '../../src/frontend/context.js';
import { LARGE_BODY_CHARACTERS, PageCache, weakEtag } from '../../src/frontend/page-cache.js';
import type { FaceServices } from '../../src/services.js';

function exchange(
  options: { method?: string; status?: number; pageCache?: boolean; ifNoneMatch?: string } = {},
) {
  const headers = new Map<string, string>();
  const request = {
    method: options.method ?? 'GET',
    headers: options.ifNoneMatch ? { 'if-none-match': options.ifNoneMatch } : {},
  } as unknown as FastifyRequest;
  if (options.pageCache !== undefined) {
    setFrontendState(request, {
      website: { enabledPageCache: options.pageCache },
    } as unknown as FrontendState);
  }
  const reply = {
    statusCode: options.status ?? 200,
    hasHeader: (name: string) => headers.has(name),
    header(name: string, value: string) {
      headers.set(name, value);
      return reply;
    },
    getHeader: (name: string) => headers.get(name),
    code(status: number) {
      reply.statusCode = status;
      return reply;
    },
  };
  return { request, reply: reply as unknown as FastifyReply, headers };
}

const pageCache = () => new PageCache({ memory: { hotPages: 16 * 1024 * 1024 } } as unknown as FaceServices);
const largeText = (mark: string) =>
  `<urlset>${mark}${'<url><loc>https://example.test/post/a</loc></url>'.repeat(2000)}`;

describe('PageCache: large bodies encoded once', () => {
  it('answers the same text with the same bytes, and a text of the same length but other content with its own', async () => {
    const cache = pageCache();
    const text = largeText('a');
    assert.ok(text.length >= LARGE_BODY_CHARACTERS);
    const first = exchange();
    const bytes = await cache.onSend(first.request, first.reply, text);
    assert.ok(Buffer.isBuffer(bytes));
    assert.equal(bytes.toString('utf8'), text);
    const second = exchange();
    // A copy with the same content (another string object, as a fresh read of a cache gives).
    const again = await cache.onSend(second.request, second.reply, [...text].join(''));
    assert.equal(again, bytes, 'the bytes made for the first answer');
    const other = largeText('b');
    assert.equal(other.length, text.length);
    const third = exchange();
    const otherBytes = await cache.onSend(third.request, third.reply, other);
    assert.notEqual(otherBytes, bytes);
    assert.equal((otherBytes as Buffer).toString('utf8'), other);
    assert.equal(first.headers.has('etag'), false, 'no ETag while the page cache is off');
  });

  it('sends a small body as its bytes (measured and written once), leaves an error and a POST as they were', async () => {
    const cache = pageCache();
    const small = exchange();
    const smallBytes = await cache.onSend(small.request, small.reply, '<p>smäll</p>');
    assert.ok(Buffer.isBuffer(smallBytes));
    assert.equal(smallBytes.toString('utf8'), '<p>smäll</p>');
    const text = largeText('c');
    const failed = exchange({ status: 500 });
    assert.equal(await cache.onSend(failed.request, failed.reply, text), text);
    const posted = exchange({ method: 'POST' });
    assert.equal(await cache.onSend(posted.request, posted.reply, text), text);
  });

  it('with the page cache on: the ETag of those bytes, made once, and a 304 for a client that has them', async () => {
    const cache = pageCache();
    const text = largeText('é'); // two bytes in UTF-8: the ETag hashes bytes, not characters
    const first = exchange({ pageCache: true });
    const bytes = (await cache.onSend(first.request, first.reply, text)) as Buffer;
    assert.equal(bytes.length, Buffer.byteLength(text));
    const etag = first.headers.get('etag');
    assert.equal(etag, weakEtag(Buffer.from(text)));
    const second = exchange({ pageCache: true });
    assert.equal(await cache.onSend(second.request, second.reply, text), bytes);
    assert.equal(second.headers.get('etag'), etag);
    const conditional = exchange({ pageCache: true, ifNoneMatch: etag });
    assert.equal(await cache.onSend(conditional.request, conditional.reply, text), '');
    assert.equal(conditional.reply.statusCode, 304);
  });
});
