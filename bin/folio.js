#!/usr/bin/env node
// Entry point of the `folio` command: runs the compiled CLI (npm run build makes dist/).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('folio: not built yet; run `npm run build` (npm start builds for you)');
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
