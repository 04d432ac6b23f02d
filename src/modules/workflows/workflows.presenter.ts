import { parseJson } from '../../lib/json.ts';
import type { WorkflowNode } from './engine/types.ts';
import type { ExecutionRow, NodeRunRow, WorkflowRow } from './workflows.repository.ts';
import type { WorkflowStatistics } from './workflows.service.ts';
import { iso } from '../../lib/clock.ts';


/** A workflow in full (single get, create, update). */
export function presentWorkflow(row: WorkflowRow, statistics?: WorkflowStatistics) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    version: row.version,
    trigger: parseJson(row.trigger, { type: 'manual' }),
    nodes: parseJson(row.nodes, []),
    error_handling: parseJson(row.error_handling, {}),
    ...(statistics ? { statistics } : {}),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** The list view of the spec: `trigger_type`, `node_count`, `last_execution`. */
export function presentWorkflowListItem(row: WorkflowRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    version: row.version,
    trigger_type: parseJson<{ type?: string }>(row.trigger, {}).type ?? 'manual',
    node_count: parseJson<unknown[]>(row.nodes, []).length,
    last_execution: iso(row.last_execution_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** An execution as lists show it. */
export function presentExecutionSummary(row: ExecutionRow) {
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    workflow_name: row.workflow_name,
    workflow_version: row.workflow_version,
    status: row.status,
    paused_reason: row.paused_reason,
    test_run: row.test_run === 1,
    trigger_type: row.trigger_type,
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    error: row.error,
    failed_node_id: row.failed_node_id,
  };
}

/** An execution with its progress and node results (single get). */
export function presentExecution(row: ExecutionRow, runs: readonly NodeRunRow[], nodes: readonly WorkflowNode[]) {
  const finished = new Set(['completed', 'failed', 'skipped', 'cancelled']);
  const byNode = new Map(runs.map((r) => [r.node_id, r]));
  const nodeResults: Record<string, unknown> = {};
  for (const run of runs) {
    nodeResults[run.node_id] = {
      status: run.status,
      output: parseJson(run.output, null),
      completed_at: iso(run.completed_at),
      ...(run.error ? { error: run.error } : {}),
      ...(run.reason ? { reason: run.reason } : {}),
      attempt: run.attempt,
    };
  }
  const current = runs.filter((r) => r.status === 'running').sort((a, b) => (a.started_at ?? 0) - (b.started_at ?? 0))[0];
  return {
    ...presentExecutionSummary(row),
    current_node: current?.node_id ?? null,
    nodes_completed: runs.filter((r) => r.status === 'completed').map((r) => r.node_id),
    nodes_pending: nodes.filter((n) => !finished.has(byNode.get(n.id)?.status ?? '')).map((n) => n.id),
    progress_percent: nodes.length === 0 ? 100 : Math.floor((100 * runs.filter((r) => finished.has(r.status)).length) / nodes.length),
    trigger_data: parseJson(row.trigger_data, {}),
    node_results: nodeResults,
    final_output: parseJson(row.final_output, null),
  };
}
