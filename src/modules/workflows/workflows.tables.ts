/** A workflow definition; `trigger`, `nodes`, `error_handling` are JSON of the current version. */
export interface WorkflowsTable {
  id: string;
  tenant_id: string;
  name: string;
  description: string;
  status: 'draft' | 'active' | 'paused';
  version: number;
  trigger: string;
  nodes: string;
  error_handling: string;
  last_execution_at: number | null;
  /** Schedule trigger: when the next tick is due. */
  next_run_at: number | null;
  /** Who owns it and whom its triggers run as: `user:<id>`, `api_key:<id>`, NULL = the tenant (src/domain/principal.ts). */
  owner: string | null;
  created_at: number;
  updated_at: number;
}

/** An immutable snapshot of a version's `{trigger, nodes, error_handling}`; executions run one. */
export interface WorkflowVersionsTable {
  tenant_id: string;
  workflow_id: string;
  version: number;
  definition: string;
  created_at: number;
}

/** One run of a workflow version. `trigger_data`, `vars`, `final_output` are JSON. */
export interface WorkflowExecutionsTable {
  id: string;
  tenant_id: string;
  workflow_id: string;
  workflow_version: number;
  workflow_name: string;
  status: 'running' | 'paused' | 'completed' | 'failed' | 'cancelled';
  paused_reason: string | null;
  trigger_type: string;
  trigger_data: string;
  vars: string;
  test_run: number;
  final_output: string | null;
  error: string | null;
  failed_node_id: string | null;
  cancel_reason: string | null;
  /** `<source>:<workflow>:<event or tick>` when a trigger started it; unique. */
  trigger_key: string | null;
  /** `low`, `normal`, `high` or `urgent`: the job priority of its steps (execution-priority.ts). */
  priority: string;
  /** Whom it runs as and who owns it: `user:<id>`, `api_key:<id>`, NULL = the tenant (src/domain/principal.ts). */
  principal: string | null;
  started_at: number;
  paused_at: number | null;
  finished_at: number | null;
  updated_at: number;
}

/** One node of one execution; unique per (execution, node). `output` is JSON. */
export interface WorkflowNodeRunsTable {
  id: string;
  tenant_id: string;
  execution_id: string;
  node_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'skipped' | 'cancelled';
  attempt: number;
  output: string | null;
  error: string | null;
  reason: string | null;
  /** The job allowed to run it, or `task:<id>` while a human task holds it. */
  runner_job_id: string | null;
  /** JSON: how far a node that runs in several jobs got (a loop's outputs so far); null otherwise. */
  checkpoint: string | null;
  started_at: number | null;
  completed_at: number | null;
  updated_at: number;
}

/** Append-only history of an execution's transitions. */
export interface WorkflowExecutionLogTable {
  id: string;
  tenant_id: string;
  execution_id: string;
  node_id: string | null;
  kind: string;
  message: string;
  at: number;
}

/**
 * A human task (contract §10) of a human node, or of another module's `source` (an import agent's
 * proposal), which then has no execution. `context`, `editable_fields`, `data` are JSON.
 */
export interface WorkflowTasksTable {
  id: string;
  tenant_id: string;
  execution_id: string | null;
  workflow_id: string | null;
  workflow_name: string | null;
  node_id: string | null;
  run_id: string | null;
  task_type: 'approval' | 'review' | 'assignment';
  title: string;
  description: string;
  context: string;
  assignee_type: 'role' | 'user' | 'workspace';
  assignee_value: string;
  editable_fields: string | null;
  on_timeout: 'fail' | 'approve' | 'reject';
  escalate_to: string | null;
  status: 'pending' | 'completed' | 'expired';
  decision: string | null;
  comments: string | null;
  data: string | null;
  decided_by: string | null;
  escalated_at: number | null;
  created_at: number;
  due_at: number;
  escalation_at: number;
  completed_at: number | null;
  updated_at: number;
  /** `workflow`, or the name a module registered its task source under (TasksService.registerSource). */
  source: string;
  source_ref: string | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    workflows: WorkflowsTable;
    workflow_versions: WorkflowVersionsTable;
    workflow_executions: WorkflowExecutionsTable;
    workflow_node_runs: WorkflowNodeRunsTable;
    workflow_execution_log: WorkflowExecutionLogTable;
    workflow_tasks: WorkflowTasksTable;
  }
}
