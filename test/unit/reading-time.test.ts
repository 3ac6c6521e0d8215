// Reading time (issue 22): words at 230 a minute, Chinese, Japanese and Korean by characters at 500.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countReading, readingMinutes } from '../../src/domain/posts/reading-time.js';

describe('reading time', () => {
  it('counts words of the text, not of the markup', () => {
    assert.deepEqual(countReading('Cats sleep — a lot, really. 12 hours!'), { words: 7, cjk: 0 });
    const html = `<p class="lead">${'word '.repeat(460)}</p><pre><code>x = 1</code></pre>`;
    assert.equal(readingMinutes(html), 2);
    assert.equal(readingMinutes('<p><a href="https://example.test/a/very/long/url">one</a></p>'), 1);
  });

  it('counts Chinese, Japanese and Korean by characters', () => {
    assert.deepEqual(countReading('猫は一日中寝ています。'), { words: 0, cjk: 10 });
    assert.deepEqual(countReading('고양이는 잠을 잔다 cats'), { words: 1, cjk: 8 });
    assert.equal(readingMinutes(`<p>${'猫'.repeat(1500)}</p>`), 3);
    assert.equal(readingMinutes(`<p>${'猫'.repeat(500)} ${'word '.repeat(230)}</p>`), 2);
  });

  it('is at least a minute', () => {
    assert.equal(readingMinutes(''), 1);
    assert.equal(readingMinutes('<p>Hi.</p>'), 1);
  });
});
