// The allow-list for HTML written by non-admin users.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainText, sanitizePostHtml } from '../../src/domain/html-sanitizer.js';

describe('post HTML sanitizer', () => {
  it('keeps formatting, links and images', () => {
    const html =
      '<h2>T</h2><p><strong>b</strong> <em>i</em></p><ul><li>x</li></ul><blockquote>q</blockquote>' +
      '<img src="https://i.test/a.png" alt="a"><table><tr><td colspan="2">c</td></tr></table>';
    assert.equal(
      sanitizePostHtml(html),
      '<h2>T</h2><p><strong>b</strong> <em>i</em></p><ul><li>x</li></ul><blockquote>q</blockquote>' +
        '<img src="https://i.test/a.png" alt="a" /><table><tr><td colspan="2">c</td></tr></table>',
    );
  });

  it('drops scripts, styles, frames, forms, event handlers and dangerous URLs', () => {
    const cases: Array<[string, string]> = [
      ['<script>alert(1)</script>ok', 'ok'],
      ['<style>*{}</style>ok', 'ok'],
      ['<iframe src="https://x.test"></iframe>ok', 'ok'],
      ['<form action="/x"><input name="a"></form>ok', 'ok'],
      ['<p onclick="x()" style="color:red" class="c" id="i">ok</p>', '<p>ok</p>'],
      ['<img src="javascript:alert(1)">', '<img />'],
      ['<img src="data:image/svg+xml;base64,PHN2Zz4=">', '<img />'],
      ['<a href="JaVaScRiPt:alert(1)">x</a>', '<a rel="nofollow ugc noopener noreferrer">x</a>'],
      ['<a href="//evil.test">x</a>', '<a rel="nofollow ugc noopener noreferrer">x</a>'],
      [
        '<a href="https://ok.test" target="_blank" rel="opener">x</a>',
        '<a href="https://ok.test" rel="nofollow ugc noopener noreferrer">x</a>',
      ],
      ['<svg><script>alert(1)</script></svg>ok', 'ok'],
      ['<math><mi xlink:href="javascript:alert(1)">x</mi></math>', 'x'],
    ];
    for (const [input, expected] of cases) assert.equal(sanitizePostHtml(input), expected, input);
  });

  it('plain text: tags and their script content removed, entities decoded', () => {
    assert.equal(
      plainText('<b onclick="x">Tom</b> &amp; <i>Jerry</i><script>alert(1)</script>'),
      'Tom & Jerry',
    );
  });
});
