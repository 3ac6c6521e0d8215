// POST /api/v1/update and /api/v1/update/progress through the whole stack (spec 4.6, 3.2, section 7;
// R-A2, R-A3, R-U1..R-U3). The successful and failing runs use the real npm, offline, on packages
// packed at test time; runs that must stay in progress use a package manager that waits for a gate.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, beforeEach, describe, it } from 'node:test';
import { migrate } from '../../src/db/database.js';
import { ALLOWED_PACKAGES_SETTING, LOCK_EXPIRY_MS, UpdateService } from '../../src/domain/system/updates.js';
import type { PackageManager } from '../../src/domain/system/updates.js';
import { buildApp } from '../../src/app.js';
import { createServices } from '../../src/services.js';
import type { Services } from '../../src/services.js';
import { createTestContext, manualClock, testConfig } from '../support/harness.js';
import type { TestContext, TestUser } from '../support/harness.js';
import { GatedPackageManager, createNpmFixture } from '../support/npm-fixture.js';
import type { NpmFixture } from '../support/npm-fixture.js';

/** Gives the app's services an update service over another package manager. */
function useUpdates(
  services: Services,
  packageManager: PackageManager,
  releasePackage: string | null = '@folio-test/release',
): UpdateService {
  services.updates = new UpdateService({
    db: services.database.db,
    clock: services.clock,
    cache: services.cache,
    settings: services.settings,
    packageManager,
    migrate: () => migrate(services.database),
    // The core's release package (FOLIO_RELEASE_PACKAGE): without one the core is not updated.
    releasePackage,
  });
  return services.updates;
}

/** Update bodies deviate from the envelope (spec 2.1). */
interface UpdateBody {
  status: string | number;
  message: string;
  version?: string;
  progress?: number;
}

const IN_PROGRESS = { status: 'fail', message: 'Core update in progress' };
const INVALID = { status: 'fail', message: 'Invalid update request' };
const DISABLED = { status: 'fail', message: 'Core update disabled' };
const progressBody = (progress: number) => ({
  status: 'success',
  message: 'Successfully fetched updating progress',
  progress,
});

describe('updates API', { timeout: 120_000 }, () => {
  let ctx: TestContext;
  let admin: TestUser;
  let member: TestUser;
  let fixture: NpmFixture;
  const clock = manualClock(new Date());

  before(async () => {
    ctx = await createTestContext({ clock });
    await ctx.enableApi();
    admin = await ctx.createUser({ admin: true });
    member = await ctx.createUser();
    fixture = await createNpmFixture({
      folio: [{ version: '1.0.0' }, { version: '1.1.0', assets: { 'js/admin.js': 'console.log(1)' } }],
      'folio-theme-fixture': [
        { version: '1.0.0', assets: { 'old.css': 'old' } },
        { version: '2.0.0', assets: { 'css/theme.css': 'body{}' } },
      ],
    });
  });
  after(async () => {
    await ctx.services.updates.releaseAll();
    await ctx.close();
    fixture.cleanup();
  });
  beforeEach(async () => {
    await ctx.services.settings.delete('disable_core_update');
    // The packages besides the core that an administrator allowed (issue 36 #1).
    await ctx.services.settings.set(
      ALLOWED_PACKAGES_SETTING,
      'folio-theme-fixture, @folio/theme-blue, folio-theme-x, folio-no-such-plugin',
    );
  });

  const trigger = async (payload: Record<string, unknown>) => {
    const response = await ctx.request({ method: 'POST', url: '/api/v1/update', payload });
    const body = response.json<UpdateBody>();
    return { status: response.statusCode, body, keys: Object.keys(body) };
  };
  const progress = async (payload: Record<string, unknown>) => {
    const response = await ctx.request({ method: 'POST', url: '/api/v1/update/progress', payload });
    return { status: response.statusCode, body: response.json<UpdateBody>() };
  };
  const coreProgress = async () => (await progress({ api_token: admin.token, itemId: 'core' })).body;

  describe('order of the checks (R-U1, R-A2)', () => {
    let gated: GatedPackageManager;

    before(() => {
      gated = new GatedPackageManager();
      useUpdates(ctx.services, gated);
    });

    it('R-A2: the global switch covers both endpoints', async () => {
      await ctx.services.settings.set('enable_api_access', '0');
      try {
        const disabled = { status: 403, message: 'API access is disabled' };
        assert.deepEqual(await trigger({ api_token: admin.token, package: 'folio' }), {
          status: 403,
          body: disabled,
          keys: ['status', 'message'],
        });
        const checked = await progress({ api_token: admin.token, itemId: 'core' });
        assert.deepEqual(checked, { status: 403, body: disabled });
      } finally {
        await ctx.services.settings.set('enable_api_access', '1');
      }
    });

    it('R-U1: no or a wrong token is 401, before anything else', async () => {
      await ctx.services.settings.set('disable_core_update', '1');
      for (const payload of [{}, { api_token: 'folio_nope' }, { package: 'folio' }]) {
        assert.deepEqual(await trigger(payload), {
          status: 401,
          body: { status: 'fail', message: 'Invalid token' },
          keys: ['status', 'message'],
        });
      }
    });

    it('R-U1: a user who is not an admin gets 403 Admin access required, even when updates are off', async () => {
      await ctx.services.settings.set('disable_core_update', 'true');
      const { status, body } = await trigger({ api_token: member.token, package: 'folio' });
      assert.equal(status, 403);
      assert.deepEqual(body, { status: 'fail', message: 'Admin access required' });
      assert.deepEqual(gated.installs, []);
    });

    it('R-U1: disable_core_update gives 403 Core update disabled, before a missing package', async () => {
      for (const value of ['1', 'true', 'on', 'yes']) {
        await ctx.services.settings.set('disable_core_update', value);
        assert.deepEqual(await trigger({ api_token: admin.token, package: 'folio' }), {
          status: 403,
          body: DISABLED,
          keys: ['status', 'message'],
        });
        assert.deepEqual((await trigger({ api_token: admin.token })).body, DISABLED);
      }
      await ctx.services.settings.set('disable_core_update', '0');
      assert.deepEqual((await trigger({ api_token: admin.token })).body, INVALID, 'false means enabled');
      assert.deepEqual(gated.installs, []);
    });

    it('R-U1: a missing or invalid package, or an invalid version, is 400 Invalid update request', async () => {
      const payloads = [
        {},
        { package: '' },
        { package: '   ' },
        { package: 42 },
        { package: ['folio'] },
        { package: 'Not A Package' },
        { package: '--global' },
        { package: '../../etc' },
        { package: 'folio', version: '^1.0.0' },
        { package: 'folio', version: 'file:/tmp/evil.tgz' },
        { package: 'folio', version: 3 },
      ];
      for (const payload of payloads) {
        assert.deepEqual(
          await trigger({ api_token: admin.token, ...payload }),
          { status: 400, body: INVALID, keys: ['status', 'message'] },
          JSON.stringify(payload),
        );
      }
      assert.deepEqual(gated.installs, []);
      assert.deepEqual(await coreProgress(), progressBody(0));
    });

    it('R-U1: while an update runs, a missing package is still 400 and disabled still 403; a valid one is 409', async () => {
      const running = trigger({ api_token: admin.token, package: 'folio' });
      await gated.started();
      assert.deepEqual((await trigger({ api_token: admin.token })).body, INVALID);
      assert.deepEqual(await trigger({ api_token: admin.token, package: 'folio', version: '2.0.0' }), {
        status: 409,
        body: IN_PROGRESS,
        keys: ['status', 'message'],
      });
      await ctx.services.settings.set('disable_core_update', '1');
      assert.deepEqual((await trigger({ api_token: admin.token, package: 'folio' })).body, DISABLED);
      await ctx.services.settings.delete('disable_core_update');
      gated.open();
      assert.deepEqual(await running, {
        status: 200,
        body: { status: 'success', message: 'Successfully updated', version: '9.8.7' },
        keys: ['status', 'message', 'version'],
      });
      assert.deepEqual(gated.installs, ['folio@latest'], 'the rejected trigger never ran');
    });

    it("R-A4: in basic mode (svc_api_update_should_auth) the trigger takes an admin's Basic credentials", async () => {
      await ctx.services.settings.setMany({ svc_api_update_should_auth: 'basic', disable_core_update: '1' });
      try {
        const send = (email: string, password: string) =>
          ctx.request({
            method: 'POST',
            url: '/api/v1/update',
            headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
            payload: { package: 'folio' },
          });
        assert.deepEqual((await send(admin.email, admin.password)).json(), DISABLED);
        assert.equal((await send(admin.email, 'wrong password')).statusCode, 401);
        assert.equal((await send(member.email, member.password)).statusCode, 403);
        assert.equal((await trigger({ api_token: admin.token, package: 'folio' })).status, 401);
        // `none` cannot open an admin endpoint: it falls back to a token.
        await ctx.services.settings.set('svc_api_update_should_auth', 'none');
        assert.equal((await trigger({ package: 'folio' })).status, 401);
        assert.deepEqual((await trigger({ api_token: admin.token, package: 'folio' })).body, DISABLED);
      } finally {
        await ctx.services.settings.delete('svc_api_update_should_auth');
      }
    });

    it('answers 405 for other methods', async () => {
      for (const url of ['/api/v1/update', '/api/v1/update/progress']) {
        const response = await ctx.request({ method: 'GET', url });
        assert.equal(response.statusCode, 405, url);
      }
    });
  });

  describe('progress (R-U3, R-A3)', () => {
    let gated: GatedPackageManager;

    before(() => {
      gated = new GatedPackageManager('3.0.0');
      useUpdates(ctx.services, gated);
    });

    it('is 0 before, 1 during and 0 after a core update', async () => {
      assert.deepEqual(await progress({ api_token: admin.token, itemId: 'core' }), {
        status: 200,
        body: progressBody(0),
      });
      const running = trigger({ api_token: admin.token, package: 'folio', version: '3.0.0' });
      await gated.started();
      assert.deepEqual(await coreProgress(), progressBody(1));
      assert.deepEqual(Object.keys(await coreProgress()), ['status', 'message', 'progress']);
      gated.open();
      assert.equal((await running).body.version, '3.0.0');
      assert.deepEqual(await coreProgress(), progressBody(0));
    });

    it('for another itemId reports that package: 1 while it updates, core stays 0', async () => {
      const running = trigger({ api_token: admin.token, package: '@folio/theme-blue' });
      await gated.started(2);
      assert.deepEqual(
        (await progress({ api_token: admin.token, itemId: '@folio/theme-blue' })).body,
        progressBody(1),
      );
      assert.deepEqual(await coreProgress(), progressBody(0));
      assert.deepEqual(
        (await progress({ api_token: admin.token, itemId: 'never-updated' })).body,
        progressBody(0),
      );
      // The core package may also be asked for by its package name.
      assert.deepEqual((await progress({ api_token: admin.token, itemId: 'folio' })).body, progressBody(0));
      gated.open();
      assert.equal((await running).status, 200);
      assert.deepEqual(
        (await progress({ api_token: admin.token, itemId: '@folio/theme-blue' })).body,
        progressBody(0),
      );
    });

    it('a missing itemId is 400 Invalid update request', async () => {
      for (const payload of [{}, { itemId: '' }, { itemId: 7 }, { itemId: ['core'] }]) {
        assert.deepEqual(await progress({ api_token: admin.token, ...payload }), {
          status: 400,
          body: INVALID,
        });
      }
    });

    it('R-A3: needs a token by default, any user will do, and svc_api_update_progress_should_auth=none opens it', async () => {
      assert.deepEqual(await progress({ itemId: 'core' }), {
        status: 401,
        body: { status: 'fail', message: 'Invalid token' },
      });
      assert.deepEqual((await progress({ api_token: member.token, itemId: 'core' })).body, progressBody(0));
      await ctx.services.settings.set('svc_api_update_progress_should_auth', 'none');
      try {
        assert.deepEqual(await progress({ itemId: 'core' }), { status: 200, body: progressBody(0) });
        // The trigger always needs an admin, whatever the progress mode (R-A4).
        assert.equal((await trigger({ package: 'folio' })).status, 401);
      } finally {
        await ctx.services.settings.delete('svc_api_update_progress_should_auth');
      }
    });

    it('R-A3: basic mode reads Basic credentials', async () => {
      await ctx.services.settings.set('svc_api_update_progress_should_auth', 'basic');
      try {
        const basic = `Basic ${Buffer.from(`${member.email}:${member.password}`).toString('base64')}`;
        const ok = await ctx.request({
          method: 'POST',
          url: '/api/v1/update/progress',
          headers: { authorization: basic },
          payload: { itemId: 'core' },
        });
        assert.equal(ok.statusCode, 200);
        assert.deepEqual(ok.json(), progressBody(0));
        assert.equal((await progress({ api_token: member.token, itemId: 'core' })).status, 401);
      } finally {
        await ctx.services.settings.delete('svc_api_update_progress_should_auth');
      }
    });
  });

  describe('stalled lock (spec 3.2, 8)', () => {
    let gated: GatedPackageManager;

    before(() => {
      gated = new GatedPackageManager('4.0.0');
      useUpdates(ctx.services, gated);
    });

    const leaveStalledLock = async (ageMs: number) => {
      const lockedAt = new Date(clock.now().getTime() - ageMs).toISOString();
      await ctx.services.database.db
        .insertInto('update_state')
        .values({
          item: 'core',
          updating: true,
          locked_at: lockedAt,
          lock_owner: 'crashed-node',
          updated_at: lockedAt,
        })
        .onConflict((oc) =>
          oc.column('item').doUpdateSet({ updating: true, locked_at: lockedAt, lock_owner: 'crashed-node' }),
        )
        .execute();
    };

    it('a lock younger than 3 minutes (or exactly 3) rejects the trigger with 409', async () => {
      for (const age of [0, LOCK_EXPIRY_MS - 1, LOCK_EXPIRY_MS]) {
        await leaveStalledLock(age);
        assert.deepEqual(
          (await trigger({ api_token: admin.token, package: 'folio' })).body,
          IN_PROGRESS,
          `age ${age}`,
        );
        assert.deepEqual(await coreProgress(), progressBody(1));
      }
      assert.deepEqual(gated.installs, []);
    });

    it('a lock older than 3 minutes is taken over by a new run, which then releases it', async () => {
      await leaveStalledLock(LOCK_EXPIRY_MS + 1);
      const running = trigger({ api_token: admin.token, package: 'folio' });
      await gated.started();
      const row = await ctx.services.database.db
        .selectFrom('update_state')
        .selectAll()
        .where('item', '=', 'core')
        .executeTakeFirstOrThrow();
      assert.notEqual(row.lock_owner, 'crashed-node');
      assert.equal(new Date(row.locked_at!).toISOString(), clock.now().toISOString(), 'new lock timestamp');
      assert.deepEqual((await trigger({ api_token: admin.token, package: 'folio' })).body, IN_PROGRESS);
      gated.open();
      assert.deepEqual((await running).body, {
        status: 'success',
        message: 'Successfully updated',
        version: '4.0.0',
      });
      assert.deepEqual(await coreProgress(), progressBody(0));
    });

    it('after 3 minutes on the manual clock, a run that is still going is not taken over (its lock is refreshed)', async () => {
      // The refresh runs every minute of real time; here the clock jumps, so refresh by hand as it would.
      const lock = await ctx.services.updates.acquire('core');
      assert.ok(lock);
      clock.advance(LOCK_EXPIRY_MS - 1000);
      assert.ok(await ctx.services.updates.refresh(lock));
      clock.advance(2000);
      assert.deepEqual((await trigger({ api_token: admin.token, package: 'folio' })).body, IN_PROGRESS);
      assert.ok(await ctx.services.updates.release(lock));
    });
  });

  describe('two app nodes (spec 3.2: one atomic conditional write)', () => {
    let otherServices: Services;
    let other: Awaited<ReturnType<typeof buildApp>>;
    let here: GatedPackageManager;
    let there: GatedPackageManager;

    before(async () => {
      here = new GatedPackageManager('5.0.0');
      there = new GatedPackageManager('5.0.0');
      useUpdates(ctx.services, here);
      otherServices = createServices(
        testConfig(ctx.database.url, {
          releasePackage: '@folio-test/release',
          mediaDir: ctx.services.config.mediaDir,
        }),
        {
          pgSchema: ctx.database.pgSchema,
          clock,
          warn: () => undefined,
          packageManager: there,
        },
      );
      other = await buildApp(otherServices, { logger: false });
      await other.ready();
    });
    after(async () => {
      await other.close();
      await otherServices.close();
    });

    it('of two simultaneous triggers on two nodes, exactly one runs and the other gets 409', async () => {
      for (let round = 0; round < 4; round++) {
        const payload = { api_token: admin.token, package: 'folio' };
        const requests = [
          ctx.request({ method: 'POST', url: '/api/v1/update', payload }),
          other.inject({ method: 'POST', url: '/api/v1/update', payload }),
        ];
        // The loser answers at once; the winner waits at the gate.
        const first = await Promise.race(requests);
        assert.equal(first.statusCode, 409, `round ${round}`);
        assert.deepEqual(first.json(), IN_PROGRESS);
        // The winner took the lock before the loser answered; its install starts a few awaits later.
        const started = () => here.installs.length + there.installs.length;
        for (let wait = 0; wait < 1000 && started() < round + 1; wait++) await sleep(10);
        assert.equal(started(), round + 1, 'exactly one run started');
        here.open();
        there.open();
        const statuses = (await Promise.all(requests)).map((response) => response.statusCode).sort();
        assert.deepEqual(statuses, [200, 409]);
      }
      assert.deepEqual(await coreProgress(), progressBody(0));
    });

    it('of two simultaneous triggers on one node, exactly one runs', async () => {
      const startCount = here.installs.length;
      const payload = { api_token: admin.token, package: 'folio-theme-x' };
      const requests = [1, 2].map(() => ctx.request({ method: 'POST', url: '/api/v1/update', payload }));
      const first = await Promise.race(requests);
      assert.equal(first.statusCode, 409);
      here.open();
      const statuses = (await Promise.all(requests)).map((response) => response.statusCode).sort();
      assert.deepEqual(statuses, [200, 409]);
      assert.equal(here.installs.length - startCount, 1);
    });
  });

  describe('what the trigger installs (issue 36 #1)', () => {
    it('never a stranger: the core only from FOLIO_RELEASE_PACKAGE, other packages only when allowed, npm not run', async () => {
      const recorder = {
        installs: [] as string[],
        install: async (name: string, version: string) => void recorder.installs.push(`${name}@${version}`),
        publishAssets: async () => 0,
        installedVersion: async () => '9.9.9',
      };
      useUpdates(ctx.services, recorder, null);
      const failed = async (body: Record<string, unknown>) => {
        const { status, body: answer } = await trigger({ api_token: admin.token, ...body });
        assert.equal(status, 500, JSON.stringify(answer));
        return answer.message;
      };
      // npm's `folio` is another project: without a release package the core is not updated.
      assert.match(
        await failed({ package: 'folio', version: 'latest' }),
        /^Update failed: the core has no release package/,
      );
      // A package nobody allowed.
      useUpdates(ctx.services, recorder);
      assert.equal(
        await failed({ package: 'left-pad' }),
        'Update failed: left-pad is not a package an administrator allowed (setting update_allowed_packages)',
      );
      assert.deepEqual(recorder.installs, [], 'npm never ran');
      // The release package named as itself is the core; an allowed theme installs.
      assert.equal((await trigger({ api_token: admin.token, package: '@folio-test/release' })).status, 200);
      assert.equal((await trigger({ api_token: admin.token, package: 'folio-theme-x' })).status, 200);
      assert.deepEqual(recorder.installs, ['folio@latest', 'folio-theme-x@latest']);
    });
  });

  describe('real npm, offline', () => {
    before(() => {
      useUpdates(ctx.services, fixture.packageManager());
    });

    it('updates a theme package: version reported, assets published, cache cleared, lock released', async () => {
      // 1.0.0 is installed first, then the trigger without a version takes the latest.
      await fixture.packageManager().install('folio-theme-fixture', '1.0.0', {
        log: { info: () => undefined, warn: () => undefined, error: () => undefined },
        signal: new AbortController().signal,
      });
      await ctx.services.cache.set('home-page', '<html>old</html>');
      const result = await trigger({ api_token: admin.token, package: 'folio-theme-fixture' });
      assert.deepEqual(result, {
        status: 200,
        body: { status: 'success', message: 'Successfully updated', version: '2.0.0' },
        keys: ['status', 'message', 'version'],
      });
      const vendor = path.join(fixture.installDir, 'public', 'vendor', 'folio-theme-fixture');
      assert.equal(fs.readFileSync(path.join(vendor, 'css', 'theme.css'), 'utf8'), 'body{}');
      assert.ok(!fs.existsSync(path.join(vendor, 'old.css')));
      assert.equal(await ctx.services.cache.get('home-page'), undefined, 'the cache was cleared');
      const row = await ctx.services.database.db
        .selectFrom('update_state')
        .selectAll()
        .where('item', '=', 'folio-theme-fixture')
        .executeTakeFirstOrThrow();
      assert.equal(Boolean(row.updating), false);
      assert.equal(row.lock_owner, null);
      assert.equal(row.version, '2.0.0');
      assert.deepEqual(
        (await progress({ api_token: admin.token, itemId: 'folio-theme-fixture' })).body,
        progressBody(0),
      );
    });

    it('updates the core to a given version and reports the version read from its package.json (R-U2)', async () => {
      const result = await trigger({ api_token: admin.token, package: 'folio', version: '1.0.0' });
      assert.deepEqual(result.body, { status: 'success', message: 'Successfully updated', version: '1.0.0' });
      const latest = await trigger({ api_token: admin.token, package: 'folio', version: 'latest' });
      assert.deepEqual(latest.body, { status: 'success', message: 'Successfully updated', version: '1.1.0' });
      const manifest = JSON.parse(
        fs.readFileSync(path.join(fixture.installDir, 'node_modules', 'folio', 'package.json'), 'utf8'),
      ) as { version: string };
      assert.equal(manifest.version, '1.1.0');
      assert.ok(fs.existsSync(path.join(fixture.installDir, 'public', 'vendor', 'folio', 'js', 'admin.js')));
      assert.deepEqual(await coreProgress(), progressBody(0));
    });

    it('a failing install answers 500 Update failed: <reason> and releases the lock', async () => {
      const result = await trigger({ api_token: admin.token, package: 'folio', version: '9.9.9' });
      assert.equal(result.status, 500);
      assert.deepEqual(result.keys, ['status', 'message']);
      assert.equal(result.body.status, 'fail');
      assert.match(result.body.message, /^Update failed: npm install exited with code 1: ENOTCACHED: /);
      assert.doesNotMatch(result.body.message, /nodedir/);
      assert.deepEqual(await coreProgress(), progressBody(0));
      // The lock is free: the next trigger runs.
      const again = await trigger({ api_token: admin.token, package: 'folio', version: '1.1.0' });
      assert.deepEqual(again.body, { status: 'success', message: 'Successfully updated', version: '1.1.0' });
    });

    it('a package that is not installed and cannot be fetched fails the same way', async () => {
      const result = await trigger({ api_token: admin.token, package: 'folio-no-such-plugin' });
      assert.equal(result.status, 500);
      assert.match(result.body.message, /^Update failed: npm install exited with code 1: /);
      assert.deepEqual(
        (await progress({ api_token: admin.token, itemId: 'folio-no-such-plugin' })).body,
        progressBody(0),
      );
    });
  });
});
