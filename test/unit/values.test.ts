import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flag, parseBoolean, toIso } from '../../src/domain/values.js';

describe('values', () => {
  it('R-G5: reads every boolean form, case-insensitively', () => {
    for (const value of [true, 1, '1', 'true', 'TRUE', 'on', 'yes', ' Yes '])
      assert.equal(parseBoolean(value), true);
    for (const value of [false, 0, '0', 'false', 'off', 'no', 'NO']) assert.equal(parseBoolean(value), false);
  });

  it('R-G5: anything else is not a boolean', () => {
    for (const value of [2, -1, '', 'maybe', null, undefined, [], {}, '01'])
      assert.equal(parseBoolean(value), undefined);
  });

  it('timestamps come out as ISO 8601 UTC with Z, from either dialect', () => {
    assert.equal(toIso('2026-03-04T05:06:07.000Z'), '2026-03-04T05:06:07.000Z');
    assert.equal(toIso(new Date(Date.UTC(2026, 2, 4, 5, 6, 7))), '2026-03-04T05:06:07.000Z');
    assert.equal(toIso('2026-03-04T07:06:07+02:00'), '2026-03-04T05:06:07.000Z');
    assert.equal(toIso(null), null);
  });

  it('flags read as booleans from either dialect', () => {
    assert.equal(flag(1), true);
    assert.equal(flag(true), true);
    assert.equal(flag(0), false);
    assert.equal(flag(false), false);
  });
});
