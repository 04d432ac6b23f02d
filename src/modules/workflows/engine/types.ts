/** Plain data the engine works on: a workflow definition and the states of its node runs. */

export const TRIGGER_RULES = [
  'all_success',
  'all_done',
  'one_success',
  'one_failed',
  'none_failed_min_one_success',
] as const;
export type TriggerRule = (typeof TRIGGER_RULES)[number];

/** One node of a definition, as stored (docs/api-decisions.md §10). */
export interface WorkflowNode {
  id: string;
  type: string;
  config?: Record<string, unknown>;
  depends_on?: string[];
  run_if?: string;
  trigger_rule?: TriggerRule;
  timeout_seconds?: number;
  timeout_hours?: number;
  retry?: { max_attempts: number; backoff_seconds?: number };
  /** Where an editor draws the node; the engine never reads it. */
  position?: { x: number; y: number };
}

/** What validation and execution read of a workflow. */
export interface WorkflowDefinition {
  nodes: WorkflowNode[];
  trigger?: { type: string; conditions?: Record<string, unknown> };
  error_handling?: { on_failure?: 'fail' | 'pause' | 'continue'; notify_on_failure?: string[] };
}

/** A node run's state as the next-step decision sees it; absent = not started. */
export type NodeState = 'queued' | 'running' | 'completed' | 'failed' | 'skipped' | 'cancelled';

/** Finished states: nothing more will happen to the node in this execution. */
export const TERMINAL_STATES: readonly NodeState[] = ['completed', 'failed', 'skipped', 'cancelled'];

/**
 * One finding of validation, structured for an editor: a stable `code`, the node it is about (absent
 * for the workflow as a whole or its trigger) and the field (`config.<key>`, `depends_on`, `run_if`,
 * `trigger.conditions.<key>`…); `message` is the sentence `errors`/`warnings` carry.
 */
export interface ValidationIssue {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  node_id?: string;
  field?: string;
}

export interface ValidationResult {
  errors: string[];
  warnings: string[];
  issues: ValidationIssue[];
}
