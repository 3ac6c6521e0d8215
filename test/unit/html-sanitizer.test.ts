// The allow-list for HTML written by non-admin users.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainText, sanitizePostHtml } from '../../src/domain/text/html-sanitizer.js';
import { cleanContent } from '../../src/frontend/content.js';

const SANDBOX = 'sandbox="allow-scripts allow-same-origin allow-presentation allow-popups"';
/** What the admin editor's TipTap YouTube and Vimeo nodes write (see admin/src/editor/embeds.ts). */
const TIPTAP_YOUTUBE =
  '<div data-youtube-video=""><iframe width="640" height="480" allowfullscreen="true" autoplay="false" ' +
  'disablekbcontrols="false" enableiejsapi="false" endtime="0" ivloadpolicy="0" loop="false" ' +
  'modestbranding="false" origin="" playlist="" src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ" ' +
  'start="0"></iframe></div>';
const TIPTAP_VIMEO =
  '<div data-vimeo-video=""><iframe src="https://player.vimeo.com/video/76979871" width="640" height="360" ' +
  'allowfullscreen="true" title="Vimeo video" loading="lazy"></iframe></div>';
const REFUSED_FRAMES = [
  '<iframe src="https://evil.test/embed"></iframe>',
  '<iframe src="http://www.youtube.com/embed/x"></iframe>',
  '<iframe src="//www.youtube.com/embed/x"></iframe>',
  '<iframe src="https://www.youtube.com.evil.test/embed/x"></iframe>',
  '<iframe src="https://www.youtube.com/redirect?q=https://evil.test"></iframe>',
  '<iframe src="https://player.vimeo.com/../evil"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe>text</iframe>',
];

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
        'allowfullscreen title="Embedded video" ' +
        SANDBOX +
        ' loading="lazy"></iframe></div>',
    );
    assert.match(
      sanitizePostHtml(
        '<div data-vimeo-video><iframe src="https://player.vimeo.com/video/123456"></iframe></div>',
      ),
      /^<div data-vimeo-video><iframe src="https:\/\/player\.vimeo\.com\/video\/123456" title="Embedded video" allowfullscreen sandbox=/,
    );
    for (const refused of REFUSED_FRAMES) {
      assert.equal(sanitizePostHtml(`${refused}ok`), 'ok', refused);
    }
    assert.equal(sanitizePostHtml('<div class="x" onclick="y()">a</div>'), '<div>a</div>');
  });

  it('issue 34 #16: the sanitizer of what readers see keeps the same players, and no other frame', () => {
    // What a page shows passes cleanContent (an administrator's post is stored as written): the players
    // were dropped there, leaving the empty <div>.
    for (const [html, src] of [
      [TIPTAP_YOUTUBE, 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ'],
      [TIPTAP_VIMEO, 'https://player.vimeo.com/video/76979871'],
      [
        '<div data-youtube-video><iframe src="https://www.youtube.com/embed/abc"></iframe></div>',
        'https://www.youtube.com/embed/abc',
      ],
    ] as const) {
      for (const clean of [cleanContent, sanitizePostHtml]) {
        const shown = clean(html);
        assert.match(
          shown,
          new RegExp(`<iframe [^>]*src="${src.replace(/[.?/]/g, '\\$&')}"`),
          `${clean.name}: ${html}`,
        );
        assert.ok(shown.includes(SANDBOX), shown);
        assert.match(shown, / loading="lazy"/);
        assert.match(shown, / title="[^"]+"/);
        assert.match(shown, / allowfullscreen[ >]/);
        assert.doesNotMatch(shown, /autoplay|playlist|origin=/);
      }
    }
    // A title the writer gave is kept; a sandbox of their own is replaced.
    assert.match(cleanContent(TIPTAP_VIMEO), /title="Vimeo video"/);
    assert.ok(
      cleanContent(
        '<iframe src="https://player.vimeo.com/video/1" sandbox="allow-top-navigation allow-scripts"></iframe>',
      ).includes(SANDBOX),
    );
    for (const refused of REFUSED_FRAMES) {
      assert.equal(cleanContent(`${refused}ok`), 'ok', refused);
    }
  });

  it('plain text: tags and their script content removed, entities decoded', () => {
    assert.equal(
      plainText('<b onclick="x">Tom</b> &amp; <i>Jerry</i><script>alert(1)</script>'),
      'Tom & Jerry',
    );
  });
});
