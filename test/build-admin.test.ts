// scripts/build-admin.mjs rebuilds the admin panel while servers (and other test files' browsers) use
// dist/admin: no file a served page names may be missing, even for a moment, and the manifest is
// always whole.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ensureAdminBuilt } from './support/browser.js';

const OUT = path.resolve('dist', 'admin');

interface Manifest {
  js: string;
  css: string;
  /** The build's files (in assets/); written since builds stopped emptying the folder. */
  files: string[];
}

const readManifest = (): Manifest => JSON.parse(fs.readFileSync(path.join(OUT, 'manifest.json'), 'utf8'));

/** Runs the build, checking every few milliseconds meanwhile; what it found missing or unreadable. */
async function rebuildWatching(files: string[]): Promise<string[]> {
  const problems = new Set<string>();
  const child = spawn(process.execPath, ['scripts/build-admin.mjs'], { stdio: 'ignore' });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    for (const file of files) {
      if (!fs.existsSync(path.join(OUT, 'assets', file))) problems.add(`${file} missing`);
    }
    try {
      readManifest();
    } catch (error) {
      problems.add(`manifest.json: ${(error as Error).message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  assert.equal(await exited, 0, 'the build succeeded');
  return [...problems];
}

describe('the admin panel rebuilt while it is served (scripts/build-admin.mjs)', () => {
  it('keeps every file the current build names in place throughout, and the manifest whole', async () => {
    ensureAdminBuilt();
    const before = readManifest();
    const served = fs.readdirSync(path.join(OUT, 'assets'));
    assert.ok(served.includes(before.js) && served.includes(before.css));
    assert.deepEqual(await rebuildWatching(served), []);
    // The same sources give the same files, all still there, and nothing left from the staging folder.
    const after = readManifest();
    assert.deepEqual([after.js, after.css], [before.js, before.css]);
    assert.ok(after.files.includes(after.js) && after.files.includes(after.css));
    for (const file of after.files) assert.ok(fs.existsSync(path.join(OUT, 'assets', file)), file);
    assert.deepEqual(
      fs.readdirSync(OUT).filter((name) => name.startsWith('.build-') || name.endsWith('.tmp')),
      [],
    );
  });
});
