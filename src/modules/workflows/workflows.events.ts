/** The events the workflows module emits (executions and human tasks), with their data. */
declare module '../../events/event-catalogue.ts' {
  interface EventDataMap {
    'dag.execution.started': { execution_id: string; workflow_id: string; workflow_name: string; status: 'running'; trigger_type: string };
    /** Spec: exactly these; `duration_seconds` an integer, `final_output` any JSON. */
    'dag.execution.completed': {
      execution_id: string;
      workflow_id: string;
      workflow_name: string;
      status: string;
      duration_seconds: number;
      final_output: unknown;
    };
    'dag.execution.failed': { execution_id: string; workflow_id: string; workflow_name: string; status: 'failed'; error: string; failed_node_id: string | null };
    'dag.execution.paused': { execution_id: string; workflow_id: string; workflow_name: string; status: 'paused'; paused_reason: string | null };
    // A task of another source (an import agent's proposal) has no execution: null ids, and names its `source`.
    'dag.task.created': {
      task_id: string;
      execution_id: string | null;
      workflow_id: string | null;
      source?: string;
      title: string;
      assignee_type: string;
      assignee_value: string;
      due_at: string | null;
    };
    'dag.task.completed': { task_id: string; execution_id: string | null; workflow_id: string | null; source?: string; decision: string | null; completed_by: string | null };
    'dag.task.escalated': { task_id: string; execution_id: string | null; workflow_id: string | null; source?: string; escalated_to: string | null };
  }
}
