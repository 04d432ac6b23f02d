import { iso } from '../../lib/clock.ts';
import type { WorkflowDefinition } from './engine/types.ts';
import type { Execution, NodeRun, Workflow } from './workflows.repository.ts';
import type { WorkflowStatistics } from './workflows.service.ts';

function presentStatistics(s: WorkflowStatistics) {
  return {
    total_executions: s.totalExecutions,
    successful: s.successful,
    failed: s.failed,
    in_progress: s.inProgress,
    avg_duration_seconds: s.avgDurationSeconds,
  };
}

/** A workflow in full (single get, update). */
export function presentWorkflow(w: Workflow, statistics?: WorkflowStatistics) {
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    status: w.status,
    version: w.version,
    trigger: w.trigger,
    nodes: w.nodes,
    error_handling: w.errorHandling,
    ...(statistics ? { statistics: presentStatistics(statistics) } : {}),
    created_at: iso(w.createdAt),
    updated_at: iso(w.updatedAt),
  };
}

/** The answer of create. */
export function presentCreatedWorkflow(w: Workflow) {
  return { id: w.id, name: w.name, status: w.status, version: w.version, created_at: iso(w.createdAt) };
}

/** The list view of the spec: `trigger_type`, `node_count`, `last_execution`. */
export function presentWorkflowListItem(w: Workflow) {
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    status: w.status,
    version: w.version,
    trigger_type: w.trigger.type ?? 'manual',
    node_count: w.nodes.length,
    last_execution: iso(w.lastExecutionAt),
    created_at: iso(w.createdAt),
    updated_at: iso(w.updatedAt),
  };
}

/** An execution as lists show it. */
export function presentExecutionSummary(e: Execution) {
  return {
    id: e.id,
    workflow_id: e.workflowId,
    workflow_name: e.workflowName,
    workflow_version: e.workflowVersion,
    status: e.status,
    paused_reason: e.pausedReason,
    test_run: e.testRun,
    trigger_type: e.triggerType,
    priority: e.priority,
    started_at: iso(e.startedAt),
    finished_at: iso(e.finishedAt),
    error: e.error,
    failed_node_id: e.failedNodeId,
    // A cancelled execution says when and why, as the cancel call answered.
    ...(e.status === 'cancelled' ? { cancelled_at: iso(e.finishedAt), reason: e.cancelReason } : {}),
  };
}

/** An execution with its progress and node results (single get). */
export function presentExecution(e: Execution, runs: readonly NodeRun[], definition: WorkflowDefinition) {
  const nodes = definition.nodes;
  const finished = new Set(['completed', 'failed', 'skipped', 'cancelled']);
  const byNode = new Map(runs.map((r) => [r.nodeId, r]));
  const nodeResults: Record<string, unknown> = {};
  for (const run of runs) {
    nodeResults[run.nodeId] = {
      status: run.status,
      output: run.output,
      completed_at: iso(run.completedAt),
      ...(run.error ? { error: run.error } : {}),
      ...(run.reason ? { reason: run.reason } : {}),
      attempt: run.attempt,
    };
  }
  const current = runs.filter((r) => r.status === 'running').sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0))[0];
  return {
    ...presentExecutionSummary(e),
    current_node: current?.nodeId ?? null,
    nodes_completed: runs.filter((r) => r.status === 'completed').map((r) => r.nodeId),
    nodes_pending: nodes.filter((n) => !finished.has(byNode.get(n.id)?.status ?? '')).map((n) => n.id),
    progress_percent:
      nodes.length === 0 ? 100 : Math.floor((100 * runs.filter((r) => finished.has(r.status)).length) / nodes.length),
    trigger_data: e.triggerData,
    node_results: nodeResults,
    final_output: e.finalOutput,
    definition: {
      nodes: definition.nodes,
      trigger: definition.trigger ?? null,
      error_handling: definition.error_handling ?? null,
    },
  };
}

/** The answer of execute. */
export function presentStartedExecution(e: Execution) {
  return {
    execution_id: e.id,
    workflow_id: e.workflowId,
    status: e.status,
    test_run: e.testRun,
    started_at: iso(e.startedAt),
  };
}

/** The answer of a webhook trigger's hook. */
export function presentHookExecution(e: Execution) {
  return { execution_id: e.id, workflow_id: e.workflowId, status: e.status, started_at: iso(e.startedAt) };
}

export function presentPausedExecution(e: Execution) {
  return { execution_id: e.id, status: e.status, paused_at: iso(e.pausedAt!), can_resume: true };
}

export function presentResumedExecution(e: Execution) {
  return { execution_id: e.id, status: 'running', resumed_at: iso(e.updatedAt) };
}

export function presentCancelledExecution(e: Execution) {
  return { execution_id: e.id, status: e.status, cancelled_at: iso(e.finishedAt!), reason: e.cancelReason };
}
