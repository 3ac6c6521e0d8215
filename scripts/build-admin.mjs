// Builds the admin panel's browser code (admin/src, Preact) with esbuild into dist/admin/assets, with
// hashed file names (served with long-lived cache headers) and dist/admin/manifest.json naming them.
// `npm run build` runs it after tsc; `node scripts/build-admin.mjs` alone rebuilds the panel.
// A rebuild never takes a file from under a running server: it builds into a folder of its own, moves
// each file into place by rename (atomic), then writes the manifest the same way, and keeps the files of
// the build before (a server started on it still names them) while removing older ones. (It used to
// empty assets/ first: a browser test that loaded the editor's chunk while another test file rebuilt
// the panel got a 404 and waited for an editor that never came.)
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const out = path.resolve('dist', 'admin');
const assets = path.join(out, 'assets');
const staging = path.join(out, `.build-${process.pid}`);
fs.rmSync(staging, { recursive: true, force: true });
const result = await build({
  entryPoints: { app: 'admin/src/main.tsx' },
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  minify: true,
  sourcemap: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: staging,
  entryNames: '[name]-[hash]',
  // The post editor is imported on demand: its chunk loads when the editor first opens.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
const outputs = Object.entries(result.metafile.outputs);
const entry = outputs.find(
  ([file, output]) => output.entryPoint === 'admin/src/main.tsx' && file.endsWith('.js'),
);
const manifest = {
  js: entry && path.basename(entry[0]),
  css: entry?.[1].cssBundle && path.basename(entry[1].cssBundle),
};
if (!manifest.js || !manifest.css) {
  throw new Error(`admin build: missing outputs in ${outputs.map(([file]) => file).join(', ')}`);
}

/** Writes `file` whole or not at all (readers see the old content or the new). */
const writeAtomically = (file, content) => {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, content);
  fs.renameSync(temporary, file);
};
const readJson = (file) => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
};
const built = outputs.map(([file]) => path.relative(staging, path.resolve(file)));
fs.mkdirSync(assets, { recursive: true });
for (const file of built) fs.renameSync(path.join(staging, file), path.join(assets, file));
fs.rmSync(staging, { recursive: true, force: true });
const previous = readJson(path.join(out, 'manifest.json'));
const keep = new Set([...built, ...(Array.isArray(previous?.files) ? previous.files : [])]);
writeAtomically(
  path.join(out, 'manifest.json'),
  `${JSON.stringify({ ...manifest, files: built }, null, 2)}\n`,
);
for (const file of fs.readdirSync(assets)) {
  if (!keep.has(file)) fs.rmSync(path.join(assets, file), { force: true });
}
console.log(`admin panel: dist/admin/assets/${manifest.js}, ${manifest.css}`);
