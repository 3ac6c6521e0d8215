// Fragment caching in themes ({% cache %}, fragments.ts): a block renders once per key and then
// comes from memory until a tag of its page is flushed or the settings change; nothing is stored
// when the page may show older data (no stamp); without a scope it always renders.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MemoryCache } from '../../src/cache/cache.js';
import { FragmentStore } from '../../src/frontend/fragments.js';
import type { FragmentScope } from '../../src/frontend/fragments.js';
import { ThemeRenderer } from '../../src/frontend/themes.js';

describe('fragment cache ({% cache %})', () => {
  let root: string;
  let themes: ThemeRenderer;
  const cache = new MemoryCache();
  const store = new FragmentStore((stamp) => cache.isCurrent(stamp), 1024 * 1024);
  let settings: ReadonlyMap<string, string> = new Map();

  const scope = async (prefix = 'default 1 en / '): Promise<FragmentScope> => ({
    store,
    prefix,
    stamp: await cache.stamp(['post:1', 'site:1']),
    settings,
  });
  const render = async (data: Record<string, unknown>, fragments?: FragmentScope) =>
    (await themes.render('default', 'page', data, fragments)).trim();

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-fragments-'));
    fs.mkdirSync(path.join(root, 'default'));
    fs.writeFileSync(
      path.join(root, 'default', 'page.liquid'),
      "{% cache 'card', id %}<b>{{ text }}</b>{% endcache %}|{{ text }}",
    );
    fs.writeFileSync(path.join(root, 'default', 'open.liquid'), "{% cache 'x' %}never closed");
    fs.writeFileSync(path.join(root, 'default', 'nameless.liquid'), '{% cache %}x{% endcache %}');
    themes = new ThemeRenderer(root);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('renders a block once per key, escaped as the template says, then from memory', async () => {
    assert.equal(await render({ id: 1, text: '<one>' }, await scope()), '<b>&lt;one&gt;</b>|&lt;one&gt;');
    assert.equal(await render({ id: 1, text: 'two' }, await scope()), '<b>&lt;one&gt;</b>|two');
    assert.equal(await render({ id: 2, text: 'two' }, await scope()), '<b>two</b>|two', 'another key');
    assert.equal(
      await render({ id: 1, text: 'two' }, await scope('default 1 fr /fr ')),
      '<b>two</b>|two',
      'another locale (prefix)',
    );
  });

  it('a flush of a tag of its page, or new settings, renders it again', async () => {
    await render({ id: 3, text: 'a' }, await scope());
    assert.equal(await render({ id: 3, text: 'b' }, await scope()), '<b>a</b>|b');
    await cache.flushTags(['post:1']);
    assert.equal(await render({ id: 3, text: 'c' }, await scope()), '<b>c</b>|c');
    settings = new Map([['supported_locales', 'en,fr']]);
    assert.equal(await render({ id: 3, text: 'd' }, await scope()), '<b>d</b>|d');
  });

  it('stores nothing without a stamp, and always renders without a scope', async () => {
    const noStamp = { ...(await scope()), stamp: null };
    assert.equal(await render({ id: 4, text: 'a' }, noStamp), '<b>a</b>|a');
    assert.equal(await render({ id: 4, text: 'b' }, await scope()), '<b>b</b>|b');
    assert.equal(await render({ id: 4, text: 'c' }), '<b>c</b>|c');
  });

  it('a block must be closed and named', async () => {
    await assert.rejects(themes.render('default', 'open', {}), /not closed/);
    await assert.rejects(themes.render('default', 'nameless', {}), /name the fragment/);
  });
});
