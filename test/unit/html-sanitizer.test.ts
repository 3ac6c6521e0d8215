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

  it('keeps the admin editor\u2019s YouTube and Vimeo players (https, sandboxed), and no other frame', () => {
    const youtube =
      '<div data-youtube-video=""><iframe src="https://www.youtube-nocookie.com/embed/abc" width="640" ' +
      'onload="alert(1)" allowfullscreen="true"></iframe></div>';
    assert.equal(
      sanitizePostHtml(youtube),
      '<div data-youtube-video><iframe src="https://www.youtube-nocookie.com/embed/abc" width="640" ' +
        'allowfullscreen="true" sandbox="allow-scripts allow-same-origin allow-presentation allow-popups" ' +
        'loading="lazy"></iframe></div>',
    );
    assert.match(
      sanitizePostHtml(
        '<div data-vimeo-video><iframe src="https://player.vimeo.com/video/123456"></iframe></div>',
      ),
      /^<div data-vimeo-video><iframe src="https:\/\/player\.vimeo\.com\/video\/123456" sandbox=/,
    );
    for (const refused of [
      '<iframe src="https://evil.test/embed"></iframe>',
      '<iframe src="http://www.youtube.com/embed/x"></iframe>',
      '<iframe src="//www.youtube.com/embed/x"></iframe>',
      '<iframe src="https://www.youtube.com.evil.test/embed/x"></iframe>',
      '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
      '<iframe>text</iframe>',
    ]) {
      assert.equal(sanitizePostHtml(`${refused}ok`), 'ok', refused);
    }
    assert.equal(sanitizePostHtml('<div class="x" onclick="y()">a</div>'), '<div>a</div>');
  });

  it('plain text: tags and their script content removed, entities decoded', () => {
    assert.equal(
      plainText('<b onclick="x">Tom</b> &amp; <i>Jerry</i><script>alert(1)</script>'),
      'Tom & Jerry',
    );
  });
});
