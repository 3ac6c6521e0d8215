// Compiled Liquid templates (src/frontend/liquid-compiler.ts) render exactly what LiquidJS renders:
// every construct it compiles, every construct it hands back to LiquidJS mid-template, and the
// fragment `{% cache %}` tag, each against LiquidJS with the same engine and the same data.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Drop, Liquid } from 'liquidjs';
import { CacheBlockTag, FRAGMENTS, FragmentStore } from '../../src/frontend/fragments.js';
import type { FragmentScope } from '../../src/frontend/fragments.js';
import { LiquidCompiler } from '../../src/frontend/liquid-compiler.js';

class Person extends Drop {
  constructor(private readonly first: string) {
    super();
  }
  name() {
    return `${this.first} <Drop>`;
  }
  override liquidMethodMissing(key: string) {
    return key === 'nickname' ? `${this.first}y` : undefined;
  }
}

class Inherited {
  own = 'own';
}
(Inherited.prototype as unknown as Record<string, unknown>).hidden = 'from the prototype';

const DATA_SETS: Record<string, unknown>[] = [
  {
    title: 'Fish & <Chips> "quoted" \'single\'',
    empty_text: '',
    blank_text: '   ',
    zero: 0,
    nothing: null,
    yes: true,
    no: false,
    html: '<b>bold</b>',
    items: [
      { name: 'one', tags: ['a', 'b'], url: '/1?x=1&y=2' },
      { name: 'two', tags: [], url: '/2' },
      { name: 'three', tags: ['c'], url: '/3' },
    ],
    numbers: [3, 1, 2],
    map: { a: 1, b: 'two' },
    nested: { deep: { deeper: 'bottom', list: [{ v: 'x' }] } },
    person: new Person('Ann'),
    inherited: new Inherited(),
    fn: () => 'called',
    key: 'a',
    unicode: 'café — ☕ 𝄞',
  },
  {
    title: 42,
    empty_text: 'no longer empty',
    items: [],
    numbers: [],
    map: {},
    nested: { deep: null },
    person: null,
    yes: 'string is truthy',
    no: 0,
    key: 'b',
  },
  {},
];

const TEMPLATES: Record<string, string> = {
  text: 'plain text only',
  outputs:
    '{{ title }}|{{ html }}|{{ html | raw }}|{{ zero }}|{{ nothing }}|{{ yes }}|{{ no }}|{{ missing }}|' +
    '{{ numbers }}|{{ unicode }}|{{ "lit<>" }}|{{ 12 }}|{{ 1.5 }}|{{ true }}|{{ nil }}',
  properties:
    '{{ nested.deep.deeper }}|{{ nested.deep.list[0].v }}|{{ nested["deep"].deeper }}|{{ map[key] }}|' +
    '{{ items.size }}|{{ items.first.name }}|{{ items.last.name }}|{{ items[-1].name }}|{{ title.size }}|' +
    '{{ map.size }}|{{ "abc".size }}|{{ person.name }}|{{ person.nickname }}|{{ person.other }}|' +
    '{{ inherited.own }}|{{ inherited.hidden }}|{{ fn }}|{{ numbers[1] }}|{{ missing.deep.er }}',
  filters:
    '{{ empty_text | default: "fallback" }}|{{ nothing | default: title }}|{{ no | default: "d", allow_false: true }}|' +
    '{{ title | append: "!" | capitalize }}|{{ numbers | first }}|{{ numbers | slice: 1, 2 }}|' +
    '{{ title | remove_first: "&" }}|{{ items | map: "name" | join: ", " }}|{{ title | upcase | raw }}|' +
    '{{ numbers | sort | join: "-" }}|{{ title | escape }}|{{ title | url_encode }}|' +
    '{{ items | where: "name", "two" | size }}|{{ items | where_exp: "i", "i.tags.size > 0" | map: "name" | join }}|' +
    '{{ 5 | plus: zero | times: 2 }}|{{ "2024-03-01T10:00:00Z" | date: "%Y" }}',
  conditions:
    '{% if yes %}Y{% else %}N{% endif %}|{% if no %}Y{% else %}N{% endif %}|{% if zero %}Z{% endif %}|' +
    '{% if empty_text %}E{% endif %}|{% if empty_text == blank %}blank{% endif %}|{% if blank_text == blank %}bt{% endif %}|' +
    '{% if empty_text == empty %}empty{% endif %}|{% if items == empty %}ie{% endif %}|{% if map != empty %}me{% endif %}|' +
    '{% if nothing == nil %}nil{% endif %}|{% if missing == blank %}mb{% endif %}|{% if title != blank %}tb{% endif %}|' +
    '{% if items.size > 1 and yes %}and{% endif %}|{% if no or nothing %}or{% else %}nor{% endif %}|' +
    '{% if title contains "Chips" %}c{% endif %}|{% if numbers contains 2 %}n2{% endif %}|' +
    '{% if key == "a" %}A{% elsif key == "b" %}B{% else %}other{% endif %}|{% if zero >= 0 and zero < 1 %}range{% endif %}|' +
    '{% unless yes %}U{% else %}notU{% endunless %}|{% unless no %}U2{% endunless %}|' +
    '{% unless yes %}u{% elsif key == "b" %}ub{% else %}ue{% endunless %}|{% if numbers == numbers %}same{% endif %}|' +
    '{% if person %}p{% endif %}|{% if person.name == "Ann <Drop>" %}pn{% endif %}|{% if yes == true %}t{% endif %}',
  loops:
    '{% for item in items %}[{{ forloop.index }}/{{ forloop.length }} {{ forloop.index0 }} {{ forloop.rindex }} ' +
    '{{ forloop.rindex0 }} {% if forloop.first %}first{% endif %}{% if forloop.last %}last{% endif %} {{ item.name }}:' +
    '{% for tag in item.tags %}{{ tag }}{% unless forloop.last %},{% endunless %}{% else %}none{% endfor %}]' +
    '{% else %}no items{% endfor %}|{% for n in numbers %}{{ n }}{% if n == 1 %}{% break %}{% endif %}{% endfor %}|' +
    '{% for n in numbers %}{% if n == 1 %}{% continue %}{% endif %}{{ n }}{% endfor %}|' +
    '{% for pair in map %}{{ pair[0] }}={{ pair[1] }};{% endfor %}|{% for c in title %}{{ c }}{% endfor %}|' +
    '{% for n in numbers limit: 2 %}{{ n }}{% endfor %}|{% for n in numbers offset: 1 %}{{ n }}{% endfor %}|' +
    '{% for n in numbers reversed %}{{ n }}{% endfor %}|{% for i in (1..3) %}{{ i }}{% endfor %}|' +
    '{% for item in items %}{{ forloop }}{% break %}{% endfor %}|{{ item }}',
  assignments:
    '{% assign greeting = title | append: "?" %}{{ greeting }}|{% assign n = items.size %}{{ n }}|' +
    '{% for item in items %}{% assign last_name = item.name %}{% endfor %}{{ last_name }}|' +
    '{% capture cap %}<{{ title }}>{% endcapture %}{{ cap }}|{% increment counter %}{% increment counter %}|' +
    '{% case key %}{% when "a" %}case a{% when "b" %}case b{% else %}case else{% endcase %}|' +
    '{% cycle "x", "y" %}{% cycle "x", "y" %}|{% echo title %}|{% raw %}{{ not rendered }}{% endraw %}|' +
    '{% liquid\n  if yes\n    echo "liquid tag"\n  endif\n%}|{% comment %}{{ hidden }}{% endcomment %}{% # inline %}',
  partials:
    '{% render "card", item: items.first, label: title, flag %}|{% render "card" %}|' +
    '{% render "card" with items.last as item %}|{% render "card" for items as item %}|' +
    '{% assign outer = "outer" %}{% render "scope" %}|{% include "scope" %}|{% render "nested", items: items %}',
  'child-page':
    '{% layout "frame", theme_name: "dark" %}{% block head %}<meta name="{{ title }}">{% endblock %}' +
    'ignored text{% block content %}[child {{ title }}|{{ block.super }}]{% endblock %}',
  'anonymous-child': '{% layout "frame" %}just the child',
  'no-layout': '{% layout none %}{% block content %}inline {{ title }}{% endblock %}',
  'cached-blocks':
    '{% cache "a", key %}A {{ title }} {{ items.size }}{% endcache %}|{% cache "b" %}{% for item in items %}' +
    '{{ item.name }}{% endfor %}{% endcache %}|{% if yes %}{% cache "c", nothing, 3 %}C{{ yes }}{% endcache %}{% endif %}',
};

const PARTIALS: Record<string, string> = {
  card: '<card label="{{ label }}" flag="{{ flag }}">{{ item.name | default: "no item" }}{{ forloop.index }}</card>',
  scope: 'outer={{ outer }} title={{ title }}',
  nested: '{% for item in items %}{% render "card", item: item %}{% endfor %}',
  frame:
    '<frame theme="{{ theme_name }}">{% block head %}<default-head>{% endblock %}' +
    '{% block content %}default content{% endblock %}{% block %}{% endblock %}</frame>',
};

function engine(): Liquid {
  const templates: Record<string, string> = {};
  for (const [name, source] of Object.entries(TEMPLATES)) templates[name] = source;
  for (const [name, source] of Object.entries(PARTIALS)) templates[name] = source;
  const liquid = new Liquid({
    templates,
    cache: true,
    outputEscape: 'escape',
    strictFilters: true,
    ownPropertyOnly: true,
  });
  liquid.registerTag('cache', CacheBlockTag);
  return liquid;
}

describe('compiled Liquid templates', () => {
  const liquid = engine();
  const compiler = new LiquidCompiler(liquid);

  for (const name of Object.keys(TEMPLATES)) {
    it(`render ${name} exactly as LiquidJS does, for every data set`, () => {
      DATA_SETS.forEach((data, index) => {
        // Copies: `increment` writes its counter into the data.
        const expected = liquid.renderFileSync(name, { ...data }) as string;
        const actual = compiler.renderFile(name, { ...data }, liquid.options.globals);
        assert.equal(actual, expected, `${name}, data set ${index}`);
      });
    });
  }

  it('render the same twice in a row (compiled once, no state kept between renders)', () => {
    for (const name of Object.keys(TEMPLATES)) {
      const data = DATA_SETS[0] as object;
      assert.equal(
        compiler.renderFile(name, { ...data }, liquid.options.globals),
        compiler.renderFile(name, { ...data }, liquid.options.globals),
      );
    }
  });

  it('escape what LiquidJS escapes, by default on every output', () => {
    const html = compiler.renderFile('outputs', DATA_SETS[0] as object, {});
    assert.match(
      html,
      /^Fish &amp; &lt;Chips&gt; &#34;quoted&#34; &#39;single&#39;\|&lt;b&gt;bold&lt;\/b&gt;\|<b>bold<\/b>\|/,
    );
    assert.ok(html.includes('café — ☕ 𝄞'));
  });

  it('report a failing filter as LiquidJS does (a RenderError naming the template)', () => {
    const failing = new Liquid({ templates: { bad: 'before {{ x | boom }}' }, outputEscape: 'escape' });
    failing.registerFilter('boom', () => {
      throw new Error('boom failed');
    });
    const compiled = new LiquidCompiler(failing);
    assert.throws(() => failing.renderFileSync('bad', { x: 1 }), {
      name: 'RenderError',
      message: /boom failed/,
    });
    assert.throws(() => compiled.renderFile('bad', { x: 1 }, {}), {
      name: 'RenderError',
      message: /boom failed/,
    });
  });

  it('decline engines whose options change what a render means (strict variables, a time limit)', () => {
    assert.equal(LiquidCompiler.supports(liquid), true);
    assert.equal(LiquidCompiler.supports(new Liquid({ strictVariables: true })), false);
    assert.equal(LiquidCompiler.supports(new Liquid({ renderLimit: 1000 })), false);
  });

  it('answer {% cache %} blocks from the fragment store, as LiquidJS with the same store does', () => {
    const settings = new Map<string, string>();
    const scopeFor = (store: FragmentStore): FragmentScope => ({
      store,
      prefix: 'default 1 en / ',
      stamp: {},
      settings,
    });
    const compiledStore = new FragmentStore(() => true, 1024 * 1024);
    const liquidStore = new FragmentStore(() => true, 1024 * 1024);
    const first = DATA_SETS[0] as object;
    const second = { ...first, title: 'changed', items: [] };
    for (const data of [first, second]) {
      const expected = liquid.renderFileSync('cached-blocks', data, {
        globals: { [FRAGMENTS]: scopeFor(liquidStore) },
      }) as string;
      const actual = compiler.renderFile('cached-blocks', data, { [FRAGMENTS]: scopeFor(compiledStore) });
      assert.equal(actual, expected);
    }
    // The second render changed title and items, but block "b" (no key) is kept, and "a" too (same key).
    const again = compiler.renderFile('cached-blocks', second, { [FRAGMENTS]: scopeFor(compiledStore) });
    assert.ok(again.startsWith('A Fish &amp; &lt;Chips&gt;'), again);
    assert.ok(again.includes('|onetwothree|'), again);
  });
});
