// Builds the admin panel's browser code (admin/src, Preact) with esbuild into dist/admin/assets, with
// hashed file names (served with long-lived cache headers) and dist/admin/manifest.json naming them.
// `npm run build` runs it after tsc; `node scripts/build-admin.mjs` alone rebuilds the panel.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const out = path.resolve('dist', 'admin');
fs.rmSync(path.join(out, 'assets'), { recursive: true, force: true });
const result = await build({
  entryPoints: { app: 'admin/src/main.tsx' },
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  minify: true,
  sourcemap: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(out, 'assets'),
  entryNames: '[name]-[hash]',
  metafile: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
const manifest = {
  js: outputs.find((file) => file.endsWith('.js')),
  css: outputs.find((file) => file.endsWith('.css')),
};
if (!manifest.js || !manifest.css) throw new Error(`admin build: missing outputs in ${outputs.join(', ')}`);
fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`admin panel: dist/admin/assets/${manifest.js}, ${manifest.css}`);
