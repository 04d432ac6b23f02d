import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cronError, nextOccurrence } from '../../../src/modules/workflows/engine/cron.ts';
import { lookupPath, resolveReferences } from '../../../src/modules/workflows/engine/expressions.ts';
import { nextSteps } from '../../../src/modules/workflows/engine/next-steps.ts';
import type { NodeState, WorkflowNode } from '../../../src/modules/workflows/engine/types.ts';
import { validateWorkflow } from '../../../src/modules/workflows/engine/validate.ts';
import { uploadMatches } from '../../../src/modules/workflows/triggers/document-trigger.ts';

const n = (id: string, depends_on: string[] = [], extra: Partial<WorkflowNode> = {}): WorkflowNode => ({
  id,
  type: 'transform',
  config: { expression: '$' },
  depends_on,
  ...extra,
});

describe('validateWorkflow', () => {
  it('accepts a valid graph', () => {
    const r = validateWorkflow({ nodes: [n('a'), n('b', ['a'])] });
    assert.deepEqual(r, { errors: [], warnings: [], issues: [] });
  });
  it('reports no nodes, duplicates, unknown types and dependencies', () => {
    assert.deepEqual(validateWorkflow({ nodes: [] }).errors, ['The workflow has no nodes']);
    const r = validateWorkflow({ nodes: [n('a'), n('a'), { id: 'x', type: 'teleport' }, n('b', ['ghost'])] });
    assert.ok(r.errors.includes('Duplicate node id "a"'));
    assert.ok(r.errors.includes('Node "x" has unknown type "teleport"'));
    assert.ok(r.errors.includes('Node "b" depends on unknown node "ghost"'));
  });
  it('names the cycle', () => {
    const r = validateWorkflow({ nodes: [n('start'), n('a', ['start', 'c']), n('b', ['a']), n('c', ['b'])] });
    const cycle = r.errors.find((e) => e.startsWith('Circular dependency'));
    assert.ok(cycle, JSON.stringify(r.errors));
    assert.match(cycle, /a -> b -> c -> a|b -> c -> a -> b|c -> a -> b -> c/);
    assert.match(validateWorkflow({ nodes: [n('self', ['self'])] }).errors.join(), /self -> self/);
  });
  it('reports missing config keys and unparsable expressions', () => {
    const r = validateWorkflow({
      nodes: [
        { id: 'c', type: 'condition', config: {} },
        { id: 'd', type: 'condition', config: { expression: 'trigger.amount >' } },
        { id: 't', type: 'transform', config: { expression: '$sum(' } },
        { id: 'r', type: 'end', run_if: '&& x' },
        { id: 'w', type: 'delay', config: {}, timeout_seconds: 5 },
      ],
    });
    assert.ok(r.errors.includes('Node "c" (condition) is missing config "expression"'), r.errors.join('\n'));
    assert.ok(r.errors.some((e) => e.startsWith('Node "d" expression is not a valid CEL expression')));
    assert.ok(r.errors.some((e) => e.startsWith('Node "t" expression is not a valid JSONata expression')));
    assert.ok(r.errors.some((e) => e.startsWith('Node "r" run_if does not parse')));
    assert.ok(r.errors.includes('Node "w" (delay) needs config "seconds" or "until"'));
  });
  it('warns about waiting nodes without a timeout', () => {
    const r = validateWorkflow({
      nodes: [
        { id: 'h', type: 'http_request', config: { method: 'GET', url: 'https://example.com' } },
        { id: 'd', type: 'delay', config: { seconds: 1 }, timeout_seconds: 10 },
        { id: 'a', type: 'human_approval', config: { assignee_type: 'role', assignee_value: 'admin', title: 'x' } },
      ],
    });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.warnings, [
      'Node "h" (http_request) has no timeout (timeout_seconds)',
      'Node "a" (human_approval) has no timeout (timeout_hours)',
    ]);
  });
});

describe('nextSteps', () => {
  const run = (nodes: WorkflowNode[], states: Record<string, NodeState>, runIf?: (node: WorkflowNode) => boolean) =>
    nextSteps(nodes, states, runIf);

  it('starts roots, then dependents of completed nodes (all_success)', () => {
    const nodes = [n('a'), n('b', ['a']), n('c', ['a', 'b'])];
    assert.deepEqual(run(nodes, {}), { ready: ['a'], skipped: [], done: false });
    assert.deepEqual(run(nodes, { a: 'running' }).ready, []);
    assert.deepEqual(run(nodes, { a: 'completed' }).ready, ['b']);
    assert.deepEqual(run(nodes, { a: 'completed', b: 'completed' }).ready, ['c']);
    assert.equal(run(nodes, { a: 'completed', b: 'completed', c: 'completed' }).done, true);
  });

  it('a join after if/else runs, and the untaken branch goes dark', () => {
    const nodes: WorkflowNode[] = [
      { id: 'check', type: 'condition', config: { expression: 'true' } },
      n('big', ['check'], { run_if: 'nodes.check.output.result' }),
      n('big_after', ['big']),
      n('small', ['check'], { run_if: '!nodes.check.output.result' }),
      { id: 'merge', type: 'join', depends_on: ['big_after', 'small'] },
      n('final', ['merge']),
    ];
    const takeBig = (node: WorkflowNode) => node.id === 'big';
    const first = run(nodes, { check: 'completed' }, takeBig);
    assert.deepEqual(first.ready, ['big']);
    assert.deepEqual(first.skipped, [{ id: 'small', reason: 'run_if is false' }]);
    assert.deepEqual(run(nodes, { check: 'completed', big: 'completed', small: 'skipped' }, takeBig).ready, [
      'big_after',
    ]);
    const last = run(
      nodes,
      { check: 'completed', big: 'completed', small: 'skipped', big_after: 'completed' },
      takeBig,
    );
    assert.deepEqual(last.ready, ['merge']);
    // The other way: the big branch is skipped and its skip propagates under all_success.
    const other = run(nodes, { check: 'completed', big: 'skipped', small: 'completed' });
    assert.deepEqual(
      other.skipped.map((s) => s.id),
      ['big_after'],
    );
    assert.deepEqual(other.ready, ['merge']);
  });

  it('a join does not fire before all its inputs finished', () => {
    const nodes: WorkflowNode[] = [n('a'), n('b'), n('c'), { id: 'j', type: 'join', depends_on: ['a', 'b', 'c'] }];
    assert.deepEqual(run(nodes, { a: 'completed', b: 'completed', c: 'running' }).ready, []);
    assert.deepEqual(run(nodes, { a: 'completed', b: 'skipped', c: 'queued' }).ready, []);
    assert.deepEqual(run(nodes, { a: 'completed', b: 'skipped', c: 'completed' }).ready, ['j']);
    // A join whose inputs were all skipped is skipped itself (nothing succeeded), and so is a failed input.
    assert.deepEqual(
      run(nodes, { a: 'skipped', b: 'skipped', c: 'skipped' }).skipped.map((s) => s.id),
      ['j'],
    );
    assert.deepEqual(
      run(nodes, { a: 'completed', b: 'failed', c: 'completed' }).skipped.map((s) => s.id),
      ['j'],
    );
  });

  it('one_success below a skipped branch runs when another input succeeded', () => {
    const nodes: WorkflowNode[] = [
      n('root'),
      n('left', ['root'], { run_if: 'false' }),
      n('left2', ['left']),
      n('right', ['root']),
      n('any', ['left2', 'right'], { trigger_rule: 'one_success' }),
    ];
    const noLeft = (node: WorkflowNode) => node.id !== 'left';
    const r1 = run(nodes, { root: 'completed' }, noLeft);
    assert.deepEqual(r1.ready, ['right']);
    assert.deepEqual(
      r1.skipped.map((s) => s.id),
      ['left', 'left2'],
    );
    assert.deepEqual(
      run(nodes, { root: 'completed', left: 'skipped', left2: 'skipped', right: 'completed' }, noLeft).ready,
      ['any'],
    );
    // ...and is skipped when every input was skipped.
    const r2 = run(nodes, { root: 'completed', left: 'skipped', left2: 'skipped', right: 'skipped' });
    assert.deepEqual(
      r2.skipped.map((s) => s.id),
      ['any'],
    );
    assert.equal(r2.done, true);
  });

  it('all_done, one_failed and failure propagation', () => {
    const nodes = [
      n('a'),
      n('cleanup', ['a'], { trigger_rule: 'all_done' }),
      n('alert', ['a'], { trigger_rule: 'one_failed' }),
      n('next', ['a']),
    ];
    const failed = run(nodes, { a: 'failed' });
    assert.deepEqual(failed.ready, ['cleanup', 'alert']);
    assert.deepEqual(failed.skipped, [{ id: 'next', reason: 'an upstream node failed (trigger rule all_success)' }]);
    const ok = run(nodes, { a: 'completed' });
    assert.deepEqual(ok.ready, ['cleanup', 'next']);
    assert.deepEqual(
      ok.skipped.map((s) => s.id),
      ['alert'],
    );
  });
});

describe('references', () => {
  const scope = {
    trigger: { amount: 1200, tags: ['a', 'b'] },
    nodes: { x: { status: 'completed', output: { n: 2 } } },
    vars: { who: 'ops' },
    execution: { id: 'e1' },
  };
  it('keeps the type of a whole reference and interpolates inside text', () => {
    assert.equal(resolveReferences('{{trigger.amount}}', scope), 1200);
    assert.equal(resolveReferences('{{ nodes.x.output.n }}', scope), 2);
    assert.equal(
      resolveReferences('Amount {{trigger.amount}} for {{vars.who}} {{missing.x}}', scope),
      'Amount 1200 for ops ',
    );
    assert.deepEqual(resolveReferences({ list: ['{{trigger.tags[1]}}'], id: '{{execution.id}}' }, scope), {
      list: ['b'],
      id: 'e1',
    });
    assert.equal(lookupPath(scope, 'trigger.constructor'), undefined);
  });
});

describe('rejected human nodes', () => {
  it('skip dependents without run_if; dependents with a run_if decide for themselves', () => {
    const nodes = [
      n('approve'),
      n('pay', ['approve']),
      n('on_reject', ['approve'], { run_if: 'nodes.approve.output.decision == "rejected"' }),
    ];
    const r = nextSteps(nodes, { approve: 'completed' }, (node) => node.id === 'on_reject', new Set(['approve']));
    assert.deepEqual(r.ready, ['on_reject']);
    assert.deepEqual(r.skipped, [{ id: 'pay', reason: 'upstream node "approve" was rejected' }]);
  });
});

describe('cron', () => {
  it('finds the next occurrence in a time zone, across a DST change', () => {
    // Berlin moves to summer time on 2026-03-29: 08:00 local is 07:00 UTC before, 06:00 UTC after.
    assert.equal(
      new Date(nextOccurrence('0 8 * * *', 'Europe/Berlin', Date.parse('2026-03-27T12:00:00Z'))!).toISOString(),
      '2026-03-28T07:00:00.000Z',
    );
    assert.equal(
      new Date(nextOccurrence('0 8 * * *', 'Europe/Berlin', Date.parse('2026-03-28T12:00:00Z'))!).toISOString(),
      '2026-03-29T06:00:00.000Z',
    );
    assert.equal(
      nextOccurrence('*/5 * * * * *', undefined, Date.parse('2026-01-01T00:00:03Z')),
      Date.parse('2026-01-01T00:00:05Z'),
    );
  });
  it('reports unusable expressions and zones', () => {
    assert.equal(cronError('0 8 * * 1-5', 'America/New_York'), null);
    assert.match(cronError('every monday') ?? '', /./);
    assert.equal(cronError('0 8 * * *', 'Mars/Olympus'), 'unknown time zone "Mars/Olympus"');
  });
  it('validation checks schedule triggers and nodes', () => {
    const r = validateWorkflow({
      trigger: { type: 'schedule', conditions: { cron_expression: 'nope' } },
      nodes: [n('a')],
    });
    assert.ok(
      r.errors.some((e) => e.startsWith('Trigger cron_expression is not valid')),
      r.errors.join(),
    );
    assert.deepEqual(validateWorkflow({ trigger: { type: 'teleport' }, nodes: [n('a')] }).errors, [
      'Unknown trigger type "teleport"',
    ]);
    assert.deepEqual(validateWorkflow({ trigger: { type: 'webhook', conditions: {} }, nodes: [n('a')] }).errors, [
      'Trigger webhook needs conditions.secret (at least 8 characters)',
    ]);
  });
});

describe('document_upload conditions', () => {
  const facts = {
    document_id: 'd',
    filename: 'a.pdf',
    folder_id: 'f',
    folder_path: '/Invoices/2025',
    file_type: 'pdf',
    metadata: { dept: 'ops', n: 1 },
  };
  it('folder_path is a prefix by whole segments; file_types and metadata must match', () => {
    assert.equal(uploadMatches({}, facts), true);
    assert.equal(uploadMatches({ folder_path: '/Invoices' }, facts), true);
    assert.equal(uploadMatches({ folder_path: '/Invoices/2025/' }, facts), true);
    assert.equal(uploadMatches({ folder_path: '/Invoice' }, facts), false);
    assert.equal(uploadMatches({ file_types: ['.PDF', 'docx'] }, facts), true);
    assert.equal(uploadMatches({ file_types: ['docx'] }, facts), false);
    assert.equal(uploadMatches({ metadata: { dept: 'ops' } }, facts), true);
    assert.equal(uploadMatches({ metadata: { dept: 'ops', n: 2 } }, facts), false);
  });
});
