import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ApiError } from '../../src/api/v1/envelope.js';
import {
  attributeName,
  boolean,
  integer,
  integerArray,
  isoDateTime,
  optional,
  requiredString,
  validate,
} from '../../src/api/v1/validation.js';

/** The errors object of the 422 that validating `input` throws. */
function errorsOf(schema: z.ZodType, input: unknown): unknown {
  try {
    validate(schema, input);
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.statusCode, 422);
    const body = error.body as { code: number; status: string; message: string; data: { errors: unknown } };
    assert.equal(body.code, 422);
    assert.equal(body.status, 'fail');
    assert.equal(body.message, 'Validation failed');
    return body.data.errors;
  }
  assert.fail('expected a validation error');
}

describe('validation messages (spec section 7, R-V1, R-V2)', () => {
  it('R-V1: the attribute is the field path with underscores read as spaces', () => {
    assert.equal(attributeName(['parent_id']), 'parent id');
    assert.equal(attributeName(['menu_items', 2, 'page_id']), 'menu items.2.page id');
  });

  it('required, for missing, null and blank values', () => {
    const schema = z.object({ name: requiredString(255), type: requiredString(), parent_id: integer() });
    assert.deepEqual(errorsOf(schema, { type: '   ', parent_id: null }), {
      name: ['The name field is required.'],
      type: ['The type field is required.'],
      parent_id: ['The parent id field is required.'],
    });
  });

  it('must be an integer, also for non-integral numbers; numeric strings are integers', () => {
    const schema = z.object({ a: integer(), b: integer(), c: integer() });
    assert.deepEqual(errorsOf(schema, { a: 'abc', b: 1.5, c: '7' }), {
      a: ['The a must be an integer.'],
      b: ['The b must be an integer.'],
    });
    assert.deepEqual(validate(z.object({ c: integer() }), { c: ' 7 ' }), { c: 7 });
  });

  it('must be an array, and item paths in the key and the attribute', () => {
    const schema = z.object({ tags: integerArray() });
    assert.deepEqual(errorsOf(schema, { tags: '1,2' }), { tags: ['The tags must be an array.'] });
    assert.deepEqual(errorsOf(schema, { tags: [1, 'x'] }), { 'tags.1': ['The tags.1 must be an integer.'] });
  });

  it('may not be greater than n characters', () => {
    const schema = z.object({ name: requiredString(255), type: requiredString(50) });
    assert.deepEqual(errorsOf(schema, { name: 'x'.repeat(256), type: 'y'.repeat(51) }), {
      name: ['The name may not be greater than 255 characters.'],
      type: ['The type may not be greater than 50 characters.'],
    });
  });

  it('the selected x is invalid, for a value outside a list', () => {
    const schema = z.object({ sort: optional(z.enum(['id', 'title'])) });
    assert.deepEqual(errorsOf(schema, { sort: 'password' }), { sort: ['The selected sort is invalid.'] });
  });

  it('must be a string', () => {
    assert.deepEqual(errorsOf(z.object({ title: z.string() }), { title: 5 }), {
      title: ['The title must be a string.'],
    });
  });

  it('R-G5: booleans in every accepted form; anything else must be true or false', () => {
    const schema = z.object({ flag: boolean() });
    for (const value of [true, 'yes', 'off', 1, '0']) validate(schema, { flag: value });
    assert.deepEqual(errorsOf(schema, { flag: 'maybe' }), {
      flag: ['The flag field must be true or false.'],
    });
  });

  it('dates must be ISO 8601', () => {
    const schema = z.object({ published_at: isoDateTime() });
    validate(schema, { published_at: '2026-11-23T10:00:00Z' });
    validate(schema, { published_at: '2026-11-23' });
    assert.deepEqual(errorsOf(schema, { published_at: 'next tuesday' }), {
      published_at: ['The published at is not a valid date.'],
    });
    assert.deepEqual(errorsOf(schema, { published_at: '2026-13-45T99:00:00Z' }), {
      published_at: ['The published at is not a valid date.'],
    });
  });

  it('optional fields treat null and empty strings as absent', () => {
    const schema = z.object({ page: optional(integer()).default(1) });
    assert.deepEqual(validate(schema, { page: null }), { page: 1 });
    assert.deepEqual(validate(schema, { page: '' }), { page: 1 });
  });

  it('custom messages name the attribute', () => {
    const schema = z.object({
      website_id: z.number().refine(() => false, { message: 'The selected :attribute is invalid.' }),
    });
    assert.deepEqual(errorsOf(schema, { website_id: 9 }), {
      website_id: ['The selected website id is invalid.'],
    });
  });
});
