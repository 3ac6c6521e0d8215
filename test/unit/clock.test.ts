// Versions of a row (its updated_at) always move forward: API v2's ETags are made of them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextVersion } from '../../src/domain/clock.js';

describe('nextVersion', () => {
  const at = (iso: string) => ({ now: () => new Date(iso) });
  it('is now when the clock has moved past the previous version', () => {
    assert.equal(
      nextVersion(at('2026-01-01T00:00:01.000Z'), '2026-01-01T00:00:00.000Z'),
      '2026-01-01T00:00:01.000Z',
    );
    assert.equal(nextVersion(at('2026-01-01T00:00:01.000Z'), null), '2026-01-01T00:00:01.000Z');
  });
  it('is a millisecond later than the previous version within one millisecond, or when the clock went back', () => {
    assert.equal(
      nextVersion(at('2026-01-01T00:00:00.000Z'), '2026-01-01T00:00:00.000Z'),
      '2026-01-01T00:00:00.001Z',
    );
    assert.equal(
      nextVersion(at('2025-12-31T00:00:00.000Z'), new Date('2026-01-01T00:00:00.000Z')),
      '2026-01-01T00:00:00.001Z',
    );
  });
});
