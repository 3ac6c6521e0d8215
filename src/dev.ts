// Runs the CLI from source with tsx (npm run dev, npm run folio -- <command>).
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2).length ? process.argv.slice(2) : ['start']);
