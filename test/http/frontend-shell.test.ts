// The public site's shell: middleware order (is_installed, has_website), the theme and its assets,
// locale prefixes (R-F3), escaping, and the trusted head/body code of a website.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { INSTALLED_SETTING } from '../../src/domain/system/settings.js';
import { createTestContext, exposeRouteNames } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { websiteWrites } from '../support/website-writes.js';

describe('public site shell', () => {
  let ctx: TestContext;
  let websiteId: number;

  before(async () => {
    ctx = await createTestContext({ extend: exposeRouteNames });
    websiteId = await websiteWrites(ctx.services).create({
      siteName: { en: 'Tom & Jerry <Blog>', fr: 'Le blog de Tom' },
      domain: 'site.test',
    });
  });
  after(() => ctx.close());

  const get = (url: string, host = 'site.test') => ctx.request({ method: 'GET', url, headers: { host } });

  it('is_installed comes first: before the first start every page says so (503)', async () => {
    const response = await get('/');
    assert.equal(response.statusCode, 503);
    assert.match(response.body, /not installed/i);
    await ctx.services.settings.set(INSTALLED_SETTING, new Date().toISOString());
  });

  it('has_website: an unknown host gets a 404 page naming the host', async () => {
    const response = await get('/', 'nobody.test');
    assert.equal(response.statusCode, 404);
    assert.match(response.headers['content-type'] as string, /text\/html/);
    assert.match(response.body, /No website is configured for nobody\.test/);
  });

  it('renders the home page in the website theme, escaping text fields', async () => {
    const response = await get('/');
    assert.equal(response.statusCode, 200);
    assert.match(response.headers['content-type'] as string, /^text\/html; charset=utf-8/);
    assert.match(response.body, /<html lang="en">/);
    assert.match(response.body, /Tom &amp; Jerry &lt;Blog&gt;/);
    assert.doesNotMatch(response.body, /<Blog>/);
    assert.match(response.body, /\/themes\/default\/assets\/style\.css/);
  });

  it('HEAD answers like GET without a body', async () => {
    const response = await ctx.request({ method: 'HEAD', url: '/', headers: { host: 'site.test' } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, '');
  });

  it('head_code and body_code are injected as given (trusted admin input)', async () => {
    await websiteWrites(ctx.services).update(websiteId, {
      head_code: '<meta name="x-head" content="1">',
      body_code: '<script>window.folio=1</script>',
    });
    const body = (await get('/')).body;
    assert.ok(body.indexOf('<meta name="x-head" content="1">') < body.indexOf('</head>'));
    assert.ok(body.indexOf('<script>window.folio=1</script>') > body.indexOf('<body>'));
  });

  it('R-F3: a supported non-default locale is a URL prefix; others are 404', async () => {
    assert.equal((await get('/fr')).statusCode, 404); // not supported yet
    await ctx.services.settings.set('supported_locales', 'en,fr,zh_TW');
    const french = await get('/fr');
    assert.equal(french.statusCode, 200);
    assert.match(french.body, /<html lang="fr">/);
    assert.match(french.body, /Le blog de Tom/);
    assert.equal((await get('/zh_TW')).statusCode, 200);
    assert.match((await get('/zh_TW')).body, /<html lang="zh-TW">/);
    assert.equal((await get('/en')).statusCode, 404, 'the default locale has no prefix');
    assert.equal((await get('/zh-tw')).statusCode, 404, 'only the canonical spelling');
    assert.equal((await get('/de')).statusCode, 404);
  });

  it('serves theme assets, and nothing else of a theme folder', async () => {
    const css = await get('/themes/default/assets/style.css');
    assert.equal(css.statusCode, 200);
    assert.match(css.headers['content-type'] as string, /text\/css/);
    assert.equal((await get('/themes/default/layout.liquid')).statusCode, 404);
    assert.equal((await get('/themes/default/assets/../layout.liquid')).statusCode, 404);
  });

  it('routes carry their frontend. names (R-F1)', async () => {
    assert.equal((await get('/')).headers['x-test-route-name'], 'frontend.pages.home');
    assert.equal((await get('/fr')).headers['x-test-route-name'], 'frontend.pages.home');
  });
});
