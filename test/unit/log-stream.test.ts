// Log lines are written in batches (issue 26 #6): none lost, in order, at most 100 ms late.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchedLines } from '../../src/http/log-stream.js';

describe('batched log lines', () => {
  it('writes the lines of a moment together, in order, within 100 ms', async () => {
    const writes: string[] = [];
    const sink = batchedLines(1, (text) => writes.push(text));
    sink.write('{"a":1}\n');
    sink.write('{"a":2}\n');
    assert.deepEqual(writes, [], 'nothing written yet');
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.deepEqual(writes, ['{"a":1}\n{"a":2}\n']);
    sink.write('{"a":3}\n');
    sink.flush();
    assert.deepEqual(writes, ['{"a":1}\n{"a":2}\n', '{"a":3}\n']);
  });

  it('writes at once when 64 KB are waiting', () => {
    const writes: string[] = [];
    const sink = batchedLines(1, (text) => writes.push(text));
    const line = `${'x'.repeat(1023)}\n`;
    for (let k = 0; k < 64; k++) sink.write(line);
    assert.equal(writes.length, 1);
    assert.equal(writes[0], line.repeat(64));
    sink.flush();
    assert.equal(writes.length, 1, 'nothing left over');
  });

  it('a failing write (stdout gone) loses the batch, never throws', () => {
    const sink = batchedLines(1, () => {
      throw new Error('EPIPE');
    });
    sink.write('line\n');
    assert.doesNotThrow(() => sink.flush());
  });
});
