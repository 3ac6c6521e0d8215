// `npm start` builds only when the sources changed since the last build (issue 36 #7): prestart runs
// scripts/build-if-changed.mjs, tried here on a small project whose `build` counts its runs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

const SCRIPT = path.resolve('scripts', 'build-if-changed.mjs');

describe('issue 36 #7: npm start builds only when the sources changed', () => {
  let dir: string;
  const builds = () => Number(fs.readFileSync(path.join(dir, 'builds'), 'utf8'));
  const start = (env: Record<string, string> = {}) =>
    execFileSync(process.execPath, [SCRIPT], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...env },
      stdio: 'pipe',
    });

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-build-'));
    fs.mkdirSync(path.join(dir, 'src'));
    fs.mkdirSync(path.join(dir, 'admin', 'src'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(dir, 'admin', 'src', 'main.tsx'), 'export {};\n');
    fs.writeFileSync(path.join(dir, 'builds'), '0');
    // The build: counts itself and writes the outputs start checks for.
    fs.writeFileSync(
      path.join(dir, 'build.mjs'),
      `import fs from 'node:fs';
fs.writeFileSync('builds', String(Number(fs.readFileSync('builds', 'utf8')) + 1));
fs.mkdirSync('dist/admin', { recursive: true });
fs.writeFileSync('dist/cli.js', '');
fs.writeFileSync('dist/admin/manifest.json', '{}');
`,
    );
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ name: 'fake', private: true, scripts: { build: 'node build.mjs' } }),
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('issue 36 #7: prestart runs the check, not a build', () => {
    const scripts = (
      JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    assert.equal(scripts.prestart, 'node scripts/build-if-changed.mjs');
  });

  it('issue 36 #7: builds a fresh clone, skips an unchanged tree, rebuilds after an edit, an addition or a lost output', () => {
    start();
    assert.equal(builds(), 1, 'a fresh clone (no dist/) is built');
    start();
    start();
    assert.equal(builds(), 1, 'nothing changed: no build');
    const file = path.join(dir, 'src', 'a.ts');
    fs.writeFileSync(file, 'export const a = 2;\n');
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
    start();
    assert.equal(builds(), 2, 'an edited source');
    fs.writeFileSync(path.join(dir, 'admin', 'src', 'new.ts'), 'export {};\n');
    start();
    assert.equal(builds(), 3, 'a new panel source');
    start();
    assert.equal(builds(), 3);
    fs.rmSync(path.join(dir, 'dist', 'cli.js'));
    start();
    assert.equal(builds(), 4, 'an output went missing');
    start({ FOLIO_BUILD: 'always' });
    assert.equal(builds(), 5, 'FOLIO_BUILD=always');
  });
});
