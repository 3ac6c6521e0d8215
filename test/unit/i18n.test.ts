// Issue 41: every word in the reader's language. Plurals and dates per locale, and the catalogue check
// that runs in CI: every key of the English catalogue exists in every other one (theme, mails, admin
// panel) with the same arguments, and no visible English is left hard-coded in the default theme's
// templates (text, aria-label, title, alt, placeholder) or in the panel's screens.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { load } from 'cheerio';
import ts from 'typescript';
import { formatDate } from '../../src/frontend/dates.js';
import { ThemeTranslations } from '../../src/frontend/theme-i18n.js';
import { THEMES_DIR, ThemeRenderer } from '../../src/frontend/themes.js';
import { localizeMessage } from '../../src/frontend/site-messages.js';
import { MAIL_CATALOGUES, mailLocale, mailOf } from '../../src/domain/system/mail-texts.js';
import { CATALOGUE_LOCALES, formatMessage, matchLocale, messageArguments } from '../../src/lib/messages.js';
import { PANEL_CATALOGUES } from '../../admin/src/i18n.js';

const THEME_LOCALES = path.join(THEMES_DIR, 'default', 'locales');
const readCatalogue = (locale: string): Record<string, string> =>
  JSON.parse(fs.readFileSync(path.join(THEME_LOCALES, `${locale}.json`), 'utf8')) as Record<string, string>;

/**
 * Every key of `en` (of those `required` names) is in `other` with the same ICU arguments, and
 * `other` has no key of its own. A sentence split around markup (`x_before`, `x_after`) is one
 * sentence: its halves share their arguments, in whatever order the language puts them.
 */
function compareCatalogues(
  name: string,
  en: Record<string, string>,
  other: Record<string, string>,
  required: (key: string) => boolean = () => true,
): string[] {
  const problems: string[] = [];
  const argumentsOf = (catalogue: Record<string, string>, key: string) => {
    const pair = /^(.*)_(before|after)$/.exec(key);
    const keys = pair ? [`${pair[1]}_before`, `${pair[1]}_after`] : [key];
    return [...new Set(keys.flatMap((each) => messageArguments(catalogue[each] ?? '')))].sort().join(',');
  };
  for (const key of Object.keys(en)) {
    if (key.startsWith('_')) continue;
    const translated = other[key];
    if (typeof translated !== 'string' || translated.trim() === '') {
      if (required(key) || translated !== undefined) problems.push(`${name}: missing ${key}`);
      continue;
    }
    const wanted = argumentsOf(en, key);
    const found = argumentsOf(other, key);
    if (wanted !== found) problems.push(`${name}: ${key} takes {${found}}, English takes {${wanted}}`);
  }
  for (const key of Object.keys(other)) {
    if (!key.startsWith('_') && !(key in en)) problems.push(`${name}: ${key} is not an English key`);
  }
  return problems;
}

describe('messages and plurals per locale', () => {
  it('ICU plurals follow each language (English one/other; Chinese and Japanese one form)', () => {
    const message = '{count, plural, =0 {none} one {# point} other {# points}}';
    assert.equal(formatMessage(message, { count: 0 }, 'en'), 'none');
    assert.equal(formatMessage(message, { count: 1 }, 'en'), '1 point');
    assert.equal(formatMessage(message, { count: 1234 }, 'en'), '1,234 points');
    const en = new ThemeTranslations(THEMES_DIR, false).translator('default', 'en');
    const tw = new ThemeTranslations(THEMES_DIR, false).translator('default', 'zh_TW');
    const cn = new ThemeTranslations(THEMES_DIR, false).translator('default', 'zh_CN');
    const ja = new ThemeTranslations(THEMES_DIR, false).translator('default', 'ja');
    assert.equal(en('card.points', { count: 1 }), '1 point');
    assert.equal(en('card.points', { count: 2 }), '2 points');
    assert.equal(tw('moderation.heading', { count: 3 }), '3 則留言等待核准');
    assert.equal(cn('moderation.heading', { count: 3 }), '3 条评论等待审核');
    assert.equal(ja('moderation.heading', { count: 1 }), '承認待ちのコメントが 1 件あります');
    assert.equal(en('search.count', { count: 0 }), 'No post matches.');
    assert.equal(ja('search.count', { count: 12 }), '12 件の投稿が見つかりました。');
    assert.equal(en('comments.heading_count', { count: 1500 }), 'Comments (1,500)');
  });

  it('a locale reads its nearest catalogue: zh_HK Traditional, zh/zh_SG Simplified, ja_JP Japanese, else English', () => {
    assert.equal(matchLocale('zh_TW', CATALOGUE_LOCALES), 'zh_TW');
    assert.equal(matchLocale('zh-HK', CATALOGUE_LOCALES), 'zh_TW');
    assert.equal(matchLocale('zh_Hant', CATALOGUE_LOCALES), 'zh_TW');
    assert.equal(matchLocale('zh', CATALOGUE_LOCALES), 'zh_CN');
    assert.equal(matchLocale('zh_SG', CATALOGUE_LOCALES), 'zh_CN');
    assert.equal(matchLocale('ja_JP', CATALOGUE_LOCALES), 'ja');
    assert.equal(matchLocale('fr', CATALOGUE_LOCALES), 'en');
  });

  it('a key a catalogue lacks falls back to English; a theme overrides a key and adds a language', () => {
    const root = fs.mkdtempSync(path.join(fs.realpathSync('/tmp'), 'themes-'));
    try {
      fs.cpSync(path.join(THEMES_DIR, 'default'), path.join(root, 'default'), { recursive: true });
      fs.writeFileSync(
        path.join(root, 'default', 'locales', 'ja.json'),
        JSON.stringify({ 'header.login': 'ログイン' }),
      );
      fs.mkdirSync(path.join(root, 'harbour', 'locales'), { recursive: true });
      fs.writeFileSync(
        path.join(root, 'harbour', 'locales', 'en.json'),
        JSON.stringify({ 'header.login': 'Come aboard' }),
      );
      fs.writeFileSync(
        path.join(root, 'harbour', 'locales', 'fr.json'),
        JSON.stringify({ 'header.login': 'Connexion' }),
      );
      const translations = new ThemeTranslations(root, false);
      const ja = translations.translator('default', 'ja');
      assert.equal(ja('header.login'), 'ログイン');
      assert.equal(ja('header.logout'), 'Log out', 'English for a key the catalogue lacks');
      assert.equal(translations.translator('harbour', 'en')('header.login'), 'Come aboard');
      assert.equal(translations.translator('harbour', 'en')('header.logout'), 'Log out');
      assert.equal(translations.translator('harbour', 'fr')('header.login'), 'Connexion');
      assert.equal(translations.translator('harbour', 'ja')('header.login'), 'ログイン');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('dates in each locale, in the website\u2019s time zone', () => {
    const at = '2026-11-25T21:10:02.730Z';
    assert.equal(formatDate(at, 'en'), '25 November 2026');
    assert.equal(formatDate(at, 'zh_TW'), '2026年11月25日');
    assert.equal(formatDate(at, 'zh_CN'), '2026年11月25日');
    assert.equal(formatDate(at, 'ja'), '2026年11月25日');
    // 21:10 UTC is the next morning in Taipei and Tokyo.
    assert.equal(formatDate(at, 'zh_TW', 'date', 'Asia/Taipei'), '2026年11月26日');
    assert.equal(formatDate(at, 'ja', 'date', 'Asia/Tokyo'), '2026年11月26日');
    assert.match(formatDate(at, 'ja', 'datetime', 'Asia/Tokyo'), /^2026年11月26日 6:10$/);
    assert.equal(formatDate(at, 'en', 'date', 'Not/AZone'), '25 November 2026', 'an unknown zone is UTC');
  });

  it('the forms\u2019 English findings are said in the page\u2019s language (API v1 keeps the English)', () => {
    const tw = new ThemeTranslations(THEMES_DIR, false).translator('default', 'zh_TW');
    const ja = new ThemeTranslations(THEMES_DIR, false).translator('default', 'ja');
    const en = new ThemeTranslations(THEMES_DIR, false).translator('default', 'en');
    assert.equal(localizeMessage('The email field is required.', tw), '請填寫電子郵件。');
    assert.equal(
      localizeMessage('The password must be at least 8 characters.', ja),
      'パスワードは 8 文字以上で入力してください。',
    );
    assert.equal(localizeMessage('These credentials do not match our records.', tw), '帳號或密碼不正確。');
    for (const message of [
      'The email field is required.',
      'The password must be at least 8 characters.',
      'The name may not be greater than 255 characters.',
      'Too many login attempts. Please try again in 1 minute.',
      'Too many login attempts. Please try again in 5 minutes.',
      'The form has expired; reload the page and try again.',
    ]) {
      assert.equal(localizeMessage(message, en), message, 'English pages say exactly what they said');
    }
    assert.equal(localizeMessage('Something nobody knows.', tw), 'Something nobody knows.');
  });

  it('mails in the recipient\u2019s language; English mails word for word as before', () => {
    assert.equal(mailLocale(null, 'zh_TW', 'en'), 'zh_TW');
    assert.equal(mailLocale('ja', 'zh_TW', 'en'), 'ja');
    const vars = { site: 'Harbour', name: 'Mei', minutes: '60', link: 'https://h.test/x' };
    assert.equal(mailOf('en', 'reset', vars).subject, 'Reset your password on Harbour');
    assert.match(
      mailOf('en', 'reset', vars).text,
      /^Hello Mei,\n\n.*within 60 minutes:\n\nhttps:\/\/h\.test\/x\n\n/s,
    );
    assert.equal(mailOf('zh_TW', 'reset', vars).subject, '重設您在 Harbour 的密碼');
    assert.equal(mailOf('zh_CN', 'reset', vars).subject, '重置您在 Harbour 的密码');
    assert.equal(mailOf('ja', 'reset', vars).subject, 'Harbour のパスワード再設定');
    const held = { site: 'H', author: 'A', quote: 'Q', post_url: 'u', admin_url: 'a' };
    assert.match(
      mailOf('en', 'comment_held', { ...held, waiting: '1' }).text,
      /^A comment on H waits for your approval\.\n/,
    );
    assert.match(
      mailOf('en', 'comment_held', { ...held, waiting: '3' }).text,
      /^A comment on H waits for your approval \(3 comments wait on this website\)\.\n/,
    );
  });
});

describe('the catalogue check', () => {
  it('the default theme: every English key in zh_TW, zh_CN and ja, with the same arguments', () => {
    const en = readCatalogue('en');
    const problems = ['zh_TW', 'zh_CN', 'ja'].flatMap((locale) =>
      compareCatalogues(`theme ${locale}`, en, readCatalogue(locale)),
    );
    assert.deepEqual(problems, []);
  });

  it('Traditional and Simplified Chinese are written apart (Taiwan and mainland terms)', () => {
    const tw = Object.values(readCatalogue('zh_TW')).join('\n');
    const cn = Object.values(readCatalogue('zh_CN')).join('\n');
    for (const simplified of ['登录', '评论', '账号', '设置', '搜索', '网站', '链接']) {
      assert.ok(!tw.includes(simplified), `zh_TW uses ${simplified}`);
    }
    for (const traditional of ['登入', '留言', '帳號', '設定', '搜尋', '網站', '連結']) {
      assert.ok(!cn.includes(traditional), `zh_CN uses ${traditional}`);
    }
  });

  it('every key the default theme\u2019s templates use is in the English catalogue', () => {
    const en = readCatalogue('en');
    const used = new Set<string>();
    for (const file of templates()) {
      for (const match of fs.readFileSync(file, 'utf8').matchAll(/'([a-z_]+\.[a-z0-9_.-]+)' \| t\b/g)) {
        used.add(match[1]!);
      }
    }
    assert.ok(used.size > 100, `found ${used.size} keys`);
    assert.deepEqual(
      [...used].filter((key) => !(key in en)),
      [],
    );
  });

  it('the mails: every English key in every language, with the same arguments', () => {
    const { en, ...others } = MAIL_CATALOGUES;
    const problems = Object.entries(others).flatMap(([locale, catalogue]) =>
      compareCatalogues(`mail ${locale}`, en, catalogue),
    );
    assert.deepEqual(problems, []);
  });

  it('the admin panel: every English key of every screen in every language, with the same arguments', () => {
    const { en, ...others } = PANEL_CATALOGUES;
    assert.deepEqual(Object.keys(others).sort(), ['ja', 'zh_CN', 'zh_TW']);
    assert.ok(Object.keys(en).length > 600, `${Object.keys(en).length} English keys`);
    const problems = Object.entries(others).flatMap(([locale, catalogue]) =>
      compareCatalogues(`panel ${locale}`, en as Record<string, string>, catalogue as Record<string, string>),
    );
    assert.deepEqual(problems, []);
  });

  it('the panel\u2019s Traditional and Simplified Chinese are written apart; its Japanese is not Chinese', () => {
    const { zh_TW, zh_CN, ja } = PANEL_CATALOGUES;
    const tw = Object.values(zh_TW).join('\n');
    const cn = Object.values(zh_CN).join('\n');
    for (const simplified of ['登录', '评论', '账号', '设置', '搜索', '网站', '链接', '帖子']) {
      assert.ok(!tw.includes(simplified), `panel zh_TW uses ${simplified}`);
    }
    for (const traditional of ['登入', '留言', '帳號', '設定', '搜尋', '網站', '連結', '貼文']) {
      assert.ok(!cn.includes(traditional), `panel zh_CN uses ${traditional}`);
    }
    // Japanese says 投稿 and 固定ページ, never the Chinese 文章 or 頁面, and writes full-width 「」.
    const jp = Object.values(ja).join('\n');
    for (const chinese of ['文章', '頁面', '页面', '登入', '“']) {
      assert.ok(!jp.includes(chinese), `panel ja uses ${chinese}`);
    }
  });

  it('no visible English is hard-coded in the default theme\u2019s templates', () => {
    const problems: string[] = [];
    for (const file of templates()) {
      for (const text of visibleText(fs.readFileSync(file, 'utf8'))) {
        problems.push(`${path.relative(THEMES_DIR, file)}: ${JSON.stringify(text)}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('the scan finds English where a template has some (it can fail)', () => {
    assert.deepEqual(visibleText('<p>{{ x }}</p><button aria-label="Close">{{ "a.b" | t }}</button>'), [
      'Close',
    ]);
    assert.deepEqual(visibleText('<h2>Related posts</h2><img alt="{{ a }}">'), ['Related posts']);
    assert.deepEqual(visibleText('{% comment %}Notes for themers{% endcomment %}<p>{{ "k" | t }}</p>'), []);
  });

  it('no visible English is hard-coded in the panel\u2019s screens (JSX text, aria-label, title, alt, placeholder)', () => {
    const files = panelSources();
    assert.ok(files.length > 20, `scanned ${files.length} files`);
    const problems: string[] = [];
    for (const file of files) {
      for (const text of hardCodedEnglish(fs.readFileSync(file, 'utf8'))) {
        problems.push(`${path.relative(ADMIN_SRC, file)}:${text}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  it('the panel scan finds English where a screen has some (it can fail)', () => {
    const screen = `
      export function Screen({ n, ok }: { n: number; ok: boolean }) {
        return (
          <section aria-label="Recent posts">
            <h2>{t('posts.title')}</h2>
            <p>No post yet.</p>
            <img alt={ok ? t('media.alt') : 'A picture'} src="/x.png" class="wide" />
            <input placeholder={\`Search \${n} posts\`} title={t('posts.search')} />
            {ok && 'Saved'}
            {n > 1 ? t('editor.words', { n }) : t('editor.word')}
            <p>{n} / {n}</p>
            <option value="draft">{status === 'draft' ? t('post.status.draft') : ''}</option>
          </section>
        );
      }`;
    assert.deepEqual(
      hardCodedEnglish(screen).map((found) => found.replace(/^\d+: /, '')),
      ['Recent posts', 'No post yet.', 'A picture', 'Search posts', 'Saved'],
    );
    assert.deepEqual(hardCodedEnglish(`const a = <p title={t('x.y')}>{t('x.y')} · Folio</p>;`), []);
  });

  it('a zh_TW page renders its words from the catalogue and <html lang="zh-TW">, through the theme', async () => {
    const renderer = new ThemeRenderer(THEMES_DIR, { compiled: true, crossCheck: true });
    const html = await renderer.render('default', '404', {
      locale: 'zh_TW',
      lang: 'zh-TW',
      site: { site_name: 'Harbour' },
      home_url: '/zh_TW/',
      search_url: '/zh_TW/post/search',
      seo: {},
    });
    assert.match(html, /<html lang="zh-TW">/);
    assert.match(html, /找不到頁面/);
    assert.match(html, /placeholder="搜尋文章"/);
    assert.match(html, /跳至主要內容/);
    assert.doesNotMatch(html, /Search posts|Page not found|Skip to content/);
  });
});

function templates(): string[] {
  const root = path.join(THEMES_DIR, 'default');
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'assets' || entry.name === 'locales' ? [] : walk(full);
      return entry.name.endsWith('.liquid') ? [full] : [];
    });
  return walk(root);
}

/** Words a reader sees that a template writes itself: text, and aria-label, title, alt, placeholder. */
const ALLOWED = new Set(['Markdown', 'HTML']);
function visibleText(template: string): string[] {
  const stripped = template
    .replace(/\{%-?\s*comment\s*-?%\}[\s\S]*?\{%-?\s*endcomment\s*-?%\}/g, '')
    .replace(/\{\{[\s\S]*?\}\}/g, '')
    .replace(/\{%[\s\S]*?%\}/g, '');
  const $ = load(stripped, null, false);
  $('script, style').remove();
  const found: string[] = [];
  const check = (text: string) => {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (/[A-Za-z]{2,}/.test(clean) && !ALLOWED.has(clean)) found.push(clean);
  };
  const textOf = (node: unknown) => {
    const { type, data } = node as { type: string; data?: string };
    if (type === 'text') check(data ?? '');
  };
  $('*')
    .contents()
    .each((_, node) => textOf(node));
  $.root()
    .contents()
    .each((_, node) => textOf(node));
  for (const attribute of ['aria-label', 'title', 'alt', 'placeholder']) {
    $(`[${attribute}]`).each((_, element) => check($(element).attr(attribute) ?? ''));
  }
  return found;
}

const ADMIN_SRC = path.resolve('admin', 'src');

/** The panel's screens and components: every .tsx under admin/src. */
function panelSources(): string[] {
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return walk(full);
      return entry.name.endsWith('.tsx') ? [full] : [];
    });
  return walk(ADMIN_SRC);
}

/**
 * Not words to translate: names, and examples of what to type (addresses, an audit action's prefix,
 * the address path a search result shows, which is the site's own URL).
 */
const PANEL_NAMES = /\b(Folio|Markdown|HTML|Ctrl\+[A-Z])\b/g;
const PANEL_ALLOWED = new Set([
  'https://',
  'https://example.com/folio-hook',
  'blog.example.com',
  'www.example.com',
  'post.',
  '› page ›',
  '› post ›',
]);
const PANEL_ATTRIBUTES = new Set(['aria-label', 'title', 'alt', 'placeholder']);

/**
 * English a screen writes itself, not through t(): JSX text, and string literals a JSX child or an
 * aria-label, title, alt or placeholder attribute renders (also inside `a ? 'x' : t()`, `a && 'x'`,
 * `'x' + y`, and template literals). A literal compared (`status === 'draft'`) is not rendered.
 */
function hardCodedEnglish(source: string): string[] {
  const file = ts.createSourceFile('screen.tsx', source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const check = (node: ts.Node, text: string) => {
    const clean = text.replace(/\s+/g, ' ').trim();
    if (/[A-Za-z]{2,}/.test(clean.replace(PANEL_NAMES, '')) && !PANEL_ALLOWED.has(clean)) {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
      found.push(`${line + 1}: ${clean}`);
    }
  };
  const rendered = (expression: ts.Expression, node: ts.Node): void => {
    if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression)) {
      check(node, expression.text);
    } else if (ts.isTemplateExpression(expression)) {
      check(
        node,
        [expression.head.text, ...expression.templateSpans.map((span) => span.literal.text)].join(' '),
      );
    } else if (ts.isConditionalExpression(expression)) {
      rendered(expression.whenTrue, node);
      rendered(expression.whenFalse, node);
    } else if (ts.isParenthesizedExpression(expression)) {
      rendered(expression.expression, node);
    } else if (ts.isBinaryExpression(expression)) {
      const operator = expression.operatorToken.kind;
      if (operator === ts.SyntaxKind.AmpersandAmpersandToken) rendered(expression.right, node);
      if (
        operator === ts.SyntaxKind.BarBarToken ||
        operator === ts.SyntaxKind.QuestionQuestionToken ||
        operator === ts.SyntaxKind.PlusToken
      ) {
        rendered(expression.left, node);
        rendered(expression.right, node);
      }
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isJsxText(node)) check(node, node.text);
    else if (
      ts.isJsxExpression(node) &&
      node.expression &&
      (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))
    ) {
      rendered(node.expression, node);
    } else if (ts.isJsxAttribute(node) && PANEL_ATTRIBUTES.has(node.name.getText(file)) && node.initializer) {
      if (ts.isStringLiteral(node.initializer)) check(node, node.initializer.text);
      else if (ts.isJsxExpression(node.initializer) && node.initializer.expression) {
        rendered(node.initializer.expression, node);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}
