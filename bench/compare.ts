// `npm run bench:compare -- BASE`: what a request costs this checkout against another commit, per route,
// so that a regression is seen before it lands. BASE (any git revision: a commit, a branch, HEAD~3) is
// checked out in a temporary worktree and built there; both builds then take turns at a fixed request
// rate (bench/fixed-rate.ts: CPU µs per answered request, from /proc, medians of the rounds), on the same
// seeded data (SQLite, or with --dialect=postgres PostgreSQL and Redis, a database of each per build),
// and a Markdown table of both is printed, ready for a note or a pull request.
// Usage: npm run bench:compare -- BASE [--routes=api-list,…] [--rate=2000] [--seconds=8] [--rounds=3]
//          [--posts=2000] [--log-level=warn] [--bare] [--dialect=postgres]
// This checkout is built by the npm script (its dist/ is what is measured, uncommitted changes too). The
// worktree shares this checkout's node_modules when its package-lock.json is the same, and runs `npm ci`
// otherwise. Run it on a quiet machine: the figures are CPU per request, but two cores shared with other
// work still move them by a few percent.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { median, runFixedRate } from './fixed-rate.js';
import { PROJECT_DIR } from './servers.js';

const DEFAULT_ROUTES = 'api-list,api-list-token,api-v2-list,api-v2-show,home,post-page,post-page-cached';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    routes: { type: 'string', default: DEFAULT_ROUTES },
    rate: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    posts: { type: 'string', default: '2000' },
    'log-level': { type: 'string', default: 'warn' },
    bare: { type: 'boolean', default: false },
    dialect: { type: 'string', default: 'sqlite' },
  },
});
const base = positionals[0];
const dialect = values.dialect === 'postgres' ? 'postgres' : 'sqlite';
if (!base) {
  console.error('usage: npm run bench:compare -- BASE [--routes=…] [--rate=N] [--seconds=N] [--rounds=N]');
  process.exit(2);
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: PROJECT_DIR, encoding: 'utf8' }).trim();
const sha = git('rev-parse', '--verify', `${base}^{commit}`);
const label = `${base} (${sha.slice(0, 7)})`;
const worktree = fs.mkdtempSync(path.join(os.tmpdir(), `folio-compare-${sha.slice(0, 7)}-`));

function prepareBase() {
  console.log(`Building ${label} in ${worktree}`);
  git('worktree', 'add', '--detach', worktree, sha);
  const lock = (dir: string) => fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
  if (lock(worktree) === lock(PROJECT_DIR)) {
    fs.symlinkSync(path.join(PROJECT_DIR, 'node_modules'), path.join(worktree, 'node_modules'), 'dir');
  } else {
    console.log('Its package-lock.json differs: npm ci there');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: worktree, stdio: 'inherit' });
  }
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: worktree, stdio: 'inherit' });
}

try {
  prepareBase();
  const results = await runFixedRate({
    dirs: [worktree, PROJECT_DIR],
    routes: values.routes.split(','),
    logLevels: [values['log-level']],
    rate: Number(values.rate),
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
    posts: Number(values.posts),
    bare: values.bare,
    dialect,
  });
  const [before, after] = results.builds;
  const load = os.loadavg().map((value) => value.toFixed(2));
  console.log(
    `\nCPU µs per request at ${values.rate} requests/s, LOG_LEVEL=${values['log-level']}, ${values.posts} posts ` +
      `on ${dialect === 'postgres' ? 'PostgreSQL + Redis' : 'SQLite'}, ` +
      `median of ${values.rounds} rounds of ${values.seconds} s (load average now ${load.join(' ')}):\n`,
  );
  const bareHead = values.bare ? ' bare |' : '';
  console.log(`| route | ${label} | this checkout | change |${bareHead}`);
  console.log(`| --- | ---: | ---: | ---: |${values.bare ? ' ---: |' : ''}`);
  for (const route of values.routes.split(',')) {
    const old = median(before!.samples.get(route) ?? [NaN]);
    const now = median(after!.samples.get(route) ?? [NaN]);
    const change = `${now >= old ? '+' : ''}${(((now - old) / old) * 100).toFixed(1)} %`;
    const bare = values.bare ? ` ${median(results.bare.get(route) ?? [NaN]).toFixed(1)} |` : '';
    console.log(`| ${route} | ${old.toFixed(1)} | ${now.toFixed(1)} | ${change} |${bare}`);
  }
} finally {
  try {
    git('worktree', 'remove', '--force', worktree);
  } catch {
    fs.rmSync(worktree, { recursive: true, force: true });
    git('worktree', 'prune');
  }
}
