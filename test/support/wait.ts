// Waiting in tests for something another node or a background task does.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

/** Checks the condition every 10 ms until it holds; fails the test after two seconds. */
export async function eventually(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail('condition not met in time');
    await sleep(10);
  }
}
