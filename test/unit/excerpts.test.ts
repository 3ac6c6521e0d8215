// A post without an excerpt gets one from its content (issue 36 #2): its prose, never a heading run
// into the text or a block of code; the reading time still counts every word.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainExcerpt } from '../../src/domain/public/posts.js';
import { readingMinutes } from '../../src/domain/posts/reading-time.js';
import { plainText } from '../../src/domain/posts/search.js';

describe('excerpts made from content', () => {
  const content =
    '<h2>Setting up</h2><p>First, install the <code>folio</code> package &amp; start it.</p>' +
    '<pre><code>npm install\nnpm start</code></pre><table><tr><td>a</td></tr></table>' +
    '<figure><img src="/media/a.png" alt=""><figcaption>The result</figcaption></figure>' +
    '<p>Then open the panel.</p>';

  it('keeps the prose: no heading, code block, table or caption', () => {
    assert.equal(plainExcerpt(content), 'First, install the folio package & start it. Then open the panel.');
  });

  it('falls back to the whole text when the content is nothing but those', () => {
    assert.equal(plainExcerpt('<h2>Only a title</h2><pre>code</pre>'), 'Only a title code');
  });

  it('is cut at a word boundary with an ellipsis', () => {
    const long = `<p>${'word '.repeat(100)}</p>`;
    const excerpt = plainExcerpt(long, 50);
    assert.ok(excerpt.length <= 51, excerpt);
    assert.match(excerpt, /^word( word)*…$/);
  });

  it('the reading time and the whole text still count headings and code', () => {
    assert.match(
      plainText(content),
      /^Setting up First, install .* npm install npm start a The result Then open the panel\.$/,
    );
    assert.equal(readingMinutes(`<h2>${'word '.repeat(300)}</h2>`), 1);
    assert.equal(readingMinutes(`<pre>${'word '.repeat(700)}</pre>`), 3);
  });
});
