// Issue 35 #3: one input schema per operation, in the domain; the faces word its findings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ValidationError } from '../../src/domain/errors.js';
import { parseMenuSync } from '../../src/domain/menus/input.js';
import { apiKeyInput } from '../../src/domain/people/key-operations.js';
import { readPostForm } from '../../src/domain/posts/form-input.js';
import {
  createPostInput,
  MAX_POST_CONTENT_LENGTH,
  MAX_POST_TITLE_LENGTH,
} from '../../src/domain/posts/input.js';
import { parse, translatable } from '../../src/domain/schema-fields.js';
import { storeTagInput } from '../../src/domain/tags/input.js';
import { validationMessages } from '../../src/http/validation-messages.js';

/** The field messages (API v1's wording) of the ValidationError that `work` throws. */
function findings(work: () => unknown): Record<string, string[]> {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    return validationMessages(error);
  }
  assert.fail('expected a ValidationError');
}

const form = (fields: Record<string, unknown>) => ({
  title: 'A title',
  content: 'Some text',
  status: 'draft',
  ...fields,
});

describe('one translatable schema (issue 35 #3)', () => {
  const field = (options?: Parameters<typeof translatable>[0]) => z.object({ name: translatable(options) });

  it('takes a string or a map of locale to text, in every style', () => {
    for (const style of ['either', 'post', 'tag'] as const) {
      assert.deepEqual(parse(field({ style }), { name: 'Plain' }), { name: 'Plain' });
      assert.deepEqual(parse(field({ style }), { name: { en: 'One', 'zh-TW': '一' } }), {
        name: { en: 'One', 'zh-TW': '一' },
      });
    }
  });

  it('words a wrong type as each API always has: either (v2, websites), or R-V2 for posts and tags', () => {
    assert.deepEqual(
      findings(() => parse(field(), { name: ['x'] })),
      { name: ['The name must be a string or a map of locale to text.'] },
    );
    assert.deepEqual(
      findings(() => parse(field({ style: 'post' }), { name: 5 })),
      { name: ['The name must be a string.'] },
    );
    assert.deepEqual(
      findings(() => parse(field({ style: 'tag' }), { name: { 'not a locale': 'x' } })),
      { name: ['The selected name is invalid.'] },
    );
    assert.deepEqual(
      findings(() => parse(field({ style: 'post' }), { name: { 'not a locale': 'x' } })),
      { name: ['The name has an invalid locale: not a locale.'] },
    );
  });

  it('required, trimmed and capped per text, in a map as in a string', () => {
    const capped = field({ required: true, trim: true, max: 5, style: 'tag' });
    assert.deepEqual(parse(capped, { name: '  abc  ' }), { name: 'abc' });
    assert.deepEqual(
      findings(() => parse(capped, { name: '   ' })),
      { name: ['The name field is required.'] },
    );
    assert.deepEqual(
      findings(() => parse(capped, { name: { en: ' ', fr: '' } })),
      {
        name: ['The name field is required.'],
      },
    );
    assert.deepEqual(
      findings(() => parse(capped, { name: { en: 'abcdef' } })),
      {
        name: ['The name may not be greater than 5 characters.'],
      },
    );
    // A locale longer than the translations table stores is refused, not cut.
    assert.deepEqual(
      findings(() => parse(capped, { name: { [`en_${'A'.repeat(30)}`]: 'x' } })),
      {
        name: ['The selected name is invalid.'],
      },
    );
  });

  it("a post's null translation is an empty one (it removes that locale's text); elsewhere a type error", () => {
    assert.deepEqual(parse(field({ style: 'post' }), { name: { en: 'x', fr: null } }), {
      name: { en: 'x', fr: '' },
    });
    assert.deepEqual(
      findings(() => parse(field(), { name: { en: 'x', fr: null } })),
      {
        name: ['The name must be a string or a map of locale to text.'],
      },
    );
  });

  it("API v1's tag store takes names through it: 255 characters, trimmed (R-Tg1)", () => {
    assert.equal(parse(storeTagInput, { name: ` ${'a'.repeat(255)} ` }).name, 'a'.repeat(255));
    assert.deepEqual(
      findings(() => parse(storeTagInput, { name: 'a'.repeat(256) })),
      {
        name: ['The name may not be greater than 255 characters.'],
      },
    );
  });
});

describe("a post's caps are the operation's, for every face (issue 35 #3)", () => {
  it('API v1 and v2: a title of 1,000 characters is stored, a longer one refused', () => {
    assert.equal(
      parse(createPostInput, { title: 't'.repeat(MAX_POST_TITLE_LENGTH), content: 'x' }).title?.length,
      1000,
    );
    assert.deepEqual(
      findings(() => parse(createPostInput, { title: 't'.repeat(1001), content: 'x' })),
      {
        title: ['The title may not be greater than 1000 characters.'],
      },
    );
    assert.deepEqual(
      findings(() => parse(createPostInput, { title: { en: 'ok', fr: 't'.repeat(1001) }, content: 'x' })),
      { title: ['The title may not be greater than 1000 characters.'] },
    );
    assert.deepEqual(
      findings(() =>
        parse(createPostInput, { title: 'ok', content: 'c'.repeat(MAX_POST_CONTENT_LENGTH + 1) }),
      ),
      { content: [`The content may not be greater than ${MAX_POST_CONTENT_LENGTH} characters.`] },
    );
  });

  it("the site's form has the same caps (its title used to stop at 255)", () => {
    assert.equal(readPostForm(form({ title: 't'.repeat(300) }), ['draft']).title.length, 300);
    assert.deepEqual(
      findings(() => readPostForm(form({ title: 't'.repeat(1001) }), ['draft'])),
      {
        title: ['The title may not be greater than 1000 characters.'],
      },
    );
  });

  it("the site's form: a status the writer may not set is its finding, after the schema's", () => {
    assert.deepEqual(
      findings(() => readPostForm(form({ status: 'published' }), ['draft'])),
      {
        status: ['The selected status is invalid.'],
      },
    );
    assert.deepEqual(
      findings(() => readPostForm(form({ title: '', status: 'published' }), ['draft'])),
      {
        title: ['The title field is required.'],
      },
    );
  });
});

describe("API v1's menu sync, checked by the operation's schema (issue 35 #3, R-V2)", () => {
  it('every finding at once, in the request\u2019s field order, the rules across fields included', () => {
    const errors = findings(() =>
      parseMenuSync(
        {
          menu_items: [
            { order: 1, name: 'About', type: 'page', url: 'javascript:alert(1)' },
            { order: 'x', name: '', type: 'other' },
          ],
        },
        ['en'],
      ),
    );
    assert.deepEqual(Object.keys(errors), [
      'website_id',
      'menu_items.0.page_id',
      'menu_items.0.url',
      'menu_items.1.order',
      'menu_items.1.name',
      'menu_items.1.type',
    ]);
    assert.deepEqual(errors.website_id, ['Either website_id or domain is required.']);
    assert.deepEqual(errors['menu_items.0.page_id'], ['The menu items.0.page id field is required.']);
    // A locale the installation does not support, once the request is otherwise well formed.
    const item = { order: 1, name: 'Home', type: 'link', url: '/' };
    assert.deepEqual(
      findings(() => parseMenuSync({ website_id: 1, locale: 'xx', menu_items: [item] }, ['en'])),
      { locale: ['The selected locale is invalid.'] },
    );
  });

  it('a valid request becomes the store\u2019s items, with the locale normalized (R-T1)', () => {
    const request = parseMenuSync(
      {
        domain: 'example.test',
        locale: 'zh-tw',
        menu_items: [
          { order: 1, name: 'Home', type: 'link', url: '/' },
          { order: 2, name: 'About', type: 'page', page_id: '7', url: '/ignored' },
        ],
      },
      ['en', 'zh_TW'],
    );
    assert.deepEqual(request.target, { domain: 'example.test' });
    assert.equal(request.locale, 'zh_TW');
    assert.deepEqual(
      request.items.map((item) => [item.type, item.pageId, item.url, item.target]),
      [
        ['link', null, '/', '_self'],
        ['page', 7, null, '_self'],
      ],
    );
  });
});

describe("an API key's input rules are the operation's schema (issue 35 #3)", () => {
  it('a content key must name its websites, reported on the field API v2 sends (website_ids)', () => {
    assert.deepEqual(
      findings(() => parse(apiKeyInput, { name: 'feed', content_only: true })),
      {
        website_ids: ['A content key must name the websites it reads.'],
      },
    );
    assert.deepEqual(
      findings(() => parse(apiKeyInput, { name: 'feed', content_only: true, website_ids: [] })),
      { website_ids: ['A content key must name the websites it reads.'] },
    );
    assert.equal(
      parse(apiKeyInput, { name: 'feed', content_only: true, website_ids: [3] }).content_only,
      true,
    );
    assert.equal(parse(apiKeyInput, { name: 'build' }).name, 'build');
  });
});
