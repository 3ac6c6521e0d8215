// A PostgreSQL cluster of a test's own, for fault tests that stop or restart the server (never the
// shared one): `initdb` into a temporary folder, as the `postgres` user when the tests run as root
// (PostgreSQL refuses to run as root), listening on 127.0.0.1 on a free port with its socket in the
// same folder. Trust authentication, loopback only, and removed at the end.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './net.js';

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program, as `postgres` when we are root. */
function pgRun(program: string, args: string[], options: { quiet?: boolean } = {}): string {
  const [command, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  return execFileSync(command, argv, {
    encoding: 'utf8',
    stdio: options.quiet ? 'pipe' : ['ignore', 'pipe', 'pipe'],
  });
}

export const privatePostgresAvailable =
  spawnSync('initdb', ['--version']).status === 0 &&
  spawnSync('pg_ctl', ['--version']).status === 0 &&
  (!asRoot || spawnSync('id', ['postgres']).status === 0);

export interface PrivatePostgres {
  url: string;
  /** `pg_ctl restart -m fast`: every connection is cut (57P01), as in a restart or failover. */
  restart(): void;
  stop(): void;
  start(): void;
  /** Stops the server and removes its folder. */
  destroy(): void;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-pg-'));
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  const port = await freePort();
  pgRun('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync'], { quiet: true });
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const ctl = (...args: string[]) =>
    pgRun('pg_ctl', ['-D', data, '-w', '-t', '30', '-l', path.join(dir, 'log'), ...args], { quiet: true });
  const start = () => ctl('-o', options, 'start');
  start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restart: () => ctl('-m', 'fast', '-o', options, 'restart'),
    stop: () => {
      ctl('-m', 'fast', 'stop');
      running = false;
    },
    start: () => {
      start();
      running = true;
    },
    destroy: () => {
      try {
        if (running) ctl('-m', 'immediate', 'stop');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
