import { toPlain } from './engine/expressions.ts';
import { nextSteps } from './engine/next-steps.ts';
import type { NodeState, WorkflowDefinition, WorkflowNode } from './engine/types.ts';
import { type ChainedSteps, newRun, rejectedNodes, type StepLog } from './execution-engine.ts';
import type { Execution, NodeRun } from './workflows.repository.ts';

/** What evaluating one chained node gave: its result, a skip (`run_if` false), or null to leave it to a job of its own. */
export type ChainVerdict =
  | { kind: 'completed'; output: unknown; setVariable?: { name: string; value: unknown } }
  | { kind: 'skipped'; reason: string }
  | null;

/** Control nodes a chain may run: pure, no user-visible I/O, and no `end` (which closes the execution). */
export const CHAINABLE_TYPES = new Set([
  'condition',
  'switch',
  'transform',
  'filter',
  'aggregate',
  'parallel',
  'join',
  'set_variable',
]);

/** Most steps one job runs past its own: bounds its transaction and its time in the sandbox. */
export const CHAIN_LIMIT = 32;

/**
 * Runs the control steps a finished run makes ready, one after another in memory, from the
 * snapshot its job evaluated against: what each next step would read after the previous step's
 * commit is known here, so the whole stretch commits in the job's one transaction instead of a job,
 * a claim and a transaction per step. It stops at any node that is not a pure control node (I/O,
 * timers, human tasks, `end`), at one whose evaluation fails (its own job then runs it and records
 * the failure with its retries), after `CHAIN_LIMIT` steps, or when `stop()` says so; those nodes are
 * left unstarted for the engine's next-step decision to queue with jobs, as before.
 *
 * `evaluate` runs one node over the given state (its `run_if`, then its handler) outside any
 * transaction. The caller commits the chain only if the runs it started from are still the current
 * ones under the execution's lock (node-runner.ts).
 */
export async function runChain(
  start: { execution: Execution; runs: readonly NodeRun[]; definition: WorkflowDefinition },
  evaluate: (execution: Execution, run: NodeRun, runs: NodeRun[], node: WorkflowNode) => Promise<ChainVerdict>,
  options: { now: () => number; stop?: () => boolean; limit?: number },
): Promise<ChainedSteps> {
  const { definition } = start;
  const limit = options.limit ?? CHAIN_LIMIT;
  let execution = start.execution;
  const runs = [...start.runs];
  const added: NodeRun[] = [];
  const logs: StepLog[] = [];
  let varsChanged = false;
  /** Ready nodes left to their own jobs. */
  const left = new Set<string>();
  for (let progressed = true; progressed && logs.length < limit && !options.stop?.(); ) {
    progressed = false;
    const states: Record<string, NodeState> = {};
    for (const run of runs) states[run.nodeId] = run.status;
    for (const id of left) states[id] = 'queued';
    const decision = nextSteps(definition.nodes, states, undefined, rejectedNodes(definition.nodes, runs));
    for (const skipped of decision.skipped) {
      // Skipped by its trigger rule: recorded as the engine's decision records it (no log line).
      const run = newRun(execution, skipped.id, 'skipped', options.now(), skipped.reason);
      runs.push(run);
      added.push(run);
      progressed = true;
    }
    for (const id of decision.ready) {
      const node = definition.nodes.find((n) => n.id === id);
      if (!node || !CHAINABLE_TYPES.has(node.type) || logs.length >= limit || options.stop?.()) {
        left.add(id);
        continue;
      }
      const startedAt = options.now();
      const queued = newRun(execution, id, 'queued', startedAt, null);
      const running: NodeRun = { ...queued, status: 'running', startedAt };
      const verdict = await evaluate(execution, running, [...runs, running], node);
      if (!verdict) {
        left.add(id);
        continue;
      }
      const at = options.now();
      const finished: NodeRun =
        verdict.kind === 'skipped'
          ? { ...running, status: 'skipped', reason: verdict.reason, completedAt: at, updatedAt: at }
          : {
              ...running,
              status: 'completed',
              output: toPlain(verdict.output ?? null),
              completedAt: at,
              updatedAt: at,
            };
      runs.push(finished);
      added.push(finished);
      logs.push({
        nodeId: id,
        kind: verdict.kind === 'skipped' ? 'node_skipped' : 'node_completed',
        message: verdict.kind === 'skipped' ? verdict.reason : '',
        at,
      });
      if (verdict.kind === 'completed' && verdict.setVariable) {
        // As the column gives the variables back (an undefined value is no variable), for the steps after it.
        const vars = toPlain({ ...execution.vars, [verdict.setVariable.name]: verdict.setVariable.value });
        execution = { ...execution, vars: vars as Record<string, unknown> };
        varsChanged = true;
      }
      progressed = true;
    }
  }
  return { execution, runs, added, logs, varsChanged };
}
