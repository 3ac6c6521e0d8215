// The update service: input rules, the cross-node lock (spec 3.2, 8), the steps of a run, and the real
// npm package manager run offline against packed fixture packages (spec 4.6, R-U1..R-U3).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { migrate } from '../../src/db/database.js';
import { toIso } from '../../src/domain/values.js';
import { summarize } from '../../src/domain/system/npm.js';
import {
  ALLOWED_PACKAGES_SETTING,
  LOCK_EXPIRY_MS,
  UpdateService,
  UpdateStepError,
  isValidPackageName,
  isValidVersion,
  itemFor,
  parseUpdateRequest,
} from '../../src/domain/system/updates.js';
import type { PackageManager } from '../../src/domain/system/updates.js';
import { createServices } from '../../src/services.js';
import type { Services } from '../../src/services.js';
import { createTestContext, manualClock, testConfig } from '../support/harness.js';
import type { TestContext } from '../support/harness.js';
import { GatedPackageManager, collectingLogger, createNpmFixture } from '../support/npm-fixture.js';
import type { NpmFixture } from '../support/npm-fixture.js';

function updateService(services: Services, packageManager: PackageManager, heartbeatMs?: number) {
  return new UpdateService({
    db: services.database.db,
    clock: services.clock,
    cache: services.cache,
    settings: services.settings,
    packageManager,
    migrate: () => migrate(services.database),
    heartbeatMs,
    releasePackage: '@folio-test/release',
  });
}

async function stateOf(services: Services, item: string) {
  return services.database.db
    .selectFrom('update_state')
    .select(['updating', 'locked_at', 'lock_owner', 'version'])
    .where('item', '=', item)
    .executeTakeFirst();
}

describe('update requests (R-U1, R-U3)', () => {
  it('accepts npm package names and rejects anything else', () => {
    for (const name of ['folio', 'folio-theme-blue', '@folio/theme.blue', 'a_b~c', '9lives']) {
      assert.ok(isValidPackageName(name), name);
    }
    for (const name of [
      '',
      'Folio',
      '-rf',
      '.hidden',
      '_private',
      '../etc',
      'a/b',
      '@scope',
      '@scope/',
      '@scope/../x',
      'a b',
      'name@1.0.0',
      'node_modules',
      'x'.repeat(215),
    ]) {
      assert.ok(!isValidPackageName(name), name);
    }
  });

  it('accepts semver versions and dist-tags and rejects anything else', () => {
    for (const version of ['1.2.3', '0.0.0-beta.1', '1.0.0+build.5', 'latest', 'next', 'canary-2']) {
      assert.ok(isValidVersion(version), version);
    }
    for (const version of [
      '1.2',
      '01.2.3',
      'v1.2.3',
      'v2',
      '^1.0.0',
      '>=1',
      'file:../x.tgz',
      '1.0.0 || 2',
      '-x',
    ]) {
      assert.ok(!isValidVersion(version), version);
    }
  });

  it('parses the trigger input: package required, version defaults to latest', () => {
    assert.deepEqual(parseUpdateRequest({ package: ' folio ' }), { packageName: 'folio', version: 'latest' });
    assert.deepEqual(parseUpdateRequest({ package: 'folio', version: '' }), {
      packageName: 'folio',
      version: 'latest',
    });
    assert.deepEqual(parseUpdateRequest({ package: 'folio', version: null }), {
      packageName: 'folio',
      version: 'latest',
    });
    assert.deepEqual(parseUpdateRequest({ package: 'folio', version: '2.0.0' }), {
      packageName: 'folio',
      version: '2.0.0',
    });
    for (const input of [
      {},
      { package: '' },
      { package: '   ' },
      { package: 5 },
      { package: ['folio'] },
      { package: 'folio', version: 2 },
      { package: 'folio', version: '../../x' },
    ]) {
      assert.equal(parseUpdateRequest(input), null, JSON.stringify(input));
    }
  });

  it('names the lock item: core for the core package, the package name otherwise (R-U3)', () => {
    assert.equal(itemFor('folio'), 'core');
    assert.equal(itemFor('folio-theme-blue'), 'folio-theme-blue');
  });

  it("summarizes npm's error output without the nodedir warning", () => {
    const lines = [
      'npm warn Unknown user config "nodedir". This will stop working in the next major version of npm.',
      'npm error code E404',
      'npm error 404 Not Found - GET https://user:secret@registry.example/x - Not found',
      'npm error A complete log of this run can be found in: /root/.npm/_logs/x.log',
    ];
    assert.equal(
      summarize(lines),
      'E404: 404 Not Found - GET https://[redacted]@registry.example/x - Not found',
    );
    assert.equal(summarize(['something broke']), 'something broke');
    assert.equal(summarize([]), 'no error output');
  });
});

describe('update lock (spec 3.2, 8)', { timeout: 60_000 }, () => {
  let ctx: TestContext;
  let other: Services;
  const clock = manualClock();

  before(async () => {
    ctx = await createTestContext({ clock });
    // A second app node: its own services (pool, cache, update service) over the same database.
    other = createServices(testConfig(ctx.database.url, { releasePackage: '@folio-test/release' }), {
      pgSchema: ctx.database.pgSchema,
      clock,
      warn: () => undefined,
      packageManager: new GatedPackageManager(),
    });
    // The packages these tests update besides the core, allowed by name (issue 36 #1).
    await ctx.services.settings.set(
      ALLOWED_PACKAGES_SETTING,
      'long-runner,broken-pkg,odd-pkg,migrating-pkg,queued-a,queued-b',
    );
  });
  after(async () => {
    await other.close();
    await ctx.close();
  });

  it('of many simultaneous acquisitions on two nodes, exactly one wins', async () => {
    const nodes = [ctx.services.updates, other.updates];
    for (let round = 0; round < 5; round++) {
      const item = `race-${round}`;
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => nodes[i % 2]!.acquire(item)));
      const winners = results.filter((lock) => lock !== null);
      assert.equal(winners.length, 1, `round ${round}`);
      // A lock that is held stays held.
      assert.equal(await other.updates.acquire(item), null);
      assert.ok(await ctx.services.updates.release(winners[0]!));
      assert.notEqual(await other.updates.acquire(item), null, 'a released lock can be taken again');
    }
  });

  it('takes over a lock older than 3 minutes, not one of exactly 3 minutes', async () => {
    const first = await ctx.services.updates.acquire('stall');
    assert.ok(first);
    clock.advance(LOCK_EXPIRY_MS);
    assert.equal(await other.updates.acquire('stall'), null, 'exactly 3 minutes is not stalled yet');
    clock.advance(1);
    const second = await other.updates.acquire('stall');
    assert.ok(second, 'a lock older than 3 minutes is taken over');
    assert.equal((await stateOf(ctx.services, 'stall'))?.lock_owner, second.owner);
    // The stalled run comes back: it can neither refresh nor release the new run's lock.
    assert.equal(await ctx.services.updates.refresh(first), false);
    assert.equal(await ctx.services.updates.release(first), false);
    assert.equal(await ctx.services.updates.progress('stall'), 1);
    assert.ok(await other.updates.release(second));
    assert.equal(await ctx.services.updates.progress('stall'), 0);
  });

  it('a running update refreshes its lock, so a long run is never taken for a stalled one', async () => {
    const gated = new GatedPackageManager();
    const service = updateService(ctx.services, gated, 20);
    const running = service.trigger({ package: 'long-runner' });
    await gated.started();
    for (let i = 0; i < 4; i++) {
      clock.advance(LOCK_EXPIRY_MS - 60_000);
      const lockedAt = async () => toIso((await stateOf(ctx.services, 'long-runner'))?.locked_at ?? null);
      const previous = await lockedAt();
      await waitFor(async () => (await lockedAt()) !== previous);
      assert.equal(await lockedAt(), clock.now().toISOString(), 'the lock carries the time of the refresh');
      assert.equal((await other.updates.trigger({ package: 'long-runner' })).outcome, 'busy');
    }
    gated.open();
    assert.deepEqual(await running, { outcome: 'updated', version: '9.8.7' });
    assert.equal(gated.installs.length, 1);
  });

  it('the lock is released after a failed run, and the failure reason is kept', async () => {
    const failing: PackageManager = {
      install: async () => {
        throw new UpdateStepError('npm install exited with code 1: E404: not found');
      },
      publishAssets: async () => 0,
      installedVersion: async () => '1.0.0',
    };
    const service = updateService(ctx.services, failing);
    assert.deepEqual(await service.trigger({ package: 'broken-pkg' }), {
      outcome: 'failed',
      reason: 'npm install exited with code 1: E404: not found',
    });
    const state = await stateOf(ctx.services, 'broken-pkg');
    assert.equal(Boolean(state?.updating), false);
    assert.equal(state?.lock_owner, null);
    assert.equal(await service.progress('broken-pkg'), 0);
  });

  it('an unexpected error becomes a reason without details, and the lock is released', async () => {
    const log = collectingLogger();
    const service = updateService(ctx.services, {
      install: async () => {
        throw new Error('secret connection string postgres://u:p@h/db');
      },
      publishAssets: async () => 0,
      installedVersion: async () => '1.0.0',
    });
    assert.deepEqual(await service.trigger({ package: 'odd-pkg' }, log), {
      outcome: 'failed',
      reason: 'internal error (see the log)',
    });
    assert.ok(log.lines.includes('update: failed with an unexpected error'));
    assert.equal(await service.progress('odd-pkg'), 0);
  });

  it('a failing migration step fails the update without leaking SQL', async () => {
    const service = new UpdateService({
      db: ctx.services.database.db,
      clock,
      cache: ctx.services.cache,
      settings: ctx.services.settings,
      packageManager: new GatedPackageManager(),
      migrate: async () => {
        throw new Error('syntax error at or near "ALTER TABLE"');
      },
      releasePackage: '@folio-test/release',
    });
    const gated = service.packageManager as GatedPackageManager;
    const running = service.trigger({ package: 'migrating-pkg' });
    await gated.started();
    gated.open();
    assert.deepEqual(await running, {
      outcome: 'failed',
      reason: 'database migrations failed (see the log)',
    });
    assert.equal(await service.progress('migrating-pkg'), 0);
  });

  it('the core update takes a backup before npm runs; a failed backup installs nothing', async () => {
    const steps: string[] = [];
    const recording: PackageManager = {
      install: async () => {
        steps.push('install');
      },
      publishAssets: async () => 0,
      installedVersion: async () => '9.9.9',
    };
    const options = {
      db: ctx.services.database.db,
      clock,
      cache: ctx.services.cache,
      settings: ctx.services.settings,
      packageManager: recording,
      migrate: async () => [],
      releasePackage: '@folio-test/release',
    };
    const log = collectingLogger();
    const backedUp = new UpdateService({
      ...options,
      backup: async () => {
        steps.push('backup');
        return '/var/backups/folio-backup.sqlite';
      },
    });
    assert.deepEqual(await backedUp.trigger({ package: '@folio-test/release' }, log), {
      outcome: 'updated',
      version: '9.9.9',
    });
    assert.deepEqual(steps, ['backup', 'install']);
    assert.ok(log.lines.includes('update: database backed up to /var/backups/folio-backup.sqlite'));

    steps.length = 0;
    const failing = new UpdateService({
      ...options,
      backup: async () => {
        steps.push('backup');
        throw new Error('disk full');
      },
    });
    assert.deepEqual(await failing.trigger({ package: '@folio-test/release' }), {
      outcome: 'failed',
      reason: 'the backup before the update failed (see the log); nothing was installed',
    });
    assert.deepEqual(steps, ['backup']);
  });

  it('releaseAll interrupts the runs of this process and frees their locks at once', async () => {
    const gated = new GatedPackageManager();
    const service = updateService(ctx.services, gated);
    const running = service.trigger({ package: 'folio' });
    await gated.started();
    assert.equal(await other.updates.progress('core'), 1);
    assert.equal(await service.releaseAll(), 1);
    assert.equal(await other.updates.progress('core'), 0, 'another node sees the lock free at once');
    assert.deepEqual(await running, { outcome: 'failed', reason: 'interrupted' });
    assert.deepEqual(await service.trigger({ package: 'folio' }), {
      outcome: 'failed',
      reason: 'the server is stopping',
    });
    // Another node can update now, without waiting 3 minutes.
    const lock = await other.updates.acquire('core');
    assert.ok(lock);
    await other.updates.release(lock);
  });

  it('runs on one node go one after the other (npm never runs twice in one directory)', async () => {
    const gated = new GatedPackageManager();
    const service = updateService(ctx.services, gated);
    const a = service.trigger({ package: 'queued-a' });
    const b = service.trigger({ package: 'queued-b' });
    await gated.started(1);
    const waiting = gated.installs[0] === 'queued-a@latest' ? 'queued-b' : 'queued-a';
    // Once the second run holds its lock it goes straight to its install unless it queues: by the time
    // a read after that sees the lock, an install that did not wait would have been called.
    await waitFor(async () => (await service.progress(waiting)) === 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(gated.installs.length, 1, 'the second run waits for the first');
    gated.open();
    await gated.started(2);
    gated.open();
    assert.deepEqual(await Promise.all([a, b]), [
      { outcome: 'updated', version: '9.8.7' },
      { outcome: 'updated', version: '9.8.7' },
    ]);
  });
});

describe('npm package manager (real npm, offline)', { timeout: 120_000 }, () => {
  let fixture: NpmFixture;

  before(async () => {
    fixture = await createNpmFixture({
      'folio-theme-fixture': [
        { version: '1.0.0', assets: { 'old.css': 'old', 'css/theme.css': 'v1' } },
        { version: '2.0.0', assets: { 'css/theme.css': 'v2', 'img/logo.svg': '<svg/>' } },
      ],
      'folio-plugin-bare': [{ version: '0.3.0' }],
    });
  });
  after(() => fixture.cleanup());

  const context = () => ({ log: collectingLogger(), signal: new AbortController().signal });

  it('installs a version, publishes its public assets and reports the installed version', async () => {
    const npm = fixture.packageManager();
    const ctx = context();
    await npm.install('folio-theme-fixture', '1.0.0', ctx);
    assert.equal(await npm.installedVersion('folio-theme-fixture'), '1.0.0');
    assert.equal(await npm.publishAssets('folio-theme-fixture', ctx), 2);
    const vendor = path.join(fixture.installDir, 'public', 'vendor', 'folio-theme-fixture');
    assert.equal(fs.readFileSync(path.join(vendor, 'css', 'theme.css'), 'utf8'), 'v1');
    assert.ok(
      ctx.log.lines.some((line) => /added 1 package/.test(line)),
      ctx.log.lines.join('\n'),
    );

    await npm.install('folio-theme-fixture', 'latest', ctx);
    assert.equal(await npm.installedVersion('folio-theme-fixture'), '2.0.0');
    assert.equal(await npm.publishAssets('folio-theme-fixture', ctx), 2);
    assert.equal(fs.readFileSync(path.join(vendor, 'css', 'theme.css'), 'utf8'), 'v2');
    assert.ok(!fs.existsSync(path.join(vendor, 'old.css')), 'assets the new version dropped are gone');
    assert.deepEqual(
      fs.readdirSync(path.join(fixture.installDir, 'public', 'vendor')),
      ['folio-theme-fixture'],
      'no staging folder is left behind',
    );
  });

  it('publishes nothing for a package without public assets', async () => {
    const npm = fixture.packageManager();
    await npm.install('folio-plugin-bare', 'latest', context());
    assert.equal(await npm.publishAssets('folio-plugin-bare', context()), 0);
    assert.equal(await npm.installedVersion('folio-plugin-bare'), '0.3.0');
  });

  it("fails with npm's reason when the install fails", async () => {
    const npm = fixture.packageManager();
    await assert.rejects(npm.install('folio-theme-fixture', '9.9.9', context()), (error: Error) => {
      assert.ok(error instanceof UpdateStepError);
      assert.match(error.message, /^npm install exited with code 1: ENOTCACHED: /);
      assert.doesNotMatch(error.message, /nodedir/);
      return true;
    });
  });

  it('reports a package that is not installed', async () => {
    await assert.rejects(
      fixture.packageManager().installedVersion('not-installed-here'),
      /^UpdateStepError: not-installed-here is not installed after npm install$/,
    );
  });

  it('kills npm and everything it started when the time limit runs out', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-slow-npm-'));
    const pids = path.join(dir, 'pids');
    const script = path.join(dir, 'slow-npm.mjs');
    fs.writeFileSync(
      script,
      `#!${process.execPath}
import { spawn } from 'node:child_process';
import fs from 'node:fs';
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
fs.writeFileSync(${JSON.stringify(pids)}, process.pid + ' ' + child.pid);
console.log('installing slowly');
setInterval(() => {}, 1000);
`,
    );
    fs.chmodSync(script, 0o755);
    const npm = fixture.packageManager({ command: script, timeoutMs: 700 });
    const ctx = context();
    const started = Date.now();
    await assert.rejects(
      npm.install('folio-theme-fixture', '1.0.0', ctx),
      /npm install timed out after 0.7s/,
    );
    assert.ok(Date.now() - started < 10_000);
    assert.ok(ctx.log.lines.includes('installing slowly'), 'the output is logged');
    const [parent, child] = fs.readFileSync(pids, 'utf8').split(' ').map(Number);
    await waitFor(async () => !alive(parent!) && !alive(child!));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('says so when npm cannot be started', async () => {
    const npm = fixture.packageManager({ command: path.join(fixture.root, 'no-such-npm') });
    await assert.rejects(
      npm.install('folio-theme-fixture', '1.0.0', context()),
      /could not be started \(ENOENT\)/,
    );
  });
});

/** Whether a process runs (a zombie waiting for its parent to reap it does not). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
