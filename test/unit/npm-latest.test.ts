// The update check's newest version of the core (`GET /api/v2/system/health`, the dashboard): asked of
// the registry for the installation's release package only. npm's `folio` is another project (a test
// runner, 0.3.18 on 2026-11-26): without FOLIO_RELEASE_PACKAGE the answer is "not known", and npm is
// not run at all.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NpmPackageManager } from '../../src/domain/system/npm.js';
import { CORE_PACKAGE } from '../../src/domain/system/updates.js';

describe('NpmPackageManager.latestVersion', () => {
  let dir: string;
  let npm: string;
  const calls = () =>
    fs.existsSync(path.join(dir, 'calls')) ? fs.readFileSync(path.join(dir, 'calls'), 'utf8') : '';
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-npm-latest-'));
    // A stand-in for npm: writes down its arguments and answers a version.
    npm = path.join(dir, 'npm');
    fs.writeFileSync(npm, `#!/bin/sh\necho "$@" >> "${path.join(dir, 'calls')}"\necho 2.3.4\n`, {
      mode: 0o755,
    });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('without a release package the core\u2019s newest version is not known, and npm is not asked', async () => {
    const manager = new NpmPackageManager({ installDir: dir, command: npm });
    assert.equal(await manager.latestVersion(CORE_PACKAGE), null);
    assert.equal(calls(), '');
  });

  it('with one, the registry is asked for that package, never for `folio`', async () => {
    const manager = new NpmPackageManager({
      installDir: dir,
      command: npm,
      releasePackage: '@acme/folio-cms',
    });
    assert.equal(await manager.latestVersion(CORE_PACKAGE), '2.3.4');
    assert.equal(calls().trim(), 'view @acme/folio-cms version --no-update-notifier');
  });
});
