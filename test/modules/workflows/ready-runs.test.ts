import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReadyRuns, type ReadySnapshot } from '../../../src/modules/workflows/ready-runs.ts';

const snapshot = (id: string) =>
  ({ execution: { id }, definition: { nodes: [] }, runs: [] }) as unknown as ReadySnapshot;

describe('ReadyRuns', () => {
  it('gives a run’s snapshot once: a second take (a retried job) reads afresh', () => {
    const ready = new ReadyRuns();
    const s = snapshot('e1');
    ready.remember(s, ['r1', 'r2']);
    assert.equal(ready.take('r1'), s);
    assert.equal(ready.take('r1'), undefined);
    assert.equal(ready.take('r2'), s);
    assert.equal(ready.take('unknown'), undefined);
  });

  it('keeps at most its limit, dropping the oldest, and nothing past its age', () => {
    const ready = new ReadyRuns({ limit: 2, maxAgeMs: 1_000 });
    ready.remember(snapshot('e1'), ['r1'], 0);
    ready.remember(snapshot('e2'), ['r2'], 10);
    ready.remember(snapshot('e3'), ['r3'], 20);
    assert.equal(ready.size, 2);
    assert.equal(ready.take('r1'), undefined, 'the oldest went first');
    ready.remember(snapshot('e4'), ['r4'], 5_000);
    assert.equal(ready.size, 1, 'older than the age limit: dropped');
    assert.equal(ready.take('r4')?.execution.id, 'e4');
  });
});
