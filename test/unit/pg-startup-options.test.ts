// PostgreSQL startup options (`-c jit=off`, a test schema's search_path) reach the server whether or
// not the URL carries an `options` parameter of its own (pg lets the URL's replace the config's).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withStartupOptions } from '../../src/db/database.js';

describe('withStartupOptions', () => {
  it('adds the options to a URL without any', () => {
    assert.deepEqual(withStartupOptions('postgres://folio@db.internal:5432/folio', ['-c jit=off']), {
      connectionString: 'postgres://folio@db.internal:5432/folio',
      options: '-c jit=off',
    });
  });

  it("keeps the URL's own options first and moves them out of the URL", () => {
    const config = withStartupOptions(
      'postgres://folio@db.internal/folio?options=-c%20work_mem%3D8MB&sslmode=disable',
      ['-c jit=off', '-c search_path=t1'],
    );
    assert.equal(config.options, '-c work_mem=8MB -c jit=off -c search_path=t1');
    assert.equal(config.connectionString, 'postgres://folio@db.internal/folio?sslmode=disable');
  });
});
