// A private redis-server for tests that stop it or must not share keys with other tests (the shared
// Redis at 6379 serves every other test): started on a port of the test's, nothing kept on disk.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Starts redis-server on `port` (127.0.0.1) and resolves once it accepts connections (5 s at most). */
export async function startPrivateRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 50; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return child;
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

/** Kills the server (SIGKILL: a Redis that goes away at once) and waits for it to exit. */
export async function stopPrivateRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
