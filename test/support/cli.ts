// Runs the CLI (`main` of src/cli.ts) in this process with `env` set for the call, and answers its exit
// code and what it printed (`out` and `err`, one line a printed line).
import { main } from '../../src/cli.js';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export async function folio(args: string[], env: Record<string, string>): Promise<CliRun> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const lines: string[] = [];
  const err: string[] = [];
  try {
    const code = await main(args, { out: (line) => lines.push(line), err: (line) => err.push(line) });
    return { code, out: lines.join('\n'), err: err.join('\n') };
  } finally {
    process.env = saved;
  }
}
