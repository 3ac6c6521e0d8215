#!/usr/bin/env node
// Runs a lane of the test suite on SQLite and on PostgreSQL (the fast lane's two passes side by side),
// with Node's test runner (tsx loads the TypeScript).
// Usage: node scripts/test.mjs [fast|slow|all] [sqlite|postgres] [test files…]
//   fast (the default, `npm test`): test/unit and test/http, the tests of the code itself.
//   slow (`npm run test:slow`): everything else: the browser tests and Lighthouse (test/e2e), the
//     fault tests (test/fault), the benchmark harness smoke and the tests that run Folio, npm or the
//     client generator as real processes (test/*.test.ts).
//   Test files named on the command line run whatever their lane, on the passes asked.
// A test file that uses neither the database nor Redis runs on the SQLite pass only (usesPassServices).
// The browser tests (test/e2e) run once, on the PostgreSQL + Redis pass (production's set-up, with the
// most moving parts: the shared cache, its invalidation). What they test of the database is tested on
// both by the fast lane; running them twice doubled CI's longest part. Without PostgreSQL (and not in
// CI) they run on the SQLite pass instead.
// PostgreSQL comes from TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); each test
// file works in a schema of its own and drops it at the end. The PostgreSQL run also uses the Redis
// cache at TEST_REDIS_URL (default redis://127.0.0.1:6379), as production would.
import { execFileSync, spawn } from 'node:child_process';
import { clearTimeout, setTimeout } from 'node:timers';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { COMPILED_ROOT, compileTests } from './compile-tests.mjs';

const DEFAULT_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';
const DEFAULT_REDIS = 'redis://127.0.0.1:6379';
const RUN_TIMEOUT_MS = 20 * 60 * 1000;
// CI (.ci/run) sets it: every pass and every test must run; a missing service or browser is a failure.
const REQUIRE_ALL = process.env.FOLIO_TEST_REQUIRE_ALL === '1';
/** The fast lane's folders; every other test file is in the slow lane. */
const FAST_DIRS = ['test/unit', 'test/http'];
/** Folders whose tests run on one pass only (see above). */
const POSTGRES_ONLY_DIRS = ['test/e2e'];
const LANES = ['fast', 'slow', 'all'];
const args = process.argv.slice(2);
const lane = args.find((arg) => LANES.includes(arg)) ?? 'fast';
const targets = ['sqlite', 'postgres'].filter((name) => args.includes(name));
const files = args
  .filter((arg) => !['sqlite', 'postgres', ...LANES].includes(arg))
  .map((file) => path.relative('.', file));

function findTests(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return findTests(full);
      return entry.name.endsWith('.test.ts') ? [full] : [];
    })
    .sort();
}

const within = (dirs, file) => dirs.some((dir) => file.startsWith(`${dir}${path.sep}`));

/** The lane's test files for one pass (`sqlite` or `postgres`); `withPostgresOnly`: also those. */
function laneFiles(name, pass, withPostgresOnly) {
  const all = findTests('test').filter(
    (file) => name === 'all' || within(FAST_DIRS, file) === (name === 'fast'),
  );
  if (pass === 'postgres') return all.filter(usesPassServices);
  if (withPostgresOnly) return all;
  return all.filter((file) => !within(POSTGRES_ONLY_DIRS, file));
}

/**
 * Whether a test file's outcome can depend on the pass: it uses the test database or Redis (through
 * test/support, or by their URLs). A file that does not (a third of test/unit: parsers, templates,
 * helpers) runs on the SQLite pass alone; on the PostgreSQL pass it ran the same code a second time.
 */
function usesPassServices(file) {
  return /\/support\/|TEST_DATABASE_URL|TEST_REDIS_URL/.test(fs.readFileSync(file, 'utf8'));
}

async function postgresReachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (error) {
    console.error(`PostgreSQL at ${url} is not reachable: ${error.message}`);
    return false;
  }
}

/**
 * How a pass's files are loaded: the fast lane's (test/unit, test/http) compiled once to JavaScript
 * (scripts/compile-tests.mjs: tsx's hooks cost a second per file), the slow lane's through tsx, since
 * those tests start Folio's TypeScript as real processes beside them. FOLIO_TEST_TSX=1 loads all by tsx.
 */
let compiled;
async function loading(testFiles, name) {
  if (process.env.FOLIO_TEST_TSX === '1' || !testFiles.every((file) => within(FAST_DIRS, file))) {
    return { args: ['--import', 'tsx'], files: testFiles };
  }
  compiled ??= await compileTests();
  const files = testFiles.map(compiled);
  if (process.env.FOLIO_TEST_ISOLATE === '1' || files.length <= GROUPS_PER_PASS) {
    return { args: ['--enable-source-maps'], files };
  }
  return { args: ['--enable-source-maps'], files: writeGroups(name, files) };
}

/**
 * The fast lane's compiled files of a pass run in GROUPS_PER_PASS processes, each importing its share
 * of the files one after the other, not in a process each: a test file's process spent about 1.9 s of
 * CPU loading Folio's modules (1,500 files) before its first test, half of the lane's CPU on 2 cores.
 * The files do not share state: each builds its own app over its own database (test/support/harness),
 * and one that changes a module's setting (search bounds, mocked timers) puts it back in its after().
 * The groups are balanced by the files' sizes (largest first, each to the lightest group).
 * FOLIO_TEST_ISOLATE=1 runs each file in a process of its own, as `node --test` does.
 */
const GROUPS_PER_PASS = 4;
function writeGroups(name, files) {
  const groups = Array.from({ length: GROUPS_PER_PASS }, () => ({ weight: 0, files: [] }));
  const sized = files.map((file) => ({ file, size: fs.statSync(file).size }));
  for (const { file, size } of sized.sort((a, b) => b.size - a.size)) {
    const lightest = groups.reduce((min, group) => (group.weight < min.weight ? group : min));
    lightest.weight += size;
    lightest.files.push(file);
  }
  const dir = path.join(COMPILED_ROOT, 'groups');
  fs.mkdirSync(dir, { recursive: true });
  return groups
    .filter((group) => group.files.length > 0)
    .map((group, i) => {
      const file = path.join(dir, `${name}-${i + 1}.test.mjs`);
      const imports = group.files
        .sort()
        .map((test) => `import ${JSON.stringify(pathToFileURL(path.resolve(test)).href)};`);
      fs.writeFileSync(file, `// ${name} pass, group ${i + 1} (scripts/test.mjs)\n${imports.join('\n')}\n`);
      return file;
    });
}

/**
 * Runs one pass. `quiet`: its report goes to a file, printed when the pass ends (passes that run side
 * by side would interleave their lines otherwise).
 */
async function run(name, env, testFiles, { quiet = false } = {}) {
  const loader = await loading(testFiles, name);
  const tapFile = path.join(os.tmpdir(), `folio-tests-${name}-${process.pid}.tap`);
  const specFile = path.join(os.tmpdir(), `folio-tests-${name}-${process.pid}.txt`);
  const heading = `\n=== Folio tests on ${name}${files.length ? '' : ` (${lane} lane)`} ===`;
  if (!quiet) console.log(heading);
  const specOut = quiet ? fs.openSync(specFile, 'w') : 'inherit';
  const child = spawn(
    process.execPath,
    [
      ...loader.args,
      '--test',
      `--test-concurrency=${process.env.FOLIO_TEST_CONCURRENCY || 2}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tapFile}`,
      ...loader.files,
    ],
    // Every page the suite renders is rendered both by compiled templates and by LiquidJS, which must
    // agree (src/frontend/liquid-compiler.ts).
    {
      stdio: ['ignore', specOut, quiet ? specOut : 'inherit'],
      env: { FOLIO_THEME_CROSSCHECK: '1', ...process.env, ...env },
    },
  );
  // A test that hangs (or times out and leaves a connection open, which keeps its file's process
  // alive) fails the run here instead of holding CI until its limit.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, RUN_TIMEOUT_MS);
  const status = await new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`tests on ${name}: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
  clearTimeout(timer);
  if (quiet) {
    fs.closeSync(specOut);
    console.log(heading);
    process.stdout.write(fs.readFileSync(specFile, 'utf8'));
    fs.rmSync(specFile, { force: true });
  }
  if (timedOut) console.error(`tests on ${name}: stopped after ${RUN_TIMEOUT_MS / 60_000} minutes`);
  const tap = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, 'utf8') : '';
  fs.rmSync(tapFile, { force: true });
  const count = (label) => Number(new RegExp(`^# ${label} (\\d+)$`, 'm').exec(tap)?.[1] ?? 0);
  return { name, pass: count('pass'), fail: count('fail'), skipped: count('skipped'), status };
}

const results = [];
const passes = targets.length ? targets : ['sqlite', 'postgres'];
const postgresUrl = process.env.TEST_DATABASE_URL || DEFAULT_POSTGRES;
const postgresUp = passes.includes('postgres') && (await postgresReachable(postgresUrl));
// The PostgreSQL-only tests move to the SQLite pass when the PostgreSQL pass will not run: it was not
// asked for, or (outside CI, where that is a failure) PostgreSQL does not answer.
const postgresOnlyOnSqlite = !postgresUp && !REQUIRE_ALL;
const passFiles = (pass) => (files.length ? files : laneFiles(lane, pass, postgresOnlyOnSqlite));
/** One pass: SQLite, or PostgreSQL with Redis (or its verdict when PostgreSQL does not answer). */
async function runPass(target, options) {
  if (target === 'sqlite') {
    return run('sqlite', { TEST_DATABASE_URL: '', TEST_REDIS_URL: '' }, passFiles('sqlite'), options);
  }
  if (!postgresUp) {
    // A contributor without PostgreSQL gets the SQLite verdict and this note; CI fails instead.
    return {
      name: 'postgres',
      pass: 0,
      fail: REQUIRE_ALL ? 1 : 0,
      skipped: 0,
      status: REQUIRE_ALL ? 1 : 0,
      note: `skipped: PostgreSQL is not reachable at ${postgresUrl}; run it with TEST_DATABASE_URL=postgres://… npm run test:postgres`,
    };
  }
  return run(
    'postgres',
    { TEST_DATABASE_URL: postgresUrl, TEST_REDIS_URL: process.env.TEST_REDIS_URL || DEFAULT_REDIS },
    passFiles('postgres'),
    options,
  );
}

// The browser tests use the admin panel as built in dist/admin: it is built from the sources once
// here, before any test file starts (test files that each rebuilt it took its files from under the
// others' browsers).
if (passes.some((pass) => passFiles(pass).some((file) => within(['test/e2e'], file)))) {
  execFileSync(process.execPath, ['scripts/build-admin.mjs'], { stdio: 'inherit' });
}

// The fast lane's two passes run side by side (issue 35 #6): the PostgreSQL pass spends much of its
// time waiting on the server, so together they take about the longer one's time, not the sum. Each
// pass's report is printed whole when it ends. FOLIO_TEST_SERIAL=1 runs them one after the other.
const sideBySide =
  lane === 'fast' &&
  !files.length &&
  passes.length === 2 &&
  postgresUp &&
  process.env.FOLIO_TEST_SERIAL !== '1';
if (sideBySide) {
  // Compiled once, before either pass starts (both read the same compiled files).
  await loading(passFiles('sqlite'), 'sqlite');
  console.log('\nThe SQLite and PostgreSQL passes run side by side; each report follows when its pass ends.');
  results.push(...(await Promise.all(passes.map((target) => runPass(target, { quiet: true })))));
} else {
  for (const target of passes) results.push(await runPass(target));
}

console.log('');
for (const r of results) {
  console.log(
    `${r.name}: ${r.pass} passed, ${r.fail} failed, ${r.skipped} skipped${r.note ? ` (${r.note})` : ''}`,
  );
}
if (results.some((r) => r.skipped > 0) && !REQUIRE_ALL) {
  console.log(
    'Skipped tests name what they need (Redis for the cache tests, Debian chromium for test/e2e: apt-get install chromium, ' +
      'xmllint for the feed and sitemap checks: apt-get install libxml2-utils); ' +
      'FOLIO_TEST_REQUIRE_ALL=1 makes anything missing a failure, as in CI.',
  );
}
if (!files.length && lane === 'fast') {
  console.log(
    'This was the fast lane (test/unit, test/http). The slow lane (browser, Lighthouse, fault, benchmark ' +
      'smoke and real-process tests) runs with `npm run test:slow`; CI (.ci/run) runs both.',
  );
}
const passed = results.reduce((sum, r) => sum + r.pass, 0);
const failed = results.reduce((sum, r) => sum + r.fail, 0);
const skipped = results.reduce((sum, r) => sum + r.skipped, 0);
const ok = results.every((r) => r.status === 0 && r.fail === 0) && passed > 0;
// (A pass skipped for a missing PostgreSQL has status 0 outside CI: the SQLite verdict stands.)
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(ok ? 0 : 1);
