import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkflowDefinition, WorkflowNode } from '../../../src/modules/workflows/engine/types.ts';
import { type ChainVerdict, runChain } from '../../../src/modules/workflows/step-chain.ts';
import type { Execution, NodeRun } from '../../../src/modules/workflows/workflows.repository.ts';

const execution = { id: 'e1', tenantId: 't1', status: 'running', vars: { seen: 0 } } as unknown as Execution;

function finished(nodeId: string, output: unknown): NodeRun {
  return {
    id: `run-${nodeId}`,
    tenantId: 't1',
    executionId: 'e1',
    nodeId,
    status: 'completed',
    attempt: 1,
    output,
    error: null,
    reason: null,
    runnerJobId: 'job-1',
    checkpoint: null,
    startedAt: 1,
    completedAt: 2,
    updatedAt: 2,
  };
}

/** Evaluates like the runner would, from what each step is given: records what it saw. */
function evaluator(answers: Record<string, ChainVerdict>) {
  const seen: { node: string; vars: Record<string, unknown>; before: string[] }[] = [];
  const evaluate = async (current: Execution, _run: NodeRun, runs: NodeRun[], node: WorkflowNode) => {
    seen.push({
      node: node.id,
      vars: current.vars,
      before: runs.filter((r) => r.status === 'completed' || r.status === 'skipped').map((r) => r.nodeId),
    });
    return answers[node.id] ?? null;
  };
  return { seen, evaluate };
}

let clock = 100;
const now = () => clock++;

describe('runChain', () => {
  const definition: WorkflowDefinition = {
    nodes: [
      { id: 'check', type: 'condition', config: { expression: 'true' } },
      { id: 'big', type: 'set_variable', depends_on: ['check'], run_if: 'x', config: { name: 'route', value: 'big' } },
      { id: 'small', type: 'set_variable', depends_on: ['check'], run_if: 'y', config: {} },
      { id: 'merge', type: 'join', depends_on: ['big', 'small'] },
      { id: 'call', type: 'http_request', depends_on: ['merge'], config: {} },
      { id: 'after', type: 'transform', depends_on: ['call'], config: {} },
    ],
  };

  it('runs the control steps a result makes ready, in dependency order, up to a node with I/O', async () => {
    const { seen, evaluate } = evaluator({
      big: { kind: 'completed', output: { v: 1 }, setVariable: { name: 'route', value: 'big' } },
      small: { kind: 'skipped', reason: 'run_if is false' },
      merge: { kind: 'completed', output: { big: { v: 1 } } },
      after: { kind: 'completed', output: 'never' },
    });
    const chain = await runChain({ execution, definition, runs: [finished('check', { result: true })] }, evaluate, {
      now,
    });
    assert.deepEqual(
      chain.added.map((r) => [r.nodeId, r.status]),
      [
        ['big', 'completed'],
        ['small', 'skipped'],
        ['merge', 'completed'],
      ],
    );
    assert.deepEqual(
      chain.logs.map((l) => [l.nodeId, l.kind, l.message]),
      [
        ['big', 'node_completed', ''],
        ['small', 'node_skipped', 'run_if is false'],
        ['merge', 'node_completed', ''],
      ],
    );
    assert.deepEqual(
      seen.map((s) => s.node),
      ['big', 'small', 'merge'],
      'the http_request node and what follows it are left to jobs',
    );
    assert.deepEqual(seen[2]!.before, ['check', 'big', 'small'], 'the join saw both branches finished');
    assert.deepEqual(seen[2]!.vars, { seen: 0, route: 'big' }, 'a step sees the variables set before it');
    assert.equal(chain.varsChanged, true);
    assert.deepEqual(chain.execution.vars, { seen: 0, route: 'big' });
    assert.equal(execution.vars.route, undefined, 'the snapshot is not changed');
    assert.equal(chain.runs.length, 4);
    for (const run of chain.added) {
      assert.ok(run.startedAt !== null && run.completedAt !== null && run.completedAt >= run.startedAt);
      assert.equal(run.executionId, 'e1');
    }
  });

  it('leaves a node whose evaluation gives up (null) unstarted, and nothing after it runs', async () => {
    const { seen, evaluate } = evaluator({
      big: null,
      small: { kind: 'skipped', reason: 'run_if is false' },
      merge: { kind: 'completed', output: {} },
    });
    const chain = await runChain({ execution, definition, runs: [finished('check', { result: true })] }, evaluate, {
      now,
    });
    assert.deepEqual(
      chain.added.map((r) => r.nodeId),
      ['small'],
    );
    assert.deepEqual(
      seen.map((s) => s.node),
      ['big', 'small'],
      'the join waits for the node left to its job',
    );
    assert.equal(chain.varsChanged, false);
  });

  it('skips by trigger rule without a log line, and stops at its limit or when told to', async () => {
    const skipping: WorkflowDefinition = {
      nodes: [
        { id: 'a', type: 'condition', config: {} },
        { id: 'b', type: 'transform', depends_on: ['a'], config: {} },
        { id: 'c', type: 'transform', depends_on: ['b'], config: {} },
        { id: 'd', type: 'transform', depends_on: ['c'], config: {} },
      ],
    };
    const failedA = { ...finished('a', null), status: 'failed' as const };
    const skipped = await runChain({ execution, definition: skipping, runs: [failedA] }, evaluator({}).evaluate, {
      now,
    });
    assert.deepEqual(
      skipped.added.map((r) => [r.nodeId, r.status, r.startedAt]),
      [
        ['b', 'skipped', null],
        ['c', 'skipped', null],
        ['d', 'skipped', null],
      ],
    );
    assert.equal(skipped.logs.length, 0);

    const done = { kind: 'completed', output: 1 } as const;
    const answers = { b: done, c: done, d: done };
    const limited = await runChain(
      { execution, definition: skipping, runs: [finished('a', null)] },
      evaluator(answers).evaluate,
      { now, limit: 2 },
    );
    assert.deepEqual(
      limited.added.map((r) => r.nodeId),
      ['b', 'c'],
    );
    let calls = 0;
    const stopped = await runChain(
      { execution, definition: skipping, runs: [finished('a', null)] },
      async () => {
        calls++;
        return done;
      },
      { now, stop: () => calls >= 1 },
    );
    assert.deepEqual(
      stopped.added.map((r) => r.nodeId),
      ['b'],
    );
  });
});
