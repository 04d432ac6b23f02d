import { NODE_TYPES } from './node-types.ts';
import { type NodeState, TERMINAL_STATES, type TriggerRule, type WorkflowNode } from './types.ts';

/** A node the decision skipped, and why. */
export interface SkippedNode {
  id: string;
  reason: string;
}

export interface NextSteps {
  /** Nodes to start now. */
  ready: string[];
  /** Nodes that will never run in this execution. */
  skipped: SkippedNode[];
  /** Every node has finished (nothing queued, running or startable). */
  done: boolean;
}

/**
 * What runs next: for every node not yet started whose dependencies have all finished, apply its
 * trigger rule, then its `run_if`. Skips propagate within one call (a skipped node can decide its
 * dependents), so an untaken branch goes dark at once. `runIf` evaluates a node's condition;
 * it is given the node and must be pure. A node never fires before all its inputs finished.
 * `rejected` names completed nodes that said no (a rejected human task): their dependents without
 * a `run_if` are skipped, those with one decide for themselves (a rejection branch).
 */
export function nextSteps(
  nodes: readonly WorkflowNode[],
  states: Readonly<Record<string, NodeState | undefined>>,
  runIf: (node: WorkflowNode) => boolean = () => true,
  rejected: ReadonlySet<string> = new Set(),
): NextSteps {
  const current: Record<string, NodeState | undefined> = { ...states };
  const ready: string[] = [];
  const skipped: SkippedNode[] = [];
  let changed = true;
  while (changed) {
    changed = false;
    for (const node of nodes) {
      if (current[node.id] !== undefined) continue;
      const depStates = (node.depends_on ?? []).map((d) => current[d]);
      if (depStates.some((s) => s === undefined || !TERMINAL_STATES.includes(s))) continue;
      const rule = node.trigger_rule ?? NODE_TYPES[node.type]?.defaultRule ?? 'all_success';
      const rejectedDep = node.run_if === undefined ? (node.depends_on ?? []).find((d) => rejected.has(d)) : undefined;
      const verdict =
        rejectedDep !== undefined
          ? `upstream node "${rejectedDep}" was rejected`
          : ruleVerdict(rule, depStates as NodeState[]);
      if (verdict !== null) {
        current[node.id] = 'skipped';
        skipped.push({ id: node.id, reason: verdict });
      } else if (node.run_if !== undefined && !runIf(node)) {
        current[node.id] = 'skipped';
        skipped.push({ id: node.id, reason: 'run_if is false' });
      } else {
        current[node.id] = 'queued';
        ready.push(node.id);
      }
      changed = true;
    }
  }
  const done = nodes.every((n) => {
    const s = current[n.id];
    return s !== undefined && TERMINAL_STATES.includes(s);
  });
  return { ready, skipped, done };
}

/** null when the rule is met, else the skip reason. Dependencies are all finished here. */
export function ruleVerdict(rule: TriggerRule, deps: readonly NodeState[]): string | null {
  if (deps.length === 0) return null;
  const succeeded = deps.filter((s) => s === 'completed').length;
  const failed = deps.filter((s) => s === 'failed').length;
  switch (rule) {
    case 'all_success':
      if (failed > 0) return 'an upstream node failed (trigger rule all_success)';
      return succeeded === deps.length ? null : 'an upstream node was skipped (trigger rule all_success)';
    case 'all_done':
      return null;
    case 'one_success':
      return succeeded > 0 ? null : 'no upstream node succeeded (trigger rule one_success)';
    case 'one_failed':
      return failed > 0 ? null : 'no upstream node failed (trigger rule one_failed)';
    case 'none_failed_min_one_success':
      if (failed > 0) return 'an upstream node failed (trigger rule none_failed_min_one_success)';
      return succeeded > 0 ? null : 'no upstream node succeeded (trigger rule none_failed_min_one_success)';
  }
}
