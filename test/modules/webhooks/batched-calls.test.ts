import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchedCalls } from '../../../src/modules/webhooks/batched-calls.ts';

// The group commit behind the shared write of delivery outcomes, without a database.

describe('batched calls', () => {
  it('runs calls made together as one batch, and calls made while it runs as the next one', async () => {
    const batches: number[][] = [];
    let finishFirst = () => {};
    const calls = new BatchedCalls<number, string>(
      async (inputs) => {
        batches.push(inputs);
        if (batches.length === 1) await new Promise<void>((resolve) => (finishFirst = resolve));
        return inputs.map((n) => `#${n}`);
      },
      { maxBatch: 10 },
    );
    const first = [calls.call(1), calls.call(2)];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(batches, [[1, 2]], 'the same turn: one batch');
    const second = [calls.call(3), calls.call(4), calls.call(5)];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(batches.length, 1, 'nothing else runs while a batch is on its way');
    finishFirst();
    assert.deepEqual(
      await Promise.all([...first, ...second]),
      ['#1', '#2', '#3', '#4', '#5'],
      'each call gets its own answer',
    );
    assert.deepEqual(batches, [
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('splits a long queue into batches of at most maxBatch', async () => {
    const batches: number[][] = [];
    const calls = new BatchedCalls<number, number>(
      async (inputs) => {
        batches.push(inputs);
        return inputs;
      },
      { maxBatch: 2 },
    );
    assert.deepEqual(await Promise.all([1, 2, 3, 4, 5].map((n) => calls.call(n))), [1, 2, 3, 4, 5]);
    assert.deepEqual(batches, [[1, 2], [3, 4], [5]]);
  });

  it('rejects every call of a failed batch, and runs the next batch normally', async () => {
    let fail = true;
    const calls = new BatchedCalls<number, number>(
      async (inputs) => {
        if (fail) throw new Error('database down');
        return inputs;
      },
      { maxBatch: 10 },
    );
    const results = await Promise.allSettled([calls.call(1), calls.call(2)]);
    assert.deepEqual(
      results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value)),
      ['database down', 'database down'],
    );
    fail = false;
    assert.equal(await calls.call(3), 3);
  });
});
