// Markdown in the public post editor (issue 22 #8): paragraphs from blank lines, the common marks,
// and nothing dangerous through: the output is the site's sanitized HTML whatever the input holds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markdownToHtml } from '../../src/domain/text/markdown.js';

describe('markdownToHtml', () => {
  it('makes a paragraph of each block of lines, and keeps single line breaks', () => {
    assert.equal(
      markdownToHtml('First paragraph,\nsecond line.\n\nSecond paragraph.'),
      '<p>First paragraph,<br />\nsecond line.</p>\n<p>Second paragraph.</p>',
    );
    assert.equal(markdownToHtml('One\r\n\r\nTwo'), '<p>One</p>\n<p>Two</p>');
  });

  it('renders headings, emphasis, lists, quotes, code and links', () => {
    const html = markdownToHtml(
      [
        '## Title',
        '',
        'Some **bold**, *italic* and `code`.',
        '',
        '- one',
        '- two',
        '',
        '1. first',
        '',
        '> quoted',
        '',
        '```',
        'let x = 1 < 2;',
        '```',
        '',
        '[Folio](https://example.com/folio) and https://example.org',
      ].join('\n'),
    );
    assert.match(html, /<h2>Title<\/h2>/);
    assert.match(html, /<strong>bold<\/strong>, <em>italic<\/em> and <code>code<\/code>/);
    assert.match(html, /<ul>\n<li>one<\/li>\n<li>two<\/li>\n<\/ul>/);
    assert.match(html, /<ol>\n<li>first<\/li>\n<\/ol>/);
    assert.match(html, /<blockquote>\n<p>quoted<\/p>\n<\/blockquote>/);
    assert.match(html, /<pre><code>let x = 1 &lt; 2;\n<\/code><\/pre>/);
    // Links carry the site's rel for visitors' links; bare addresses become links too.
    assert.match(
      html,
      /<a href="https:\/\/example.com\/folio" rel="nofollow ugc noopener noreferrer">Folio<\/a>/,
    );
    assert.match(
      html,
      /<a href="https:\/\/example.org" rel="nofollow ugc noopener noreferrer">https:\/\/example.org<\/a>/,
    );
  });

  it('makes a top-level heading an h2 (the page’s h1 is the post title)', () => {
    assert.equal(markdownToHtml('# Top\n\n### Third'), '<h2>Top</h2>\n<h3>Third</h3>');
  });

  it('keeps images over http(s)', () => {
    assert.equal(
      markdownToHtml('![A cat](https://example.com/cat.jpg)'),
      '<p><img src="https://example.com/cat.jpg" alt="A cat" /></p>',
    );
  });

  it('removes scripts, event handlers and javascript: links written in the Markdown', () => {
    const html = markdownToHtml(
      [
        'Hello <script>alert(1)</script> there',
        '',
        '<script>',
        'alert(2)',
        '</script>',
        '',
        '<img src="https://example.com/x.png" onerror="alert(3)">',
        '',
        '<p onclick="alert(4)" style="color:red">Styled</p>',
        '',
        '[click](javascript:alert(5)) <a href="javascript:alert(6)">raw</a>',
        '',
        '![x](data:image/svg+xml;base64,PHN2Zz4=) <iframe src="https://evil.example/"></iframe>',
      ].join('\n'),
    );
    assert.doesNotMatch(html, /<script|alert\([1-4]\)|onerror|onclick|style=|<iframe/i);
    // No element carries a script URL: markdown-it leaves such a link as its text, the sanitizer
    // drops the attribute of a raw one.
    assert.doesNotMatch(html, /(href|src)="(javascript|data):/i);
    assert.match(
      html,
      /\[click\]\(javascript:alert\(5\)\) <a rel="nofollow ugc noopener noreferrer">raw<\/a>/,
    );
    assert.match(html, /Hello\s+there/);
    assert.match(html, /<img src="https:\/\/example.com\/x.png" \/>/);
    assert.match(html, /<p>Styled<\/p>/);
  });

  it('keeps HTML that the sanitizer allows (a pasted table)', () => {
    const html = markdownToHtml('<table><tr><td>a</td></tr></table>');
    assert.match(html, /<table><tr><td>a<\/td><\/tr><\/table>/);
  });

  it('answers an empty string for nothing but removed markup', () => {
    assert.equal(markdownToHtml('<script>alert(1)</script>'), '');
    assert.equal(markdownToHtml('   \n\n  '), '');
  });
});
