import { iso } from '../../lib/clock.ts';
import type { Task } from './tasks.repository.ts';

/** A human task as the API shows it (spec "Human task", plus its state and decision). */
export function presentTask(t: Task) {
  return {
    id: t.id,
    execution_id: t.executionId,
    workflow_id: t.workflowId,
    workflow_name: t.workflowName,
    node_id: t.nodeId,
    source: t.source,
    source_ref: t.sourceRef,
    task_type: t.taskType,
    title: t.title,
    description: t.description,
    context: t.context,
    data: t.data,
    editable_fields: t.editableFields,
    assignee_type: t.assigneeType,
    assignee_value: t.assigneeValue,
    status: t.status,
    decision: t.decision,
    comments: t.comments,
    decided_by: t.decidedBy,
    created_at: iso(t.createdAt),
    due_at: iso(t.dueAt),
    escalation_at: iso(t.escalationAt),
    escalated_at: iso(t.escalatedAt),
    completed_at: iso(t.completedAt),
  };
}

/** The answer of completing a task, with where its execution stands now. */
export function presentTaskCompletion(t: Task, executionStatus: string | null) {
  return {
    task_id: t.id,
    status: 'completed',
    decision: t.decision!,
    completed_at: iso(t.completedAt!),
    execution_id: t.executionId,
    execution_status: executionStatus,
  };
}
