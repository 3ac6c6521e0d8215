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
fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`admin panel: dist/admin/assets/${manifest.js}, ${manifest.css}`);
