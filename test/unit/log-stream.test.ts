// The server's log lines go to stdout in batches (issue 26 #6) through pino's destination: none lost
// when the reader is slow, in order, none cut, written at exit, at most LOG_FLUSH_MS late.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { batchedLogDestination, LOG_BATCH_BYTES, LOG_FLUSH_MS } from '../../src/http/log-stream.js';

// Run from the project's folder, as every test is (the fast lane's tests are compiled elsewhere).
const WRITER = path.resolve('test/fixtures/log-writer.ts');

/** What a writer's run gave: its stdout's lines, and how it ended (exit code, signal, stderr). */
interface WriterRun {
  lines: string[];
  ended: string;
}

/** Runs the writer of `count` lines; its stdout is not read for `stallMs` (a slow log reader). */
async function linesWritten(count: number, stallMs: number, exit = false): Promise<WriterRun> {
  const args = ['--import', 'tsx', WRITER, String(count), ...(exit ? ['exit'] : [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // How the writer ended, for a failure's message (a run that lost every line said nothing else).
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const ended = new Promise<string>((resolve) => {
    child.once('close', (code, signal) =>
      resolve(`exit code ${code}, signal ${signal}${stderr ? `, stderr: ${stderr.slice(0, 2000)}` : ''}`),
    );
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdout.pause();
  await sleep(stallMs);
  child.stdout.resume();
  return {
    ended: await ended,
    lines: Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean),
  };
}

function assertNumbered({ lines, ended }: WriterRun, count: number) {
  assert.equal(lines.length, count, `every line arrives (the writer: ${ended})`);
  lines.forEach((line, i) => assert.equal((JSON.parse(line) as { i: number }).i, i, 'whole, in order'));
}

describe('log destination', () => {
  it('loses no line while the reader is slow (a full pipe), and cuts none', async () => {
    // 20,000 lines of about 200 bytes: 4 MB, far more than a pipe holds while nobody reads it.
    assertNumbered(await linesWritten(20_000, 1500), 20_000);
  });

  it('writes what is waiting when the process exits', async () => {
    assertNumbered(await linesWritten(3, 0), 3);
  });

  it('loses no line when the process exits at once while the reader is slow (a full pipe at exit)', async () => {
    // At exit nothing waits for a retry timer: the writer must finish synchronously.
    assertNumbered(await linesWritten(20_000, 1500, true), 20_000);
  });

  it('writes a few lines within the flush delay, and a full batch at once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'folio-log-'));
    const file = path.join(dir, 'log');
    const destination = batchedLogDestination(fs.openSync(file, 'w'));
    try {
      destination.write('{"a":1}\n');
      destination.write('{"a":2}\n');
      await sleep(LOG_FLUSH_MS / 4);
      assert.equal(fs.readFileSync(file, 'utf8'), '', 'gathered, not written line by line');
      await sleep(LOG_FLUSH_MS * 3);
      assert.equal(fs.readFileSync(file, 'utf8'), '{"a":1}\n{"a":2}\n');
      const line = `${'x'.repeat(1023)}\n`;
      for (let k = 0; k <= LOG_BATCH_BYTES / line.length; k++) destination.write(line);
      await sleep(LOG_FLUSH_MS / 4);
      assert.ok(fs.statSync(file).size > LOG_BATCH_BYTES, 'a full batch is written before the delay');
      // pino's logger.flush(done) hands its callback over: it is called.
      let flushed = false;
      destination.flush(() => (flushed = true));
      assert.ok(flushed, 'flush calls back');
      // Ended with a line still waiting: written before the descriptor is closed.
      destination.write('{"a":3}\n');
      await destination.end();
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      assert.equal(lines.length, 2 + Math.floor(LOG_BATCH_BYTES / line.length) + 1 + 1 + 1);
      assert.equal(lines.at(-2), '{"a":3}');
    } finally {
      // The writer closes its descriptor once its writes are done (see LogDestination.end).
      await destination.end(); // once more: the same promise
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
