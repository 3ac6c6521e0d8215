// The query-string parser: flat queries through fast-querystring, nested ones through qs; both must
// give what qs alone would (qs is the reference: forms and API v2's filter[…] depend on its shapes).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import qs from 'qs';
import { parseQueryString } from '../../src/http/body.js';

const QS_OPTIONS: qs.IParseOptions = { depth: 5, arrayLimit: 1000, parameterLimit: 2000 };
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('parseQueryString', () => {
  const samples = [
    '',
    'page=2&per_page=10',
    'a=1&a=2&a=3',
    'a+b=c+d',
    'q=%E4%BD%A0%E5%A5%BD&locale=zh_TW',
    'e',
    'f=',
    'a=1&&b=2',
    'q=a%26b%3Dc',
    'a=%',
    '%zz=1',
    '__proto__=1&constructor=2&hasOwnProperty=3&x=4',
    '=x&y=1',
    'filter[status]=draft&filter[tag]=1,2&page=1',
    'filter%5Bstatus%5D=draft',
    'tags[]=1&tags[]=2',
    'menu_items[0][name]=Home&menu_items[0][url]=/',
    'sort=-updated_at&fields=id,title&include=author',
    `long=${'x'.repeat(5000)}`,
  ];
  for (const sample of samples) {
    it(`answers what qs answers: ${JSON.stringify(sample.slice(0, 60))}`, () => {
      assert.deepEqual(plain(parseQueryString(sample)), plain(qs.parse(sample, QS_OPTIONS)));
    });
  }
  it('random flat queries of words, repeats, pluses and escapes agree with qs', () => {
    const pieces = ['a', 'b', 'page', 'q', 'x y', '%20', '+', '%E4%BD%A0', '=', '&', '1', '%', 'per_page'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let round = 0; round < 500; round++) {
      const text = Array.from({ length: 1 + (next() % 12) }, () => pieces[next() % pieces.length]).join('');
      assert.deepEqual(plain(parseQueryString(text)), plain(qs.parse(text, QS_OPTIONS)), text);
    }
  });
});
