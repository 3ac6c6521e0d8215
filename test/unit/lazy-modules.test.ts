// Packages most processes never use are loaded on first use, not at start (issue 42: start-up time
// and memory; src/lib/lazy-module.ts). A start of the app on SQLite, and its first page, load none
// of them; the tests of feeds, Markdown, revisions, imports and comments use each of them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';

// Run from the project's folder, as every test is (the fast lane's tests are compiled elsewhere).
const FIXTURE = path.resolve('test/fixtures/startup-modules.ts');

const LOADED_ON_FIRST_USE = [
  'pg', // the PostgreSQL driver, on a SQLite site
  'cheerio', // HTML parsing of writes (comments, plain text of excerpts)
  'markdown-it', // Markdown posts
  'diff', // comparing revisions
  'feed', // RSS, Atom and JSON feeds
  'saxes', // WordPress import
  'tar-stream', // export, import and backups
  'cli-progress', // the CLI's progress bars
];

describe('start-up loads only what it uses (issue 42)', () => {
  it('a SQLite start and its first page load none of the packages kept for first use', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', FIXTURE], {
      timeout: 60_000,
    });
    const { installed, status, packages } = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      installed: boolean;
      status: number;
      packages: string[];
    };
    assert.ok(installed, 'installed on its first start');
    assert.equal(status, 200, 'the home page answered');
    // The probe itself works: packages every start needs are seen, imported and required alike.
    for (const needed of ['fastify', 'kysely', 'better-sqlite3', 'zod']) {
      assert.ok(packages.includes(needed), `${needed} is loaded at start (seen: ${packages.join(', ')})`);
    }
    assert.deepEqual(
      LOADED_ON_FIRST_USE.filter((name) => packages.includes(name)),
      [],
      'loaded at start though kept for first use',
    );
  });
});
