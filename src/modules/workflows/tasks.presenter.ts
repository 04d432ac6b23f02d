import { iso } from '../../lib/clock.ts';
import { parseJson } from '../../lib/json.ts';
import type { TaskRow } from './tasks.repository.ts';

/** A human task as the API shows it (spec "Human task", plus its state and decision). */
export function presentTask(row: TaskRow) {
  return {
    id: row.id,
    execution_id: row.execution_id,
    workflow_id: row.workflow_id,
    workflow_name: row.workflow_name,
    node_id: row.node_id,
    source: row.source,
    source_ref: row.source_ref,
    task_type: row.task_type,
    title: row.title,
    description: row.description,
    context: parseJson(row.context, {}),
    data: parseJson(row.data, {}),
    editable_fields: parseJson<string[] | null>(row.editable_fields, null),
    assignee_type: row.assignee_type,
    assignee_value: row.assignee_value,
    status: row.status,
    decision: row.decision,
    comments: row.comments,
    decided_by: row.decided_by,
    created_at: iso(row.created_at),
    due_at: iso(row.due_at),
    escalation_at: iso(row.escalation_at),
    escalated_at: iso(row.escalated_at),
    completed_at: iso(row.completed_at),
  };
}
