// The memos and shortcuts that make a request cheaper (issue 42) answer what the long way answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { idsKey } from '../../src/domain/resource-abilities.js';
import { siteOrigin } from '../../src/domain/websites/urls.js';
import { scriptJson } from '../../src/frontend/seo.js';
import { jsonKeyOf, memoized } from '../../src/lib/memo.js';

describe('siteOrigin, remembered', () => {
  it('answers per domain and APP_URL, never one for another', () => {
    for (let round = 0; round < 2; round++) {
      assert.equal(siteOrigin({ domain: 'a.test' }, 'http://localhost:3000'), 'http://a.test:3000');
      assert.equal(siteOrigin({ domain: 'a.test' }, 'https://cms.example'), 'https://a.test');
      assert.equal(siteOrigin({ domain: 'b.test' }, 'https://cms.example:8443/'), 'https://b.test:8443');
      assert.equal(siteOrigin({ domain: 'B.TEST' }, 'http://x.test:80'), 'http://b.test');
    }
  });

  it('still refuses a domain that is no host, every time', () => {
    for (let round = 0; round < 2; round++) {
      assert.throws(() => siteOrigin({ domain: 'bad domain/x y' }, 'http://localhost:3000'));
    }
  });

  it('keeps answering right past its bound', () => {
    for (let k = 0; k < 1100; k++) {
      assert.equal(siteOrigin({ domain: `s${k}.test` }, 'http://localhost:3000'), `http://s${k}.test:3000`);
    }
    assert.equal(siteOrigin({ domain: 's0.test' }, 'https://cms.example'), 'https://s0.test');
  });
});

describe('scriptJson', () => {
  it('is JSON.stringify when nothing needs escaping', () => {
    const value = { headline: 'Plain title', n: 1, list: ['a', 'b'] };
    assert.equal(scriptJson(value), JSON.stringify(value));
  });

  it('escapes <, >, &, U+2028 and U+2029, and stays the same JSON', () => {
    const value = { headline: '</script><!-- a & b \u2028 c \u2029 >' };
    const text = scriptJson(value);
    assert.equal(
      text,
      '{"headline":"\\u003c/script\\u003e\\u003c!-- a \\u0026 b \\u2028 c \\u2029 \\u003e"}',
    );
    assert.doesNotMatch(text, /[<>&\u2028\u2029]/);
    assert.deepEqual(JSON.parse(text), value);
  });
});

describe('jsonKeyOf', () => {
  it('is the JSON of the value', () => {
    const query = { page: '2', per_page: '15' };
    assert.equal(jsonKeyOf(query), JSON.stringify(query));
    assert.equal(jsonKeyOf({ page: '2', per_page: '15' }), jsonKeyOf(query), 'equal objects, equal keys');
    assert.notEqual(jsonKeyOf({ page: '3', per_page: '15' }), jsonKeyOf(query));
    assert.notEqual(jsonKeyOf({ 'page":"2': '' }), jsonKeyOf({ page: '2' }));
    assert.equal(jsonKeyOf(undefined), 'undefined');
    assert.equal(jsonKeyOf('x'), '"x"');
  });

  it('keys a memo as the JSON would', () => {
    const memo = new Map<string, number>();
    let computed = 0;
    const compute = () => ++computed;
    memoized(memo, jsonKeyOf({ id: '1' }), 10, compute);
    memoized(memo, jsonKeyOf({ id: '1' }), 10, compute);
    memoized(memo, jsonKeyOf({ id: '2' }), 10, compute);
    assert.equal(computed, 2);
  });
});

describe('idsKey', () => {
  it('is the ids in ascending order, whatever order they come in', () => {
    assert.equal(idsKey([]), '');
    assert.equal(idsKey([7]), '7');
    assert.equal(idsKey([3, 12]), '3,12');
    assert.equal(idsKey([12, 3]), '3,12');
    assert.equal(idsKey([10, 2, 33, 4]), '2,4,10,33');
    const ids = [5, 1];
    idsKey(ids);
    assert.deepEqual(ids, [5, 1], 'the list itself is left as it is');
  });
});
