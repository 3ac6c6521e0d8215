// `npm start`'s prestart (issue 36 #7): runs `npm run build` only when what it builds from changed
// since the last build. The inputs (src/, admin/src/, clients/, the tsconfigs, package.json, the
// lockfile, the admin build script) are fingerprinted by path, size and modification time; a
// successful build writes that fingerprint to dist/.build-stamp, and the next start builds again only
// when the fingerprint differs (a file added, removed, edited, or checked out) or an output is missing
// (a fresh clone has no dist/). `npm run build` always builds; FOLIO_BUILD=always makes start do so too.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const STAMP = path.join('dist', '.build-stamp');
const INPUT_DIRS = ['src', path.join('admin', 'src'), 'clients'];
const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  path.join('admin', 'tsconfig.json'),
  path.join('scripts', 'build-admin.mjs'),
];
const OUTPUTS = [path.join('dist', 'cli.js'), path.join('dist', 'admin', 'manifest.json')];

/** Every file under a folder, as relative paths, sorted (a missing folder holds none). */
function filesUnder(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

function fingerprint() {
  const hash = createHash('sha256');
  for (const file of [...INPUT_DIRS.flatMap(filesUnder), ...INPUT_FILES.filter((f) => fs.existsSync(f))]) {
    const stat = fs.statSync(file);
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

const current = fingerprint();
const stamp = fs.existsSync(STAMP) ? fs.readFileSync(STAMP, 'utf8').trim() : '';
const built = OUTPUTS.every((file) => fs.existsSync(file));
if (process.env.FOLIO_BUILD !== 'always' && built && stamp === current) process.exit(0);

const npm = process.env.npm_execpath
  ? [process.execPath, [process.env.npm_execpath, 'run', 'build', '--silent']]
  : ['npm', ['run', 'build', '--silent']];
const result = spawnSync(npm[0], npm[1], { stdio: 'inherit' });
if (result.status !== 0) {
  fs.rmSync(STAMP, { force: true });
  process.exit(result.status ?? 1);
}
// The fingerprint from before the build: a file edited during it makes the next start build again.
fs.writeFileSync(STAMP, `${current}\n`);
